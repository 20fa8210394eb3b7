import { isAddressAllowed } from './ip-allowlist.js';
import { clientIdOfSecret, normaliseClientId, secretMatches } from './key-secrets.js';
import { type ScopeId, personScopes } from './scopes.js';
import { type TokenClaims, type TokenService } from './tokens.js';
import { type AppContext } from '../context.js';
import { type Executor } from '../../platform/db/database.js';
import { prepareQuery } from '../../platform/db/prepared.js';
import { type ApiKeyRow } from '../../platform/db/schema.js';

const CLIENT_ID_SHAPE = /^svc_[0-9a-f]{1,64}$/;

/** The key a client id names, with its company's API-access switch, which the exchange checks once the secret is proven. */
const keyByClientIdQuery = prepareQuery((db, p: { clientId: string }) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .selectAll('k')
    .select('c.api_access as company_api_access')
    .where('k.client_id', '=', p.clientId),
);

function keyByClientId(db: Executor, clientId: string) {
  return keyByClientIdQuery.executeTakeFirst(db, { clientId });
}

const keyPrincipalQuery = prepareQuery((db, p: { keyId: string }) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('companies as c', 'c.id', 'k.company_id')
    .select([
      'k.company_id',
      'k.revoked_at',
      'k.expires_at',
      'k.scopes',
      'c.api_access',
      'c.time_zone',
      'c.time_tracking',
    ])
    .where('k.id', '=', p.keyId),
);

function keyPrincipal(db: Executor, keyId: string) {
  return keyPrincipalQuery.executeTakeFirst(db, { keyId });
}

const userPrincipalQuery = prepareQuery((db, p: { userId: string }) =>
  db
    .selectFrom('users as u')
    .innerJoin('companies as c', 'c.id', 'u.company_id')
    .select([
      'u.company_id',
      'u.active',
      'u.permissions',
      'u.super_admin',
      'c.api_access',
      'c.time_zone',
      'c.time_tracking',
    ])
    .where('u.id', '=', p.userId),
);

const devicePrincipalQuery = prepareQuery((db, p: { deviceId: string }) =>
  db
    .selectFrom('devices as d')
    .innerJoin('companies as c', 'c.id', 'd.company_id')
    .select([
      'd.company_id',
      'd.workplace_id',
      'd.name',
      'd.revoked_at',
      'd.enrolled_at',
      'd.last_seen_at',
      'd.queued',
      'c.api_access',
      'c.time_zone',
      'c.time_tracking',
    ])
    .where('d.id', '=', p.deviceId),
);

/** A kiosk device's token: the device enrolled, not revoked, of the token's company; no scopes. */
async function checkDevicePrincipal(ctx: AppContext, claims: TokenClaims): Promise<PrincipalCheck> {
  const row = await devicePrincipalQuery.executeTakeFirst(ctx.database.db, { deviceId: claims.subject });
  if (!row || row.company_id !== claims.companyId || row.revoked_at !== null || row.enrolled_at === null)
    return { ok: false, error: 'invalid_token' };
  if (row.api_access !== 1) return { ok: false, error: 'forbidden' };
  return {
    ok: true,
    principal: {
      kind: 'device',
      id: claims.subject,
      companyId: row.company_id,
      clientId: claims.clientId,
      scopes: [],
      tokenExpiresAt: claims.expiresAt,
      company: { timeZone: row.time_zone, timeTracking: row.time_tracking === 1 },
      device: {
        workplaceId: row.workplace_id,
        name: row.name,
        lastSeenAt: row.last_seen_at,
        queued: row.queued,
      },
    },
  };
}

function userPrincipal(db: Executor, userId: string) {
  return userPrincipalQuery.executeTakeFirst(db, { userId });
}

export type KeyLookup = { kind: 'found'; key: ApiKeyRow; companyApiAccess: boolean } | { kind: 'unknown' };

/** The key a token request names, from the secret's own prefix and, when sent, the client id. */
export async function findKeyForCredentials(
  ctx: AppContext,
  credentials: { clientId: string | null; secret: string },
): Promise<KeyLookup> {
  const fromSecret = clientIdOfSecret(credentials.secret);
  const claimed = credentials.clientId === null ? null : normaliseClientId(credentials.clientId);
  const clientId = fromSecret ?? claimed;
  if (clientId === null || (claimed !== null && fromSecret !== null && claimed !== fromSecret))
    return { kind: 'unknown' };
  // Only a value shaped like an issued client id reaches the database (a NUL byte would fail the query).
  if (!CLIENT_ID_SHAPE.test(clientId)) return { kind: 'unknown' };
  const row = await keyByClientId(ctx.database.db, clientId);
  if (!row) return { kind: 'unknown' };
  const { company_api_access: apiAccess, ...key } = row;
  return { kind: 'found', key, companyApiAccess: apiAccess === 1 };
}

/** The secret is the key's current one, or its previous one within the rotation grace period. */
export function keySecretProven(ctx: AppContext, key: ApiKeyRow, secret: string): boolean {
  if (secretMatches(secret, key.secret_hash)) return true;
  return (
    key.previous_secret_hash !== null &&
    key.previous_secret_valid_until !== null &&
    key.previous_secret_valid_until > new Date(ctx.now()).toISOString() &&
    secretMatches(secret, key.previous_secret_hash)
  );
}

