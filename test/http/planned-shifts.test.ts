import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { createApiKey } from '../../src/modules/api-keys/service.js';
import { createUser } from '../../src/modules/people/users.js';
import { createWorkplace } from '../../src/modules/companies/service.js';
import { testDialects } from '../support/databases.js';
import { fetchToken } from '../support/server.js';
import { expectReplay, call, type Reply, type Tenant, timeTrackingSuite } from '../support/time-tracking.js';

/* Planned shifts in the public API (issue 33): the batch upsert, the list, delete and publish. */

const SHIFTS = '/api/public/v1/planned-shifts';
const BATCH = `${SHIFTS}/batch`;
const SCOPES = 'attendance.record,attendance.read,employees.read,shifts.manage';

type Json = Record<string, unknown>;
interface Result {
  index: number;
  status: number;
  body: Json & { error?: string; errors?: { field: string }[] | null; id?: string; version?: number };
}
const results = (reply: Reply) => (reply.body as unknown as { results: Result[] }).results;
const items = (reply: Reply) => (reply.body as unknown as { items: Json[] }).items;

/** A shift of the tenant's employee `n` (EXT-n) on a November day, Berlin wall times (+01:00). */
const shiftOf = (n: number, day: number, from: string, to: string, extra: Json = {}) => ({
  employee: { externalId: `EXT-${n}` },
  start: `2026-11-${String(day).padStart(2, '0')}T${from}:00+01:00`,
  end: `2026-11-${String(day).padStart(2, '0')}T${to}:00+01:00`,
  ...extra,
});

