import { Type } from '@sinclair/typebox';
import { Guid, NullableOut } from '../../http/schemas/common.js';

/* A company's settings, its workplaces and schedules, as the admin API shows and changes them. */

export const AdminCompanySchema = Type.Object({
  id: Guid,
  name: Type.String(),
  timeZone: NullableOut(Type.String()),
  timeTracking: Type.Boolean(),
  apiAccess: Type.Boolean(),
  // Timesheet settings (issue 21), changed from the console's Company screen (issue 23).
  workweekStart: Type.String({ description: 'the first day of the workweek, monday … sunday' }),
  dailyOvertimeHours: NullableOut(
    Type.Number({ description: 'hours a day after which time is overtime; null: none' }),
  ),
  workingTimeRules: Type.String({
    description: 'the working-time rule pack timesheets flag: none, de-arbzg, us-ca',
  }),
  // Attendance exceptions and report rounding (issue 33).
  lateGraceMinutes: Type.Integer({ description: 'minutes after a shift start before late_in' }),
  noShowAfterMinutes: Type.Integer({
    description: 'minutes after a shift start without a clock-in: no_show',
  }),
  rounding: Type.String({ description: 'rounding of worked time in reports only: none, nearest, up, down' }),
  roundingMinutes: Type.Integer({ description: 'the rounding grid in minutes' }),
  autoClockOutAfterHours: NullableOut(
    Type.Integer({ description: 'open sessions are closed this many hours after their start; null: never' }),
  ),
  webClock: Type.Boolean({
    description: 'the personal web clock (issue 35): people linked to employees punch from their own browser',
  }),
});

export const UpdateCompanyBodySchema = Type.Object(
  {
    timeZone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
    timeTracking: Type.Optional(Type.Boolean()),
    apiAccess: Type.Optional(Type.Boolean()),
    workweekStart: Type.Optional(
      Type.Unsafe<string>({
        type: 'string',
        enum: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      }),
    ),
    dailyOvertimeHours: Type.Optional(
      Type.Union([
        Type.Number({ minimum: 0, maximum: 24, description: 'at most two decimals' }),
        Type.Null(),
      ]),
    ),
    workingTimeRules: Type.Optional(
      Type.Unsafe<string>({ type: 'string', enum: ['none', 'de-arbzg', 'us-ca'] }),
    ),
    lateGraceMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 240 })),
    noShowAfterMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 720 })),
    rounding: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: ['none', 'nearest', 'up', 'down'] })),
    webClock: Type.Optional(Type.Boolean({ description: 'the personal web clock on or off' })),
    roundingMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 })),
    autoClockOutAfterHours: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 23 }), Type.Null()]),
    ),
  },
  { additionalProperties: false },
);

export const WorkplaceListSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      id: Guid,
      name: Type.String(),
      timeZone: NullableOut(Type.String()),
      webClockAllowedIps: NullableOut(
        Type.Array(Type.String(), {
          description: 'the address ranges the web clock may be used from (CIDR); null: any address',
        }),
      ),
      kioskBadgeOnly: Type.Boolean({
        description: 'the kiosk (issue 35) lists no names and takes no PINs here: badges only',
      }),
    }),
  ),
});

export const ScheduleListSchema = Type.Object({
  items: Type.Array(Type.Object({ id: Guid, name: Type.String(), weeklyHours: NullableOut(Type.Number()) })),
});
