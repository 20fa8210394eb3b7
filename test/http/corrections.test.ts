import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { secondKey } from '../support/api.js';
import {
  correct,
  decide,
  entryIdOf,
  feed,
  managing,
  MANAGE_SCOPES,
  personToken,
  readEntry,
  remove,
  revisions,
} from '../support/corrections.js';
import { tenantFor, HOUR, iso, punch, shift, T0, timeTrackingSuite, UUID } from '../support/time-tracking.js';

/*
 * Issue 30 through the real server on both databases: one entry with its version and ETag, the
 * decisions (approve, reject, reopen) and their refusals, If-Match, dry runs, Idempotency-Key,
 * own entries, the scope, and two managers correcting the same entry at once.
 */

describe.each(testDialects().map((d) => [d.name, d] as const))('corrections on %s', (_name, dialect) => {
  const suite = timeTrackingSuite(dialect, { env: { AUTO_CLOCK_OUT_INTERVAL_MS: '0' } });
  const server = () => suite.server;

  /** A pending shift of the tenant's first employee: Monday 9 Nov 2026, 08:00-16:00 in Berlin. */
  async function pendingShift(tenant: Awaited<ReturnType<typeof managing>>) {
    return entryIdOf(
      await shift(tenant, '2026-11-09T07:00:00Z', '2026-11-09T15:00:00Z', { breakMinutes: 30 }),
    );
  }

  it('GET /time-entries/{id}: the list item with version 1 and its ETag; 404 for another company or an unknown id', async () => {
    const tenant = await managing(suite);
    const other = await managing(suite);
    const id = await pendingShift(tenant);
    const reply = await readEntry(server(), tenant.token, id);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('etag')).toBe('"1"');
    expect(reply.body).toMatchObject({
      id,
      employee: { id: tenant.employeeId, externalId: 'EXT-0' },
      workDate: '2026-11-09',
      startTime: '08:00:00',
      endTime: '16:00:00',
      breakMinutes: 30,
      totalHours: 7.5,
      status: 'pending_approval',
      source: 'api_shift',
      version: 1,
      edited: false,
      autoClosed: false,
    });
    // The list item carries the same fields.
    const list = await tenant.list({ employeeId: tenant.employeeId, from: '2026-11-09', to: '2026-11-09' });
    expect(list.body.items?.[0]).toEqual(reply.body);
    for (const [who, path] of [
      [other, id],
      [tenant, crypto.randomUUID()],
    ] as const) {
      const missing = await readEntry(server(), who.token, path);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('not_found');
      const history = await server().request(`/api/public/v1/time-entries/${path}/revisions`, {
        token: who.token,
      });
      expect(history.status).toBe(404);
    }
    expect((await readEntry(server(), tenant.token, 'not-a-uuid')).status).toBe(422);
  });

  it('approve, reject and reopen: revisions, ETags, events; a status that does not allow it is 409 invalid_status_transition', async () => {
    const tenant = await managing(suite);
    const a = await pendingShift(tenant);
    const b = entryIdOf(await shift(tenant, '2026-11-06T07:00:00Z', '2026-11-06T15:00:00Z'));
    const approved = await decide(server(), tenant.token, a, 'approve', { note: 'checked' });
    expect(approved.status).toBe(200);
    expect(approved.headers.get('etag')).toBe('"2"');
    expect(approved.body).toMatchObject({ id: a, status: 'approved', version: 2, approvedAt: iso(T0) });

    const again = await decide(server(), tenant.token, a, 'approve');
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('invalid_status_transition');
    expect(again.body.detail).toContain('is approved');
    expect((await decide(server(), tenant.token, a, 'reject', { reason: 'no' })).body.error).toBe(
      'invalid_status_transition',
    );

    const reopened = await decide(server(), tenant.token, a, 'reopen', { reason: 'wrong project' });
    expect(reopened.body).toMatchObject({ status: 'pending_approval', approvedAt: null, version: 3 });
    const pendingReopen = await decide(server(), tenant.token, a, 'reopen', { reason: 'again' });
    expect(pendingReopen.status).toBe(409);
    expect(pendingReopen.body.detail).toContain('is pending_approval');

    // A reason is required to reject and to reopen; the body is checked before anything is read.
    for (const body of [
      undefined,
      {},
      { reason: '' },
      { reason: 'x'.repeat(501) },
      { reason: 'a', other: 1 },
    ]) {
      const refused = await decide(server(), tenant.token, b, 'reject', body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.body.error).toBe('validation_failed');
    }
    const rejected = await decide(server(), tenant.token, b, 'reject', { reason: 'not worked' });
    expect(rejected.body).toMatchObject({ status: 'rejected', version: 2 });
    expect((await decide(server(), tenant.token, b, 'approve')).body.error).toBe('invalid_status_transition');

    // An open session cannot be decided.
    const open = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - HOUR)));
    const refusedOpen = await decide(server(), tenant.token, open, 'approve');
    expect(refusedOpen.status).toBe(409);
    expect(refusedOpen.body.detail).toContain('is open');

    const history = await revisions(server(), tenant.token, a);
    expect(history.map((r) => [r.revision, r.action, r.reason])).toEqual([
      [1, 'recorded', null],
      [2, 'approved', 'checked'],
      [3, 'reopened', 'wrong project'],
    ]);
    expect(history[0]).toMatchObject({
      changes: [],
      actor: { kind: 'api_key', id: tenant.fixture.key.id, name: 'test key' },
    });
    expect(history[1]!.changes).toEqual([
      { field: 'status', from: 'pending_approval', to: 'approved' },
      { field: 'approvedAt', from: null, to: iso(T0) },
    ]);
    const events = await feed(
      server(),
      tenant.token,
      'time_entry.approved,time_entry.rejected,time_entry.reopened',
    );
    expect(events.map((e) => [e.type, e.data.id, e.data.version])).toEqual([
      ['time_entry.approved', a, 2],
      ['time_entry.reopened', a, 3],
      ['time_entry.rejected', b, 2],
    ]);
  });

  it('If-Match: the current version (quoted, bare, weak or *) passes; a stale one is 412 version_mismatch and changes nothing', async () => {
    const tenant = await managing(suite);
    const id = await pendingShift(tenant);
    const stale = await decide(server(), tenant.token, id, 'approve', undefined, { 'if-match': '"7"' });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ error: 'version_mismatch', code: 1412 });
    expect(stale.body.detail).toContain('version 1');
    expect((await readEntry(server(), tenant.token, id)).body).toMatchObject({
      status: 'pending_approval',
      version: 1,
    });
    expect((await decide(server(), tenant.token, id, 'approve', undefined, { 'if-match': '1' })).status).toBe(
      200,
    );
    expect(
      (await decide(server(), tenant.token, id, 'reopen', { reason: 'r' }, { 'if-match': 'W/"2", "9"' }))
        .status,
    ).toBe(200);
    expect(
      (await decide(server(), tenant.token, id, 'reject', { reason: 'r' }, { 'if-match': '*' })).status,
    ).toBe(200);
    expect(
      (await correct(server(), tenant.token, id, { note: 'n', reason: 'r' }, { 'if-match': 'abc' })).status,
    ).toBe(412);
  });

  it('X-Service-Dry-Run answers what the change would give and changes nothing; Idempotency-Key replays the answer', async () => {
    const tenant = await managing(suite);
    const id = await pendingShift(tenant);
    const dry = await decide(server(), tenant.token, id, 'approve', undefined, {
      'x-service-dry-run': 'true',
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ status: 'approved', version: 2 });
    expect((await readEntry(server(), tenant.token, id)).body).toMatchObject({
      status: 'pending_approval',
      version: 1,
    });
    expect(await revisions(server(), tenant.token, id)).toHaveLength(1);

    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await correct(server(), tenant.token, id, { note: 'late', reason: 'forgot' }, headers);
    expect(first.status).toBe(200);
    const replay = await correct(server(), tenant.token, id, { note: 'late', reason: 'forgot' }, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('etag')).toBe('"2"');
    const reused = await correct(server(), tenant.token, id, { note: 'other', reason: 'forgot' }, headers);
    expect(reused.body.error).toBe('idempotency_key_reused');
    expect(await revisions(server(), tenant.token, id)).toHaveLength(2);
  });

  it('a key without attendance.manage is 403 insufficient_scope; a person linked to the employee gets 403 own_entry', async () => {
    const tenant = await managing(suite);
    const id = await pendingShift(tenant);
    const other = entryIdOf(
      await shift(tenant, '2026-11-09T07:00:00Z', '2026-11-09T15:00:00Z', {
        employee: { id: tenant.fixture.employees[1]!.id },
      }),
    );
    const reader = await tenantFor(server(), tenant.fixture, await secondKey(server().ctx, tenant.fixture));
    const refused = await decide(server(), reader.token, id, 'approve');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
    expect(refused.headers.get('www-authenticate')).toContain('attendance.manage');

    // A person's own token may use attendance.manage when they hold 91 …
    const person = await personToken(server(), tenant, {
      permissions: '47,91',
      employeeId: tenant.employeeId,
    });
    const own = await decide(server(), person.token, id, 'approve');
    expect(own.status).toBe(403);
    expect(own.body).toMatchObject({ error: 'own_entry', code: 2415 });
    for (const attempt of [
      correct(server(), person.token, id, { note: 'mine', reason: 'r' }),
      server().request(`/api/public/v1/time-entries/${id}`, {
        method: 'DELETE',
        token: person.token,
        json: { reason: 'r' },
      }),
    ]) {
      const response = await attempt;
      expect(response.status).toBe(403);
    }
    const decided = await decide(server(), person.token, other, 'approve');
    expect(decided.status).toBe(200);
    expect((await revisions(server(), tenant.token, other))[1]!.actor).toEqual({
      kind: 'person',
      id: person.id,
      name: expect.stringContaining('@acme.example'),
    });
    // … and not without it.
    const reader2 = await personToken(server(), tenant, { permissions: '47' });
    expect((await decide(server(), reader2.token, other, 'reopen', { reason: 'r' })).body.error).toBe(
      'insufficient_scope',
    );
    expect((await readEntry(server(), reader2.token, id)).status).toBe(200);
  });

  it('an API key created by a person linked to the employee gets 403 own_entry on every change', async () => {
    const tenant = await managing(suite);
    const id = await pendingShift(tenant);
    const person = await personToken(server(), tenant, {
      permissions: '47,90,91',
      employeeId: tenant.employeeId,
    });
    const key = await secondKey(
      server().ctx,
      { ...tenant.fixture, adminId: person.id },
      { scopes: 'attendance.read,attendance.manage' },
    );
    const viaKey = await tenantFor(server(), tenant.fixture, key);
    for (const attempt of [
      () => decide(server(), viaKey.token, id, 'approve'),
      () => decide(server(), viaKey.token, id, 'reject', { reason: 'r' }),
      () => correct(server(), viaKey.token, id, { note: 'mine', reason: 'r' }),
      () => remove(server(), viaKey.token, id, { reason: 'r' }),
    ]) {
      const response = await attempt();
      expect(response.status, response.text).toBe(403);
      expect(response.body.error, response.text).toBe('own_entry');
    }
    expect((await decide(server(), tenant.token, id, 'approve')).status).toBe(200);
    const reopened = await decide(server(), viaKey.token, id, 'reopen', { reason: 'r' });
    expect(reopened.body.error).toBe('own_entry');
    expect(await revisions(server(), tenant.token, id)).toHaveLength(2);
  });

  it('reject and reopen with a blank reason: 422 validation_failed naming reason, nothing decided', async () => {
    const tenant = await managing(suite);
    const id = await pendingShift(tenant);
    const rejected = await decide(server(), tenant.token, id, 'reject', { reason: '   ' });
    expect(rejected.status, rejected.text).toBe(422);
    expect(rejected.body.error).toBe('validation_failed');
    expect(rejected.text).toContain('reason');
    expect((await decide(server(), tenant.token, id, 'approve', { note: '  ' })).status).toBe(200);
    const reopened = await decide(server(), tenant.token, id, 'reopen', { reason: ' \t ' });
    expect(reopened.status, reopened.text).toBe(422);
    expect(reopened.body.error).toBe('validation_failed');
    expect(reopened.text).toContain('reason');
    expect(await revisions(server(), tenant.token, id)).toHaveLength(2);
  });

  it('two managers correcting the same entry at once: one wins, the other gets 412', async () => {
    const tenant = await managing(suite);
    const second = await tenantFor(
      server(),
      tenant.fixture,
      await secondKey(server().ctx, tenant.fixture, { name: 'second manager', scopes: MANAGE_SCOPES }),
    );
    for (let round = 0; round < 4; round++) {
      const start = Date.parse('2026-11-02T07:00:00Z') + round * 24 * HOUR;
      const id = entryIdOf(await shift(tenant, iso(start), iso(start + 8 * HOUR)));
      const [one, two] = await Promise.all([
        correct(
          server(),
          tenant.token,
          id,
          { clockOut: iso(start + 7 * HOUR), reason: 'left early' },
          { 'if-match': '"1"' },
        ),
        correct(
          server(),
          second.token,
          id,
          { clockOut: iso(start + 9 * HOUR), reason: 'stayed late' },
          { 'if-match': '"1"' },
        ),
      ]);
      expect([one.status, two.status].sort()).toEqual([200, 412]);
      const winner = one.status === 200 ? one : two;
      const entry = await readEntry(server(), tenant.token, id);
      expect(entry.body).toMatchObject({ version: 2, endTime: winner.body.endTime, edited: true });
      const history = await revisions(server(), tenant.token, id);
      expect(history.map((r) => r.action)).toEqual(['recorded', 'corrected']);
    }
  });

  it('ids are checked by their shape: an entry id that is no uuid is 422', async () => {
    const tenant = await managing(suite);
    const reply = await decide(server(), tenant.token, 'nope', 'approve');
    expect(reply.status).toBe(422);
    expect(UUID.test(tenant.employeeId)).toBe(true);
  });
});
