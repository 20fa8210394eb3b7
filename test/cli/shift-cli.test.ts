import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDialects } from '../support/databases.js';
import { runCli } from '../support/processes.js';

/*
 * Issue 33: operators plan with `punchclock shift create|list|delete|publish|import` and set the
 * company's margins and rounding with `company update`. An import upserts each row by its
 * external_id: the same file imported again changes nothing.
 */

type Json = Record<string, unknown>;

describe.each(testDialects().map((d) => [d.name, d] as const))('punchclock shift on %s', (_name, dialect) => {
  let database: TestDatabase;
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-shifts-'));
  beforeAll(async () => {
    database = await dialect.create();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  const json = async (...args: string[]) => {
    const result = await runCli(database.url, ...args, '--json');
    expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(result.stdout) as Json;
  };

  it('create, list, publish, delete; import twice; company margins and rounding', async () => {
    const company = (await json('company', 'create', '--name', 'Plan', '--time-zone', 'Europe/Berlin')) as {
      id: string;
    };
    const updated = await json(
      'company',
      'update',
      company.id,
      '--late-grace',
      '10',
      '--no-show-after',
      '45',
      '--rounding',
      'nearest',
      '--rounding-minutes',
      '6',
    );
    expect(updated).toMatchObject({
      lateGraceMinutes: 10,
      noShowAfterMinutes: 45,
      rounding: 'nearest',
      roundingMinutes: 6,
    });
    const refused = await runCli(database.url, 'company', 'update', company.id, '--rounding', 'sideways');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: rounding must be one of none, nearest, up, down\n$/);
    const graceOverNoShow = await runCli(database.url, 'company', 'update', company.id, '--late-grace', '46');
    expect(graceOverNoShow.code).toBe(1);
    expect(graceOverNoShow.stderr).toMatch(/lateGraceMinutes: the late grace \(46 minutes\) must not exceed/);
    const human = await runCli(database.url, 'company', 'update', company.id);
    expect(human.stdout).toContain('late grace 10 min, no-show after 45 min, rounding nearest 6 min');

    const workplace = (await json('workplace', 'create', '--company', company.id, '--name', 'Shop')) as {
      id: string;
    };
    const [ada] = await Promise.all(
      ['ada', 'bob'].map(
        async (name) =>
          (await json(
            'employee',
            'create',
            '--company',
            company.id,
            '--email',
            `${name}@plan.example`,
            '--external-id',
            name.toUpperCase(),
            '--workplace',
            workplace.id,
          )) as { id: string },
      ),
    );
    const created = await json(
      'shift',
      'create',
      '--employee',
      ada!.id,
      '--start',
      '2026-11-16T09:00:00+01:00',
      '--end',
      '2026-11-16T17:00:00+01:00',
      '--break-minutes',
      '30',
      '--external-id',
      'S-1',
      '--status',
      'published',
    );
    expect(created).toMatchObject({
      externalId: 'S-1',
      workplaceId: workplace.id,
      date: '2026-11-16',
      breakMinutes: 30,
      status: 'published',
      version: 1,
    });
    const overlap = await runCli(
      database.url,
      'shift',
      'create',
      '--employee',
      ada!.id,
      '--start',
      '2026-11-16T16:00:00+01:00',
      '--end',
      '2026-11-16T20:00:00+01:00',
    );
    expect(overlap.code).toBe(1);
    expect(overlap.stderr).toMatch(/^error: the shift overlaps shift .* \(S-1\)/);

    const file = join(dir, 'plan.csv');
    writeFileSync(
      file,
      'external_id,employee_external_id,workplace_id,start,end,break_minutes,note,status\r\n' +
        'S-2,BOB,,2026-11-16T09:00:00+01:00,2026-11-16T17:00:00+01:00,30,"till, front",published\r\n' +
        `S-3,ADA,${workplace.id},2026-11-17T22:00:00+01:00,2026-11-18T06:00:00+01:00,,,\r\n` +
        'S-4,NOBODY,,2026-11-17T09:00:00+01:00,2026-11-17T17:00:00+01:00,,,\r\n' +
        ',BOB,,2026-11-18T09:00:00+01:00,2026-11-18T17:00:00+01:00,,,\r\n' +
        'S-5,BOB,,2026-11-19T09:00:00+01:00,2026-11-19T08:00:00+01:00,,,\r\n',
    );
    const first = await json('shift', 'import', '--company', company.id, '--file', file);
    expect(first).toMatchObject({ rows: 5, created: 2, updated: 0, unchanged: 0, refused: 3 });
    const lines = (first.results as { line: number; result: string; error: string | null }[]).map((r) => [
      r.line,
      r.result,
    ]);
    expect(lines).toEqual([
      [2, 'created'],
      [3, 'created'],
      [4, 'refused'],
      [5, 'refused'],
      [6, 'refused'],
    ]);
    const again = await json('shift', 'import', '--company', company.id, '--file', file);
    expect(again).toMatchObject({ rows: 5, created: 0, updated: 0, unchanged: 2, refused: 3 });
    const text = await runCli(database.url, 'shift', 'import', '--company', company.id, '--file', file);
    expect(text.stdout).toContain('line 4: employee_not_found');
    expect(text.stdout).toContain('line 5: validation_failed: external_id: is required');
    expect(text.stdout).toContain('5 row(s): 0 created, 0 updated, 2 unchanged, 3 refused');

    const listed = (await json(
      'shift',
      'list',
      '--company',
      company.id,
      '--from',
      '2026-11-16',
      '--to',
      '2026-11-22',
    )) as {
      shifts: { id: string; externalId: string; status: string; note: string | null }[];
    };
    expect(listed.shifts.map((s) => [s.externalId, s.status])).toEqual([
      ['S-1', 'published'],
      ['S-2', 'published'],
      ['S-3', 'draft'],
    ]);
    expect(listed.shifts[1]!.note).toBe('till, front');
    expect(
      await json('shift', 'publish', '--company', company.id, '--from', '2026-11-16', '--to', '2026-11-22'),
    ).toEqual({ published: 1 });
    const id = listed.shifts[2]!.id;
    expect(await json('shift', 'delete', id)).toEqual({ deleted: id });
    const gone = await runCli(database.url, 'shift', 'delete', id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe(`error: unknown planned shift: ${id}\n`);
  }, 180_000);
});
