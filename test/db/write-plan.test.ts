import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { WritePlan } from '../../src/platform/db/write-plan.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * Issue 32, item 3: a plan of writes (platform/db/write-plan.ts) runs as one statement of
 * data-modifying CTEs on PostgreSQL and one statement each on SQLite; either way every write lands, an
 * update answers how many rows it changed (a NULL condition is IS NULL), an upsert replaces the row
 * with its key, a failing write leaves nothing of the plan, and names are checked before any SQL.
 */
describe.each(testDialects())('a plan of writes ($name)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  const audit = (id: string, action: string) => ({
    id,
    company_id: 'c1',
    actor_type: 'system',
    actor_id: null,
    action,
    target_type: 'break',
    target_id: 'b1',
    details: null,
    created_at: '2026-11-10T08:00:00.000Z',
  });
  const record = (key: string, body: string) => ({
    company_id: 'c1',
    api_key_id: 'k1',
    idempotency_key: key,
    request_hash: `hash of ${body}`,
    state: 'done',
    response_status: 201,
    response_body: body,
    created_at: '2026-11-10T08:00:00.000Z',
    expires_at: '2026-11-11T08:00:00.000Z',
  });
  const RECORD_KEY = ['company_id', 'api_key_id', 'idempotency_key'] as const;

  beforeAll(async () => {
    testDatabase = await dialect.create();
    database = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 2 });
    await migrateToLatest(database.db);
  });
  afterAll(async () => {
    await database.close();
    await testDatabase.drop();
  });

  it('inserts, upserts and updates in one run; each write says how many rows it changed', async () => {
    await database.db.insertInto('idempotency_records').values(record('a', 'old')).execute();
    const plan = new WritePlan();
    const a = audit('a1', 'first');
    plan.insert('audit_log', Object.keys(a) as never, a);
    const replaced = record('a', 'new');
    plan.upsert('idempotency_records', Object.keys(replaced) as never, replaced, RECORD_KEY);
    plan.update('time_entry_breaks', { end_at: 'x' }, { time_entry_id: 'none', end_at: null });
    // Statements sent: one on PostgreSQL (data-modifying CTEs), one per write on SQLite.
    let statements = 0;
    const counts = await database.transaction((tx) =>
      plan.run({
        getExecutor: () => tx.getExecutor(),
        executeQuery: (query: Parameters<typeof tx.executeQuery>[0]) => {
          statements++;
          return tx.executeQuery(query);
        },
      } as unknown as typeof tx),
    );
    expect(counts).toEqual([1, 1, 0]);
    expect(statements).toBe(dialect.name === 'postgres' ? 1 : 3);
    const rows = await database.db
      .selectFrom('idempotency_records')
      .select(['idempotency_key', 'response_body', 'request_hash'])
      .where('company_id', '=', 'c1')
      .execute();
    expect(rows).toEqual([{ idempotency_key: 'a', response_body: 'new', request_hash: 'hash of new' }]);
    const audits = await database.db
      .selectFrom('audit_log')
      .select('action')
      .where('id', '=', 'a1')
      .execute();
    expect(audits).toEqual([{ action: 'first' }]);
  });

  it.runIf(dialect.name === 'postgres')(
    'runs as a named statement on PostgreSQL: parsed once per connection, then reused',
    async () => {
      const planOf = (id: string) => {
        const plan = new WritePlan();
        const a = audit(id, 'named');
        plan.insert('audit_log', Object.keys(a) as never, a);
        const r = record(`named-${id}`, 'body');
        plan.insert('idempotency_records', Object.keys(r) as never, r);
        return plan;
      };
      // One transaction, so one connection: its prepared statements are the session's. Other tests
      // may have run the same shape on this connection before: what is counted is what each run adds.
      const named = async (tx: Parameters<Parameters<typeof database.transaction>[0]>[0]) => {
        const { rows } = await sql<{ name: string; plans: string }>`
          select name, generic_plans + custom_plans as plans from pg_prepared_statements
           where statement like 'with w0 as (insert into "audit_log"%'
             and statement like '%w1 as (insert into "idempotency_records"%'
             and statement not like '%on conflict%' and statement not like '%w2 as%'`.execute(tx);
        return rows;
      };
      const [first, second] = await database.transaction(async (tx) => {
        await planOf('n1').run(tx);
        const afterOne = await named(tx);
        await planOf('n2').run(tx);
        return [afterOne, await named(tx)];
      });
      // Without the name, each run would be an unnamed statement, parsed and planned anew.
      expect(first).toHaveLength(1);
      expect(first![0]!.name).toMatch(/^pc_/);
      expect(second).toEqual([{ name: first![0]!.name, plans: String(Number(first![0]!.plans) + 1) }]);
    },
  );

  it('an update with values and a NULL condition changes exactly the matching rows', async () => {
    const seed = audit('a2', 'seeded');
    await database.db.insertInto('audit_log').values(seed).execute();
    const plan = new WritePlan();
    plan.update('audit_log', { action: 'changed', details: null }, { id: 'a2', actor_id: null });
    const other = audit('a3', 'other');
    plan.insert('audit_log', Object.keys(other) as never, other);
    // Two writes of one table: run one statement each (a CTE could not see the other's row).
    expect(await database.transaction((tx) => plan.run(tx))).toEqual([1, 1]);
    const rows = await database.db
      .selectFrom('audit_log')
      .select(['id', 'action'])
      .where('id', 'in', ['a2', 'a3'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: 'a2', action: 'changed' },
      { id: 'a3', action: 'other' },
    ]);
  });

  it('a write that fails (a unique key taken) leaves nothing of the plan', async () => {
    const taken = record('taken', 'first');
    await database.db.insertInto('idempotency_records').values(taken).execute();
    const plan = new WritePlan();
    const a = audit('a4', 'never');
    plan.insert('audit_log', Object.keys(a) as never, a);
    plan.insert('idempotency_records', Object.keys(taken) as never, record('taken', 'second'));
    await expect(database.transaction((tx) => plan.run(tx))).rejects.toMatchObject({
      code: expect.stringMatching(/^(23505|SQLITE_CONSTRAINT_PRIMARYKEY)$/),
    });
    expect(await database.db.selectFrom('audit_log').select('id').where('id', '=', 'a4').execute()).toEqual(
      [],
    );
  });

  it('refuses a table or column name that is not a plain identifier, before any SQL', async () => {
    const plan = new WritePlan();
    plan.insert('audit_log', ['id", "x' as never], {});
    await expect(database.transaction((tx) => plan.run(tx))).rejects.toThrow(/not a table or column name/);
    expect(() => new WritePlan().update('audit_log', {}, { id: 'x' })).toThrow(
      /values to set and a condition/,
    );
    expect(() => new WritePlan().insert('audit_log', [], {})).toThrow(/needs columns/);
    const keyOnly = { company_id: 'c', api_key_id: 'k', idempotency_key: 'x' };
    expect(() =>
      new WritePlan().upsert('idempotency_records', Object.keys(keyOnly) as never, keyOnly, RECORD_KEY),
    ).toThrow(/columns to update/);
  });

  it('a value left undefined (a misspelt field) is refused, never written as NULL', async () => {
    const plan = new WritePlan();
    plan.insert('audit_log', ['id', 'action'], { id: 'a9' });
    await expect(database.transaction((tx) => plan.run(tx))).rejects.toThrow(/no value for column action/);
    const update = new WritePlan();
    update.update('audit_log', { action: 'x' }, { id: undefined });
    await expect(database.transaction((tx) => update.run(tx))).rejects.toThrow(/no value for column id/);
  });
});
