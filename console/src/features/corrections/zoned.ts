/**
 * Wall clocks in a time zone as RFC 3339 instants with their offset (`2026-11-09T08:00:00+01:00`),
 * the form the admin API takes for corrections and shifts. The browser's Intl knows every IANA zone.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, format);
  }
  return format;
}

/** The zone's offset from UTC at `epochMs`, in minutes. */
function offsetMinutes(zone: string, epochMs: number): number {
  const parts = Object.fromEntries(
    formatOf(zone)
      .formatToParts(new Date(epochMs))
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return Math.round((wall - Math.floor(epochMs / 1000) * 1000) / 60_000);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `date` (YYYY-MM-DD) at `time` (HH:MM or HH:MM:SS) in `zone`, with the zone's offset at that moment. */
export function zonedInstant(date: string, time: string, zone: string): string {
  const wallTime = time.length === 5 ? `${time}:00` : time;
  const wallMs = Date.parse(`${date}T${wallTime}Z`);
  let offset = offsetMinutes(zone, wallMs);
  // Near a change of offset, the first guess can be an hour off: ask again at the instant it gives.
  offset = offsetMinutes(zone, wallMs - offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${date}T${wallTime}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The calendar day (YYYY-MM-DD) of an instant in `zone`. */
export function dayIn(iso: string, zone: string): string {
  const parts = Object.fromEntries(
    formatOf(zone)
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}`;
}
