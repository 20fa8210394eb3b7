import { DateTime, FixedOffsetZone, IANAZone } from 'luxon';

export type ParsedInstant = {
  epochMs: number;
  offsetMinutes: number;
  wallDate: string;
  wallTime: string;
};

export type LocalizedInstant = {
  epochMs: number;
  utcIso: string;
  workDate: string;
  time: string;
  timeZone: string;
  occurredAt: string;
};

// Field ranges live in the pattern because luxon rolls hour 24 over to the next day instead of rejecting it,
// and leaves fixed offsets such as +25:00 unchecked.
const RFC3339_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})[Tt]([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.(\d+))?(?:([Zz])|([+-])([01]\d|2[0-3]):([0-5]\d))$/;

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

export function parseInstantWithOffset(value: string): ParsedInstant | null {
  const match = RFC3339_WITH_OFFSET.exec(value);
  if (!match) {
    return null;
  }
  const [, year, month, day, hour, minute, second, fraction, zulu, sign, offsetHour, offsetMinute] = match;
  const offsetMinutes = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHour) * 60 + Number(offsetMinute));
  // Normalise -00:00 so callers never see a negative zero offset.
  const normalizedOffset = offsetMinutes === 0 ? 0 : offsetMinutes;
  // Sub-millisecond digits are truncated, matching how toISOString would render the instant.
  const millisecond = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const dateTime = DateTime.fromObject(
    {
      year: Number(year),
      month: Number(month),
      day: Number(day),
      hour: Number(hour),
      minute: Number(minute),
      second: Number(second),
      millisecond,
    },
    { zone: FixedOffsetZone.instance(normalizedOffset) },
  );
  if (!dateTime.isValid) {
    return null;
  }
  return {
    epochMs: dateTime.toMillis(),
    offsetMinutes: normalizedOffset,
    wallDate: `${year}-${month}-${day}`,
    wallTime: `${hour}:${minute}:${second}`,
  };
}

export function isValidTimeZone(zone: string): boolean {
  if (!IANAZone.isValidZone(zone)) {
    return false;
  }
  // Intl matches zone names case-insensitively; accepting 'europe/berlin' would let the same zone be stored
  // under several spellings, so only the canonical casing passes. Aliases (Asia/Calcutta vs Asia/Kolkata)
  // resolve to a different name altogether and are still accepted.
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase();
}

export function localizeInstant(instant: ParsedInstant, zone: string | null): LocalizedInstant {
  const dateTime = DateTime.fromMillis(instant.epochMs, {
    zone: zone === null ? FixedOffsetZone.instance(instant.offsetMinutes) : zone,
  });
  if (!dateTime.isValid) {
    throw new RangeError(`Unknown time zone: ${zone}`);
  }
  const workDate = zone === null ? instant.wallDate : dateTime.toFormat('yyyy-MM-dd');
  const time = zone === null ? instant.wallTime : dateTime.toFormat('HH:mm:ss');
  return {
    epochMs: instant.epochMs,
    utcIso: new Date(instant.epochMs).toISOString(),
    workDate,
    time,
    timeZone: zone ?? 'offset',
    occurredAt: `${workDate}T${time}${dateTime.toFormat('ZZ')}`,
  };
}

export function todayIn(zone: string | null, nowMs: number): string {
  const dateTime = DateTime.fromMillis(nowMs, { zone: zone ?? 'UTC' });
  if (!dateTime.isValid) {
    throw new RangeError(`Unknown time zone: ${zone}`);
  }
  return dateTime.toFormat('yyyy-MM-dd');
}

function parseDate(date: string): DateTime | null {
  const match = DATE_ONLY.exec(date);
  if (!match) {
    return null;
  }
  const [, year, month, day] = match;
  // Calendar arithmetic in UTC so no DST transition can shift a date by an hour into the neighbouring day.
  const dateTime = DateTime.fromObject(
    { year: Number(year), month: Number(month), day: Number(day) },
    { zone: 'UTC' },
  );
  return dateTime.isValid ? dateTime : null;
}

function requireDate(date: string): DateTime {
  const dateTime = parseDate(date);
  if (!dateTime) {
    throw new RangeError(`Invalid date: ${date}`);
  }
  return dateTime;
}

export function isValidDate(date: string): boolean {
  return parseDate(date) !== null;
}

export function addDays(date: string, days: number): string {
  return requireDate(date).plus({ days }).toFormat('yyyy-MM-dd');
}

export function daysBetween(from: string, to: string): number {
  return Math.round(requireDate(to).diff(requireDate(from), 'days').days);
}
