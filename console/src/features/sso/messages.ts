import { parseHash } from '../../router.js';

/*
 * The words of single sign-on's refusals (issue 34). A refusal comes back to the sign-in page as
 * `#/sign-in?sso-error=<name>`; only the name travels, the words shown are these (a crafted link
 * cannot put its own text on the page).
 */

const MESSAGES: Record<string, string> = {
  sso_not_configured:
    'Single sign-on is not set up for this email address. Sign in with your password instead.',
  sso_state_invalid:
    'That sign-in took too long, was already used, or was started in another browser or tab. Please try again.',
  sso_provider_unavailable:
    "Your company's identity provider could not be reached. Try again in a moment, or ask an administrator.",
  sso_response_invalid:
    "The answer from your company's identity provider could not be verified, so you were not signed in. Try again; if it keeps happening, tell an administrator.",
  sso_denied:
    "Your company's identity provider did not sign you in: the sign-in was cancelled or refused there.",
  sso_email_unverified:
    'Your identity provider has not confirmed your email address. Ask your administrator to verify it there.',
  sso_email_domain_not_allowed:
    'The email address your identity provider gave is not one your company uses here. Ask an administrator.',
  sso_person_unknown:
    "Your identity provider confirmed who you are, but you have no access to your company's Punchclock yet. Ask an administrator to add you.",
  sso_person_deactivated:
    'Your access to Punchclock has been ended. Ask an administrator if you think this is a mistake.',
  sso_identity_conflict:
    'Your Punchclock account is already linked to another account at your identity provider. Ask an administrator to sort it out.',
  sso_configuration_unreadable: 'Single sign-on is not working on the server. Ask an administrator.',
  sso_link_required:
    'Your account has rights that single sign-on may not give by email alone. Sign in with your password once, then choose “Link my account” on the Company screen.',
  sso_link_mismatch:
    'The identity provider’s account you used is not yours here: its email address is another one, or the provider has not verified it.',
  csrf_failed: 'Single sign-on must be started from this sign-in page. Please try again here.',
  sso_required:
    'Your company signs in with its identity provider. Choose “Continue with single sign-on” instead of a password.',
  rate_limited: 'Too many sign-in attempts from here. Wait a few minutes and try again.',
};

/** The words for an error name of single sign-on. */
export function ssoMessage(error: string): string {
  return MESSAGES[error] ?? 'Single sign-on did not work. Please try again.';
}

/**
 * The refusal the server sent the browser back with (`#/sign-in?sso-error=…`, or for a refused "link my
 * account" `#/company?sso-error=…`), or null.
 */
export function ssoErrorFromAddress(screen: 'sign-in' | 'company' = 'sign-in'): string | null {
  const route = parseHash(location.hash);
  const error = route.segments[0] === screen ? route.query.get('sso-error') : null;
  return error ? ssoMessage(error) : null;
}
