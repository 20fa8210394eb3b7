import { type Kysely, sql } from 'kysely';

/*
 * Corrections (issue 30).
 *
 * `time_entries` gains `version` (the number of its revisions: 1 when recorded, +1 with every change;
 * the ETag of GET /time-entries/{id} and what If-Match compares), `edited` (a correction happened) and
 * `auto_closed` (the automatic clock-out closed it).
 *
 * `time_entry_revisions`: the recording of an entry and every change after it, numbered from 1 per
 * entry. The primary key (time_entry_id, revision) is the database's last word that a revision is
 * written once: two instances closing the same session, or two managers correcting the same entry,
 * cannot both write revision n. No foreign key to the entry: a deleted entry's rows go, its
 * revisions stay (they are how it stays readable). `actor_kind` api_key | person | device | cli |
 * system with `actor_id` (the names are read with the revisions); `changes` JSON
 * `[{field, from, to}]` in the list item's field names.
 *
 * `locked_periods`: closed payroll periods, for the company or one workplace; while `reopened_at`
 * is null every write landing on their days is refused (409 day_locked).
 *
 * `companies.auto_clock_out_after_hours`: 1-23, or null (no automatic clock-out, the default).
 *
 * Entries recorded before this migration get their revision 1 (`recorded`, by whoever created them,
 * at their creation).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema
    .alterTable('time_entries')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('time_entries')
    .addColumn('edited', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('time_entries')
    .addColumn('auto_closed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('companies').addColumn('auto_clock_out_after_hours', 'integer').execute();

  await db.schema
    .createTable('time_entry_revisions')
    .addColumn('time_entry_id', 'text', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('reason', 'text')
    .addColumn('changes', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('time_entry_revisions_pkey', ['time_entry_id', 'revision'])
    .execute();

  await db.schema
    .createTable('locked_periods')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('workplace_id', 'text')
    .addColumn('from_date', 'text', (c) => c.notNull())
    .addColumn('to_date', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text', (c) => c.notNull())
    .addColumn('closed_by_kind', 'text', (c) => c.notNull())
    .addColumn('closed_by_id', 'text')
    .addColumn('reopened_at', 'text')
    .addColumn('reopened_by_kind', 'text')
    .addColumn('reopened_by_id', 'text')
    .addColumn('reopen_reason', 'text')
    .execute();
  // Every write asks "is one of these days in a closed period of the company?": the closed periods of
  // the company that end on or after the earliest day.
  await db.schema
    .createIndex('locked_periods_company_to_idx')
    .on('locked_periods')
    .columns(['company_id', 'to_date'])
    .execute();

  await sql`
    insert into time_entry_revisions
      (time_entry_id, revision, company_id, at, action, actor_kind, actor_id, reason, changes)
    select id, 1, company_id, created_at, 'recorded',
           case created_by_type when 'user' then 'person' else created_by_type end,
           created_by_id, null, '[]'
    from time_entries`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('locked_periods').execute();
  await db.schema.dropTable('time_entry_revisions').execute();
  await db.schema.alterTable('companies').dropColumn('auto_clock_out_after_hours').execute();
  await db.schema.alterTable('time_entries').dropColumn('auto_closed').execute();
  await db.schema.alterTable('time_entries').dropColumn('edited').execute();
  await db.schema.alterTable('time_entries').dropColumn('version').execute();
}
