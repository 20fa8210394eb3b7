import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { ApiError } from '../../domain/errors.js';
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

function cacheKey(client: ClientSettings): string {
  const secret = createHash('sha256').update(client.clientSecret).digest('base64url');
  return JSON.stringify([client.issuer, client.clientId, secret]);
}

function isNetworkFailure(error: unknown): boolean {
  if (error instanceof DOMException) return error.name === 'TimeoutError' || error.name === 'AbortError';
  if (error instanceof TypeError) return error.message === 'fetch failed';
  if (error instanceof oidc.ClientError)
    return (
      error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' ||
      error.code === 'OAUTH_RESPONSE_IS_NOT_JSON' ||
      isNetworkFailure(error.cause)
    );
  return false;
}

/** The library's message with its cause's, for the problem's detail (never a secret in either). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : null;
  return cause && cause !== error.message ? `${error.message}: ${cause}` : error.message;
}

/** An error of the library as the problem the person gets. */
export function providerProblem(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isNetworkFailure(error))
    return new ApiError(
      'sso_provider_unavailable',
      `the identity provider did not answer: ${describe(error)}`,
    );
  if (error instanceof oidc.AuthorizationResponseError) {
    const description = error.error_description ? ` (${error.error_description})` : '';
    return new ApiError('sso_denied', `the identity provider answered ${error.error}${description}`);
  }
  if (error instanceof oidc.ResponseBodyError) {
    const description = error.error_description ? ` (${error.error_description})` : '';
    return new ApiError('sso_response_invalid', `the token endpoint refused: ${error.error}${description}`);
  }
  if (error instanceof oidc.ClientError || error instanceof oidc.WWWAuthenticateChallengeError)
    return new ApiError('sso_response_invalid', describe(error));
  throw error;
}

async function discover(client: ClientSettings): Promise<oidc.Configuration> {
  const execute = [oidc.enableNonRepudiationChecks];
  if (isHttpIssuer(client.issuer)) execute.push(oidc.allowInsecureRequests);
  const config = await oidc.discovery(new URL(client.issuer), client.clientId, undefined, undefined, {
    execute,
    timeout: PROVIDER_TIMEOUT_SECONDS,
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
  return ready;
}

/** The provider's configuration for this client (discovered, or reused for a few minutes). */
export async function clientConfiguration(client: ClientSettings, now: number): Promise<oidc.Configuration> {
  const key = cacheKey(client);
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.config;
  let config: oidc.Configuration;
  try {
    config = await discover(client);
  } catch (error) {
    throw providerProblem(error);
  }
  for (const [k, entry] of cache) if (entry.until <= now) cache.delete(k);
  cache.set(key, { config, until: now + CACHE_MS });
  return config;
}

/**
 * Reads the issuer's discovery document, checking that it names this issuer and offers the code flow
 * with S256 PKCE: why not, or null. Used when a configuration is saved, so a typo is caught then.
 */
export async function issuerDiscoveryProblem(issuer: string): Promise<string | null> {
  let metadata: oidc.ServerMetadata;
  try {
    const execute = isHttpIssuer(issuer) ? [oidc.allowInsecureRequests] : [];
    const config = await oidc.discovery(new URL(issuer), 'discovery-check', undefined, undefined, {
      execute,
      timeout: PROVIDER_TIMEOUT_SECONDS,
    });
    metadata = config.serverMetadata();
  } catch (error) {
    return `the issuer's OpenID configuration (${issuer.replace(/\/$/, '')}/.well-known/openid-configuration) could not be read: ${describe(error)}`;
  }
  if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.jwks_uri)
    return "the issuer's OpenID configuration lacks an authorization, token or JWKS endpoint";
  const responseTypes = metadata.response_types_supported;
  if (responseTypes && !responseTypes.includes('code')) return 'the issuer does not offer the code flow';
  const pkce = metadata.code_challenge_methods_supported;
  if (pkce && !pkce.includes('S256')) return 'the issuer does not offer PKCE with S256';
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
    const lacksGroups = input.groupsClaim !== null && claims[input.groupsClaim] === undefined;
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
