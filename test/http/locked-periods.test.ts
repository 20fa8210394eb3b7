import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { createWorkplace } from '../../src/modules/companies/service.js';
import { updateEmployee } from '../../src/modules/employees/changes.js';
import { testDialects } from '../support/databases.js';
import { correct, decide, entryIdOf, feed, managing, PERIODS, revisions } from '../support/corrections.js';
import { call, HOUR, iso, punch, shift, T0, timeTrackingSuite, UUID } from '../support/time-tracking.js';

/*
 * Issue 30: closed payroll periods through the real server on both databases. While a period is
 * closed every write landing on its days is 409 day_locked: punches, shifts, batches, corrections,
 * decisions; for the whole company or only one workplace. Reopened, the days take writes again.
 */

describe.each(testDialects().map((d) => [d.name, d] as const))('closed periods on %s', (_name, dialect) => {
  const suite = timeTrackingSuite(dialect, { env: { AUTO_CLOCK_OUT_INTERVAL_MS: '0' } });
  const server = () => suite.server;
  const close = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    call(server(), token, 'POST', PERIODS, body, headers);
  const reopen = (token: string, id: string, body: unknown) =>
    call(server(), token, 'DELETE', `${PERIODS}/${id}`, body);

  it('close a period: 201 with who closed it; every write on its days is 409 day_locked; reopened, they work again', async () => {
    const tenant = await managing(suite);
    const monday = Date.parse('2026-11-09T07:00:00Z');
    const before = entryIdOf(await shift(tenant, iso(monday), iso(monday + 8 * HOUR)));
    const open = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 2 * HOUR)));

    const dry = await close(
      tenant.token,
      { from: '2026-11-01', to: '2026-11-10' },
      { 'x-service-dry-run': 'true' },
    );
    expect(dry.status).toBe(200);
    expect((await call(server(), tenant.token, 'GET', PERIODS)).body.items).toEqual([]);
    const closed = await close(tenant.token, { from: '2026-11-01', to: '2026-11-10' });
    expect(closed.status, closed.text).toBe(201);
    expect(closed.body).toEqual({
      id: expect.stringMatching(UUID),
      from: '2026-11-01',
      to: '2026-11-10',
      workplaceId: null,
      closedAt: iso(T0),
      closedBy: { kind: 'api_key', id: tenant.fixture.key.id, name: 'test key' },
      reopenedAt: null,
      reopenedBy: null,
      reopenReason: null,
    });
    const periodId = (closed.body as { id: string }).id;
    expect((await call(server(), tenant.token, 'GET', PERIODS)).body.items).toEqual([closed.body]);

    const refusals = [
      await punch(tenant, 'clock_out', iso(T0)),
      await punch(tenant, 'break_start', iso(T0 - HOUR)),
      await punch(tenant, 'clock_in', iso(T0), { employee: { id: tenant.fixture.employees[1]!.id } }),
      await shift(tenant, iso(monday - 2 * 24 * HOUR), iso(monday - 2 * 24 * HOUR + HOUR)),
      await correct(server(), tenant.token, before, { note: 'n', reason: 'r' }),
      await decide(server(), tenant.token, before, 'approve'),
      await call(server(), tenant.token, 'DELETE', `/api/public/v1/time-entries/${before}`, { reason: 'r' }),
    ];
    for (const reply of refusals) {
      expect(reply.status, reply.text).toBe(409);
      expect(reply.body.error).toBe('day_locked');
    }
    expect(refusals[0]!.body.detail).toContain('2026-11-01 to 2026-11-10');
    const batch = await call(server(), tenant.token, 'POST', '/api/public/v1/time-clock/events/batch', {
      events: [{ employee: { id: tenant.fixture.employees[1]!.id }, type: 'clock_in', occurredAt: iso(T0) }],
    });
    expect(
      (batch.body as unknown as { results: { status: number; body: { error: string } }[] }).results,
    ).toMatchObject([{ status: 409, body: { error: 'day_locked' } }]);
    // A correction moving an entry out of the period is refused too (its old day is closed).
    const out = await correct(server(), tenant.token, before, {
      clockIn: '2026-11-12T07:00:00Z',
      clockOut: '2026-11-12T09:00:00Z',
      reason: 'r',
    });
    expect(out.body.error).toBe('day_locked');
    // Days outside it take writes.
    expect((await shift(tenant, '2026-10-30T07:00:00Z', '2026-10-30T09:00:00Z')).status).toBe(201);

    expect((await reopen(tenant.token, periodId, {})).status).toBe(422);
    expect((await reopen(tenant.token, crypto.randomUUID(), { reason: 'r' })).status).toBe(404);
    const reopened = await reopen(tenant.token, periodId, { reason: 'late correction' });
    expect(reopened.status).toBe(204);
    expect((await reopen(tenant.token, periodId, { reason: 'again' })).status).toBe(404);
    expect((await call(server(), tenant.token, 'GET', PERIODS)).body.items).toEqual([]);
    expect((await punch(tenant, 'clock_out', iso(T0))).status).toBe(201);
    expect((await correct(server(), tenant.token, before, { note: 'n', reason: 'r' })).status).toBe(200);
    expect((await revisions(server(), tenant.token, open)).map((r) => r.action)).toEqual([
      'recorded',
      'completed',
    ]);

    const events = await feed(server(), tenant.token, 'period.closed,period.reopened');
    expect(events.map((e) => [e.type, e.data.id, e.data.reopenReason])).toEqual([
      ['period.closed', periodId, null],
      ['period.reopened', periodId, 'late correction'],
    ]);
  });

  it("a workplace's period locks only that workplace's employees; refusals of the body are 422", async () => {
    const tenant = await managing(suite);
    const other = await managing(suite);
    const second = await inTransaction(server().ctx, (tx, now) =>
      createWorkplace(tx, now, { companyId: tenant.fixture.companyId, name: 'Second site' }),
    );
    const moved = tenant.fixture.employees[1]!.id;
    await inTransaction(server().ctx, (tx, now) => updateEmployee(tx, now, moved, { workplace: second.id }));
    const closed = await close(tenant.token, {
      from: '2026-11-10',
      to: '2026-11-10',
      workplaceId: second.id,
    });
    expect(closed.body).toMatchObject({ workplaceId: second.id });
    expect((await punch(tenant, 'clock_in', iso(T0), { employee: { id: moved } })).body.error).toBe(
      'day_locked',
    );
    expect((await punch(tenant, 'clock_in', iso(T0))).status).toBe(201);

    for (const [body, field] of [
      [{ from: '2026-11-10', to: '2026-11-01' }, 'to'],
      [{ from: '2026-08-01', to: '2026-11-02' }, 'to'],
      [{ from: '2026-11-01' }, 'to'],
      [{ from: '2026-11-01', to: '2026-11-02', workplaceId: other.fixture.workplaceId }, 'workplaceId'],
      [{ from: '2026-13-01', to: '2026-11-02' }, 'from'],
    ] as const) {
      const reply = await close(tenant.token, body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(reply.body.errors?.map((e) => e.field)).toContain(field);
    }
    // 92 days after the first is the longest period.
    expect((await close(tenant.token, { from: '2026-08-10', to: '2026-11-10' })).status).toBe(201);
    // Another company's period is not found; a key without the scope cannot close one.
    const id = (closed.body as { id: string }).id;
    expect((await reopen(other.token, id, { reason: 'r' })).status).toBe(404);
    const plain = await suite.berlin();
    expect((await close(plain.token, { from: '2026-11-01', to: '2026-11-02' })).body.error).toBe(
      'insufficient_scope',
    );
    expect((await call(server(), plain.token, 'GET', PERIODS)).status).toBe(200);
  });
});
