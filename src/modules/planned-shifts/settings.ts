import type { CompanyRow } from '../../platform/db/schema.js';
import { validationError } from '../../domain/errors.js';
import { invalid } from '../../shared/input-checks.js';
import { ROUNDING_MODES, type RoundingMode } from './rounding.js';

/*
 * A company's settings of issue 33: the margins of the attendance exceptions and the rounding policy
 * of its reports. New companies (and existing ones, by migration 0008) get these defaults.
 */
export const ATTENDANCE_DEFAULTS = {
  late_grace_minutes: 5,
  no_show_after_minutes: 30,
  rounding: 'none',
  rounding_minutes: 15,
};

const MAX_GRACE_MINUTES = 240;
const MAX_NO_SHOW_MINUTES = 720;
const MAX_ROUNDING_MINUTES = 30;

function minutesWithin(value: string, what: string, min: number, max: number): number {
  if (!/^\d{1,4}$/.test(value) || Number(value) < min || Number(value) > max)
    throw invalid(`${what} must be whole minutes from ${min} to ${max}`);
  return Number(value);
}

export function isRoundingMode(value: string): value is RoundingMode {
  return (ROUNDING_MODES as readonly string[]).includes(value);
}

/** The columns `company update --late-grace M --no-show-after M --rounding … --rounding-minutes N` changes. */
export function attendanceSettingsPatch(input: {
  lateGrace?: string;
  noShowAfter?: string;
  rounding?: string;
  roundingMinutes?: string;
}): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if (input.lateGrace !== undefined)
    patch.late_grace_minutes = minutesWithin(input.lateGrace, 'late grace', 0, MAX_GRACE_MINUTES);
  if (input.noShowAfter !== undefined)
    patch.no_show_after_minutes = minutesWithin(input.noShowAfter, 'no-show after', 1, MAX_NO_SHOW_MINUTES);
  if (input.rounding !== undefined) {
    if (!isRoundingMode(input.rounding))
      throw invalid(`rounding must be one of ${ROUNDING_MODES.join(', ')}`);
    patch.rounding = input.rounding;
  }
  if (input.roundingMinutes !== undefined)
    patch.rounding_minutes = minutesWithin(
      input.roundingMinutes,
      'rounding minutes',
      1,
      MAX_ROUNDING_MINUTES,
    );
  return patch;
}

/**
 * The grace may not exceed the no-show margin: a clock-in between the two would be neither late nor
 * a no-show. Judged on the values the company will have (those changed and those kept); refused as
 * 422 validation_failed naming `lateGraceMinutes`.
 */
export function checkAttendanceMargins(
  company: Pick<CompanyRow, 'late_grace_minutes' | 'no_show_after_minutes'>,
  patch: Record<string, unknown>,
): void {
  const grace = Number(patch.late_grace_minutes ?? company.late_grace_minutes);
  const noShow = Number(patch.no_show_after_minutes ?? company.no_show_after_minutes);
  if (grace > noShow)
    throw validationError([
      {
        field: 'lateGraceMinutes',
        message: `the late grace (${grace} minutes) must not exceed no-show after (${noShow} minutes)`,
        code: 'range',
      },
    ]);
}

/** The console's fields (numbers) as `updateCompany`'s input (the CLI's text), only those sent. */
export function attendanceSettingsInput(body: {
  lateGraceMinutes?: number;
  noShowAfterMinutes?: number;
  rounding?: string;
  roundingMinutes?: number;
}) {
  return {
    ...(body.lateGraceMinutes !== undefined ? { lateGrace: String(body.lateGraceMinutes) } : {}),
    ...(body.noShowAfterMinutes !== undefined ? { noShowAfter: String(body.noShowAfterMinutes) } : {}),
    ...(body.rounding !== undefined ? { rounding: body.rounding } : {}),
    ...(body.roundingMinutes !== undefined ? { roundingMinutes: String(body.roundingMinutes) } : {}),
  };
}

/** The settings as a company's view shows them (`company update --json`). */
export function attendanceSettingsView(
  row: Pick<CompanyRow, 'late_grace_minutes' | 'no_show_after_minutes' | 'rounding' | 'rounding_minutes'>,
) {
  return {
    lateGraceMinutes: Number(row.late_grace_minutes),
    noShowAfterMinutes: Number(row.no_show_after_minutes),
    rounding: row.rounding,
    roundingMinutes: Number(row.rounding_minutes),
  };
}
