import { parseCidrList } from '../auth/ip-allowlist.js';
import { generateClientId, generateSecret, hashSecret } from '../auth/key-secrets.js';
import { isScopeId, mayGrantScope, mayManageKeys, SCOPE_IDS, type ScopeId } from '../auth/scopes.js';
import type { Executor } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import type { ApiKeyRow } from '../../platform/db/schema.js';
import { newId } from '../../domain/ids.js';
import type { Tx } from '../../platform/db/database.js';
import type { Actor } from '../context.js';
import { auditBase, requireCompany } from './companies.js';
import { requireUser, userPermissions } from './users.js';
import { invalid, notFound, parseDateOrDateTime, requireText, requireUuid } from './validation.js';

function parseScopes(value: string): ScopeId[] {
  const scopes: ScopeId[] = [];
  for (const part of value.split(',').map((s) => s.trim())) {
    if (!isScopeId(part)) throw invalid(`unknown scope ${part}; known: ${SCOPE_IDS.join(', ')}`);
    if (!scopes.includes(part)) scopes.push(part);
  }
  if (scopes.length === 0) throw invalid('at least one scope is required');
  return scopes;
}

function keyListItem(row: ApiKeyRow) {
  return {
    id: row.id,
    clientId: row.client_id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as string[],
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
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
