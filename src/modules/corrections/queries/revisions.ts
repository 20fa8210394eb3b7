import { type Executor, type Tx } from '../../../platform/db/database.js';
import { ONE_ROW, prepareQuery } from '../../../platform/db/prepared.js';
import { columnsOf, insertRows } from '../../../platform/db/update-rows.js';

/*
 * Rows of revisions (issue 30): the recording of an entry and every change after it, the entry's
 * version that follows them, and the names of who made them.
 */

export interface RevisionRow {
  time_entry_id: string;
  revision: number;
  company_id: string;
  at: string;
  action: string;
  actor_kind: string;
  actor_id: string | null;
  reason: string | null;
  changes: string;
}

const insertRevisionQuery = prepareQuery((db, p: RevisionRow) =>
  db.insertInto('time_entry_revisions').values({
    time_entry_id: p.time_entry_id,
    revision: p.revision,
    company_id: p.company_id,
    at: p.at,
    action: p.action,
    actor_kind: p.actor_kind,
    actor_id: p.actor_id,
    reason: p.reason,
    changes: p.changes,
  }),
);

/** A revision. The primary key (entry, revision) refuses a second revision n of an entry. */
export async function insertRevision(tx: Tx, row: RevisionRow): Promise<void> {
  await insertRevisionQuery.executeWrite(tx, row);
}

/** Several revisions, in multi-row statements of at most ROWS_PER_INSERT rows. */
export async function insertRevisions(tx: Tx, rows: RevisionRow[]): Promise<void> {
  if (rows.length > 0) await insertRows(tx, 'time_entry_revisions', columnsOf(rows), rows);
}

/** An entry's revisions, oldest first, with the acting key's name or person's email. */
export function listRevisionRows(db: Executor, companyId: string, entryId: string) {
  return db
    .selectFrom('time_entry_revisions as r')
    .leftJoin('api_keys as k', (join) =>
      join.onRef('k.id', '=', 'r.actor_id').on('r.actor_kind', '=', 'api_key'),
    )
    .leftJoin('users as u', (join) => join.onRef('u.id', '=', 'r.actor_id').on('r.actor_kind', '=', 'person'))
    .leftJoin('devices as d', (join) =>
      join.onRef('d.id', '=', 'r.actor_id').on('r.actor_kind', '=', 'device'),
    )
    .selectAll('r')
    .select(['k.name as key_name', 'u.email as person_email', 'd.name as device_name'])
    .where('r.company_id', '=', companyId)
    .where('r.time_entry_id', '=', entryId)
    .orderBy('r.revision')
    .execute();
}

/** The company an entry's revisions belong to (the command line names an entry by id alone). */
export async function revisionsCompany(db: Executor, entryId: string): Promise<string | null> {
  const row = await db
    .selectFrom('time_entry_revisions')
    .select('company_id')
    .where('time_entry_id', '=', entryId)
    .limit(ONE_ROW)
    .executeTakeFirst();
  return row?.company_id ?? null;
}

/** The name of an actor of this company: a key's name, a person's email; null when unknown. */
export async function actorName(db: Executor, companyId: string, kind: string, id: string | null) {
  if (id === null) return null;
  if (kind === 'api_key') {
    const key = await db
      .selectFrom('api_keys')
      .select('name')
      .where('id', '=', id)
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    return key?.name ?? null;
  }
  if (kind === 'person') {
    const user = await db
      .selectFrom('users')
      .select('email')
      .where('id', '=', id)
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    return user?.email ?? null;
  }
  return null;
}

/** The employee a person is linked to (`user create --employee`), if any. */
export async function linkedEmployeeOf(db: Executor, userId: string): Promise<string | null> {
  const row = await db.selectFrom('users').select('employee_id').where('id', '=', userId).executeTakeFirst();
  return row?.employee_id ?? null;
}

/** The employee linked to the person who created an API key, if any (a key acts for its creator). */
export async function keyCreatorEmployeeOf(db: Executor, keyId: string): Promise<string | null> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.created_by')
    .select('users.employee_id')
    .where('api_keys.id', '=', keyId)
    .executeTakeFirst();
  return row?.employee_id ?? null;
}
