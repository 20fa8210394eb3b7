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

export type DeviceTokenResult =
  { ok: true; accessToken: string; expiresIn: number } | { ok: false; description: string };

export async function exchangeDeviceForToken(
  ctx: AppContext,
  tokens: TokenService,
  device: DeviceRow,
): Promise<DeviceTokenResult> {
  if (device.revoked_at !== null) return { ok: false, description: 'the device has been revoked' };
  const company = await ctx.database.db
    .selectFrom('companies')
    .select('api_access')
    .where('id', '=', device.company_id)
    .executeTakeFirst();
  if (!company || company.api_access !== 1)
    return { ok: false, description: 'API access is switched off for the company' };
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
