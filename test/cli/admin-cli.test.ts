/**
 * The operating contract's admin CLI (shared/spec/operations.md), driven as an operator's script drives
 * it: the built `node dist/cli/main.js …` in a child process, with DATABASE_URL, on every dialect.
 * Run after `npm run build`.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { newId } from '../../src/domain/ids.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

const COMPANY_KEYS = [
  'id',
  'name',
  'timeZone',
  'timeTracking',
  'apiAccess',
  // Timesheet settings (issue 21).
  'workweekStart',
  'dailyOvertimeAfter',
  'autoClockOutAfterHours',
  'workingTimeRules',
  // Attendance exceptions and report rounding (issue 33).
  'lateGraceMinutes',
  'noShowAfterMinutes',
  'rounding',
  'roundingMinutes',
  // The personal web clock (issue 35).
  'webClock',
];
const TIMESHEET_DEFAULTS = {
  workweekStart: 'monday',
  dailyOvertimeAfter: null,
  workingTimeRules: 'none',
  lateGraceMinutes: 5,
  noShowAfterMinutes: 30,
  rounding: 'none',
  roundingMinutes: 15,
  // No automatic clock-out by default (issue 30).
  autoClockOutAfterHours: null,
  // The personal web clock is off by default (issue 35).
  webClock: 'off',
};
const WORKPLACE_KEYS = ['id', 'companyId', 'name', 'timeZone'];
const SCHEDULE_KEYS = ['id', 'companyId', 'name'];
const EMPLOYEE_KEYS = [
  'id',
  'externalId',
  'firstName',
  'lastName',
  'email',
  'status',
  'departmentId',
  'positionId',
  'companyId',
  'workplaceId',
  'scheduleId',
  // Employment dates (issue 31).
  'hiredOn',
  'leftOn',
];
const USER_KEYS = ['id', 'companyId', 'email', 'permissions', 'superAdmin'];
const KEY_CREATE_KEYS = ['id', 'clientId', 'secret', 'name', 'scopes', 'expiresAt', 'allowedIps'];
const KEY_LIST_ITEM_KEYS = [
  'id',
  'clientId',
  'name',
  'scopes',
  'createdBy',
  'createdAt',
  'expiresAt',
  'revokedAt',
  'lastUsedAt',
];
const KEY_ROTATE_KEYS = ['id', 'clientId', 'secret', 'previousSecretValidUntil'];
const TIME_ENTRY_KEYS = [
  'id',
  'employee',
  'workDate',
  'startTime',
  'endTime',
  'endsNextDay',
  'totalHours',
  'breakMinutes',
  'status',
  'source',
  'approvedAt',
  'createdAt',
  // Issue 30.
  'version',
  'edited',
  'autoClosed',
  // Issue 35.
  'deviceId',
  'reviewFlags',
];
const ALL_SCOPES = [
  'attendance.record',
  'attendance.read',
  'attendance.reports',
  'employees.read',
  'leave.read',
  'shifts.manage',
  'attendance.manage',
  'leave.manage',
  'webhooks.manage',
];
const TABLES = [
  'companies',
  'workplaces',
  'schedules',
  'employees',
  'employee_schedules',
  'users',
  'api_keys',
  'signing_keys',
  'time_entries',
  'confirmed_days',
  'idempotency_records',
  'audit_log',
  'app_secrets',
  // Issue 31.
  'absence_types',
  'holiday_overrides',
  'leave_entitlements',
  'absences',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = '01a1f000-0000-7000-8000-000000000000';

// biome-ignore lint/suspicious/noExplicitAny: parsed CLI output is checked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents are walked as plain JSON
type Json = any;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One CLI process, with nothing from the test's environment but PATH and the given variables. */
function spawnCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

// Each process costs a few hundred milliseconds of CPU: independent calls run a few at a time.
const MAX_PARALLEL = 4;
let running = 0;
const waiting: (() => void)[] = [];
async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** `'company create --name Acme'` split on spaces, then further arguments as given (they may hold spaces). */
function argv(command: string, rest: string[] = []): string[] {
  return [...command.split(' ').filter(Boolean), ...rest];
}

function sortedKeys(value: object): string[] {
  return Object.keys(value).sort();
}

function expectKeys(value: object, keys: string[]): void {
  expect(sortedKeys(value)).toEqual([...keys].sort());
}

function expectOneErrorLine(result: CliResult, args: string[], pattern?: RegExp): void {
  const what = `punchclock ${args.join(' ')}`;
  expect(result.code, `${what} should fail; stdout: ${result.stdout}`).toBe(1);
  expect(result.stdout, `${what} printed on stdout`).toBe('');
  expect(result.stderr, `${what} stderr`).toMatch(/^error: [^\n]+\n$/);
  if (pattern) expect(result.stderr, `${what} reason`).toMatch(pattern);
}