describe.each(testDialects().map((d) => [d.name, d] as const))('planned shifts on %s', (_name, dialect) => {
  const suite = timeTrackingSuite(dialect);
  const manager = () => suite.berlin({ scopes: SCOPES, employeeCount: 3 });
  const batch = (tenant: Tenant, body: unknown, headers: Record<string, string> = {}) =>
    call(suite.server, tenant.token, 'POST', BATCH, body, headers);
  const list = (tenant: Tenant, query: Record<string, string>) =>
    call(suite.server, tenant.token, 'GET', `${SHIFTS}?${new URLSearchParams(query)}`);
  const shiftRows = (tenant: Tenant) =>
    suite.server.database.db
      .selectFrom('planned_shifts')
      .selectAll()
      .where('company_id', '=', tenant.fixture.companyId)
      .orderBy('start_at')
      .execute();

  it('a wrong shape is one 422 naming shifts[i].field, and nothing runs', async () => {
    const tenant = await manager();
    const good = shiftOf(0, 16, '09:00', '17:00');
    const cases: [unknown, string][] = [
      [{}, 'shifts'],
      [{ shifts: [] }, 'shifts'],
      [{ shifts: Array.from({ length: 501 }, () => good) }, 'shifts'],
      [{ shifts: [good, { start: good.start, end: good.end }] }, 'shifts[1].employee'],
      [{ shifts: [good, { ...good, breakMinutes: '30' }] }, 'shifts[1].breakMinutes'],
      [{ shifts: [good, good, { ...good, colour: 'red' }] }, 'shifts[2].colour'],
    ];
    for (const [body, field] of cases) {
      const reply = await batch(tenant, body);
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(reply.body.errors?.map((e) => e.field)).toContain(field);
    }
    expect(await shiftRows(tenant)).toHaveLength(0);
  });

  it('upserts by the scheduler id: created, unchanged, updated, and a published week imported twice stays one week', async () => {
    const tenant = await manager();
    const week = [16, 17, 18, 19, 20].flatMap((day) =>
      [0, 1].map((n) =>
        shiftOf(n, day, '09:00', '17:00', {
          externalId: `7s-${day}-${n}`,
          breakMinutes: 30,
          status: 'published',
        }),
      ),
    );
    const first = await batch(tenant, { shifts: week });
    expect(first.status).toBe(200);
    expect(results(first).map((r) => r.status)).toEqual(week.map(() => 201));
    const shown = results(first)[0]!.body;
    expect(shown).toMatchObject({
      externalId: '7s-16-0',
      employee: { id: tenant.fixture.employees[0]!.id, externalId: 'EXT-0' },
      workplaceId: tenant.fixture.workplaceId,
      date: '2026-11-16',
      start: '2026-11-16T09:00:00+01:00',
      end: '2026-11-16T17:00:00+01:00',
      breakMinutes: 30,
      note: null,
      status: 'published',
      version: 1,
    });
    const again = await batch(tenant, { shifts: week });
    expect(results(again).map((r) => r.status)).toEqual(week.map(() => 200));
    expect(results(again).map((r) => r.body.version)).toEqual(week.map(() => 1));
    expect(await shiftRows(tenant)).toHaveLength(10);

    const moved = await batch(tenant, {
      shifts: [{ ...week[0], start: '2026-11-16T10:00:00+01:00', note: 'later start' }],
    });
    expect(results(moved)[0]).toMatchObject({
      status: 200,
      body: { version: 2, note: 'later start', status: 'published' },
    });
    expect(await shiftRows(tenant)).toHaveLength(10);
    const audit = await suite.audit(results(first)[0]!.body.id!);
    expect(audit.map((a) => a.action).sort()).toEqual(['planned_shift.create', 'planned_shift.update']);
  });

  it("refuses items on their own: unknown employee, bad values, overlaps, another company's workplace", async () => {
    const tenant = await manager();
    const other = await suite.berlin({ name: 'Other' });
    const reply = await batch(tenant, {
      shifts: [
        shiftOf(0, 16, '09:00', '13:00'),
        shiftOf(9, 16, '09:00', '13:00'),
        shiftOf(0, 16, '12:00', '15:00'),
        shiftOf(0, 16, '13:00', '12:00'),
        shiftOf(0, 16, '13:00', '17:00', { breakMinutes: 240 }),
        shiftOf(0, 17, '13:00', '17:00', { workplaceId: other.fixture.workplaceId }),
        { ...shiftOf(0, 18, '09:00', '10:00'), start: '2026-11-18T09:00:00' },
        shiftOf(1, 19, '22:00', '22:00'),
        shiftOf(0, 16, '13:00', '17:00'),
      ],
    });
    const r = results(reply);
    expect(r.map((x) => x.status)).toEqual([201, 404, 409, 422, 422, 422, 422, 422, 201]);
    expect(r[1]!.body.error).toBe('employee_not_found');
    expect(r[2]!.body).toMatchObject({ error: 'shift_overlaps', code: 5001 });
    expect(r[3]!.body.errors?.map((e) => e.field)).toEqual(['end']);
    expect(r[4]!.body.errors?.map((e) => e.field)).toEqual(['breakMinutes']);
    expect(r[5]!.body.errors?.map((e) => e.field)).toEqual(['workplaceId']);
    expect(r[6]!.body.errors?.map((e) => e.field)).toContain('start');
    expect((r[2]!.body as Json).instance).toBe(BATCH);
    expect(await shiftRows(tenant)).toHaveLength(2);
  });

  it('a dry run judges every item and stores nothing; an Idempotency-Key replays the whole answer', async () => {
    const tenant = await manager();
    const body = {
      shifts: [shiftOf(0, 16, '09:00', '17:00', { externalId: 'a' }), shiftOf(1, 16, '09:00', '17:00')],
    };
    const dry = await batch(tenant, body, { 'x-service-dry-run': 'true' });
    expect(results(dry).map((r) => r.status)).toEqual([200, 200]);
    expect(await shiftRows(tenant)).toHaveLength(0);
    const first = await batch(tenant, body, { 'idempotency-key': 'week-46' });
    expect(results(first).map((r) => r.status)).toEqual([201, 201]);
    expectReplay(await batch(tenant, body, { 'idempotency-key': 'week-46' }), first, 200);
    const reused = await batch(tenant, { shifts: [body.shifts[0]] }, { 'idempotency-key': 'week-46' });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toBe('idempotency_key_reused');
    expect(await shiftRows(tenant)).toHaveLength(2);
  });

  it('writes need shifts.manage, a human scope only a holder of permission 97 may grant; reads need attendance.read', async () => {
    const tenant = await suite.berlin();
    const refused = await batch(tenant, { shifts: [shiftOf(0, 16, '09:00', '17:00')] });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
    const clerk = await inTransaction(suite.server.ctx, (tx, now) =>
      createUser(tx, now, {
        companyId: tenant.fixture.companyId,
        email: 'clerk@acme.example',
        permissions: '47,90',
      }),
    );
    await expect(
      inTransaction(suite.server.ctx, (tx, now) =>
        createApiKey(tx, now, {
          companyId: tenant.fixture.companyId,
          createdBy: clerk.id,
          name: 'k',
          scopes: 'shifts.manage',
        }),
      ),
    ).rejects.toThrow(/shifts.manage/);
    const writer = await inTransaction(suite.server.ctx, (tx, now) =>
      createApiKey(tx, now, {
        companyId: tenant.fixture.companyId,
        createdBy: tenant.fixture.adminId,
        name: 'w',
        scopes: 'shifts.manage',
      }),
    );
    const token = await fetchToken(suite.server, writer.clientId, writer.secret);
    const listed = await call(suite.server, token, 'GET', `${SHIFTS}?from=2026-11-16&to=2026-11-22`);
    expect(listed.status).toBe(403);
  });

  it('lists by start then id with filters and cursor pages; the range is at most 92 days', async () => {
    const tenant = await manager();
    const created = await batch(tenant, {
      shifts: [
        shiftOf(1, 17, '09:00', '17:00', { externalId: 'x-1' }),
        shiftOf(0, 16, '09:00', '17:00', { externalId: 'x-0' }),
        shiftOf(2, 16, '09:00', '17:00'),
        shiftOf(0, 23, '09:00', '17:00'),
      ],
    });
    expect(results(created).every((r) => r.status === 201)).toBe(true);
    const page1 = await list(tenant, { from: '2026-11-16', to: '2026-11-22', limit: '2' });
    expect(page1.status).toBe(200);
    expect(items(page1).map((s) => s.date)).toEqual(['2026-11-16', '2026-11-16']);
    expect(page1.body.hasMore).toBe(true);
    const page2 = await list(tenant, {
      from: '2026-11-16',
      to: '2026-11-22',
      limit: '2',
      cursor: page1.body.nextCursor!,
    });
    expect(items(page2).map((s) => s.externalId)).toEqual(['x-1']);
    expect(page2.body.hasMore).toBe(false);
    const ids = items(page1).map((s) => s.id as string);
    expect([...ids].sort()).toEqual(ids);
    expect(
      items(await list(tenant, { from: '2026-11-16', to: '2026-11-30', externalId: 'EXT-0' })),
    ).toHaveLength(2);
    expect(
      items(await list(tenant, { from: '2026-11-01', to: '2026-11-30', shiftExternalId: 'x-1' })),
    ).toHaveLength(1);
    const elsewhere = await inTransaction(suite.server.ctx, (tx, now) =>
      createWorkplace(tx, now, { companyId: tenant.fixture.companyId, name: 'Depot' }),
    );
    expect(
      items(await list(tenant, { from: '2026-11-01', to: '2026-11-30', workplaceId: elsewhere.id })),
    ).toHaveLength(0);
    const wrongCursor = await list(tenant, {
      from: '2026-11-16',
      to: '2026-11-23',
      cursor: page1.body.nextCursor!,
    });
    expect(wrongCursor.status).toBe(422);
    const tooLong = await list(tenant, { from: '2026-01-01', to: '2026-11-30' });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors?.[0]?.field).toBe('to');
    const twoFilters = await list(tenant, {
      from: '2026-11-16',
      to: '2026-11-22',
      employeeId: tenant.employeeId,
      workplaceId: tenant.fixture.workplaceId,
    });
    expect(twoFilters.status).toBe(422);
  });

  it('deletes (204, then 404) and publishes a range (dry run counts; publishing again publishes nothing)', async () => {
    const tenant = await manager();
    const created = results(
      await batch(tenant, {
        shifts: [
          shiftOf(0, 16, '09:00', '17:00'),
          shiftOf(1, 16, '09:00', '17:00'),
          shiftOf(0, 24, '09:00', '17:00'),
        ],
      }),
    );
    const id = created[2]!.body.id!;
    const remove = () => suite.server.request(`${SHIFTS}/${id}`, { method: 'DELETE', token: tenant.token });
    expect((await remove()).status).toBe(204);
    expect((await remove()).status).toBe(404);
    const body = { from: '2026-11-16', to: '2026-11-22' };
    const dry = await call(suite.server, tenant.token, 'POST', `${SHIFTS}/publish`, body, {
      'x-service-dry-run': 'true',
    });
    expect(dry.body).toEqual({ published: 2, dryRun: true });
    const published = await call(suite.server, tenant.token, 'POST', `${SHIFTS}/publish`, body);
    expect(published.body).toEqual({ published: 2, dryRun: false });
    expect((await call(suite.server, tenant.token, 'POST', `${SHIFTS}/publish`, body)).body).toEqual({
      published: 0,
      dryRun: false,
    });
    const rows = await shiftRows(tenant);
    expect(rows.map((r) => [r.status, Number(r.version)])).toEqual([
      ['published', 2],
      ['published', 2],
    ]);
  });

  it('names the day in the workplace zone across midnight and the DST nights', async () => {
    const tenant = await manager();
    const reply = await batch(tenant, {
      shifts: [
        {
          employee: { externalId: 'EXT-0' },
          start: '2026-10-24T22:00:00+02:00',
          end: '2026-10-25T06:00:00+01:00',
        },
        {
          employee: { externalId: 'EXT-1' },
          start: '2027-03-27T22:00:00+01:00',
          end: '2027-03-28T06:00:00+02:00',
        },
        { employee: { externalId: 'EXT-2' }, start: '2026-11-16T23:30:00Z', end: '2026-11-17T07:30:00Z' },
      ],
    });
    const [autumn, spring, utc] = results(reply).map((r) => r.body);
    expect(autumn).toMatchObject({
      date: '2026-10-24',
      start: '2026-10-24T22:00:00+02:00',
      end: '2026-10-25T06:00:00+01:00',
    });
    expect(spring).toMatchObject({ date: '2027-03-27', end: '2027-03-28T06:00:00+02:00' });
    expect(utc).toMatchObject({ date: '2026-11-17', start: '2026-11-17T00:30:00+01:00' });
    const rows = await shiftRows(tenant);
    const hours = rows.map((r) => (Date.parse(r.end_at) - Date.parse(r.start_at)) / 3_600_000);
    expect(hours).toEqual([9, 8, 7]);
  });
});
