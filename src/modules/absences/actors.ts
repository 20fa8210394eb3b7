import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, validationError } from '../../domain/errors.js';
import type { Executor } from '../../platform/db/database.js';
import type { Principal } from '../auth/service.js';
import type { Actor } from '../context.js';
import type { ConsolePerson } from '../people/person.js';
import { findWorkplaceRow } from './calendar.queries.js';
import { companyOfAbsence, companyOfEmployee, companyZone, keyNameOf, personOf } from './queries.js';
import { actorOfAdmin, actorOfPrincipal } from '../corrections/revisions.js';
import type { ChangeActor } from '../corrections/schemas.js';
import { keyCreatorEmployeeOf } from '../corrections/queries/revisions.js';

/*
 * Who asks (issue 31): an API key, a person (their own token, or the console), or the operator at the
 * CLI. Each brings its company, the published actor shape (`decidedBy`), the audit log's actor, the
 * employee the person is (a person may not decide on their own absences) and the company's zone (for
 * "today").
 *
 * The actor shape is the corrections room's (issue 30): actorOfPrincipal and actorOfAdmin of
 * modules/corrections/revisions.ts, the published `{kind, id, name}` of its schemas.ts.
 */

export interface LeaveCaller {
  companyId: string;
  timeZone: string | null;
  /** `decidedBy` as published: the stored actor with the name it has at the time of the decision. */
  actor: ChangeActor;
  audit: Actor;
  /**
   * The employee the caller is: the person's linked employee (`user create --employee`), or for an API
   * key its creator's (a key acts for its creator, as corrections' own_entry rule has it); null for the
   * CLI and for keys whose creator is no employee.
   */
  employeeId: string | null;
}

/** Who decides when a type needs no approval. */
export const SYSTEM_ACTOR: ChangeActor = { kind: 'system', id: null, name: 'automatic approval' };

/** The operator at the command line, as corrections names it. */
const CLI_NAME = 'command line';

export async function callerOfPrincipal(db: Executor, principal: Principal): Promise<LeaveCaller> {
  const base = { companyId: principal.companyId, timeZone: principal.company.timeZone };
  const actor = actorOfPrincipal(principal);
  if (principal.kind === 'api_key')
    return {
      ...base,
      actor: { ...actor, name: await keyNameOf(db, principal.id) },
      audit: { type: 'api_key', id: principal.id },
      employeeId: await keyCreatorEmployeeOf(db, principal.id),
    };
  const person = await personOf(db, principal.id);
  return {
    ...base,
    actor: { ...actor, name: person?.email ?? null },
    audit: { type: 'user', id: principal.id },
    employeeId: person?.employee_id ?? null,
  };
}

export async function callerOfPerson(db: Executor, person: ConsolePerson): Promise<LeaveCaller> {
  const row = await personOf(db, person.id);
  const audit: Actor = { type: 'user', id: person.id };
  return {
    companyId: person.companyId,
    timeZone: person.company.timeZone,
    actor: { ...actorOfAdmin(audit), name: person.email },
    audit,
    employeeId: row?.employee_id ?? null,
  };
}

export function cliCaller(company: { id: string; time_zone: string | null }): LeaveCaller {
  const audit: Actor = { type: 'cli', id: null };
  return {
    companyId: company.id,
    timeZone: company.time_zone,
    actor: { ...actorOfAdmin(audit), name: CLI_NAME },
    audit,
    employeeId: null,
  };
}

/** The version `If-Match` names (`"3"`, `3`, `W/"3"`); null when absent or `*` (any version). */
export function parseIfMatch(headers: IncomingHttpHeaders): number | null {
  const value = headers['if-match'];
  if (value === undefined) return null;
  const text = (Array.isArray(value) ? value.join(',') : value).trim();
  if (text === '*') return null;
  const match = /^(?:W\/)?"?(\d{1,9})"?$/.exec(text);
  if (!match)
    throw validationError([{ field: 'If-Match', message: 'must be a version like "3"', code: 'format' }]);
  return Number(match[1]);
}

export function versionMismatch(current: number): ApiError {
  return new ApiError(
    'version_mismatch',
    `the absence is at version ${current}: read it again and decide on what it is now`,
  );
}

/** The ETag of a version: the number quoted. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

/** The CLI's caller for the company of an employee or an absence (the CLI names only ids). */
export async function cliCallerOf(
  db: Executor,
  by: { employeeId: string } | { absenceId: string } | { companyId: string } | { workplaceId: string },
): Promise<LeaveCaller> {
  let companyId: string | null;
  if ('employeeId' in by)
    companyId = (await companyOfEmployee(db, by.employeeId.toLowerCase()))?.company_id ?? null;
  else if ('absenceId' in by) companyId = await companyOfAbsence(db, by.absenceId.toLowerCase());
  else if ('workplaceId' in by)
    companyId = (await findWorkplaceRow(db, by.workplaceId.toLowerCase(), null))?.company_id ?? null;
  else companyId = by.companyId.toLowerCase();
  const company = companyId === null ? undefined : await companyZone(db, companyId);
  if (!company) {
    const [what, id] = Object.entries(by)[0]!;
    throw new ApiError(
      what === 'employeeId' ? 'employee_not_found' : 'not_found',
      `unknown ${what.replace('Id', '')}: ${id}`,
    );
  }
  return cliCaller(company);
}
