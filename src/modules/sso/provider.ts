import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { ApiError, type FieldError } from '../../domain/errors.js';
import { type OutboundPolicy, UnsafeTarget } from '../webhooks/address-guard.js';
import { guardedFetch } from './outbound.js';
import { isHttpIssuer } from './rules.js';

/*
 * The conversation with the company's OpenID Provider, through openid-client (a certified relying
 * party library): discovery, the authorization URL, the code exchange with every check of the
 * response and the ID token (state, RFC 9207 `iss`, PKCE, nonce, issuer, audience, expiry and the
 * JWS signature against the provider's keys), and UserInfo when the ID token lacks a claim.
 */

/** Seconds any one request to the provider may take. */
const PROVIDER_TIMEOUT_SECONDS = 10;
/** How long a discovered configuration (metadata and key cache) is reused. Only speed rests on it. */
const CACHE_MS = 5 * 60_000;
export const SCOPES = 'openid email profile';

export interface ClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const cache = new Map<string, { config: oidc.Configuration; until: number }>();

function cacheKey(client: ClientSettings, policy: OutboundPolicy): string {
  const secret = createHash('sha256').update(client.clientSecret).digest('base64url');
  return JSON.stringify([client.issuer, client.clientId, secret, policy.allowedHosts]);
}

/**
 * A refusal of single sign-on: what the person is told (fixed words, never the provider's answer or a
 * network error: no oracle of what answers where), and, for the server's log only, what happened.
 */
export class SsoProblem extends ApiError {
  constructor(
    name: ConstructorParameters<typeof ApiError>[0],
    detail: string,
    readonly logDetail: string | null = null,
    fieldErrors: FieldError[] | null = null,
  ) {
    super(name, detail, fieldErrors);
  }
}

/** The library's message with its cause's, for the server's log only. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : null;
  return cause && cause !== error.message ? `${error.message}: ${cause}` : error.message;
}

const UNREACHABLE = 'the identity provider could not be reached';
/** Error codes of RFC 6749 and OpenID Connect that may be named back (nothing else the provider says is). */
const KNOWN_ERRORS = new Set([
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'interaction_required',
  'login_required',
  'account_selection_required',
  'consent_required',
  'invalid_grant',
  'invalid_client',
  'unsupported_grant_type',
]);
const named = (error: string) => (KNOWN_ERRORS.has(error) ? error : 'an error');

/** Whether the provider did not answer (refused address, network error, timeout, not its JSON). */
function isNetworkFailure(error: unknown): boolean {
  if (error instanceof UnsafeTarget) return true;
  if (error instanceof DOMException) return error.name === 'TimeoutError' || error.name === 'AbortError';
  if (error instanceof oidc.ClientError) {
    const unanswered = [
      'OAUTH_RESPONSE_IS_NOT_CONFORM',
      'OAUTH_RESPONSE_IS_NOT_JSON',
      'OAUTH_TIMEOUT',
      'OAUTH_ABORT',
    ];
    if (error.code !== undefined) return unanswered.includes(error.code);
    // "something went wrong": what the fetch itself threw.
    return isNetworkFailure(error.cause);
  }
  // A socket's own failure (ECONNREFUSED, ETIMEDOUT, ERR_…), not an error the library made of an answer.
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  if (error instanceof Error && error.name === 'AbortError') return true;
  return typeof code === 'string' && /^(E[A-Z]+|ERR_[A-Z_]+)$/.test(code);
}

/** An error of the library (or of the guarded fetch) as the problem the person gets. */
export function providerProblem(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof oidc.AuthorizationResponseError)
    return new SsoProblem(
      'sso_denied',
      `the identity provider answered ${named(error.error)}`,
      describe(error),
    );
  if (error instanceof oidc.ResponseBodyError)
    return new SsoProblem(
      'sso_response_invalid',
      `the token endpoint refused: ${named(error.error)}`,
      describe(error),
    );
  if (isNetworkFailure(error))
    return new SsoProblem('sso_provider_unavailable', UNREACHABLE, describe(error));
  // The library's own checks (state, iss, nonce, aud, exp, signature), in its own fixed words.
  if (error instanceof oidc.ClientError || error instanceof oidc.WWWAuthenticateChallengeError)
    return new SsoProblem('sso_response_invalid', describe(error), describe(error));
  throw error;
}

/** How the provider is reached: the guarded fetch, plain http only for a loopback issuer. */
function requestOptions(issuer: string, policy: OutboundPolicy) {
  const execute = [oidc.enableNonRepudiationChecks];
  if (isHttpIssuer(issuer)) execute.push(oidc.allowInsecureRequests);
  return { execute, fetch: guardedFetch(policy) as unknown as oidc.CustomFetch };
}

