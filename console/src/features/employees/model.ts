import type { Choice } from '../../components/fields.js';

export interface EmployeeRow {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  externalId: string | null;
  status: string;
  workplaceId: string | null;
}

export interface EmployeeDetail extends EmployeeRow {
  scheduleId: string | null;
  scheduleFrom: string | null;
  hiredOn: string | null;
  leftOn: string | null;
}

/** A workplace or a schedule: what the form's selects offer. */
export interface Named {
  id: string;
  name: string;
}

export const STATUSES: Choice[] = [
  ['active', 'Active'],
  ['inactive', 'Inactive'],
  ['on_leave', 'On leave'],
  ['suspended', 'Suspended'],
  ['terminated', 'Terminated'],
];

/** The form's values: strings as typed ('' for none). */
export interface Draft {
  email: string;
  firstName: string;
  lastName: string;
  status: string;
  externalId: string;
  workplaceId: string;
  scheduleId: string;
  scheduleFrom: string;
  hiredOn: string;
  leftOn: string;
}

export function draftOf(e: EmployeeDetail | null): Draft {
  return {
    email: e?.email ?? '',
    firstName: e?.firstName ?? '',
    lastName: e?.lastName ?? '',
    status: e?.status ?? 'active',
    externalId: e?.externalId ?? '',
    workplaceId: e?.workplaceId ?? '',
    scheduleId: e?.scheduleId ?? '',
    scheduleFrom: e?.scheduleFrom ?? '',
    hiredOn: e?.hiredOn ?? '',
    leftOn: e?.leftOn ?? '',
  };
}

/** What to send: every field for a new employee, only the changed ones for an existing one. */
export function bodyOf(draft: Draft, before: EmployeeDetail | null): Record<string, string | null> {
  const was = draftOf(before);
  const body: Record<string, string | null> = {};
  const orNull = (value: string) => (value.trim() === '' ? null : value);
  if (!before || draft.email !== was.email) body.email = draft.email;
  for (const key of ['firstName', 'lastName', 'externalId', 'workplaceId', 'hiredOn', 'leftOn'] as const)
    if (draft[key] !== was[key] && !(before === null && draft[key] === '')) body[key] = orNull(draft[key]);
  if (!before || draft.status !== was.status) body.status = draft.status;
  const scheduleChanged = draft.scheduleId !== was.scheduleId || draft.scheduleFrom !== was.scheduleFrom;
  if (scheduleChanged && !(before === null && draft.scheduleId === '' && draft.scheduleFrom === '')) {
    body.scheduleId = orNull(draft.scheduleId);
    if (draft.scheduleFrom !== '') body.scheduleFrom = draft.scheduleFrom;
  }
  return body;
}
