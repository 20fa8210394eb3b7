import { type Static, Type } from '@sinclair/typebox';
import type { ErrorName } from '../../domain/errors.js';
import {
  DateString,
  DateTimeString,
  Guid,
  NO_NUL,
  NullableOut,
  WriteHeadersSchema,
} from '../../http/schemas/common.js';
import { TimeEntrySchema } from '../time-tracking/schemas.js';

/*
 * The corrections room's schemas (issue 30): they validate the requests, serialise the answers and
 * are the published description of these operations.
 *
 * This file is also THE ONE PLACE of what later features reuse (absences, self-service): the actor
 * shape (`ActorSchema`, `ChangeActor`, `ACTOR_KINDS`), the revision shape (`RevisionSchema`,
 * `Revision`, `RevisionChange`, `REVISION_ACTIONS`) and the names of the errors a change of a
 * recorded thing meets (`CHANGE_ERROR_NAMES`; their status, code and title are in the one catalogue,
 * domain/errors.ts). The services that build them are in revisions.ts (actorOfPrincipal,
 * actorOfAdmin, actorView, snapshots and diffs, writeRevision) and entry-access.ts (parseIfMatch).
 */

/** Who may act on a record; an open list in the published description (`kind` may grow). */
export const ACTOR_KINDS = ['api_key', 'person', 'device', 'cli', 'system'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** What a revision of a time entry records; an open list in the published description. */
export const REVISION_ACTIONS = [
  'recorded',
  'break_started',
  'break_ended',
  'completed',
  'approved',
  'rejected',
  'reopened',
  'corrected',
  'deleted',
  'auto_closed',
] as const;
export type RevisionAction = (typeof REVISION_ACTIONS)[number];

/**
 * The errors of a change of a recorded thing, shared with the features that reuse this room's
 * rules: 403 own_entry (a person changing their own employee's record), 409
 * invalid_status_transition (the status does not allow it), 412 version_mismatch (If-Match names
 * another version). Codes and titles: domain/errors.ts.
 */
export const CHANGE_ERROR_NAMES = [
  'own_entry',
  'invalid_status_transition',
  'version_mismatch',
] as const satisfies readonly ErrorName[];

const Text = (maxLength: number, options: { description?: string; minLength?: number } = {}) =>
  Type.String({ maxLength, pattern: NO_NUL, ...options });

export const Reason = Text(500, {
  minLength: 1,
  description: 'why: 1 to 500 characters, kept with the revision',
});
const Instant = (description: string) => Type.String({ format: 'date-time', description });

export const ActorSchema = Type.Object(
  {
    kind: Type.Unsafe<ActorKind>({
      type: 'string',
      description: 'api_key, person, device, cli or system; may grow',
    }),
    id: NullableOut(
      Type.String({ description: "the key's, person's or device's id; null for cli and system" }),
    ),
    name: NullableOut(
      Type.String({ description: "a key's name, a person's email, `command line`, `automatic clock-out`" }),
    ),
  },
  { description: 'Who made a change' },
);

/** The actor as published: `{kind, id, name}`. */
export type ChangeActor = Static<typeof ActorSchema>;

/** The actor as stored beside a change (`kind`, `id`); its name is read with it (revisions.ts, actorView). */
export type StoredActor = Pick<ChangeActor, 'kind' | 'id'>;

export const RevisionChangeSchema = Type.Object({
  field: Type.String({
    description: "the list item's field name (startTime, endTime, breakMinutes, note, status, …)",
  }),
  from: Type.Unknown({ description: 'the value before (null: none)' }),
  to: Type.Unknown({ description: 'the value after (null: none)' }),
});

export type RevisionChange = Static<typeof RevisionChangeSchema>;

export const RevisionSchema = Type.Object({
  revision: Type.Integer({ minimum: 1, description: 'counting from 1, the recording itself' }),
  at: DateTimeString,
  action: Type.Unsafe<RevisionAction>({
    type: 'string',
    description:
      'recorded, break_started, break_ended, completed, approved, rejected, reopened, corrected, deleted, auto_closed; may grow',
  }),
  actor: ActorSchema,
  reason: NullableOut(Type.String()),
  changes: Type.Array(RevisionChangeSchema, {
    description: 'empty for the recording; every field a deletion removed',
  }),
});

/** A revision as published. */
export type Revision = Static<typeof RevisionSchema>;

export const RevisionListSchema = Type.Object({ items: Type.Array(RevisionSchema) });

export const EntryIdParamsSchema = Type.Object({ id: Guid });
export const PeriodIdParamsSchema = Type.Object({ id: Guid });

/** The write headers of every change of this room, and If-Match. */
export const ChangeHeadersSchema = Type.Object({
  ...WriteHeadersSchema.properties,
  'if-match': Type.Optional(
    Type.String({
      description:
        'The entry\'s version as its ETag gives it (`"3"`, or bare `3`): the change is made only while the entry is at that version, else 412 version_mismatch and nothing changes. `*` or absent: any version.',
    }),
  ),
});

export const ApproveBodySchema = Type.Object(
  { note: Type.Optional(Text(500, { description: 'a note kept with the revision' })) },
  { additionalProperties: false },
);

export const ReasonBodySchema = Type.Object({ reason: Reason }, { additionalProperties: false });

export const CorrectionBodySchema = Type.Object(
  {
    clockIn: Type.Optional(Instant('the new start, RFC 3339 with offset')),
    clockOut: Type.Optional(
      Instant('the new end, RFC 3339 with offset; on an open session it closes it (pending_approval)'),
    ),
    breakMinutes: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 1440 }), Type.Null()], {
        description:
          'one unpaid break in the middle of the entry, as on POST /time-entries (on an entry of the time clock it replaces the punched breaks); not with `breaks`',
      }),
    ),
    breaks: Type.Optional(
      Type.Array(
        Type.Object(
          { startedAt: Instant('RFC 3339 with offset'), endedAt: Instant('RFC 3339 with offset') },
          { additionalProperties: false },
        ),
        {
          maxItems: 50,
          description:
            'entries of the time clock: their breaks, replacing the punched ones; not with `breakMinutes`',
        },
      ),
    ),
    note: Type.Optional(Type.Union([Text(500), Type.Null()], { description: 'the note; null clears it' })),
    reason: Reason,
  },
  { additionalProperties: false },
);

