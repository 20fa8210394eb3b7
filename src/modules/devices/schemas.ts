import { Type } from '@sinclair/typebox';
import { DateTimeString, Guid, NO_NUL, NullableOut } from '../../http/schemas/common.js';
import { EmployeeRefSchema } from '../employees/schemas.js';

/* Kiosk devices (issue 35): the public operations' and the console's shapes. */

/**
 * What a kiosk device tells the server on its requests (read in devices/sync.ts; documentation only,
 * like every header schema: a value that does not parse is ignored, never refused).
 */
export const DeviceHeadersSchema = Type.Object({
  'x-device-clock': Type.Optional(
    Type.String({
      description:
        "A kiosk device's own clock at the moment it sends (RFC 3339 date-time, e.g. 2026-11-10T08:02:00+01:00). " +
        'The server records the offset (server minus device) at each sync; an entry stored while it is more than 2 minutes off carries `reviewFlags: ["device_clock_skew"]`. Ignored for other tokens.',
    }),
  ),
  'x-kiosk-queue': Type.Optional(
    Type.String({
      description:
        "How many punches wait in the kiosk's offline queue (0 to 999999, digits), shown to administrators with its last contact. Ignored for other tokens.",
    }),
  ),
});

export const EnrolBodySchema = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: NO_NUL,
      description:
        'the enrolment code shown by the console or `device enrol` (`ABCD-EFGH`; case and dash optional)',
    }),
  },
  { additionalProperties: false },
);

export const DeviceCredentialSchema = Type.Object(
  {
    clientId: Type.String({ description: "the device's client id, `dev_…`" }),
    clientSecret: Type.String({
      description: 'the device credential: exchange it at POST /oauth/token; shown in this answer only',
    }),
    workplaceId: Guid,
    name: Type.String(),
  },
  { description: "A kiosk device's credential" },
);

export const KioskEmployeeListSchema = Type.Object(
  {
    items: Type.Array(
      Type.Object({ id: Guid, displayName: Type.String({ description: 'first and last name' }) }),
    ),
  },
  {
    description:
      "The active employees of the device's workplace, by name; empty when the workplace is badge-only",
  },
);

export const IdentifyBodySchema = Type.Object(
  {
    badge: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: NO_NUL,
        description: "what the badge reader typed: the employee's external id",
      }),
    ),
    employeeId: Type.Optional(Guid),
    pin: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: '4 to 8 digits' })),
  },
  {
    additionalProperties: false,
    description: 'Either `badge`, or `employeeId` and `pin`',
  },
);

export const IdentifyResultSchema = Type.Object(
  {
    employee: EmployeeRefSchema,
    displayName: Type.String(),
    state: Type.Object({
      clockedIn: Type.Boolean(),
      onBreak: Type.Boolean(),
      since: NullableOut(DateTimeString),
    }),
  },
  { description: 'Who the employee is and whether they are clocked in or on a break, since when' },
);

/* The admin API's (the console's) shapes. */

export const DeviceSchema = Type.Object({
  id: Guid,
  workplaceId: Guid,
  name: Type.String(),
  enrolledAt: NullableOut(DateTimeString),
  lastSeenAt: NullableOut(DateTimeString),
  queued: Type.Integer({ description: 'punches waiting in its queue, as the device last said' }),
  revokedAt: NullableOut(DateTimeString),
  enrolmentExpiresAt: NullableOut(DateTimeString),
  clockOffsetSeconds: NullableOut(Type.Integer()),
  lastSyncAt: NullableOut(DateTimeString),
  refused: Type.Integer({ description: 'punches it sent that were refused' }),
});

export const DeviceListSchema = Type.Object({
  items: Type.Array(Type.Intersect([DeviceSchema, Type.Object({ workplaceName: Type.String() })])),
  workplaces: Type.Array(Type.Object({ id: Guid, name: Type.String(), kioskBadgeOnly: Type.Boolean() })),
});

export const EnrolDeviceBodySchema = Type.Object({
  workplaceId: Guid,
  name: Type.String({ minLength: 1, maxLength: 100, pattern: NO_NUL }),
});

export const EnrolmentSchema = Type.Object({
  id: Guid,
  workplaceId: Guid,
  name: Type.String(),
  enrolmentCode: Type.String({ description: 'single-use, shown once' }),
  expiresAt: DateTimeString,
});

export const RefusalListSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      employeeId: NullableOut(Guid),
      type: Type.String(),
      occurredAt: Type.String(),
      status: Type.Integer(),
      error: Type.String(),
      detail: NullableOut(Type.String()),
      at: DateTimeString,
    }),
  ),
});

export const BadgeOnlyBodySchema = Type.Object({ kioskBadgeOnly: Type.Boolean() });
export const BadgeOnlyResultSchema = Type.Object({
  id: Guid,
  name: Type.String(),
  kioskBadgeOnly: Type.Boolean(),
});

export const SetPinBodySchema = Type.Object({ pin: Type.String({ minLength: 1, maxLength: 16 }) });
export const SetPinResultSchema = Type.Object({ id: Guid, pinSet: Type.Boolean() });