/**
 * For tests that run a dozen or more CLI processes one after another (each a Node start, ~1 s): 17–24
 * s on a quiet machine, past the default 30 s on a loaded one (a CI rehearsal beside other work).
 */
const HEAVY = { timeout: 90_000 };

/** A command expected to fail: a space-separated string, or the exact argument list. */
type Failure = [command: string | string[], pattern?: RegExp];

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} does not exist: run \`npm run build\` before the CLI tests`);
});

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'punchclock admin CLI on %s',
  (_name, dialect) => {
    let database: TestDatabase;
    let store: Database;
    /** Fresh databases a test made for itself; dropped in afterAll. */
    const extra: TestDatabase[] = [];

    const runOn = (url: string, args: string[]) => limited(() => spawnCli(args, { DATABASE_URL: url }));
    const cli = (command: string, ...rest: string[]) => runOn(database.url, argv(command, rest));

    /** Runs a command with --json; it must succeed with exactly one JSON object on one stdout line. */
    async function jsonOn(url: string, command: string, ...rest: string[]): Promise<Json> {
      const args = [...argv(command, rest), '--json'];
      const result = await runOn(url, args);
      if (result.code !== 0)
        throw new Error(`punchclock ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/^[^\n]+\n$/);
      const parsed = JSON.parse(result.stdout);
      expect(parsed).toBeTypeOf('object');
      expect(Array.isArray(parsed)).toBe(false);
      return parsed;
    }
    const json = (command: string, ...rest: string[]) => jsonOn(database.url, command, ...rest);

    /** Every row of every table, order-independent. */
    async function snapshot(): Promise<Record<string, string[]>> {
      const result: Record<string, string[]> = {};
      for (const table of TABLES) {
        const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(
          store.db,
        );
        result[table] = rows.map((row) => JSON.stringify(row, Object.keys(row).sort())).sort();
      }
      return result;
    }

    /** Every command must exit 1 with one `error:` line and nothing on stdout, and the database must not change. */
    async function expectFailures(failures: Failure[]): Promise<void> {
      const before = await snapshot();
      const cases = failures.map(([command, pattern]) => ({
        args: typeof command === 'string' ? argv(command) : command,
        pattern,
      }));
      const results = await Promise.all(cases.map(({ args }) => runOn(database.url, args)));
      for (const [i, { args, pattern }] of cases.entries()) expectOneErrorLine(results[i]!, args, pattern);
      expect(await snapshot()).toEqual(before);
    }

    async function freshDatabase(): Promise<string> {
      const created = await dialect.create();
      extra.push(created);
      return created.url;
    }

    // Fixtures shared by the tests below.
    let companyA: Json;
    let companyB: Json;
    let workplaceA: Json;
    let scheduleA: Json;
    let workplaceB: Json;
    let scheduleB: Json;
    let superA: Json; // super admin of A
    let keyAdmin: Json; // 90 + 47: may manage keys, may not grant employees.read
    let no90: Json; // 47 + 52: may not manage keys

    beforeAll(async () => {
      database = await dialect.create();
      // One command first: it migrates the fresh database (racing migrations are the concurrency test's).
      companyA = await json('company create --time-zone Europe/Berlin --name', 'Company A');
      companyB = await json('company create --name', 'Company B');
      store = createDatabase(parseDatabaseUrl(database.url), { poolSize: 2 });
      const a = `--company ${companyA.id}`;
      const b = `--company ${companyB.id}`;
      [workplaceA, scheduleA, workplaceB, scheduleB, superA, keyAdmin, no90] = await Promise.all([
        json(`workplace create ${a} --time-zone Europe/Berlin --name`, 'Plant A'),
        json(`schedule create ${a} --weekly-hours 40 --name`, 'Full time'),
        json(`workplace create ${b} --name`, 'Plant B'),
        json(`schedule create ${b} --name`, 'Part time'),
        json(`user create ${a} --email root@a.example --super-admin`),
        json(`user create ${a} --email keys@a.example --permissions 90,47`),
        json(`user create ${a} --email hr@a.example --permissions 52,47`),
      ]);
    });

    afterAll(async () => {
      await store?.close();
      await database?.drop();
      for (const created of extra) await created.drop();
    });

    it('migrate applies the migrations once on a fresh database, in JSON and in words', async () => {
      const url = await freshDatabase();
      expect(await jsonOn(url, 'migrate')).toEqual({
        applied: [
          '0001-initial',
          '0002-events',
          '0003-breaks',
          '0004-console',
          '0005-company-settings',
          '0006-webhooks',
          '0007-corrections',
          '0008-planned-shifts',
          '0009-sso',
          '0010-absences',
          '0011-event-numbering',
          '0012-kiosk',
          '0013-production',
          '0014-self-service',
          '0016-open-sessions',
        ],
      });
      expect(await jsonOn(url, 'migrate')).toEqual({ applied: [] });
      const human = await runOn(url, ['migrate']);
      expect(human).toMatchObject({ code: 0, stderr: '' });
      expect(human.stdout).toMatch(/up to date/);
    });

    it('company create and update print the contract shape', async () => {
      expectKeys(companyA, COMPANY_KEYS);
      expect(companyA).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Company A',
        timeZone: 'Europe/Berlin',
        timeTracking: 'on',
        apiAccess: 'on',
        ...TIMESHEET_DEFAULTS,
      });
      expect(companyB).toMatchObject({
        name: 'Company B',
        timeZone: null,
        timeTracking: 'on',
        apiAccess: 'on',
      });

      const created = await json('company create --name Switches --time-tracking off --api-access off');
      expectKeys(created, COMPANY_KEYS);
      expect(created).toMatchObject({
        name: 'Switches',
        timeZone: null,
        timeTracking: 'off',
        apiAccess: 'off',
      });

      const updated = await json(
        `company update ${created.id} --name Renamed --time-zone America/New_York --time-tracking on`,
      );
      expectKeys(updated, COMPANY_KEYS);
      expect(updated).toEqual({
        id: created.id,
        name: 'Renamed',
        timeZone: 'America/New_York',
        timeTracking: 'on',
        apiAccess: 'off',
        ...TIMESHEET_DEFAULTS,
      });
      const cleared = await json(`company update ${created.id} --time-zone none --api-access on`);
      expect(cleared).toEqual({ ...updated, timeZone: null, apiAccess: 'on' });
      const timesheets = await json(
        `company update ${created.id} --workweek-start sunday --daily-overtime-after 7.5 --working-time-rules us-ca`,
      );
      expect(timesheets).toEqual({
        ...cleared,
        workweekStart: 'sunday',
        dailyOvertimeAfter: 7.5,
        workingTimeRules: 'us-ca',
      });
      expect(await json(`company update ${created.id} --daily-overtime-after none`)).toEqual({
        ...timesheets,
        dailyOvertimeAfter: null,
      });

      // Without --json: a short human-readable form naming the company, not JSON.
      const human = await cli(`company update ${created.id}`);
      expect(human).toMatchObject({ code: 0, stderr: '' });
      expect(human.stdout).toContain(created.id);
      expect(() => JSON.parse(human.stdout)).toThrow();
    });

    it('company create / update refuse bad input with one line and change nothing', async () => {
      const update = `company update ${companyA.id}`;
      await expectFailures([
        [`company update ${UNKNOWN_ID} --name X --json`, /unknown company/],
        ['company update not-a-uuid --name X --json', /UUID/],
        [`${update} --time-zone Mars/Olympus --json`, /time zone/],
        [`${update} --time-zone europe/berlin`, /time zone/],
        [`${update} --time-tracking yes --json`, /on or off/],
        [`${update} --workweek-start Monday --json`, /workweek start/],
        [`${update} --daily-overtime-after 25 --json`, /daily overtime/],
        [`${update} --daily-overtime-after -1 --json`, /daily overtime/],
        [`${update} --daily-overtime-after 8h --json`, /daily overtime/],
        [`${update} --working-time-rules de --json`, /working-time rules/],
        [[...argv(update), '--name', '   ', '--json'], /name/],
        ['company create --name X --time-zone Nowhere --json', /time zone/],
        ['company create --name X --time-tracking ON --json', /on or off/],
        [['company', 'create', '--name', '', '--json'], /name/],
      ]);
    });

    it('workplace create and schedule create print the contract shape; bad input fails', async () => {
      expectKeys(workplaceA, WORKPLACE_KEYS);
      expect(workplaceA).toEqual({
        id: expect.stringMatching(UUID),
        companyId: companyA.id,
        name: 'Plant A',
        timeZone: 'Europe/Berlin',
      });
      expectKeys(workplaceB, WORKPLACE_KEYS);
      expect(workplaceB).toMatchObject({ companyId: companyB.id, timeZone: null });
      expectKeys(scheduleA, SCHEDULE_KEYS);
      expect(scheduleA).toEqual({
        id: expect.stringMatching(UUID),
        companyId: companyA.id,
        name: 'Full time',
      });
      expect(scheduleB).toMatchObject({ companyId: companyB.id, name: 'Part time' });

      const a = `--company ${companyA.id}`;
      await expectFailures([
        [`workplace create --company ${UNKNOWN_ID} --name W --json`, /unknown company/],
        [`workplace create ${a} --name W --time-zone Berlin`, /time zone/],
        [`workplace create ${a} --json`, /--name/],
        [`schedule create --company ${UNKNOWN_ID} --name S --json`, /unknown company/],
        [`schedule create ${a} --name S --weekly-hours lots`, /weekly hours/],
        ['schedule create --name S --json', /--company/],
      ]);
    });

    it('employee create prints the list item plus companyId, workplaceId and scheduleId', async () => {
      const department = newId();
      const position = newId();
      const [full, minimal, defaultFrom] = await Promise.all([
        json(
          `employee create --company ${companyA.id} --email ada@a.example --first-name Ada --last-name Lovelace ` +
            `--status on_leave --external-id BADGE-1 --workplace ${workplaceA.id} --schedule ${scheduleA.id} ` +
            `--schedule-from 2024-01-01 --department ${department} --position ${position}`,
        ),
        json(`employee create --company ${companyA.id} --email min@a.example`),
        json(`employee create --company ${companyA.id} --email sched@a.example --schedule ${scheduleA.id}`),
      ]);
      expectKeys(full, EMPLOYEE_KEYS);
      expect(full).toEqual({
        id: expect.stringMatching(UUID),
        externalId: 'BADGE-1',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@a.example',
        status: 'on_leave',
        departmentId: department,
        positionId: position,
        companyId: companyA.id,
        workplaceId: workplaceA.id,
        scheduleId: scheduleA.id,
        hiredOn: null,
        leftOn: null,
      });
      expectKeys(minimal, EMPLOYEE_KEYS);
      expect(minimal).toEqual({
        id: expect.stringMatching(UUID),
        externalId: null,
        firstName: null,
        lastName: null,
        email: 'min@a.example',
        status: 'active',
        departmentId: null,
        positionId: null,
        companyId: companyA.id,
        workplaceId: null,
        scheduleId: null,
        hiredOn: null,
        leftOn: null,
      });
      // Without --schedule-from the schedule is effective from 60 days ago.
      expect(defaultFrom.scheduleId).toBe(scheduleA.id);
      const assignment = await store.db
        .selectFrom('employee_schedules')
        .select('effective_from')
        .where('employee_id', '=', defaultFrom.id)
        .executeTakeFirstOrThrow();
      const days = (Date.now() - Date.parse(`${assignment.effective_from}T00:00:00Z`)) / 86_400_000;
      expect(days).toBeGreaterThanOrEqual(59);
      expect(days).toBeLessThan(62);
    });

    it('external ids are unique per company, compared exactly, at most 64 characters', async () => {
      const create = `employee create --company ${companyA.id}`;
      const [lower, upper, max, otherCompany] = await Promise.all([
        json(`${create} --email l@a.example --external-id ab`),
        json(`${create} --email u@a.example --external-id AB`),
        json(`${create} --email m@a.example --external-id ${'x'.repeat(64)}`),
        json(`employee create --company ${companyB.id} --email b@b.example --external-id ab`),
      ]);
      expect(lower.externalId).toBe('ab');
      expect(upper.externalId).toBe('AB');
      expect(max.externalId).toBe('x'.repeat(64));
      expect(otherCompany.externalId).toBe('ab');

      await expectFailures([
        [`${create} --email d@a.example --external-id ab --json`, /already held/],
        [`${create} --email d@a.example --external-id ${'x'.repeat(65)} --json`, /at most 64/],
        [`employee update ${upper.id} --external-id ab --json`, /already held/],
        [`employee update ${upper.id} --external-id ${'y'.repeat(65)} --json`, /at most 64/],
      ]);
    });

    it('employee create refuses bad input with one line and changes nothing', async () => {
      const create = `employee create --company ${companyA.id} --email e@a.example`;
      await expectFailures([
        [`employee create --company ${UNKNOWN_ID} --email e@a.example --json`, /unknown company/],
        [`employee create --company ${companyA.id} --email not-an-email --json`, /email/],
        [`${create} --status retired --json`, /status/],
        [`${create} --workplace ${workplaceB.id} --json`, /unknown workplace/],
        [`${create} --schedule ${scheduleB.id} --json`, /unknown schedule/],
        [`${create} --schedule-from 2024-01-01 --json`, /--schedule/],
        [`${create} --schedule ${scheduleA.id} --schedule-from 2024-02-30 --json`, /schedule-from/],
        [`${create} --department HR --json`, /department/],
        [`${create} --position boss`, /position/],
        [`employee create --company ${companyA.id} --json`, /--email/],
      ]);
    });

    it('employee update changes fields; none clears workplace, schedule, external id, department, position', async () => {
      const department = newId();
      const position = newId();
      const employee = await json(
        `employee create --company ${companyA.id} --email grace@a.example --first-name Grace --external-id G-1 ` +
          `--workplace ${workplaceA.id} --schedule ${scheduleA.id} --department ${department} --position ${position}`,
      );
      const update = `employee update ${employee.id}`;
      const updated = await json(
        `${update} --email hopper@a.example --last-name Hopper --status suspended --external-id G-2`,
      );
      expectKeys(updated, EMPLOYEE_KEYS);
      expect(updated).toEqual({
        ...employee,
        email: 'hopper@a.example',
        lastName: 'Hopper',
        status: 'suspended',
        externalId: 'G-2',
      });

      const cleared = await json(
        `${update} --workplace none --schedule none --external-id none --department none --position none`,
      );
      expect(cleared).toEqual({
        ...updated,
        workplaceId: null,
        scheduleId: null,
        externalId: null,
        departmentId: null,
        positionId: null,
      });
      // The cleared external id is free again; the schedule can be set again from a date.
      const [reuse, reassigned] = await Promise.all([
        json(`employee create --company ${companyA.id} --email r@a.example --external-id G-2`),
        json(
          `${update} --company ${companyA.id} --workplace ${workplaceA.id} --schedule ${scheduleA.id} --schedule-from 2025-03-01`,
        ),
      ]);
      expect(reuse.externalId).toBe('G-2');
      expect(reassigned).toEqual({ ...cleared, workplaceId: workplaceA.id, scheduleId: scheduleA.id });

      await expectFailures([
        [`${update} --status gone --json`, /status/],
        [`${update} --email nope --json`, /email/],
        [`${update} --workplace ${workplaceB.id} --json`, /unknown workplace/],
        [`${update} --schedule ${scheduleB.id} --json`, /unknown schedule/],
        [`${update} --schedule-from 2025-01-01 --json`, /--schedule/],
        [`${update} --company ${companyB.id} --status active --json`, /company/],
        [`employee update ${UNKNOWN_ID} --status active --json`, /unknown employee/],
        ['employee update abc --json', /UUID/],
      ]);
    });

    it('employee delete soft-deletes: the employee is never resolved again', async () => {
      const employee = await json(
        `employee create --company ${companyA.id} --email gone@a.example --external-id GONE-1`,
      );
      expect(await json(`employee delete ${employee.id}`)).toEqual({ id: employee.id, deleted: true });

      await expectFailures([
        [`employee update ${employee.id} --first-name Back --json`, /unknown employee/],
        [`employee delete ${employee.id} --json`, /unknown employee/],
        [`employee delete ${UNKNOWN_ID}`, /unknown employee/],
        [`day confirm --employee ${employee.id} --date 2025-01-02 --json`, /unknown employee/],
        [
          `user create --company ${companyA.id} --email x@a.example --employee ${employee.id}`,
          /unknown employee/,
        ],
      ]);
      // Its external id is free for a new employee.
      const successor = await json(
        `employee create --company ${companyA.id} --email new@a.example --external-id GONE-1`,
      );
      expect(successor.externalId).toBe('GONE-1');
    });

    it('user create, deactivate and token print the contract shapes', HEAVY, async () => {
      expectKeys(superA, USER_KEYS);
      expect(superA).toEqual({
        id: expect.stringMatching(UUID),
        companyId: companyA.id,
        email: 'root@a.example',
        permissions: [],
        superAdmin: true,
      });
      expect(keyAdmin).toMatchObject({ permissions: [47, 90], superAdmin: false });

      const a = `--company ${companyA.id}`;
      const employee = await json(`employee create ${a} --email me@a.example`);
      const [person, leaver] = await Promise.all([
        json(
          `user create ${a} --email me@a.example --permissions 86,47,49,52,72,90 --employee ${employee.id}`,
        ),
        json(`user create ${a} --email leaver@a.example --permissions 47`),
      ]);
      expectKeys(person, USER_KEYS);
      expect(person).toEqual({
        id: expect.stringMatching(UUID),
        companyId: companyA.id,
        email: 'me@a.example',
        permissions: [47, 49, 52, 72, 86, 90],
        superAdmin: false,
      });

      const token = await json(`user token ${person.id}`);
      expect(sortedKeys(token)).toEqual(['access_token', 'expires_in', 'token_type']);
      expect(token.token_type).toBe('Bearer');
      expect(token.expires_in).toBe(900);
      expect(token.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const claims = JSON.parse(Buffer.from(token.access_token.split('.')[1], 'base64url').toString());
      expect(claims).toMatchObject({ sub: person.id, cid: companyA.id, pty: 'user', iss: 'urn:punchclock' });

      expect(await json(`user deactivate ${leaver.id}`)).toEqual({ id: leaver.id, active: false });
      // Deactivating again is harmless, and the email may serve a new active user.
      expect(await json(`user deactivate ${leaver.id}`)).toEqual({ id: leaver.id, active: false });
      await json(`user create ${a} --email leaver@a.example`);

      await expectFailures([
        [`user token ${leaver.id} --json`, /deactivated/],
        [`user token ${UNKNOWN_ID} --json`, /unknown user/],
        [`user deactivate ${UNKNOWN_ID} --json`, /unknown user/],
        [`user create --company ${UNKNOWN_ID} --email u@a.example --json`, /unknown company/],
        [`user create ${a} --email bad --json`, /email/],
        [`user create ${a} --email u@a.example --permissions 99`, /permission/],
        [`user create ${a} --email root@a.example --json`, /already exists/],
        [
          `user create --company ${companyB.id} --email u@b.example --employee ${employee.id}`,
          /unknown employee/,
        ],
        [`user create ${a} --email u@a.example --super-admin yes`, /argument/],
      ]);
    });

    it('key create prints the secret once; scopes the creator may not grant are refused', HEAVY, async () => {
      const create = `key create --company ${companyA.id} --name K`;
      const [machine, everything, dated, offset] = await Promise.all([
        json(
          `${create} --created-by ${keyAdmin.id} --scopes attendance.record,attendance.read --allow-ip 10.1.2.3/8,192.168.1.7`,
        ),
        json(`${create} --created-by ${superA.id} --scopes ${ALL_SCOPES.join(',')}`),
        json(`${create} --created-by ${keyAdmin.id} --scopes attendance.record --expires 2099-01-31`),
        json(
          `${create} --created-by ${superA.id} --scopes attendance.record --expires 2099-01-31T10:00:00+02:00`,
        ),
      ]);
      for (const key of [machine, everything, dated, offset]) {
        expectKeys(key, KEY_CREATE_KEYS);
        expect(key.id).toMatch(UUID);
        expect(key.name).toBe('K');
        expect(key.clientId).toMatch(/^svc_/);
        expect(key.secret.startsWith(`${key.clientId}_`)).toBe(true);
        expect(key.secret.length).toBeGreaterThan(key.clientId.length + 40);
      }
      expect(machine).toMatchObject({
        scopes: ['attendance.record', 'attendance.read'],
        expiresAt: null,
        allowedIps: ['10.0.0.0/8', '192.168.1.7/32'],
      });
      expect(everything).toMatchObject({ scopes: ALL_SCOPES, expiresAt: null, allowedIps: [] });
      expect(dated.expiresAt).toBe('2099-01-31T00:00:00.000Z');
      expect(offset.expiresAt).toBe('2099-01-31T08:00:00.000Z');

      const leaver = await json(`user create --company ${companyA.id} --email k@a.example --permissions 90`);
      const [, ownerB] = await Promise.all([
        json(`user deactivate ${leaver.id}`),
        json(`user create --company ${companyB.id} --email k@b.example --super-admin`),
      ]);

      const record = '--scopes attendance.record';
      await expectFailures([
        [`${create} --created-by ${no90.id} ${record} --json`, /90/],
        [`${create} --created-by ${keyAdmin.id} --scopes employees.read --json`, /employees\.read/],
        [`${create} --created-by ${keyAdmin.id} --scopes attendance.read,leave.read --json`, /leave\.read/],
        [`${create} --created-by ${leaver.id} ${record} --json`, /deactivated/],
        [`${create} --created-by ${ownerB.id} ${record} --json`, /does not belong/],
        [`${create} --created-by ${UNKNOWN_ID} ${record} --json`, /unknown user/],
        [`${create} --created-by ${superA.id} --scopes attendance.write --json`, /unknown scope/],
        [`${create} --created-by ${superA.id} ${record} --expires 2020-01-01 --json`, /future/],
        [`${create} --created-by ${superA.id} ${record} --allow-ip 10.0.0.0/33 --json`, /10\.0\.0\.0\/33/],
        [`${create} --created-by ${superA.id} ${record} --allow-ip 10.0.0.1,host`, /host/],
        [`${create} --created-by ${superA.id} --json`, /--scopes/],
        [
          `key create --company ${UNKNOWN_ID} --name K --created-by ${superA.id} ${record}`,
          /unknown company/,
        ],
      ]);
    });

    it('key list never shows a secret; rotate and revoke print the contract shapes', HEAVY, async () => {
      const company = await json('company create --name KeysInc');
      const owner = await json(`user create --company ${company.id} --email o@k.example --super-admin`);
      const create = `key create --company ${company.id} --created-by ${owner.id}`;
      const [first, second] = await Promise.all([
        json(`${create} --name One --scopes attendance.record`),
        json(`${create} --name Two --scopes leave.read`),
      ]);

      const listed = await cli(`key list --company ${company.id} --json`);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      const list = JSON.parse(listed.stdout);
      expect(sortedKeys(list)).toEqual(['items']);
      expect(list.items).toHaveLength(2);
      for (const item of list.items) expectKeys(item, KEY_LIST_ITEM_KEYS);
      expect(list.items.find((k: Json) => k.id === first.id)).toEqual({
        id: first.id,
        clientId: first.clientId,
        name: 'One',
        scopes: ['attendance.record'],
        createdBy: owner.id,
        createdAt: expect.stringMatching(ISO),
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
      });
      for (const output of [listed.stdout, (await cli(`key list --company ${company.id}`)).stdout]) {
        expect(output).toContain(first.clientId);
        expect(output).not.toContain(first.secret);
        expect(output).not.toContain(second.secret.slice(second.clientId.length + 1));
        expect(output).not.toMatch(/secret|hash/i);
      }

      const [plain, graced] = await Promise.all([
        json(`key rotate ${first.id}`),
        json(`key rotate ${second.id} --grace 3600`),
      ]);
      expectKeys(plain, KEY_ROTATE_KEYS);
      expect(plain).toEqual({
        id: first.id,
        clientId: first.clientId,
        secret: expect.stringMatching(new RegExp(`^${first.clientId}_`)),
        previousSecretValidUntil: null,
      });
      expect(plain.secret).not.toBe(first.secret);
      expectKeys(graced, KEY_ROTATE_KEYS);
      expect(graced.secret.startsWith(`${second.clientId}_`)).toBe(true);
      expect(graced.previousSecretValidUntil).toMatch(ISO);
      const graceLeft = Date.parse(graced.previousSecretValidUntil) - Date.now();
      expect(graceLeft).toBeGreaterThan(3_500_000);
      expect(graceLeft).toBeLessThanOrEqual(3_600_000);

      const revoked = await json(`key revoke ${first.id}`);
      expect(revoked).toEqual({ id: first.id, revokedAt: expect.stringMatching(ISO) });
      // Revoking again keeps the first revocation time.
      expect(await json(`key revoke ${first.id}`)).toEqual(revoked);
      const after = await json(`key list --company ${company.id}`);
      expect(after.items.find((k: Json) => k.id === first.id).revokedAt).toBe(revoked.revokedAt);
      expect(after.items.find((k: Json) => k.id === second.id).revokedAt).toBeNull();

      await expectFailures([
        [`key rotate ${first.id} --json`, /revoked/],
        [`key rotate ${second.id} --grace -5 --json`, /grace/],
        [`key rotate ${second.id} --grace soon --json`, /grace/],
        [`key rotate ${second.id} --grace ${31 * 24 * 3600} --json`, /grace/],
        [`key rotate ${UNKNOWN_ID} --json`, /unknown API key/],
        [`key revoke ${UNKNOWN_ID} --json`, /unknown API key/],
        [`key revoke ${first.clientId} --json`, /UUID/],
        [`key list --company ${UNKNOWN_ID} --json`, /unknown company/],
      ]);
      expect(await json(`key list --company ${company.id}`)).toEqual(after);
    });

    it('day confirm locks a date and is idempotent', async () => {
      const employee = await json(`employee create --company ${companyA.id} --email day@a.example`);
      const confirm = `day confirm --employee ${employee.id} --date 2025-06-02`;
      const first = await json(confirm);
      expect(first).toEqual({ employeeId: employee.id, date: '2025-06-02', locked: true });
      const before = await snapshot();
      expect(await json(confirm)).toEqual(first);
      expect(await snapshot()).toEqual(before);

      await expectFailures([
        [`day confirm --employee ${employee.id} --date 2025-02-30 --json`, /date/],
        [`day confirm --employee ${UNKNOWN_ID} --date 2025-06-02 --json`, /unknown employee/],
        [`day confirm --employee ${employee.id} --json`, /--date/],
      ]);
    });

    it('entry approve / reject decide a pending_approval entry and print the time entry list item', async () => {
      const employee = await json(
        `employee create --company ${companyA.id} --email shift@a.example --external-id S-1`,
      );
      const at = new Date().toISOString();
      const entry = (workDate: string, status: string) => ({
        id: newId(),
        company_id: companyA.id,
        employee_id: employee.id,
        work_date: workDate,
        start_at: `${workDate}T06:00:00.000Z`,
        end_at: `${workDate}T14:30:00.000Z`,
        start_time: '08:00:00',
        end_time: '16:30:00',
        ends_next_day: 0,
        break_minutes: 30,
        net_seconds: 8 * 3600,
        status,
        source: 'api',
        time_zone: 'Europe/Berlin',
        notes: null,
        note: null,
        clock_in_event: null,
        clock_out_event: null,
        created_by_type: 'api_key',
        created_by_id: null,
        closed_by_id: null,
        created_at: at,
        updated_at: at,
        approved_at: null,
      });
      // No admin command records time: the entries are put in place directly.
      const toApprove = entry('2025-05-05', 'pending_approval');
      const toReject = entry('2025-05-06', 'pending_approval');
      const draft = entry('2025-05-07', 'draft');
      await store.db.insertInto('time_entries').values([toApprove, toReject, draft]).execute();

      const [approved, rejected] = await Promise.all([
        json(`entry approve ${toApprove.id}`),
        json(`entry reject ${toReject.id}`),
      ]);
      expectKeys(approved, TIME_ENTRY_KEYS);
      expect(approved).toEqual({
        id: toApprove.id,
        employee: { id: employee.id, externalId: 'S-1' },
        workDate: '2025-05-05',
        startTime: '08:00:00',
        endTime: '16:30:00',
        endsNextDay: false,
        totalHours: 8,
        breakMinutes: 30,
        status: 'approved',
        source: 'api',
        approvedAt: expect.stringMatching(ISO),
        createdAt: at,
        version: 2,
        edited: false,
        autoClosed: false,
        deviceId: null,
        reviewFlags: [],
      });
      expectKeys(rejected, TIME_ENTRY_KEYS);
      expect(rejected).toMatchObject({ id: toReject.id, status: 'rejected', approvedAt: null });

      await expectFailures([
        [`entry approve ${toApprove.id} --json`, /pending_approval/],
        [`entry reject ${toApprove.id} --json`, /pending_approval/],
        [`entry approve ${draft.id}`, /pending_approval/],
        [`entry approve ${UNKNOWN_ID} --json`, /unknown time entry/],
        [`entry reject ${UNKNOWN_ID} --json`, /unknown time entry/],
        ['entry reject nope', /UUID/],
      ]);
    });

    it('demo seeds an empty database only', async () => {
      await expectFailures([['demo --json', /not empty/]]);

      const [jsonUrl, humanUrl] = await Promise.all([freshDatabase(), freshDatabase()]);
      const [demo, human] = await Promise.all([jsonOn(jsonUrl, 'demo'), runOn(humanUrl, ['demo'])]);
      expect(demo).toMatchObject({
        companyId: expect.stringMatching(UUID),
        clientId: expect.stringMatching(/^svc_/),
        scopes: ALL_SCOPES,
      });
      expect(demo.secret.startsWith(`${demo.clientId}_`)).toBe(true);
      expect(demo.tokenCurl).toContain(demo.clientId);
      const keys = await jsonOn(jsonUrl, `key list --company ${demo.companyId}`);
      expect(keys.items.map((k: Json) => k.clientId)).toEqual([demo.clientId]);
      expect(keys.items[0].scopes).toEqual(ALL_SCOPES);
      // Issue 30: the demo company closes a forgotten clock-out after 12 hours.
      const company = await jsonOn(jsonUrl, `company update ${demo.companyId}`);
      expect(company.autoClockOutAfterHours).toBe(12);
      expectOneErrorLine(await runOn(jsonUrl, ['demo', '--json']), ['demo'], /not empty/);

      expect(human).toMatchObject({ code: 0, stderr: '' });
      const clientId = /svc_[0-9a-f]+/.exec(human.stdout)?.[0];
      expect(clientId).toBeDefined();
      expect(human.stdout).toMatch(new RegExp(`${clientId}_[A-Za-z0-9_-]{20,}`));
      expect(human.stdout).toMatch(/curl .*\/api\/public\/v1\/oauth\/token/);
    });

    it('CLI processes running at once on one database all succeed', async () => {
      const url = await freshDatabase();
      const env = { DATABASE_URL: url };
      const at = (command: string) => spawnCli([...argv(command), '--json'], env);
      const expectSuccess = (results: CliResult[]) => {
        for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
      };
      // A fresh database: the first commands race to apply the migrations.
      const first = await Promise.all([
        at('company create --name P1'),
        at('company create --name P2'),
        at('company create --name P3'),
        at('migrate'),
      ]);
      expectSuccess(first);
      const company = JSON.parse(first[0]!.stdout);
      const creates = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((n) =>
          at(`employee create --company ${company.id} --email p${n}@p.example --external-id P-${n}`),
        ),
      );
      expectSuccess(creates);
      expect(new Set(creates.map((r) => JSON.parse(r.stdout).id)).size).toBe(6);

      // Two at once asking for the same external id: exactly one wins, the other fails cleanly.
      const race = await Promise.all(
        ['q1', 'q2'].map((q) =>
          at(`employee create --company ${company.id} --email ${q}@p.example --external-id SAME`),
        ),
      );
      expect(race.map((r) => r.code).sort()).toEqual([0, 1]);
      expectOneErrorLine(
        race.find((r) => r.code !== 0)!,
        ['employee create --external-id SAME'],
        /already held/,
      );
    });

    it("commander's own errors and configuration errors are one line and exit 1", async () => {
      await expectFailures([
        ['company create --name X --colour red --json', /unknown option '--colour'/],
        ['company create --json', /required option '--name/],
        ['company delete x', /unknown command/],
        ['company', /missing command/],
        [[], /missing command/],
        [`company update ${companyA.id} extra --json`, /too many arguments/],
        ['company update --json', /missing required argument/],
        ['company create --name', /argument missing/],
      ]);

      const [badUrl, badLevel, help] = await Promise.all([
        limited(() =>
          spawnCli(argv(`key list --company ${companyA.id} --json`), { DATABASE_URL: 'mysql://x' }),
        ),
        limited(() => spawnCli(['migrate'], { DATABASE_URL: database.url, LOG_LEVEL: 'loud' })),
        cli('--help'),
      ]);
      expectOneErrorLine(badUrl, ['key list'], /DATABASE_URL/);
      expectOneErrorLine(badLevel, ['migrate'], /LOG_LEVEL/);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('employee');
      const commandHelp = await cli('help key');
      expect(commandHelp.code).toBe(0);
      expect(commandHelp.stdout).toContain('rotate');
    });
  },
);
