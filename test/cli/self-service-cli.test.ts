/**
 * Issue 35's commands (self-service) as an operator's script runs them: the built CLI
 * (`node dist/cli/main.js … --json`) in a child process, on every dialect. Run after `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDialects } from '../support/databases.js';
import { runCli } from '../support/processes.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed CLI output is checked field by field
type Json = any;

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'self-service commands on %s',
  (_name, dialect) => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await dialect.create();
    });
    afterAll(async () => database.drop());

    async function json(...args: string[]): Promise<Json> {
      const result = await runCli(database.url, ...args, '--json');
      if (result.code !== 0) throw new Error(`punchclock ${args.join(' ')}: ${result.stderr}`);
      expect(result.stdout).toMatch(/^[^\n]+\n$/);
      return JSON.parse(result.stdout);
    }

    async function fails(pattern: RegExp, ...args: string[]): Promise<void> {
      const result = await runCli(database.url, ...args, '--json');
      expect(result.code, `punchclock ${args.join(' ')}`).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^error: [^\n]+\n$/);
      expect(result.stderr).toMatch(pattern);
    }

    it('switches the web clock, limits it to addresses, and invites every employee once', async () => {
      const company = await json('company', 'create', '--name', 'Clock Ltd', '--time-zone', 'Europe/Berlin');
      expect(company.webClock).toBe('off');
      expect(await json('company', 'update', company.id, '--web-clock', 'on')).toMatchObject({
        webClock: 'on',
      });
      await fails(/web clock/, 'company', 'update', company.id, '--web-clock', 'maybe');
      const north = await json('workplace', 'create', '--company', company.id, '--name', 'North');
      const south = await json('workplace', 'create', '--company', company.id, '--name', 'South');
      expect(
        await json('workplace', 'update', north.id, '--web-clock-allow-ip', '203.0.113.9/24,2001:db8::/32'),
      ).toMatchObject({
        id: north.id,
        webClockAllowedIps: ['203.0.113.0/24', '2001:db8::/32'],
        holidayRegion: null,
      });
      await fails(
        /not an address or CIDR range: 10\.0\.0\.300/,
        'workplace',
        'update',
        north.id,
        '--web-clock-allow-ip',
        '10.0.0.300',
      );
      await fails(
        /--holiday-region, --web-clock-allow-ip or --kiosk-badge-only/,
        'workplace',
        'update',
        north.id,
      );
      expect(
        await json(
          'workplace',
          'update',
          north.id,
          '--web-clock-allow-ip',
          'none',
          '--holiday-region',
          'DE-BY',
        ),
      ).toMatchObject({ webClockAllowedIps: null, holidayRegion: 'DE-BY' });

      const schedule = await json(
        'schedule',
        'create',
        '--company',
        company.id,
        '--name',
        'Full',
        '--weekly-hours',
        '40',
      );
      const employee = (email: string, workplace: string) =>
        json(
          'employee',
          'create',
          '--company',
          company.id,
          '--email',
          email,
          '--workplace',
          workplace,
          '--schedule',
          schedule.id,
        );
      const ada = await employee('ada@clock.example', north.id);
      const bob = await employee('bob@clock.example', north.id);
      const cy = await employee('cy@clock.example', south.id);
      const linked = await json(
        'user',
        'create',
        '--company',
        company.id,
        '--email',
        'bob@clock.example',
        '--employee',
        bob.id,
      );
      expect(linked.permissions).toEqual([]);

      const north1 = await json('user', 'invite-employees', '--company', company.id, '--workplace', north.id);
      expect(north1.items.map((i: Json) => i.employeeId)).toEqual([ada.id]);
      expect(north1.items[0]).toMatchObject({ userId: expect.any(String), expiresAt: expect.any(String) });
      expect(north1.items[0].url).toMatch(/\/console\/#\/invite\/[A-Za-z0-9_-]{20,}$/);
      const everyone = await json('user', 'invite-employees', '--company', company.id);
      expect(everyone.items.map((i: Json) => i.employeeId)).toEqual([cy.id]);
      expect((await json('user', 'invite-employees', '--company', company.id)).items).toEqual([]);
      await fails(
        /unknown workplace/,
        'user',
        'invite-employees',
        '--company',
        company.id,
        '--workplace',
        '00000000-0000-4000-8000-000000000000',
      );
    });
  },
);
