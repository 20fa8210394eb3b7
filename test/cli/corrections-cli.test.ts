/**
 * Issue 30, item 9: corrections and closed periods from the command line, driven as an operator
 * drives them (the built `node dist/cli/main.js …` in a child process) on every dialect: `entry edit`,
 * `entry delete`, `entry reopen`, `entry history`, `period close|reopen|list` and `company update
 * --auto-clock-out-after`. The entries are recorded in this process through the public API's own
 * services (a punch, a shift), as an integrator's key would. Run after `npm run build`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/modules/auth/service.js';
import { type AppContext, inTransaction } from '../../src/modules/context.js';
import { recordClockEvent } from '../../src/modules/time-tracking/clock-event.js';
import { createShift } from '../../src/modules/time-tracking/shift.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';
import { runCli } from '../support/processes.js';
import { type CompanyFixture, createCompanyFixture } from '../support/server.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const UNKNOWN_ID = '01a1f000-0000-7000-8000-000000000000';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed CLI output is checked field by field
type Json = any;

/** A Berlin wall clock `daysAgo` days before today (UTC date) at `hour`:00, as RFC 3339 with offset. */
function berlin(daysAgo: number, hour: number): string {
  const day = new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
  // Berlin is UTC+1 in winter and UTC+2 in summer; the offset sent is kept exact by the server.
  const probe = new Date(`${day}T12:00:00Z`);
  const offset = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', timeZoneName: 'shortOffset' })
    .formatToParts(probe)
    .find((p) => p.type === 'timeZoneName')!
    .value.replace('GMT', '');
  const hours = Number(offset || '0');
  const sign = hours < 0 ? '-' : '+';
  return `${day}T${String(hour).padStart(2, '0')}:00:00${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`;
}

