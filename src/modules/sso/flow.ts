import { timingSafeEqual } from 'node:crypto';
import { ApiError, validationError } from '../../domain/errors.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/database.js';
import type { SsoConfigsTable, SsoLoginsTable } from '../../platform/db/schema.js';
import { recordAudit } from '../audit/queries.js';
import { randomToken } from '../people/passwords.js';
import { resolveSession, type SessionSettings } from '../people/service.js';
import type { AppContext } from '../context.js';
import { openSecret, SecretUnreadable } from '../webhooks/secrets.js';
import { policyOf, redirectUriFor, type SsoKeys } from './config.js';
import { signInIdentity } from './identities.js';
import { authorizationUrl, clientConfiguration, exchangeCode, type VerifiedIdentity } from './provider.js';
import {
  claimLogin,
  companyOfDomain,
  deleteExpiredLogins,
  findConfig,
  findOpenLogin,
  insertLogin,
  personHasIdentity,
} from './queries.js';
import { derivedChecks, emailDomain, hashToken, safeReturnTo } from './rules.js';

/*
 * The sign-in with the company's provider: `start` finds the company by the email's domain (or, to link
 * a signed-in person's account, by the person), records the sign-in under way and sends the browser to
 * the provider; `finish` (the callback) takes that record once, lets openid-client check the provider's
 * answer and its ID token, and signs the person in. The browser carries a binding cookie: the record
 * holds its hash, the nonce and the PKCE verifier are derived from it, so a callback URL replayed in
 * another browser finishes nothing. A refusal after the record was taken is audited in its company.
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
async function clientOf(config: SsoConfigsTable, keys: SsoKeys, now: number) {
  let clientSecret: string;
  try {
    clientSecret = openSecret(keys.key, config.client_secret);
  } catch (error) {
    if (error instanceof SecretUnreadable) throw new ApiError('sso_configuration_unreadable', error.message);
    throw error;
  }
  const client = { issuer: config.issuer, clientId: config.client_id, clientSecret };
  return clientConfiguration(client, policyOf(keys), now);
}

export interface Started {
  location: string;
  binding: string;
  companyId: string;
}

/** Records a sign-in under way for `config` and makes the provider's authorization URL. */
async function begin(
  ctx: AppContext,
  keys: SsoKeys,
  config: SsoConfigsTable,
  input: { loginHint: string; returnTo: string | undefined; baseUrl: string; linkUserId: string | null },
): Promise<Started> {
  const client = await clientOf(config, keys, ctx.now());
  const state = randomToken();
  const binding = randomToken();
  const { nonce, codeVerifier } = derivedChecks(binding);
  const redirectUri = redirectUriFor(input.baseUrl);
  const url = await authorizationUrl(client, {
    redirectUri,
    state,
    nonce,
    codeVerifier,
    loginHint: input.loginHint,
  });
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
    link_user_id: input.linkUserId,
  });
  return { location: url.href, binding, companyId: config.company_id };
}

/**
 * `GET /sso/start`: the provider's authorization URL for this email's company, and the binding the
 * browser keeps in a cookie. `baseUrl`: the public base URL (or the request's own origin).
 */
export async function startSso(
  ctx: AppContext,
  keys: SsoKeys,
  input: { email: string; returnTo: string | undefined; baseUrl: string },
): Promise<Started> {
  const email = input.email.trim();
  const config = await configOfDomain(ctx.database.db, email);
  return begin(ctx, keys, config, { ...input, loginHint: email, linkUserId: null });
}

/**
 * `POST /sso/link`: a signed-in person links their account to their company's provider (the way for
 * people the provider may not link by email: super admins, people with rights the configuration's
 * author lacked). The callback links them only if the browser is still signed in as them.
 */
export async function startLink(
  ctx: AppContext,
  keys: SsoKeys,
  input: {
    person: { id: string; companyId: string; email: string };
    returnTo: string | undefined;
    baseUrl: string;
  },
): Promise<Started> {
  const config = await findConfig(ctx.database.db, input.person.companyId);
  if (!config) throw new ApiError('sso_not_configured', 'your company has no single sign-on');
  return begin(ctx, keys, config, {
    loginHint: input.person.email,
    returnTo: input.returnTo,
    baseUrl: input.baseUrl,
    linkUserId: input.person.id,
  });
}

