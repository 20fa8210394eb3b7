import { timingSafeEqual } from 'node:crypto';
import { ApiError, validationError } from '../../domain/errors.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/database.js';
import type { SsoConfigsTable } from '../../platform/db/schema.js';
import { randomToken } from '../people/passwords.js';
import type { SessionSettings } from '../people/service.js';
import type { AppContext } from '../context.js';
import { openSecret, SecretUnreadable } from '../webhooks/secrets.js';
import { redirectUriFor } from './config.js';
import { signInIdentity } from './identities.js';
import { authorizationUrl, clientConfiguration, exchangeCode } from './provider.js';
import {
  claimLogin,
  companyOfDomain,
  deleteExpiredLogins,
  findConfig,
  findOpenLogin,
  insertLogin,
} from './queries.js';
import { derivedChecks, emailDomain, hashToken, safeReturnTo } from './rules.js';

/*
 * The sign-in with the company's provider: `start` finds the company by the email's domain, records the
 * sign-in under way and sends the browser to the provider; `finish` (the callback) takes that record
 * once, lets openid-client check the provider's answer and its ID token, and signs the person in.
 * The browser carries a binding cookie: the record holds its hash, the nonce and the PKCE verifier are
 * derived from it, so a callback URL replayed in another browser finishes nothing.
 */

/** How long a sign-in under way may take at the provider. */
export const LOGIN_MINUTES = 10;

/** `GET /sso/lookup`: whether the email's domain signs in with a company's provider. */
export async function ssoLookup(db: Executor, email: string): Promise<{ singleSignOn: boolean }> {
  const domain = emailDomain(email.trim());
  return { singleSignOn: domain !== null && (await companyOfDomain(db, domain)) !== undefined };
}

async function configOfDomain(db: Executor, email: string): Promise<SsoConfigsTable> {
  const domain = emailDomain(email);
  if (domain === null)
    throw validationError([{ field: 'email', message: 'not an email address', code: 'invalid' }]);
  const companyId = await companyOfDomain(db, domain);
  const config = companyId === undefined ? undefined : await findConfig(db, companyId);
  if (!config)
    throw new ApiError('sso_not_configured', `no company signs in with its identity provider for ${domain}`);
  return config;
}

/** The company's client, its secret opened with the key that sealed it. */
async function clientOf(config: SsoConfigsTable, key: Buffer, now: number) {
  let clientSecret: string;
  try {
    clientSecret = openSecret(key, config.client_secret);
  } catch (error) {
    if (error instanceof SecretUnreadable) throw new ApiError('sso_configuration_unreadable', error.message);
    throw error;
  }
  return clientConfiguration({ issuer: config.issuer, clientId: config.client_id, clientSecret }, now);
}

/**
 * `GET /sso/start`: the provider's authorization URL for this email's company, and the binding the
 * browser keeps in a cookie. `baseUrl`: the public base URL (or the request's own origin).
 */
export async function startSso(
  ctx: AppContext,
  key: Buffer,
  input: { email: string; returnTo: string | undefined; baseUrl: string },
): Promise<{ location: string; binding: string; companyId: string }> {
  const email = input.email.trim();
  const config = await configOfDomain(ctx.database.db, email);
  const client = await clientOf(config, key, ctx.now());
  const state = randomToken();
  const binding = randomToken();
  const { nonce, codeVerifier } = derivedChecks(binding);
  const redirectUri = redirectUriFor(input.baseUrl);
  const url = await authorizationUrl(client, { redirectUri, state, nonce, codeVerifier, loginHint: email });
  const now = ctx.now();
  await deleteExpiredLogins(ctx.database.db, new Date(now).toISOString());
  await insertLogin(ctx.database.db, {
    state_hash: hashToken(state),
    company_id: config.company_id,
    browser_hash: hashToken(binding),
    redirect_uri: redirectUri,
    return_to: safeReturnTo(input.returnTo),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + LOGIN_MINUTES * 60_000).toISOString(),
    used_at: null,
  });
  return { location: url.href, binding, companyId: config.company_id };
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The sign-in under way that this state and this browser started, taken once; sso_state_invalid otherwise. */
async function takeLogin(db: Executor, state: string | undefined, binding: string | null, now: number) {
  const refused = (why: string) => new ApiError('sso_state_invalid', why);
  if (!state) throw refused('the provider sent no state');
  const at = new Date(now).toISOString();
  const login = await findOpenLogin(db, hashToken(state), at);
  if (!login) throw refused('this sign-in is unknown, was already used or has expired; sign in again');
  if (binding === null || !sameHash(hashToken(binding), login.browser_hash))
    throw refused('this sign-in was started in another browser or tab; sign in again');
  if (!(await claimLogin(db, login.state_hash, at))) throw refused('this sign-in was already used');
  return login;
}

export interface FinishInput {
  /** The callback's query string as received (`?code=…&state=…&iss=…`). */
  search: string;
  state: string | undefined;
  /** The binding cookie's value, or null when the browser sent none. */
  binding: string | null;
  previousSessionId: string | null;
}

/**
 * `GET /sso/callback`: checks the state against the sign-in under way (once, in this browser), lets
 * openid-client check the provider's answer, then signs the person in: the session, the person and
 * the address to return to.
 */
export async function finishSso(ctx: AppContext, key: Buffer, settings: SessionSettings, input: FinishInput) {
  const login = await takeLogin(ctx.database.db, input.state, input.binding, ctx.now());
  const config = await findConfig(ctx.database.db, login.company_id);
  if (!config) throw new ApiError('sso_not_configured', "the company's single sign-on has been removed");
  const client = await clientOf(config, key, ctx.now());
  const callbackUrl = new URL(login.redirect_uri);
  callbackUrl.search = input.search;
  const { nonce, codeVerifier } = derivedChecks(input.binding!);
  const identity = await exchangeCode(client, {
    callbackUrl,
    state: input.state!,
    nonce,
    codeVerifier,
    groupsClaim: config.groups_claim,
  });
  const session = { settings, previousSessionId: input.previousSessionId };
  const signIn = () =>
    ctx.database.transaction((tx) => signInIdentity(tx, ctx.now(), config, identity, session));
  let result;
  try {
    result = await signIn();
  } catch (error) {
    // Two first sign-ins of one identity at once: the link's key let one through; the other finds it now.
    if (!isUniqueViolation(error)) throw error;
    result = await signIn();
  }
  return { ...result, returnTo: login.return_to, companyId: config.company_id };
}
