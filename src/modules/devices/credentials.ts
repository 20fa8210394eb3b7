import { findDeviceByClientId } from './queries.js';
import { deviceClientIdOfSecret, deviceSecretMatches } from './secrets.js';
import { type TokenService } from '../auth/tokens.js';
import { type AppContext } from '../context.js';
import { type DeviceRow } from '../../platform/db/schema.js';

/*
 * A kiosk device's credential at POST /oauth/token (issue 35): exchanged like an API key's, for a
 * token whose principal is `device` (no scopes: what it may do is fixed, see http/plugins/authenticate.ts).
 * Until the secret is proven every refusal reads the same.
 */

const DEVICE_CLIENT_ID = /^dev_[0-9a-f]{24}$/;

export type DeviceLookup = { kind: 'found'; device: DeviceRow; proven: boolean } | { kind: 'unknown' };

export async function findDeviceForCredentials(
  ctx: AppContext,
  credentials: { clientId: string | null; secret: string },
): Promise<DeviceLookup> {
  const fromSecret = deviceClientIdOfSecret(credentials.secret);
  const claimed = credentials.clientId;
  const clientId = fromSecret ?? claimed;
  if (clientId === null || (claimed !== null && fromSecret !== null && claimed !== fromSecret))
    return { kind: 'unknown' };
  if (!DEVICE_CLIENT_ID.test(clientId)) return { kind: 'unknown' };
  const device = await findDeviceByClientId(ctx.database.db, clientId);
  if (!device || device.secret_hash === null) return { kind: 'unknown' };
  return { kind: 'found', device, proven: deviceSecretMatches(credentials.secret, device.secret_hash) };
}

/**
 * A refusal is `invalid_client` (401) when the device is revoked: the app forgets its credential.
 * While the company's API access is off the credential stays good: `unauthorized_client` (400), a
 * distinct answer, so the app keeps its credential and its queue and tries again later.
 */
export type DeviceTokenResult =
  | { ok: true; accessToken: string; expiresIn: number }
  | { ok: false; status: 400 | 401; error: 'invalid_client' | 'unauthorized_client'; description: string };

export async function exchangeDeviceForToken(
  ctx: AppContext,
  tokens: TokenService,
  device: DeviceRow,
): Promise<DeviceTokenResult> {
  if (device.revoked_at !== null)
    return { ok: false, status: 401, error: 'invalid_client', description: 'the device has been revoked' };
  const company = await ctx.database.db
    .selectFrom('companies')
    .select('api_access')
    .where('id', '=', device.company_id)
    .executeTakeFirst();
  if (!company || company.api_access !== 1)
    return {
      ok: false,
      status: 400,
      error: 'unauthorized_client',
      description: "API access is switched off for the company; the device's credential stays valid",
    };
  const { token, expiresIn } = await tokens.issue({
    principal: 'device',
    subject: device.id,
    companyId: device.company_id,
    scopes: [],
    clientId: device.client_id,
  });
  await ctx.database.db
    .updateTable('devices')
    .set({ last_seen_at: new Date(ctx.now()).toISOString() })
    .where('id', '=', device.id)
    .execute();
  return { ok: true, accessToken: token, expiresIn };
}
