import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../src/domain/cursor.js';
import type { Principal } from '../../src/modules/auth/service.js';
import { appendEvents, readChanges } from '../../src/modules/events/service.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { exportInstallation } from '../../src/platform/db/transfer.js';
import { testDialects } from '../support/databases.js';
import { runCli } from '../support/processes.js';

/*
 * Issue 32's review, findings 2 and 3: `punchclock export` of a database not migrated yet, and the
 * events of a running PostgreSQL installation (numbered after their commit) moved whole: one snapshot,
 * the events not numbered yet exported too and numbered by the import.
 */
const dialects = testDialects();
const postgres = dialects.find((d) => d.name === 'postgres');
const cursors = createCursorCodec(Buffer.from('transfer-events-test-secret'));
const principal = (companyId: string): Principal => ({
  kind: 'api_key',
  id: 'key',
  companyId,
  clientId: null,
  scopes: ['attendance.read', 'employees.read'],
  tokenExpiresAt: new Date(Date.now() + 60_000),
  company: { timeZone: null, timeTracking: true },
});
const at = '2026-11-10T08:00:00.000Z';
const event = (n: number) => [{ type: 'day.confirmed' as const, data: { n } }];

/** The rows of `table` in an export file, as objects. */
function tableRows(file: string, table: string): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  let columns: string[] | null = null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line) as { table?: string; columns?: string[]; row?: unknown[] };
    if (record.table !== undefined) columns = record.table === table ? record.columns! : null;
    else if (record.row !== undefined && columns !== null)
      rows.push(Object.fromEntries(columns.map((c, i) => [c, record.row![i]])));
  }
  return rows;
}

const dir = mkdtempSync(join(tmpdir(), 'punchclock-transfer-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(dialects)('export of a database never migrated ($name)', (dialect) => {
  it('migrates it and exports it', async () => {
    const source = await dialect.create();
    try {
      const file = join(dir, `unmigrated-${dialect.name}.jsonl`);
      const exported = await runCli(source.url, 'export', '--out', file, '--json');
      expect(exported.code, exported.stderr).toBe(0);
      expect((JSON.parse(exported.stdout) as { rows: Record<string, number> }).rows.companies).toBe(0);
    } finally {
      await source.drop();
    }
  }, 60_000);
});

describe.runIf(postgres)('export of a running PostgreSQL installation', () => {
  it.each(dialects.map((d) => d.name))(
    'events not numbered yet are exported and numbered by the import (into %s), after the others',
    async (to) => {
      const source = await postgres!.create();
      const target = await dialects.find((d) => d.name === to)!.create();
      const database = createDatabase(parseDatabaseUrl(source.url), { poolSize: 2 });
      try {
        await migrateToLatest(database.db);
        const company = 'company-moved';
        await database.transaction((tx) => appendEvents(tx, company, event(1), at));
        // Committed, not numbered yet (written outside Database.transaction: no numbering after the commit).
        await database.db.transaction().execute((tx) => appendEvents(tx, company, event(2), at));
        const file = join(dir, `pending-${to}.jsonl`);
        const exported = await runCli(source.url, 'export', '--out', file, '--json');
        expect(exported.code, exported.stderr).toBe(0);
        expect((JSON.parse(exported.stdout) as { rows: Record<string, number> }).rows).toMatchObject({
          events: 1,
          pending_events: 1,
        });
        const imported = await runCli(target.url, 'import', '--in', file, '--json');
        expect(imported.code, imported.stderr).toBe(0);
        const moved = createDatabase(parseDatabaseUrl(target.url), { poolSize: 2 });
        try {
          const page = await readChanges(moved.db, cursors, principal(company), {});
          expect(page.items.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
          expect(await moved.db.selectFrom('pending_events').selectAll().execute()).toEqual([]);
          // The target numbers its own next event after them.
          await moved.transaction((tx) => appendEvents(tx, company, event(3), at));
          const next = await readChanges(moved.db, cursors, principal(company), {
            cursor: page.resumeCursor,
          });
          expect(next.items.map((e) => e.data)).toEqual([{ n: 3 }]);
        } finally {
          await moved.close();
        }
      } finally {
        await database.close();
        await source.drop();
        await target.drop();
      }
    },
    60_000,
  );

  it('reads one snapshot: an event committed during the export is in neither events nor event_sequences', async () => {
    const source = await postgres!.create();
    const database = createDatabase(parseDatabaseUrl(source.url), { poolSize: 2 });
    const writer = createDatabase(parseDatabaseUrl(source.url), { poolSize: 2 });
    try {
      await migrateToLatest(database.db);
      const company = 'company-busy';
      await database.transaction((tx) => appendEvents(tx, company, event(1), at));
      const file = join(dir, 'snapshot.jsonl');
      const started: { export?: Promise<unknown> } = {};
      // A writer that holds `events` until the export, having read event_sequences, waits for it,
      // then numbers one more event and commits while the export reads on.
      await writer.db.transaction().execute(async (tx) => {
        await sql`lock table events in access exclusive mode`.execute(tx);
        started.export = exportInstallation(database, file);
        for (let i = 0; ; i++) {
          const { rows } = await sql<{ waiting: number }>`
            select count(*)::integer as waiting from pg_locks l join pg_class c on c.oid = l.relation
            where c.relname = 'events' and not l.granted`.execute(writer.db);
          if (rows[0]!.waiting > 0) break;
          if (i > 250) throw new Error('the export never reached events');
          await new Promise((r) => setTimeout(r, 20));
        }
        await sql`update event_sequences set last_seq = last_seq + 1 where company_id = ${company}`.execute(
          tx,
        );
        await tx
          .insertInto('events')
          .values({
            company_id: company,
            seq: 2,
            id: 'during',
            type: 'day.confirmed',
            occurred_at: at,
            data: '{}',
          })
          .execute();
      });
      await started.export;
      const sequences = tableRows(file, 'event_sequences').filter((r) => r.company_id === company);
      const events = tableRows(file, 'events').filter((r) => r.company_id === company);
      expect(sequences.map((r) => Number(r.last_seq))).toEqual([1]);
      expect(events.map((r) => Number(r.seq))).toEqual([1]);
    } finally {
      await writer.close();
      await database.close();
      await source.drop();
    }
  }, 60_000);
});
