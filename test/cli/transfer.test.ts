import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/processes.js';
import { type TestDialect, testDialects } from '../support/databases.js';
import { createCompanyFixture, fetchToken, startTestServer } from '../support/server.js';
import { AdminClient, createPerson } from '../support/admin-api.js';
import { CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { upsertShifts } from '../../src/modules/planned-shifts/batch.js';
import { runExceptionsJob } from '../../src/modules/planned-shifts/exceptions-job.js';

/*
 * Issue "outgrow one machine", part 2: `punchclock export` / `import` move a whole installation
 * between SQLite and PostgreSQL; tokens, cursors and idempotency records made before the move work
 * after it, and the moved installation answers as the original did.
 */
const dialects = testDialects();
const byName = (name: string) => dialects.find((d) => d.name === name);
const ENV = { RATE_LIMIT_PER_MINUTE: '100000' };

const pairs = (
  [
    ['sqlite', 'postgres'],
    ['postgres', 'sqlite'],
  ] as const
).filter(([from, to]) => byName(from) && byName(to));

describe.each(pairs)('export from %s, import into %s', (from, to) => {
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-transfer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('moves every table; the moved installation answers the same, tokens, cursors and replays included', async () => {
    const source = await startTestServer(byName(from)!, { env: ENV });
    const targetDatabase = await byName(to)!.create();
    // The moved server must not drop the target when it stops: the refusals below need it.
    const target: TestDialect = {
      name: to,
      create: async () => ({ url: targetDatabase.url, drop: async () => {} }),
    };
    const file = join(dir, 'installation.jsonl');
    try {
      const fixture = await createCompanyFixture(source.ctx, { employeeCount: 3 });
      const token = await fetchToken(source, fixture.key.clientId, fixture.key.secret);
      const employee = fixture.employees[0]!.id;
      const punch = {
        employee: { id: employee },
        type: 'clock_in',
        occurredAt: new Date(Date.now() - 3_600_000).toISOString(),
      };
      const first = await source.request('/api/public/v1/time-clock/events', {
        method: 'POST',
        token,
        json: punch,
        headers: { 'idempotency-key': 'moved-key' },
      });
      expect(first.status).toBe(201);
      const firstText = await first.text();
      // A published shift that started two hours ago without its employee (issue 33): a no-show; and
      // the employee who clocked in above has no shift at that planned workplace today: unplanned.
      const planned = await inTransaction(source.ctx, (tx, now) =>
        upsertShifts(
          tx,
          now,
          { companyId: fixture.companyId, companyZone: null, actor: CLI_ACTOR },
          [
            {
              invalid: null,
              item: {
                employee: { id: fixture.employees[1]!.id },
                start: new Date(now - 2 * 3_600_000).toISOString(),
                end: new Date(now + 3_600_000).toISOString(),
                status: 'published',
              },
            },
          ],
          { dryRun: false },
        ),
      );
      expect(planned[0]!.status).toBe(201);
      // (not when midnight UTC, the company's day boundary, falls between the shift's start and the clock-in).
      const { detected } = await runExceptionsJob(source.ctx);
      expect(detected).toBeGreaterThanOrEqual(1);
      const page = (await (await source.request('/api/public/v1/changes?limit=2', { token })).json()) as {
        nextCursor: string;
      };
      const reads = [
        '/api/public/v1/me',
        '/api/public/v1/employees',
        `/api/public/v1/time-entries?employeeId=${employee}`,
        `/api/public/v1/changes?cursor=${encodeURIComponent(page.nextCursor)}`,
        '/api/public/v1/attendance-exceptions',
        `/api/public/v1/planned-shifts?from=${new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10)}&to=${new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)}`,
      ];
      const before = await Promise.all(
        reads.map(async (path) => (await source.request(path, { token })).text()),
      );

      // A console person: their password and session move too (issue 19).
      const person = await createPerson(source.ctx, fixture.companyId, { email: 'hr@acme.example' });
      const browser = await (await AdminClient.create(source)).signedIn(person);

      const exported = await runCli(source.testDatabase.url, 'export', '--out', file, '--json');
      expect(exported.code, exported.stderr).toBe(0);
      const summary = JSON.parse(exported.stdout) as { rows: Record<string, number> };
      expect(summary.rows).toMatchObject({
        companies: 1,
        employees: 3,
        time_entries: 1,
        idempotency_records: 1,
        console_sessions: 1,
        planned_shifts: 1,
        attendance_exceptions: detected,
      });
      expect(summary.rows.signing_keys).toBeGreaterThan(0);
      expect(summary.rows.events).toBeGreaterThan(0);
      const header = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as {
        format: string;
        version: number;
      };
      expect(header).toMatchObject({ format: 'punchclock-export', version: 1 });

      const imported = await runCli(targetDatabase.url, 'import', '--in', file, '--json');
      expect(imported.code, imported.stderr).toBe(0);
      expect((JSON.parse(imported.stdout) as { rows: Record<string, number> }).rows).toEqual(summary.rows);

      const moved = await startTestServer(target, { env: ENV });
      try {
        const after = await Promise.all(
          reads.map(async (path) => (await moved.request(path, { token })).text()),
        );
        expect(after).toEqual(before);
        const replay = await moved.request('/api/public/v1/time-clock/events', {
          method: 'POST',
          token,
          json: punch,
          headers: { 'idempotency-key': 'moved-key' },
        });
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(await replay.text()).toBe(firstText);
        const movedBrowser = await AdminClient.create(moved);
        movedBrowser.cookie = browser.cookie;
        expect((await movedBrowser.request('/session')).status).toBe(200);
        expect((await movedBrowser.fresh().signIn(person.email, person.password)).status).toBe(200);
      } finally {
        await moved.stop();
      }

      // A target holding data is refused, and so is a file cut short.
      const again = await runCli(targetDatabase.url, 'import', '--in', file);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/holds data/);
      const cut = join(dir, 'cut.jsonl');
      writeFileSync(cut, readFileSync(file, 'utf8').split('\n').slice(0, -3).join('\n'));
      const fresh = await byName(to)!.create();
      try {
        const truncated = await runCli(fresh.url, 'import', '--in', cut);
        expect(truncated.code).toBe(1);
        expect(truncated.stderr).toMatch(/cut short/);
      } finally {
        await fresh.drop();
      }
    } finally {
      await source.stop();
      await targetDatabase.drop();
    }
  }, 120_000);
});