export type TokenExchangeResult =
  { ok: true; accessToken: string; expiresIn: number } | { ok: false; proven: boolean; description: string };

/**
 * Spec, Authentication rules 4-7. Until the secret is proven, every refusal reads the same, so the
 * endpoint does not tell a prober which client ids exist or what state they are in. `secretProven`:
 * keySecretProven's answer when the caller already has it (one hash per request instead of two).
 */
export async function exchangeKeyForToken(
  ctx: AppContext,
  tokens: TokenService,
  found: { key: ApiKeyRow; companyApiAccess: boolean },
  secret: string,
  remoteAddress: string,
  secretProven: boolean = keySecretProven(ctx, found.key, secret),
): Promise<TokenExchangeResult> {
  const { key, companyApiAccess } = found;
  const nowIso = new Date(ctx.now()).toISOString();
  if (!secretProven) return { ok: false, proven: false, description: 'client authentication failed' };
  if (key.revoked_at !== null) return { ok: false, proven: true, description: 'the key has been revoked' };
  if (key.expires_at !== null && key.expires_at <= nowIso)
    return { ok: false, proven: true, description: 'the key has expired' };
  const allowedIps = JSON.parse(key.allowed_ips) as string[];
  if (!isAddressAllowed(remoteAddress, allowedIps))
    return {
      ok: false,
      proven: true,
      description: "the client address is not in the key's allowed IP ranges",
    };
  if (!companyApiAccess)
    return { ok: false, proven: true, description: 'API access is switched off for the company' };
  const { token, expiresIn } = await tokens.issue({
    principal: 'api_key',
    subject: key.id,
    companyId: key.company_id,
    scopes: JSON.parse(key.scopes) as string[],
    clientId: key.client_id,
  });
  await ctx.database.db
    .updateTable('api_keys')
    .set({ last_used_at: nowIso })
    .where('id', '=', key.id)
    .execute();
  return { ok: true, accessToken: token, expiresIn };
}

export interface Principal {
  kind: 'api_key' | 'user' | 'device';
  id: string;
  companyId: string;
  clientId: string | null;
  scopes: ScopeId[];
  tokenExpiresAt: Date;
  company: { timeZone: string | null; timeTracking: boolean };
  /** A kiosk device's token (issue 35): its workplace and what it last told the server. */
  device?: DevicePrincipal;
}

export interface DevicePrincipal {
  workplaceId: string;
  name: string;
  lastSeenAt: string | null;
  queued: number;
}

export type PrincipalCheck =
  { ok: true; principal: Principal } | { ok: false; error: 'invalid_token' | 'forbidden' };

/*
 * Checked on every request rather than trusting the token alone: a revoked or expired key, a
 * deactivated person or a company switch takes effect on the next request (operations contract),
 * better than the spec's 15-minute allowance. It is one primary-key lookup with a join.
 */
export async function checkPrincipal(ctx: AppContext, claims: TokenClaims): Promise<PrincipalCheck> {
  if (claims.principal === 'device') return checkDevicePrincipal(ctx, claims);
  if (claims.principal === 'api_key') {
    const row = await keyPrincipal(ctx.database.db, claims.subject);
    if (!row || row.company_id !== claims.companyId) return { ok: false, error: 'invalid_token' };
    // The clock is read only for a key that can expire: formatting it is a measurable cost per request.
    if (
      row.revoked_at !== null ||
      (row.expires_at !== null && row.expires_at <= new Date(ctx.now()).toISOString())
    )
      return { ok: false, error: 'invalid_token' };
    if (row.api_access !== 1) return { ok: false, error: 'forbidden' };
    const keyScopes = JSON.parse(row.scopes) as string[];
    return {
      ok: true,
      principal: {
        kind: 'api_key',
        id: claims.subject,
        companyId: row.company_id,
        clientId: claims.clientId,
        scopes: claims.scopes.filter((s): s is ScopeId => keyScopes.includes(s)),
        tokenExpiresAt: claims.expiresAt,
        company: { timeZone: row.time_zone, timeTracking: row.time_tracking === 1 },
      },
    };
  }
  const row = await userPrincipal(ctx.database.db, claims.subject);
  if (!row || row.company_id !== claims.companyId || row.active !== 1)
    return { ok: false, error: 'invalid_token' };
  if (row.api_access !== 1) return { ok: false, error: 'forbidden' };
  // A person's scopes follow their current permissions, not those at the time the token was made.
  const current = personScopes({
    permissions: JSON.parse(row.permissions) as number[],
    superAdmin: row.super_admin === 1,
  });
  return {
    ok: true,
    principal: {
      kind: 'user',
      id: claims.subject,
      companyId: row.company_id,
      clientId: null,
      scopes: current.filter((s) => claims.scopes.includes(s)),
      tokenExpiresAt: claims.expiresAt,
      company: { timeZone: row.time_zone, timeTracking: row.time_tracking === 1 },
    },
  };
}