const dayOf = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} does not exist: run \`npm run build\` before the CLI tests`);
});

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'punchclock entry and period commands on %s',
  (_name, dialect) => {
    let database: TestDatabase;
    let store: Database;
    let ctx: AppContext;
    let fixture: CompanyFixture;
    let principal: Principal;

    beforeAll(async () => {
      database = await dialect.create();
      store = createDatabase(parseDatabaseUrl(database.url), { poolSize: 2 });
      await migrateToLatest(store.db);
      ctx = { database: store, now: Date.now };
      fixture = await createCompanyFixture(ctx, { timeZone: 'Europe/Berlin', employeeCount: 3 });
      principal = {
        kind: 'api_key',
        id: fixture.key.id,
        companyId: fixture.companyId,
        clientId: fixture.key.clientId,
        scopes: ['attendance.record', 'attendance.read'],
        tokenExpiresAt: new Date(Date.now() + HOUR),
        company: { timeZone: 'Europe/Berlin', timeTracking: true },
      };
    });
    afterAll(async () => {
      await store?.close();
      await database?.drop();
    });

    const cli = (...args: string[]) => runCli(database.url, ...args);
    async function json(...args: string[]): Promise<Json> {
      const result = await cli(...args, '--json');
      expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^[^\n]+\n$/);
      return JSON.parse(result.stdout);
    }
    async function fails(pattern: RegExp, ...args: string[]): Promise<void> {
      const result = await cli(...args);
      expect(result.code, `punchclock ${args.join(' ')}: ${result.stdout}`).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^error: [^\n]+\n$/);
      expect(result.stderr).toMatch(pattern);
    }

    /** A completed shift of employee `index` (through POST /time-entries' service); its id. */
    async function recordShift(index: number, clockIn: string, clockOut: string): Promise<string> {
      const outcome = await inTransaction(ctx, (tx, now) =>
        createShift(
          tx,
          now,
          principal,
          { employee: { id: fixture.employees[index]!.id }, clockIn, clockOut, breakMinutes: 30 },
          { dryRun: false },
        ),
      );
      return outcome.body.timeEntryId!;
    }

    it('company update --auto-clock-out-after HOURS|none sets and clears the automatic clock-out', async () => {
      const set = await json('company', 'update', fixture.companyId, '--auto-clock-out-after', '8');
      expect(set).toMatchObject({ id: fixture.companyId, autoClockOutAfterHours: 8 });
      const human = await cli('company', 'update', fixture.companyId, '--auto-clock-out-after', '10');
      expect(human).toMatchObject({ code: 0, stderr: '' });
      expect(human.stdout).toContain('automatic clock-out after 10 h');
      const cleared = await json('company', 'update', fixture.companyId, '--auto-clock-out-after', 'none');
      expect(cleared.autoClockOutAfterHours).toBeNull();
      for (const wrong of ['0', '24', '1.5', 'soon'])
        await fails(
          /automatic clock-out must be a whole number of hours from 1 to 23, or none/,
          'company',
          'update',
          fixture.companyId,
          '--auto-clock-out-after',
          wrong,
        );
    });

    it('entry edit corrects a shift with a reason; entry history shows who changed what and why', async () => {
      const id = await recordShift(0, berlin(3, 8), berlin(3, 16));
      const edited = await json(
        'entry',
        'edit',
        id,
        '--clock-out',
        berlin(3, 17),
        '--break-minutes',
        '45',
        '--note',
        'stayed late',
        '--reason',
        'forgot to say',
      );
      expect(edited).toMatchObject({
        id,
        endTime: '17:00:00',
        breakMinutes: 45,
        totalHours: 8.25,
        status: 'pending_approval',
        version: 2,
        edited: true,
        autoClosed: false,
      });
      const human = await cli('entry', 'edit', id, '--note', '', '--reason', 'no note after all');
      expect(human).toMatchObject({ code: 0, stderr: '' });
      expect(human.stdout).toMatch(
        new RegExp(`^time entry ${id}: \\S+ 08:00:00–17:00:00, pending_approval, version 3\\n$`),
      );

      const history = await json('entry', 'history', id);
      expect(history.items.map((r: Json) => [r.revision, r.action])).toEqual([
        [1, 'recorded'],
        [2, 'corrected'],
        [3, 'corrected'],
      ]);
      expect(history.items[0].actor).toEqual({ kind: 'api_key', id: fixture.key.id, name: 'test key' });
      expect(history.items[1]).toMatchObject({
        actor: { kind: 'cli', id: null, name: 'command line' },
        reason: 'forgot to say',
      });
      expect(history.items[1].changes).toEqual(
        expect.arrayContaining([
          { field: 'endTime', from: '16:00:00', to: '17:00:00' },
          { field: 'breakMinutes', from: 30, to: 45 },
          { field: 'note', from: null, to: 'stayed late' },
        ]),
      );
      expect(history.items[2].changes).toEqual([{ field: 'note', from: 'stayed late', to: null }]);
      const lines = await cli('entry', 'history', id);
      expect(lines.stdout).toContain('2. ');
      expect(lines.stdout).toContain('corrected by command line (forgot to say)');
      expect(lines.stdout).toContain('endTime: "16:00:00" → "17:00:00"');

      // Every rule of a recorded shift holds; a reason is required; nothing changes on a refusal.
      await fails(
        /clockOut.*after clockIn|must be after clockIn/,
        'entry',
        'edit',
        id,
        '--clock-out',
        berlin(3, 7),
        '--reason',
        'x',
      );
      await fails(/reason/, 'entry', 'edit', id, '--note', 'no reason');
      await fails(/nothing_to_change|at least one of/, 'entry', 'edit', id, '--reason', 'nothing');
      await fails(
        /break minutes must be a whole number/,
        'entry',
        'edit',
        id,
        '--break-minutes',
        'lots',
        '--reason',
        'x',
      );
      await fails(
        /no time entry|unknown time entry/,
        'entry',
        'edit',
        UNKNOWN_ID,
        '--note',
        'x',
        '--reason',
        'x',
      );
      await fails(/entry id must be a UUID/, 'entry', 'edit', 'not-an-id', '--note', 'x', '--reason', 'x');
      expect((await json('entry', 'history', id)).items).toHaveLength(3);
      await fails(/unknown time entry/, 'entry', 'history', UNKNOWN_ID);
    });

    it('entry edit --clock-out closes a session nobody clocked out of', async () => {
      const opened = await inTransaction(ctx, (tx, now) =>
        recordClockEvent(
          tx,
          now,
          principal,
          { employee: { id: fixture.employees[1]!.id }, type: 'clock_in', occurredAt: berlin(2, 9) },
          { dryRun: false, detectDuplicates: false },
        ),
      );
      const id = opened.body.timeEntryId!;
      const closed = await json(
        'entry',
        'edit',
        id,
        '--clock-out',
        berlin(2, 17),
        '--reason',
        'forgot to clock out',
      );
      expect(closed).toMatchObject({
        id,
        startTime: '09:00:00',
        endTime: '17:00:00',
        totalHours: 8,
        status: 'pending_approval',
        source: 'time_clock',
        breaks: [],
        version: 2,
        edited: true,
      });
      const history = await json('entry', 'history', id);
      expect(history.items.map((r: Json) => r.action)).toEqual(['recorded', 'corrected']);
      expect(history.items[1].changes).toEqual(
        expect.arrayContaining([
          { field: 'endTime', from: null, to: '17:00:00' },
          { field: 'status', from: 'open', to: 'pending_approval' },
        ]),
      );
    });

    it('entry reopen sends a decided entry back to pending_approval; other statuses are refused', async () => {
      const id = await recordShift(0, berlin(4, 8), berlin(4, 12));
      await fails(
        /invalid_status_transition|only approved or rejected entries can be reopened/,
        'entry',
        'reopen',
        id,
        '--reason',
        'x',
      );
      const approved = await json('entry', 'approve', id);
      expect(approved).toMatchObject({ id, status: 'approved', version: 2 });
      const reopened = await json('entry', 'reopen', id, '--reason', 'hours disputed');
      expect(reopened).toMatchObject({ id, status: 'pending_approval', approvedAt: null, version: 3 });
      const human = await cli('entry', 'reject', id);
      expect(human.stdout).toBe(`time entry ${id} rejected\n`);
      const again = await cli('entry', 'reopen', id, '--reason', 'second look');
      expect(again).toMatchObject({ code: 0, stderr: '' });
      expect(again.stdout).toMatch(/pending_approval, version 5\n$/);
      const actions = (await json('entry', 'history', id)).items.map((r: Json) => [r.action, r.reason]);
      expect(actions).toEqual([
        ['recorded', null],
        ['approved', null],
        ['reopened', 'hours disputed'],
        ['rejected', null],
        ['reopened', 'second look'],
      ]);
      await fails(/reason/, 'entry', 'reopen', id);
    });

    it('entry delete removes an entry with a reason; its history stays readable', async () => {
      const id = await recordShift(2, berlin(5, 8), berlin(5, 12));
      await fails(/reason/, 'entry', 'delete', id);
      await fails(/reason: must not be blank|must not be blank/, 'entry', 'delete', id, '--reason', '   ');
      const deleted = await json('entry', 'delete', id, '--reason', 'recorded twice');
      expect(deleted).toEqual({ id, deleted: true });
      const rows = await store.db.selectFrom('time_entries').select('id').where('id', '=', id).execute();
      expect(rows).toEqual([]);
      const history = await json('entry', 'history', id);
      expect(history.items.map((r: Json) => r.action)).toEqual(['recorded', 'deleted']);
      expect(history.items[1]).toMatchObject({ reason: 'recorded twice', actor: { kind: 'cli' } });
      expect(history.items[1].changes).toEqual(
        expect.arrayContaining([{ field: 'startTime', from: '08:00:00', to: null }]),
      );
      await fails(/no time entry/, 'entry', 'delete', id, '--reason', 'again');
      const other = await recordShift(2, berlin(5, 13), berlin(5, 15));
      const human = await cli('entry', 'delete', other, '--reason', 'not worked');
      expect(human.stdout).toBe(`time entry ${other} deleted\n`);
    });

    // About 30 CLI processes: under a loaded machine (a CI rehearsal beside other suites) past 30 s.
    it('period close, list and reopen: writes landing on a closed period are refused until it is reopened', async () => {
      const day = dayOf(6);
      const id = await recordShift(1, berlin(6, 8), berlin(6, 12));
      const closed = await json(
        'period',
        'close',
        '--company',
        fixture.companyId,
        '--from',
        day,
        '--to',
        day,
      );
      expect(closed).toMatchObject({
        from: day,
        to: day,
        workplaceId: null,
        closedBy: { kind: 'cli', id: null, name: 'command line' },
        reopenedAt: null,
      });
      const forWorkplace = await json(
        'period',
        'close',
        '--company',
        fixture.companyId,
        '--from',
        dayOf(7),
        '--to',
        dayOf(7),
        '--workplace',
        fixture.workplaceId,
      );
      expect(forWorkplace.workplaceId).toBe(fixture.workplaceId);
      const listed = await json('period', 'list', '--company', fixture.companyId);
      expect(listed.items.map((p: Json) => p.id).sort()).toEqual([closed.id, forWorkplace.id].sort());
      const human = await cli('period', 'list', '--company', fixture.companyId);
      expect(human.stdout).toContain(`period ${closed.id}: ${day} to ${day}, the whole company, closed `);
      expect(human.stdout).toContain(`workplace ${fixture.workplaceId}`);

      // Corrections, deletions, decisions and new records on its days: 409 day_locked, one line each.
      await fails(/closed/, 'entry', 'edit', id, '--note', 'late', '--reason', 'x');
      await fails(/closed/, 'entry', 'delete', id, '--reason', 'x');
      await fails(/closed/, 'entry', 'approve', id);
      await expect(recordShift(0, berlin(7, 13), berlin(7, 14))).rejects.toMatchObject({
        errorName: 'day_locked',
      });
      await expect(recordShift(0, berlin(6, 13), berlin(6, 14))).rejects.toMatchObject({
        errorName: 'day_locked',
      });

      await fails(
        /92 days/,
        'period',
        'close',
        '--company',
        fixture.companyId,
        '--from',
        dayOf(200),
        '--to',
        dayOf(100),
      );
      await fails(
        /must not be before from/,
        'period',
        'close',
        '--company',
        fixture.companyId,
        '--from',
        day,
        '--to',
        dayOf(8),
      );
      await fails(
        /no such workplace/,
        'period',
        'close',
        '--company',
        fixture.companyId,
        '--from',
        day,
        '--to',
        day,
        '--workplace',
        UNKNOWN_ID,
      );
      await fails(/unknown company/, 'period', 'close', '--company', UNKNOWN_ID, '--from', day, '--to', day);

      const reopened = await json('period', 'reopen', closed.id, '--reason', 'payroll rerun');
      expect(reopened).toMatchObject({
        id: closed.id,
        reopenedAt: expect.any(String),
        reopenedBy: { kind: 'cli', name: 'command line' },
        reopenReason: 'payroll rerun',
      });
      await fails(/no closed period/, 'period', 'reopen', closed.id, '--reason', 'again');
      await fails(/reason/, 'period', 'reopen', forWorkplace.id);
      expect(
        (await json('period', 'list', '--company', fixture.companyId)).items.map((p: Json) => p.id),
      ).toEqual([forWorkplace.id]);
      const corrected = await json('entry', 'edit', id, '--note', 'after payroll', '--reason', 'reopened');
      expect(corrected).toMatchObject({ id, version: 2 });
      const emptied = await json('period', 'reopen', forWorkplace.id, '--reason', 'done');
      expect(emptied.reopenReason).toBe('done');
      expect((await cli('period', 'list', '--company', fixture.companyId)).stdout).toBe(
        'no closed periods\n',
      );
    }, 120_000);
  },
);
