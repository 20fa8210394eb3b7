import { ApiError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { findKeyOfCompany, listKeysOfCompany } from './queries.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { parseCidrList } from '../auth/ip-allowlist.js';
import { generateClientId, generateSecret, hashSecret } from '../auth/key-secrets.js';
import { SCOPE_IDS, type ScopeId, isScopeId, mayGrantScope, mayManageKeys } from '../auth/scopes.js';
import { requireCompany } from '../companies/service.js';
import { type Actor, type AppContext, actorOf, inTransaction } from '../context.js';
import { requireUser, userPermissions } from '../people/users.js';
import { type Executor, type Tx } from '../../platform/db/database.js';
import { type ApiKeyRow } from '../../platform/db/schema.js';
import {
  checkField,
  invalid,
  notFound,
  notInYourCompany,
  parseDateOrDateTime,
  requireText,
  requireUuid,
} from '../../shared/input-checks.js';
import { type ConsolePerson } from '../people/person.js';

function parseScopes(value: string): ScopeId[] {
  const scopes: ScopeId[] = [];
  for (const part of value.split(',').map((s) => s.trim())) {
    if (!isScopeId(part)) throw invalid(`unknown scope ${part}; known: ${SCOPE_IDS.join(', ')}`);
    if (!scopes.includes(part)) scopes.push(part);
  }
  if (scopes.length === 0) throw invalid('at least one scope is required');
  return scopes;
}

/** A key as `key list` prints it: the console's view without the address list and the grace period. */
function keyListItem(row: ApiKeyRow) {
  const { allowedIps: _ips, previousSecretValidUntil: _grace, ...item } = keyView(row);
  return item;
}

export async function createApiKey(
  tx: Tx,
  now: number,
  input: {
    companyId: string;
    createdBy: string;
    name: string;
    scopes: string;
    expires?: string;
    allowIp?: string;
  },
  actor?: Actor,
) {
  const name = requireText(input.name, 'name');
  const scopes = parseScopes(input.scopes);
  const at = new Date(now).toISOString();
  const expiresAt = input.expires === undefined ? null : parseDateOrDateTime(input.expires, 'expires');
  if (expiresAt !== null && expiresAt <= at) throw invalid('expires must be in the future');
  let allowedIps: string[] = [];
  if (input.allowIp !== undefined) {
    const parsed = parseCidrList(input.allowIp.split(',').map((s) => s.trim()));
    if (!parsed.ok) throw invalid(`not an IP address or CIDR range: ${parsed.invalid}`);
    allowedIps = parsed.ranges;
  }
  const company = await requireCompany(tx, input.companyId);
  const creator = await requireUser(tx, input.createdBy);
  if (creator.company_id !== company.id)
    throw invalid(`user ${creator.id} does not belong to company ${company.id}`);
  if (creator.active !== 1) throw invalid(`user ${creator.id} is deactivated`);
  const grantor = { permissions: userPermissions(creator), superAdmin: creator.super_admin === 1 };
  if (!mayManageKeys(grantor)) throw invalid(`user ${creator.id} may not manage API keys (permission 90)`);
  const refused = scopes.filter((s) => !mayGrantScope(grantor, s));
  if (refused.length > 0) throw invalid(`user ${creator.id} may not grant scope(s): ${refused.join(', ')}`);
  const clientId = generateClientId();
  const secret = generateSecret(clientId);
  const row = {
    id: newId(),
    company_id: company.id,
    client_id: clientId,
    name,
    secret_hash: hashSecret(secret),
    previous_secret_hash: null,
    previous_secret_valid_until: null,
    scopes: JSON.stringify(scopes),
    created_by: creator.id,
    created_at: at,
    expires_at: expiresAt,
    allowed_ips: JSON.stringify(allowedIps),
    revoked_at: null,
    last_used_at: null,
  };
  await tx.insertInto('api_keys').values(row).execute();
  await recordAudit(tx, {
    ...auditBase(company.id, at, actor),
    action: 'api_key.create',
    targetType: 'api_key',
    targetId: row.id,
    details: { clientId, scopes, createdBy: creator.id },
  });
  return { id: row.id, clientId, secret, name, scopes, expiresAt, allowedIps };
}

export async function listApiKeys(tx: Tx, companyId: string) {
  const company = await requireCompany(tx, companyId);
  const rows = await tx
    .selectFrom('api_keys')
    .selectAll()
    .where('company_id', '=', company.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { items: rows.map(keyListItem) };
}

async function requireKey(db: Executor, keyId: string) {
  const id = requireUuid(keyId, 'key id');
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('API key', keyId);
  return row;
}

export async function rotateApiKey(tx: Tx, now: number, keyId: string, graceSeconds?: string, actor?: Actor) {
  let grace = 0;
  if (graceSeconds !== undefined) {
    if (!/^\d+$/.test(graceSeconds) || Number(graceSeconds) > 30 * 24 * 3600)
      throw invalid('grace must be a whole number of seconds, at most 30 days');
    grace = Number(graceSeconds);
  }
  const at = new Date(now).toISOString();
  const key = await requireKey(tx, keyId);
  if (key.revoked_at !== null) throw invalid(`key ${key.id} is revoked`);
  const secret = generateSecret(key.client_id);
  const validUntil = grace > 0 ? new Date(now + grace * 1000).toISOString() : null;
  await tx
    .updateTable('api_keys')
    .set({
      secret_hash: hashSecret(secret),
      previous_secret_hash: grace > 0 ? key.secret_hash : null,
      previous_secret_valid_until: validUntil,
    })
    .where('id', '=', key.id)
    .execute();
  await recordAudit(tx, {
    ...auditBase(key.company_id, at, actor),
    action: 'api_key.rotate',
    targetType: 'api_key',
    targetId: key.id,
    details: { graceSeconds: grace },
  });
  return { id: key.id, clientId: key.client_id, secret, previousSecretValidUntil: validUntil };
}

export async function revokeApiKey(tx: Tx, now: number, keyId: string, actor?: Actor) {
  const at = new Date(now).toISOString();
  const key = await requireKey(tx, keyId);
  if (key.revoked_at !== null) return { id: key.id, revokedAt: key.revoked_at };
  await tx.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', key.id).execute();
  await recordAudit(tx, {
    ...auditBase(key.company_id, at, actor),
    action: 'api_key.revoke',
    targetType: 'api_key',
    targetId: key.id,
  });
  return { id: key.id, revokedAt: at };
}

/** An API key as the console shows it: everything but its secret (only a hash of which is stored). */
function keyView(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    clientId: row.client_id,
    scopes: JSON.parse(row.scopes) as string[],
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    allowedIps: JSON.parse(row.allowed_ips) as string[],
    previousSecretValidUntil: row.previous_secret_valid_until,
  };
}

async function requireOwnKey(
  db: Parameters<typeof findKeyOfCompany>[0],
  person: ConsolePerson,
  keyId: string,
) {
  const key = await findKeyOfCompany(db, person.companyId, keyId.toLowerCase());
  if (!key) throw notInYourCompany('API key');
  return key;
}

export async function listKeys(ctx: AppContext, person: ConsolePerson) {
  const rows = await listKeysOfCompany(ctx.database.db, person.companyId);
  return { items: rows.map(keyView) };
}

/** Creates a key for the person's company, with the spec's scope rule (checked by createApiKey). */
export function createKey(
  ctx: AppContext,
  person: ConsolePerson,
  body: { name: string; scopes: string[]; expiresAt?: string | null; allowedIps?: string[] },
) {
  checkField('name', () => requireText(body.name, 'name'));
  checkField('scopes', () => {
    const unknown = body.scopes.filter((scope) => !isScopeId(scope));
    if (unknown.length > 0) throw invalid(`unknown scope(s): ${unknown.join(', ')}`);
  });
  if (body.expiresAt) checkField('expiresAt', () => parseDateOrDateTime(body.expiresAt!, 'expiresAt'));
  if (body.allowedIps)
    checkField('allowedIps', () => {
      const parsed = parseCidrList(body.allowedIps!);
      if (!parsed.ok) throw invalid(`not an IP address or CIDR range: ${parsed.invalid}`);
    });
  return inTransaction(ctx, async (tx, now) => {
    const created = await createApiKey(
      tx,
      now,
      {
        companyId: person.companyId,
        createdBy: person.id,
        name: body.name,
        scopes: body.scopes.join(','),
        ...(body.expiresAt ? { expires: body.expiresAt } : {}),
        ...(body.allowedIps && body.allowedIps.length > 0 ? { allowIp: body.allowedIps.join(',') } : {}),
      },
      actorOf(person),
    );
    const row = await requireOwnKey(tx, person, created.id);
    return { ...keyView(row), clientSecret: created.secret };
  });
}

export function rotateKey(ctx: AppContext, person: ConsolePerson, keyId: string, graceSeconds?: number) {
  return inTransaction(ctx, async (tx, now) => {
    const key = await requireOwnKey(tx, person, keyId);
    // A new secret is the key's whole power: only someone who could have granted its scopes gets one
    // (the specification's rule for creating a key), or a person holding 90 alone could read what
    // a key of wider scopes reads.
    const beyond = (JSON.parse(key.scopes) as string[]).filter(
      (scope) => !isScopeId(scope) || !mayGrantScope(person, scope),
    );
    if (beyond.length > 0)
      throw new ApiError(
        'forbidden',
        `this key has scope(s) you may not grant (${beyond.join(', ')}); ask someone who may to rotate it`,
      );
    const rotated = await rotateApiKey(
      tx,
      now,
      key.id,
      graceSeconds === undefined ? undefined : String(graceSeconds),
      actorOf(person),
    );
    return { ...keyView(await requireOwnKey(tx, person, key.id)), clientSecret: rotated.secret };
  });
}

export function revokeKey(ctx: AppContext, person: ConsolePerson, keyId: string) {
  return inTransaction(ctx, async (tx, now) => {
    const key = await requireOwnKey(tx, person, keyId);
    await revokeApiKey(tx, now, key.id, actorOf(person));
    return keyView(await requireOwnKey(tx, person, key.id));
  });
}
