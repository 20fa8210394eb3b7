import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { upsertShifts } from '../../src/modules/planned-shifts/batch.js';
import { runExceptionsJob } from '../../src/modules/planned-shifts/exceptions-job.js';
import { AdminClient, createPerson } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/*
 * The Roster's least privilege (review of issue 33, finding 8): a planner holding only 97 reads the
 * plan (names, ids, workplaces, shifts) but neither the attendance exceptions (47) nor the employees'
 * email addresses (52 or 47); every response held to the admin API's OpenAPI document.
 */

/** Wednesday 11 November 2026, 09:40 in Berlin: the 09:00 shift nobody came to is a no-show. */
const NOW = Date.parse('2026-11-11T09:40:00+01:00');

interface Roster {
  employees: { id: string; firstName: string | null; email: string | null }[];
  shifts: { id: string }[];
  exceptions: { kind: string }[] | null;
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'the roster by permission on %s',
  (_name, dialect) => {
    let server: TestServer;
    let client: AdminClient;
    let company: CompanyFixture;
    let serial = 0;

    beforeAll(async () => {
      server = await startTestServer(dialect, { now: () => NOW, env: { EXCEPTIONS_JOB: 'false' } });
      company = await createCompanyFixture(server.ctx, { name: 'Acme', timeZone: 'Europe/Berlin' });
      client = await AdminClient.create(server);
      const outcomes = await inTransaction(server.ctx, (tx, now) =>
        upsertShifts(
          tx,
          now,
          { companyId: company.companyId, companyZone: 'Europe/Berlin', actor: CLI_ACTOR },
          [
            {
              invalid: null,
              item: {
                employee: { id: company.employees[0]!.id },
                start: '2026-11-11T09:00:00+01:00',
                end: '2026-11-11T17:00:00+01:00',
                status: 'published',
              },
            },
          ],
          { dryRun: false },
        ),
      );
      expect(outcomes.map((o) => o.status)).toEqual([201]);
      await runExceptionsJob(server.ctx);
    });
    afterAll(async () => server?.stop());

    async function rosterAs(permissions: string, superAdmin = false) {
      serial += 1;
      const person = await createPerson(server.ctx, company.companyId, {
        email: `p${serial}@acme.example`,
        permissions,
        superAdmin,
      });
      const signed = await client.fresh().signedIn(person);
      return signed.request(
        `/roster?${new URLSearchParams({ workplaceId: company.workplaceId, from: '2026-11-09', to: '2026-11-15' })}`,
      );
    }

    it('97 alone: the plan with names, no emails, no exceptions', async () => {
      const response = await rosterAs('97');
      expect(response.status).toBe(200);
      const roster = (await response.json()) as Roster;
      expect(roster.shifts).toHaveLength(1);
      expect(roster.employees.map((e) => e.firstName).sort()).toEqual(['First0', 'First1']);
      expect(roster.employees.every((e) => e.email === null)).toBe(true);
      expect(roster.exceptions).toBeNull();
    });

    it('97 and 52: emails, still no exceptions', async () => {
      const roster = (await (await rosterAs('97,52')).json()) as Roster;
      expect(roster.employees.map((e) => e.email).sort()).toEqual(['e0@acme.example', 'e1@acme.example']);
      expect(roster.exceptions).toBeNull();
    });

    it('47 (reading attendance), and a super admin: emails and exceptions', async () => {
      for (const [permissions, superAdmin] of [
        ['47', false],
        ['97,47', false],
        ['', true],
      ] as const) {
        const response = await rosterAs(permissions, superAdmin);
        expect(response.status).toBe(200);
        const roster = (await response.json()) as Roster;
        expect(roster.employees.every((e) => e.email !== null)).toBe(true);
        expect(roster.exceptions?.map((x) => x.kind)).toEqual(['no_show']);
      }
    });

    it('neither 47 nor 97: 403, as before', async () => {
      expect((await rosterAs('52')).status).toBe(403);
    });
  },
);