export const LockedPeriodSchema = Type.Object({
  id: Guid,
  from: DateString,
  to: DateString,
  workplaceId: NullableOut(Type.String({ format: 'uuid', description: 'null: the whole company' })),
  closedAt: DateTimeString,
  closedBy: ActorSchema,
  reopenedAt: NullableOut(
    Type.String({ format: 'date-time', description: 'null while the period is closed' }),
  ),
  reopenedBy: Type.Union([ActorSchema, Type.Null()]),
  reopenReason: NullableOut(Type.String()),
});

export const LockedPeriodListSchema = Type.Object({ items: Type.Array(LockedPeriodSchema) });

export const ClosePeriodBodySchema = Type.Object(
  {
    from: DateString,
    to: DateString,
    workplaceId: Type.Optional(
      Type.Union([Guid, Type.Null()], {
        description: 'only this workplace; absent or null: the whole company',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The entry with its version as the ETag header. */
export const EntryWithETag = (description: string) => ({
  ...TimeEntrySchema,
  description,
  headers: {
    ETag: { type: 'string', description: 'the entry\'s version, quoted (`"3"`): send it as If-Match' },
  },
});

/** An entry as both APIs read it: the public list item. */
export type TimeEntryItem = Static<typeof TimeEntrySchema>;

/** The named schemas of the public description (http/plugins/openapi.ts) from corrections (issue 30). */
export const CORRECTION_NAMED_SCHEMAS: Record<string, unknown> = {
  TimeEntryCorrection: CorrectionBodySchema,
  TimeEntryRevision: RevisionSchema,
  Actor: ActorSchema,
  LockedPeriod: LockedPeriodSchema,
  PeriodClosing: ClosePeriodBodySchema,
};
