import { ApiError } from '../../domain/errors.js';
import type { Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import { parseCidrList } from '../auth/ip-allowlist.js';
import type { Actor } from '../context.js';
import { invalid } from '../../shared/input-checks.js';
import { findWorkplace, setAllowedIps } from './queries.js';

/* The web clock's settings of a workplace (issue 35): the addresses it may be used from. */

/** `CIDR,…` or `none`: the normalised ranges, or null for none (any address). */
export function parseAllowedIps(value: string): string[] | null {
  const text = value.trim();
  if (text === 'none') return null;
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length > 50) throw invalid('at most 50 address ranges');
  const parsed = parseCidrList(parts);
  if (!parsed.ok)
    throw invalid(
      `not an address or CIDR range: ${parsed.invalid} (e.g. 203.0.113.0/24, 2001:db8::/32, or none)`,
    );
  return parsed.ranges;
}

/** `workplace update ID --web-clock-allow-ip CIDR,…|none`. */
export async function setWebClockAllowedIps(
  tx: Tx,
  now: number,
  workplaceId: string,
  value: string,
  actor: Actor,
  companyId: string | null = null,
) {
  const ranges = parseAllowedIps(value);
  const workplace = await findWorkplace(tx, workplaceId.toLowerCase());
  if (!workplace || (companyId !== null && workplace.company_id !== companyId))
    throw new ApiError('not_found', `unknown workplace: ${workplaceId}`);
  await setAllowedIps(tx, workplace.id, ranges === null ? null : ranges.join(','));
  await recordAudit(tx, {
    companyId: workplace.company_id,
    actorType: actor.type,
    actorId: actor.id,
    action: 'workplace.update',
    targetType: 'workplace',
    targetId: workplace.id,
    details: { web_clock_allowed_ips: ranges },
    at: new Date(now).toISOString(),
  });
  return workplaceView({ ...workplace, web_clock_allowed_ips: ranges === null ? null : ranges.join(',') });
}

export function workplaceView(row: {
  id: string;
  company_id: string;
  name: string;
  time_zone: string | null;
  holiday_region: string | null;
  web_clock_allowed_ips: string | null;
  kiosk_badge_only: number;
}) {
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    timeZone: row.time_zone,
    holidayRegion: row.holiday_region,
    webClockAllowedIps: row.web_clock_allowed_ips === null ? null : row.web_clock_allowed_ips.split(','),
    // Issue 35: the kiosk lists no names and takes no PINs at this workplace, badges only.
    kioskBadgeOnly: row.kiosk_badge_only === 1,
  };
}

/** The workplace as `workplace update` prints it. */
export async function readWorkplace(tx: Tx, workplaceId: string) {
  const workplace = await findWorkplace(tx, workplaceId.toLowerCase());
  if (!workplace) throw new ApiError('not_found', `unknown workplace: ${workplaceId}`);
  return workplaceView(workplace);
}