async function discover(client: ClientSettings, policy: OutboundPolicy): Promise<oidc.Configuration> {
  const { execute, fetch } = requestOptions(client.issuer, policy);
  const config = await oidc.discovery(new URL(client.issuer), client.clientId, undefined, undefined, {
    execute,
    timeout: PROVIDER_TIMEOUT_SECONDS,
    [oidc.customFetch]: fetch,
  });
  const methods = config.serverMetadata().token_endpoint_auth_methods_supported;
  // client_secret_basic is the default of OpenID Connect; client_secret_post when the provider says only that.
  const auth =
    methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
      ? oidc.ClientSecretPost(client.clientSecret)
      : oidc.ClientSecretBasic(client.clientSecret);
  const ready = new oidc.Configuration(config.serverMetadata(), client.clientId, undefined, auth);
  for (const step of execute) step(ready);
  ready.timeout = PROVIDER_TIMEOUT_SECONDS;
  ready[oidc.customFetch] = fetch;
  return ready;
}

/** The provider's configuration for this client (discovered, or reused for a few minutes). */
export async function clientConfiguration(
  client: ClientSettings,
  policy: OutboundPolicy,
  now: number,
): Promise<oidc.Configuration> {
  const key = cacheKey(client, policy);
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.config;
  let config: oidc.Configuration;
  try {
    config = await discover(client, policy);
  } catch (error) {
    throw providerProblem(error);
  }
  for (const [k, entry] of cache) if (entry.until <= now) cache.delete(k);
  cache.set(key, { config, until: now + CACHE_MS });
  return config;
}

/** The same words whatever happened (nothing answered, an address refused, not its document). */
const UNREADABLE =
  "the issuer's OpenID configuration (its /.well-known/openid-configuration) could not be read";

/**
 * Reads the issuer's discovery document, checking that it names this issuer and offers the code flow
 * with S256 PKCE: why not (fixed words; what happened goes to `logDetail`), or null. Used when a
 * configuration is saved, so a typo is caught then.
 */
export async function issuerDiscoveryProblem(
  issuer: string,
  policy: OutboundPolicy,
): Promise<{ message: string; logDetail: string | null } | null> {
  let metadata: oidc.ServerMetadata;
  try {
    const { execute, fetch } = requestOptions(issuer, policy);
    const config = await oidc.discovery(new URL(issuer), 'discovery-check', undefined, undefined, {
      execute: execute.filter((step) => step === oidc.allowInsecureRequests),
      timeout: PROVIDER_TIMEOUT_SECONDS,
      [oidc.customFetch]: fetch,
    });
    metadata = config.serverMetadata();
  } catch (error) {
    return { message: UNREADABLE, logDetail: describe(error) };
  }
  if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.jwks_uri)
    return {
      message: "the issuer's OpenID configuration lacks an authorization, token or JWKS endpoint",
      logDetail: null,
    };
  const responseTypes = metadata.response_types_supported;
  if (responseTypes && !responseTypes.includes('code'))
    return { message: 'the issuer does not offer the code flow', logDetail: null };
  const pkce = metadata.code_challenge_methods_supported;
  if (pkce && !pkce.includes('S256'))
    return { message: 'the issuer does not offer PKCE with S256', logDetail: null };
  return null;
}

/** The URL that sends the browser to the provider: code flow, S256 PKCE, state, nonce and a login hint. */
export async function authorizationUrl(
  config: oidc.Configuration,
  input: { redirectUri: string; state: string; nonce: string; codeVerifier: string; loginHint: string },
): Promise<URL> {
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: input.redirectUri,
    scope: SCOPES,
    response_type: 'code',
    state: input.state,
    nonce: input.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(input.codeVerifier),
    code_challenge_method: 'S256',
    login_hint: input.loginHint,
  });
}

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  /** The ID token's claims, completed from UserInfo when it lacked the email or the groups claim. */
  claims: Record<string, unknown>;
}

/**
 * Checks the authorization response and exchanges its code (openid-client does every check), then
 * reads UserInfo when the ID token lacks `email` or the groups claim (providers that follow OpenID
 * Connect's "claims in UserInfo when an access token is issued"); UserInfo's `sub` must be the token's.
 */
export async function exchangeCode(
  config: oidc.Configuration,
  input: { callbackUrl: URL; state: string; nonce: string; codeVerifier: string; groupsClaim: string | null },
): Promise<VerifiedIdentity> {
  try {
    const tokens = await oidc.authorizationCodeGrant(config, input.callbackUrl, {
      pkceCodeVerifier: input.codeVerifier,
      expectedState: input.state,
      expectedNonce: input.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims();
    if (!idToken) throw new ApiError('sso_response_invalid', 'the provider sent no ID token');
    let claims: Record<string, unknown> = { ...idToken };
    const lacksGroups = input.groupsClaim !== null && !Object.hasOwn(claims, input.groupsClaim);
    const canAsk = config.serverMetadata().userinfo_endpoint !== undefined && tokens.access_token;
    if ((claims.email === undefined || lacksGroups) && canAsk) {
      const userInfo = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
      // The ID token's claims win; UserInfo fills in what it lacked.
      claims = { ...userInfo, ...claims };
    }
    return { issuer: idToken.iss, subject: idToken.sub, claims };
  } catch (error) {
    throw providerProblem(error);
  }
}