/** `GET /sso/link`: whether the person's company has single sign-on, and whether they are linked to it. */
export async function linkStatus(db: Executor, person: { id: string; companyId: string }) {
  const config = await findConfig(db, person.companyId);
  if (!config) return { available: false, linked: false, issuer: null };
  const linked = await personHasIdentity(db, person.id, config.issuer);
  return { available: true, linked, issuer: config.issuer };
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const stateRefused = (why: string) => new ApiError('sso_state_invalid', why);

/** The sign-in under way that this state names, still open; sso_state_invalid otherwise (not audited: no company). */
async function openLogin(db: Executor, state: string | undefined, now: number) {
  if (!state) throw stateRefused('the provider sent no state');
  const login = await findOpenLogin(db, hashToken(state), new Date(now).toISOString());
  if (!login) throw stateRefused('this sign-in is unknown, was already used or has expired; sign in again');
  return login;
}

/** Takes the sign-in once, only in the browser that started it (another browser leaves it open). */
async function claimInBrowser(db: Executor, login: SsoLoginsTable, binding: string | null, now: number) {
  if (binding === null || !sameHash(hashToken(binding), login.browser_hash))
    throw stateRefused('this sign-in was started in another browser or tab; sign in again');
  if (!(await claimLogin(db, login.state_hash, new Date(now).toISOString())))
    throw stateRefused('this sign-in was already used');
}

/** A refusal of "link my account": the person is still signed in, so the console shows it on the Company screen. */
export class LinkRefusal extends ApiError {
  constructor(error: ApiError) {
    super(error.errorName, error.detail, error.fieldErrors, error.headers);
  }
}

export interface FinishInput {
  /** The callback's query string as received (`?code=…&state=…&iss=…`). */
  search: string;
  state: string | undefined;
  /** The binding cookie's value, or null when the browser sent none. */
  binding: string | null;
  previousSessionId: string | null;
}

/** A refused sign-in, in its company's audit log: the error's name and who the provider said it was; no token. */
async function auditRefusal(
  ctx: AppContext,
  login: SsoLoginsTable,
  error: ApiError,
  identity: VerifiedIdentity | null,
) {
  const email = identity && typeof identity.claims.email === 'string' ? identity.claims.email : null;
  await ctx.database.transaction((tx) =>
    recordAudit(tx, {
      companyId: login.company_id,
      actorType: 'user',
      actorId: login.link_user_id,
      at: new Date(ctx.now()).toISOString(),
      action: 'sso.refused',
      targetType: 'company',
      targetId: login.company_id,
      details: {
        error: error.errorName,
        ...(identity ? { issuer: identity.issuer, subject: identity.subject, email } : {}),
        ...(login.link_user_id ? { link: true } : {}),
      },
    }),
  );
}

/** For "link my account": the browser must still be signed in as the person who started it. */
async function linkingPerson(
  ctx: AppContext,
  settings: SessionSettings,
  login: SsoLoginsTable,
  sessionId: string | null,
) {
  if (login.link_user_id === null) return null;
  const session = await resolveSession(ctx, settings, sessionId);
  if (session?.person.id !== login.link_user_id)
    throw new ApiError('sso_state_invalid', 'sign in again, then link your account');
  return login.link_user_id;
}

/**
 * `GET /sso/callback`: checks the state against the sign-in under way (once, in this browser), lets
 * openid-client check the provider's answer, then signs the person in: the session, the person and
 * the address to return to.
 */
export async function finishSso(
  ctx: AppContext,
  keys: SsoKeys,
  settings: SessionSettings,
  input: FinishInput,
) {
  const login = await openLogin(ctx.database.db, input.state, ctx.now());
  // Not audited: a copied callback URL could be replayed without end; each audited refusal below
  // used up a sign-in that a (rate-limited) start made.
  await claimInBrowser(ctx.database.db, login, input.binding, ctx.now());
  let identity: VerifiedIdentity | null = null;
  try {
    const linkUserId = await linkingPerson(ctx, settings, login, input.previousSessionId);
    const config = await findConfig(ctx.database.db, login.company_id);
    if (!config) throw new ApiError('sso_not_configured', "the company's single sign-on has been removed");
    const client = await clientOf(config, keys, ctx.now());
    const callbackUrl = new URL(login.redirect_uri);
    callbackUrl.search = input.search;
    const { nonce, codeVerifier } = derivedChecks(input.binding!);
    const verified = await exchangeCode(client, {
      callbackUrl,
      state: input.state!,
      nonce,
      codeVerifier,
      groupsClaim: config.groups_claim,
    });
    identity = verified;
    const session = { settings, previousSessionId: input.previousSessionId, linkUserId };
    const signIn = () =>
      ctx.database.transaction((tx) => signInIdentity(tx, ctx.now(), config, verified, session));
    let result;
    try {
      result = await signIn();
    } catch (error) {
      // Two first sign-ins of one identity at once: the link's key let one through; the other finds it now.
      if (!isUniqueViolation(error)) throw error;
      result = await signIn();
    }
    return { ...result, returnTo: login.return_to, companyId: config.company_id };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    await auditRefusal(ctx, login, error, identity);
    throw login.link_user_id === null ? error : new LinkRefusal(error);
  }
}
