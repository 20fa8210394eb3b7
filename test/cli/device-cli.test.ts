import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDialects } from '../support/databases.js';
import { runCli } from '../support/processes.js';

/*
 * Issue 35: operators enrol kiosk devices (`device enrol`), list and revoke them, switch a workplace
 * to badge-only, and set an employee's PIN from standard input (`employee set-pin`).
 */

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** The CLI with `input` on standard input (a pipe, as a script gives it). */
function runWithInput(databaseUrl: string, input: string, ...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'punchclock device on %s',
  (_name, dialect) => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await dialect.create();
    });
    afterAll(async () => {
      await database.drop();
    });

    const json = async (...args: string[]) => {
      const result = await runCli(database.url, ...args, '--json');
      expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };

    it('enrol (code shown once, 15 minutes), list, revoke, badge-only, set-pin from stdin', async () => {
      const company = (await json('company', 'create', '--name', 'Kiosks')) as { id: string };
      const workplace = (await json('workplace', 'create', '--company', company.id, '--name', 'Hall')) as {
        id: string;
      };
      const before = Date.now();
      const enrolled = (await json(
        'device',
        'enrol',
        '--workplace',
        workplace.id,
        '--name',
        'Front door',
      )) as {
        id: string;
        workplaceId: string;
        name: string;
        enrolmentCode: string;
        expiresAt: string;
      };
      expect(Object.keys(enrolled).sort()).toEqual([
        'enrolmentCode',
        'expiresAt',
        'id',
        'name',
        'workplaceId',
      ]);
      expect(enrolled).toMatchObject({ workplaceId: workplace.id, name: 'Front door' });
      expect(enrolled.enrolmentCode).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
      const lifetime = Date.parse(enrolled.expiresAt) - before;
      expect(lifetime).toBeGreaterThan(14 * 60_000);
      expect(lifetime).toBeLessThanOrEqual(15 * 60_000 + 60_000);

      const listed = (await json('device', 'list', '--company', company.id)) as {
        items: Record<string, unknown>[];
      };
      expect(listed.items).toEqual([
        {
          id: enrolled.id,
          workplaceId: workplace.id,
          name: 'Front door',
          enrolledAt: null,
          lastSeenAt: null,
          queued: 0,
          revokedAt: null,
        },
      ]);
      expect(JSON.stringify(listed)).not.toContain(enrolled.enrolmentCode);
      const human = await runCli(database.url, 'device', 'list', '--company', company.id);
      expect(human.stdout).toContain(`${enrolled.id}  Front door`);

      const revoked = (await json('device', 'revoke', enrolled.id)) as { id: string; revokedAt: string };
      expect(Object.keys(revoked).sort()).toEqual(['id', 'revokedAt']);
      expect(revoked.id).toBe(enrolled.id);
      const again = (await json('device', 'revoke', enrolled.id)) as { revokedAt: string };
      expect(again.revokedAt).toBe(revoked.revokedAt);

      expect(await json('device', 'badge-only', workplace.id, 'on')).toEqual({
        id: workplace.id,
        name: 'Hall',
        kioskBadgeOnly: true,
      });
      const badOnOff = await runCli(database.url, 'device', 'badge-only', workplace.id, 'maybe');
      expect(badOnOff.code).toBe(1);
      // Review #11: a real workplace field, shown and set by `workplace update`.
      expect(await json('workplace', 'update', workplace.id, '--kiosk-badge-only', 'off')).toMatchObject({
        id: workplace.id,
        kioskBadgeOnly: false,
      });
      expect(await json('workplace', 'update', workplace.id, '--kiosk-badge-only', 'on')).toMatchObject({
        id: workplace.id,
        kioskBadgeOnly: true,
      });
      const badFlag = await runCli(
        database.url,
        'workplace',
        'update',
        workplace.id,
        '--kiosk-badge-only',
        'maybe',
      );
      expect(badFlag.code).toBe(1);
      expect(badFlag.stderr).toMatch(/--kiosk-badge-only must be on or off/);

      const schedule = (await json('schedule', 'create', '--company', company.id, '--name', 'Full')) as {
        id: string;
      };
      const employee = (await json(
        'employee',
        'create',
        '--company',
        company.id,
        '--email',
        'ada@kiosks.example',
        '--workplace',
        workplace.id,
        '--schedule',
        schedule.id,
      )) as { id: string };
      const set = await runWithInput(database.url, '4321\n', 'employee', 'set-pin', employee.id, '--json');
      expect(set).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(set.stdout)).toEqual({ id: employee.id, pinSet: true });
      expect(set.stdout).not.toContain('4321');
      const short = await runWithInput(database.url, '12\n', 'employee', 'set-pin', employee.id);
      expect(short.code).toBe(1);
      expect(short.stderr).toMatch(/pin: must be 4 to 8 digits/);
      const unknown = await runCli(database.url, 'device', 'revoke', '00000000-0000-4000-8000-000000000000');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/unknown device/);
    });
  },
);
