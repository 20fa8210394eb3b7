import { inTransaction } from '../../src/modules/context.js';
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, type Json, type ProblemResponseBody } from '../support/api.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import type { EmployeePageSchema } from '../../src/modules/employees/schemas.js';
import { createEmployee, deleteEmployee, updateEmployee } from '../../src/modules/employees/changes.js';

const EMPLOYEES = '/api/public/v1/employees';
const DRY_RUN = 'X-Service-Dry-Run';

/** GET /employees, 200, as the published description declares it. */
type Page = Static<typeof EmployeePageSchema>;

const externalIdPath = (id: string) => `${EMPLOYEES}/${id}/external-id`;

async function expectValidation(response: Response, field: string): Promise<ProblemResponseBody> {
  const body = await expectProblem(response, 422, 'validation_failed');
  expect(body.code).toBe(1800);
  const errors = body.errors!;
  expect(Array.isArray(errors)).toBe(true);
  expect(errors.map((e) => e.field)).toContain(field);
  return body;
}

describe.each(testDialects().map((d) => [d.name, d] as const))('employees on %s', (_name, dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.stop());

  async function companyWithToken(
    options: Parameters<typeof createCompanyFixture>[1] = {},
  ): Promise<{ fixture: CompanyFixture; token: string }> {
    const fixture = await createCompanyFixture(server.ctx, options);
    return { fixture, token: await fetchToken(server, fixture.key.clientId, fixture.key.secret) };
  }

  async function list(token: string, query = ''): Promise<Page> {
    const response = await server.request(`${EMPLOYEES}${query}`, { token });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    return (await response.json()) as Page;
  }

  function putExternalId(token: string, id: string, json: unknown, headers: Record<string, string> = {}) {
    return server.request(externalIdPath(id), { method: 'PUT', token, json, headers });
  }

  async function walk(token: string, query: string): Promise<{ pages: Page[]; ids: string[] }> {
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const sep = query === '' ? '?' : '&';
      const page = await list(
        token,
        cursor === null ? query : `${query}${sep}cursor=${encodeURIComponent(cursor)}`,
      );
      pages.push(page);
      cursor = page.nextCursor;
      expect(page.hasMore).toBe(cursor !== null);
      expect(pages.length).toBeLessThan(100);
    } while (cursor !== null);
    return { pages, ids: pages.flatMap((p) => p.items.map((e) => e.id)) };
  }

  describe('GET /employees', () => {
    it('lists every field, ordered by id', async () => {
      const { fixture, token } = await companyWithToken({ employeeCount: 5 });
      const page = await list(token);
      expect(page.hasMore).toBe(false);
      expect(page.nextCursor).toBeNull();
      const ids = page.items.map((e) => e.id);
      expect(ids).toEqual([...fixture.employees.map((e) => e.id)].sort());
      const first = page.items.find((e) => e.id === fixture.employees[0]!.id)!;
      expect(first).toEqual({
        id: fixture.employees[0]!.id,
        externalId: 'EXT-0',
        firstName: 'First0',
        lastName: 'Last0',
        email: 'e0@acme.example',
        status: 'active',
        departmentId: null,
        positionId: null,
        // Issue 31: nullable, always present.
        hiredOn: null,
        leftOn: null,
      });
    });

    it('returns nullable fields as null and department / position ids when set', async () => {
      const { fixture, token } = await companyWithToken({ employeeCount: 0 });
      const departmentId = randomUUID();
      const positionId = randomUUID();
      const bare = await inTransaction(server.ctx, (tx, now) =>
        createEmployee(tx, now, fixture.companyId, { email: 'bare@acme.example' }),
      );
      const placed = await inTransaction(server.ctx, (tx, now) =>
        createEmployee(tx, now, fixture.companyId, {
          email: 'placed@acme.example',
          department: departmentId,
          position: positionId,
        }),
      );
      const items = (await list(token)).items;
      expect(items.find((e) => e.id === bare.id)).toEqual({
        id: bare.id,
        externalId: null,
        firstName: null,
        lastName: null,
        email: 'bare@acme.example',
        status: 'active',
        departmentId: null,
        positionId: null,
        hiredOn: null,
        leftOn: null,
      });
      expect(items.find((e) => e.id === placed.id)).toMatchObject({ departmentId, positionId });
    });

    it('filters by status', async () => {
      const { fixture, token } = await companyWithToken({ employeeCount: 6 });
      const [a, b, c, d] = fixture.employees.map((e) => e.id) as [string, string, string, string];
      await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, a, { status: 'on_leave' }));
      await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, b, { status: 'on_leave' }));
      await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, c, { status: 'terminated' }));
      await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, d, { status: 'suspended' }));
      expect((await list(token, '?status=on_leave')).items.map((e) => e.id)).toEqual([a, b].sort());
      expect((await list(token, '?status=terminated')).items.map((e) => e.id)).toEqual([c]);
      expect((await list(token, '?status=inactive')).items).toEqual([]);
      const active = (await list(token, '?status=active')).items;
      expect(active).toHaveLength(2);
      expect(active.every((e) => e.status === 'active')).toBe(true);
      expect((await list(token)).items).toHaveLength(6);
      for (const bad of ['bogus', 'ACTIVE', '']) {
        await expectValidation(await server.request(`${EMPLOYEES}?status=${bad}`, { token }), 'status');
      }
    });

    it('validates limit: 1..100, integers in plain decimal only', async () => {
      const { token } = await companyWithToken({ employeeCount: 3 });
      for (const bad of ['0', '101', 'abc', '1.5', '0x10', '-1', '1e1', '', ' 5']) {
        const body = await expectValidation(
          await server.request(`${EMPLOYEES}?limit=${encodeURIComponent(bad)}`, { token }),
          'limit',
        );
        expect(body.instance).toBe(EMPLOYEES);
      }
      expect((await list(token, '?limit=1')).items).toHaveLength(1);
      expect((await list(token, '?limit=100')).items).toHaveLength(3);
      // Repeated parameter and unknown parameter.
      expect((await server.request(`${EMPLOYEES}?limit=1&limit=2`, { token })).status).toBe(422);
      expect((await server.request(`${EMPLOYEES}?offset=10`, { token })).status).toBe(422);
    });

    it('pages 25 by default and walks 60 employees 7 at a time, each exactly once', async () => {
      const { fixture, token } = await companyWithToken({ employeeCount: 60 });
      const expected = fixture.employees.map((e) => e.id).sort();

      const first = await list(token);
      expect(first.items).toHaveLength(25);
      expect(first.hasMore).toBe(true);
      expect(typeof first.nextCursor).toBe('string');
      const defaultWalk = await walk(token, '');
      expect(defaultWalk.pages.map((p) => p.items.length)).toEqual([25, 25, 10]);
      expect(defaultWalk.ids).toEqual(expected);

      const { pages, ids } = await walk(token, '?limit=7');
      expect(pages).toHaveLength(9);
      expect(pages.map((p) => p.items.length)).toEqual([7, 7, 7, 7, 7, 7, 7, 7, 4]);
      expect(new Set(ids).size).toBe(60);
      expect(ids).toEqual(expected);
      const last = pages.at(-1)!;
      expect(last.hasMore).toBe(false);
      expect(last.nextCursor).toBeNull();
    });

    it('ends cleanly when the last page is exactly full', async () => {
      const { token } = await companyWithToken({ employeeCount: 4 });
      const { pages } = await walk(token, '?limit=2');
      expect(pages.map((p) => p.items.length)).toEqual([2, 2]);
    });

    it('keeps a walk consistent while employees are added and deleted', async () => {
      const { fixture, token } = await companyWithToken({ employeeCount: 6 });
      const sorted = fixture.employees.map((e) => e.id).sort();
      const page1 = await list(token, '?limit=3');
      // Delete one not yet seen, add one (its v7 id sorts last).
      await inTransaction(server.ctx, (tx, now) => deleteEmployee(tx, now, sorted[4]!));
      const added = await inTransaction(server.ctx, (tx, now) =>
        createEmployee(tx, now, fixture.companyId, { email: 'late@acme.example' }),
      );
      const rest = await walk(token, `?limit=3&cursor=${encodeURIComponent(page1.nextCursor!)}`);
      const all = [...page1.items.map((e) => e.id), ...rest.ids];
      expect(all).toEqual([...sorted.filter((id) => id !== sorted[4]), added.id].sort());
    });

    it('refuses garbage and tampered cursors', async () => {
      const { token } = await companyWithToken({ employeeCount: 3 });
      const cursor = (await list(token, '?limit=1')).nextCursor!;
      const [body, tag] = cursor.split('.') as [string, string];
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Json;
      const reencoded = Buffer.from(
        JSON.stringify({ ...payload, a: '00000000-0000-0000-0000-000000000000' }),
      ).toString('base64url');
      const flipped = `${body.slice(0, -1)}${body.endsWith('A') ? 'B' : 'A'}.${tag}`;
      const badTag = `${body}.${tag.startsWith('A') ? 'B' : 'A'}${tag.slice(1)}`;
      for (const bad of ['garbage', 'abc.def', `${reencoded}.${tag}`, flipped, badTag, `${cursor}x`, '']) {
        await expectValidation(
          await server.request(`${EMPLOYEES}?limit=1&cursor=${encodeURIComponent(bad)}`, { token }),
          'cursor',
        );
      }
      await expectValidation(
        await server.request(`${EMPLOYEES}?cursor=${'a'.repeat(2000)}`, { token }),
        'cursor',
      );
      // The genuine cursor still works.
      expect((await list(token, `?limit=1&cursor=${encodeURIComponent(cursor)}`)).items).toHaveLength(1);
    });

    it('refuses a cursor from a different status filter', async () => {
      const { fixture, token } = await companyWithToken({ employeeCount: 4 });
      await inTransaction(server.ctx, (tx, now) =>
        updateEmployee(tx, now, fixture.employees[0]!.id, { status: 'on_leave' }),
      );
      await inTransaction(server.ctx, (tx, now) =>
        updateEmployee(tx, now, fixture.employees[1]!.id, { status: 'on_leave' }),
      );
      const activeCursor = (await list(token, '?status=active&limit=1')).nextCursor!;
      const unfilteredCursor = (await list(token, '?limit=1')).nextCursor!;
      const c = (s: string) => encodeURIComponent(s);
      await expectValidation(
        await server.request(`${EMPLOYEES}?cursor=${c(activeCursor)}`, { token }),
        'cursor',
      );
      await expectValidation(
        await server.request(`${EMPLOYEES}?status=on_leave&cursor=${c(activeCursor)}`, { token }),
        'cursor',
      );
      await expectValidation(
        await server.request(`${EMPLOYEES}?status=active&cursor=${c(unfilteredCursor)}`, { token }),
        'cursor',
      );
      // A different limit with the same filter is fine.
      expect((await list(token, `?status=active&limit=5&cursor=${c(activeCursor)}`)).items).toHaveLength(1);
    });

    it('never lists deleted employees', async () => {
      const { fixture, token } = await companyWithToken({ employeeCount: 5 });
      const gone = [fixture.employees[1]!.id, fixture.employees[3]!.id];
      for (const id of gone) await inTransaction(server.ctx, (tx, now) => deleteEmployee(tx, now, id));
      const ids = (await walk(token, '?limit=2')).ids;
      expect(ids).toHaveLength(3);
      for (const id of gone) expect(ids).not.toContain(id);
      expect((await list(token, '?status=active')).items).toHaveLength(3);
    });

    it("keeps companies apart: a key never sees another company's employees or uses its cursor", async () => {
      const a = await companyWithToken({ name: 'A', employeeCount: 3 });
      const b = await companyWithToken({ name: 'B', employeeCount: 3 });
      const aIds = (await walk(a.token, '?limit=1')).ids;
      expect(aIds).toEqual(a.fixture.employees.map((e) => e.id).sort());
      for (const e of b.fixture.employees) expect(aIds).not.toContain(e.id);
      const bCursor = (await list(b.token, '?limit=1')).nextCursor!;
      await expectValidation(
        await server.request(`${EMPLOYEES}?limit=1&cursor=${encodeURIComponent(bCursor)}`, {
          token: a.token,
        }),
        'cursor',
      );
    });
  });

  describe('PUT /employees/{id}/external-id', () => {
    it('sets the value and records the key as the actor', async () => {
      const { fixture, token } = await companyWithToken();
      const id = fixture.employees[0]!.id;
      const response = await putExternalId(token, id, { externalId: 'BADGE-0001' });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ id, externalId: 'BADGE-0001', dryRun: false });
      expect(await externalIdOf(token, id)).toBe('BADGE-0001');

      const audit = await server.database.db
        .selectFrom('audit_log')
        .selectAll()
        .where('target_id', '=', id)
        .where('action', '=', 'employee.set_external_id')
        .execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({
        company_id: fixture.companyId,
        actor_type: 'api_key',
        actor_id: fixture.key.id,
        target_type: 'employee',
      });
      expect(JSON.parse(audit[0]!.details!)).toEqual({ from: 'EXT-0', to: 'BADGE-0001' });

      // Setting the value it already holds is fine (no conflict with itself).
      const again = await putExternalId(token, id, { externalId: 'BADGE-0001' });
      expect(again.status).toBe(200);
    });

    it('accepts an upper-case path id', async () => {
      const { fixture, token } = await companyWithToken();
      const id = fixture.employees[0]!.id;
      const response = await putExternalId(token, id.toUpperCase(), { externalId: 'UP' });
      expect(response.status).toBe(200);
      expect(((await response.json()) as Json).id).toBe(id);
    });

    it('stores nothing on a dry run but runs every check', async () => {
      const { fixture, token } = await companyWithToken();
      const [e0, e1] = fixture.employees.map((e) => e.id) as [string, string];
      const before = await server.database.db.selectFrom('audit_log').select('id').execute();
      for (const value of ['true', 'TRUE', ' true ']) {
        const response = await putExternalId(token, e0, { externalId: 'DRY' }, { [DRY_RUN]: value });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ id: e0, externalId: 'DRY', dryRun: true });
      }
      expect(await externalIdOf(token, e0)).toBe('EXT-0');
      const after = await server.database.db.selectFrom('audit_log').select('id').execute();
      expect(after).toHaveLength(before.length);

      const clear = await putExternalId(token, e0, { externalId: null }, { [DRY_RUN]: 'true' });
      expect(await clear.json()).toEqual({ id: e0, externalId: null, dryRun: true });
      expect(await externalIdOf(token, e0)).toBe('EXT-0');

      await expectProblem(
        await putExternalId(token, e1, { externalId: 'EXT-0' }, { [DRY_RUN]: 'true' }),
        409,
        'already_exists',
      );
      await expectProblem(
        await putExternalId(token, randomUUID(), { externalId: 'X' }, { [DRY_RUN]: 'true' }),
        404,
        'employee_not_found',
      );

      const real = await putExternalId(token, e0, { externalId: 'REAL' }, { [DRY_RUN]: 'false' });
      expect(await real.json()).toEqual({ id: e0, externalId: 'REAL', dryRun: false });
      expect(await externalIdOf(token, e0)).toBe('REAL');
    });

    it('refuses an invalid dry-run header value', async () => {
      const { fixture, token } = await companyWithToken();
      const id = fixture.employees[0]!.id;
      for (const value of ['yes', '1', 'maybe']) {
        await expectValidation(
          await putExternalId(token, id, { externalId: 'NOPE' }, { [DRY_RUN]: value }),
          'X-Service-Dry-Run',
        );
      }
      expect(await externalIdOf(token, id)).toBe('EXT-0');
    });

    it('clears the value with null and with a blank string', async () => {
      const { fixture, token } = await companyWithToken();
      const [e0, e1] = fixture.employees.map((e) => e.id) as [string, string];
      const nulled = await putExternalId(token, e0, { externalId: null });
      expect(await nulled.json()).toEqual({ id: e0, externalId: null, dryRun: false });
      expect(await externalIdOf(token, e0)).toBeNull();
      for (const blank of ['', '   ', '\t']) {
        await putExternalId(token, e1, { externalId: 'SET' });
        const cleared = await putExternalId(token, e1, { externalId: blank });
        expect(cleared.status).toBe(200);
        expect(await cleared.json()).toEqual({ id: e1, externalId: null, dryRun: false });
        expect(await externalIdOf(token, e1)).toBeNull();
      }
      // Two employees may both have none.
      expect((await list(token)).items.every((e) => e.externalId === null)).toBe(true);
    });

    it('compares case-sensitively: ab and AB coexist', async () => {
      const { fixture, token } = await companyWithToken();
      const [e0, e1] = fixture.employees.map((e) => e.id) as [string, string];
      expect((await putExternalId(token, e0, { externalId: 'ab' })).status).toBe(200);
      expect((await putExternalId(token, e1, { externalId: 'AB' })).status).toBe(200);
      const items = (await list(token)).items;
      expect(items.find((e) => e.id === e0)?.externalId).toBe('ab');
      expect(items.find((e) => e.id === e1)?.externalId).toBe('AB');
      await expectProblem(await putExternalId(token, e1, { externalId: 'ab' }), 409, 'already_exists');
    });

    it('answers 409 already_exists naming the holder, and leaves both values alone', async () => {
      const { fixture, token } = await companyWithToken();
      const [e0, e1] = fixture.employees.map((e) => e.id) as [string, string];
      const body = await expectProblem(
        await putExternalId(token, e1, { externalId: 'EXT-0' }),
        409,
        'already_exists',
      );
      expect(body.detail).toContain(e0);
      expect(body.instance).toBe(externalIdPath(e1));
      const items = (await list(token)).items;
      expect(items.find((e) => e.id === e0)?.externalId).toBe('EXT-0');
      expect(items.find((e) => e.id === e1)?.externalId).toBe('EXT-1');
    });

    it('lets exactly one of two racing requests take a value', async () => {
      const { fixture, token } = await companyWithToken({ employeeCount: 4 });
      const ids = fixture.employees.map((e) => e.id);
      const responses = await Promise.all(ids.map((id) => putExternalId(token, id, { externalId: 'RACE' })));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409, 409, 409]);
      const winner = ids[responses.findIndex((r) => r.status === 200)]!;
      for (const r of responses.filter((x) => x.status === 409)) {
        const body = await expectProblem(r, 409, 'already_exists');
        expect(body.detail).toContain(winner);
      }
      const holders = (await list(token)).items.filter((e) => e.externalId === 'RACE');
      expect(holders.map((e) => e.id)).toEqual([winner]);
    });

    it("frees a deleted employee's value and answers 404 for the deleted employee", async () => {
      const { fixture, token } = await companyWithToken();
      const [e0, e1] = fixture.employees.map((e) => e.id) as [string, string];
      await inTransaction(server.ctx, (tx, now) => deleteEmployee(tx, now, e0));
      expect((await putExternalId(token, e1, { externalId: 'EXT-0' })).status).toBe(200);
      await expectProblem(await putExternalId(token, e0, { externalId: 'Z' }), 404, 'employee_not_found');
    });

    it("answers 404 for an unknown employee and for another company's employee", async () => {
      const a = await companyWithToken({ name: 'A' });
      const b = await companyWithToken({ name: 'B' });
      await expectProblem(
        await putExternalId(a.token, randomUUID(), { externalId: 'X' }),
        404,
        'employee_not_found',
      );
      const other = b.fixture.employees[0]!.id;
      await expectProblem(
        await putExternalId(a.token, other, { externalId: 'X' }),
        404,
        'employee_not_found',
      );
      expect(await externalIdOf(b.token, other)).toBe('EXT-0');
      // External ids are unique per company, not globally.
      expect((await putExternalId(a.token, a.fixture.employees[1]!.id, { externalId: 'EXT-0' })).status).toBe(
        409,
      );
      await putExternalId(a.token, a.fixture.employees[0]!.id, { externalId: 'A-ONLY' });
      expect((await putExternalId(b.token, other, { externalId: 'A-ONLY' })).status).toBe(200);
    });

    it('validates the body and the path', async () => {
      const { fixture, token } = await companyWithToken();
      const id = fixture.employees[0]!.id;
      expect((await putExternalId(token, id, { externalId: 'x'.repeat(64) })).status).toBe(200);
      await expectValidation(await putExternalId(token, id, { externalId: 'x'.repeat(65) }), 'externalId');
      await expectValidation(await putExternalId(token, id, { externalId: 123 }), 'externalId');
      await expectValidation(await putExternalId(token, id, { externalId: true }), 'externalId');
      await expectValidation(await putExternalId(token, id, { externalId: ['a'] }), 'externalId');
      await expectValidation(await putExternalId(token, id, { externalId: 'A', extra: 1 }), 'extra');
      await expectValidation(await putExternalId(token, id, {}), 'externalId');
      await expectValidation(await putExternalId(token, id, ['A']), 'body');
      await expectValidation(await putExternalId(token, 'not-a-uuid', { externalId: 'A' }), 'id');
      expect(await externalIdOf(token, id)).toBe('x'.repeat(64));
    });

    it('refuses characters no database can store as sent, and counts characters, not UTF-16 units', async () => {
      const { fixture, token } = await companyWithToken();
      const id = fixture.employees[0]!.id;
      await expectValidation(await putExternalId(token, id, { externalId: 'a\u0000b' }), 'externalId');
      const lone = await server.request(externalIdPath(id), {
        method: 'PUT',
        token,
        headers: { 'content-type': 'application/json' },
        body: '{"externalId":"a\\ud800b"}',
      });
      await expectValidation(lone, 'externalId');
      expect(await externalIdOf(token, id)).toBe('EXT-0');
      const emoji = '\u{1F600}'.repeat(64);
      const ok = await putExternalId(token, id, { externalId: emoji });
      expect(ok.status).toBe(200);
      expect(await externalIdOf(token, id)).toBe(emoji);
      await expectValidation(await putExternalId(token, id, { externalId: `${emoji}x` }), 'externalId');
    });

    it('answers a selector external id containing NUL with 404, not a server error', async () => {
      const { token } = await companyWithToken();
      const response = await server.request('/api/public/v1/time-clock/events', {
        method: 'POST',
        token,
        headers: { [DRY_RUN]: 'true' },
        json: {
          employee: { externalId: 'EXT-0\u0000' },
          type: 'clock_in',
          occurredAt: new Date().toISOString(),
        },
      });
      await expectProblem(response, 404, 'employee_not_found');
    });

    it('needs the attendance.record scope', async () => {
      const { fixture, token } = await companyWithToken({ scopes: 'employees.read' });
      const response = await putExternalId(token, fixture.employees[0]!.id, { externalId: 'X' });
      await expectProblem(response, 403, 'insufficient_scope');
    });
  });

  describe('framework errors as problems', () => {
    it('answers an unknown route with 404 not_found', async () => {
      for (const path of ['/api/public/v1/nope', '/api/public/v2/employees', '/']) {
        const body = await expectProblem(await server.request(path), 404, 'not_found');
        expect(body.instance).toBe(path);
      }
      const { token } = await companyWithToken();
      await expectProblem(await server.request('/api/public/v1/employees/x', { token }), 404, 'not_found');
    });

    it('answers malformed JSON with 422, an oversized body with 413, text/plain with 415', async () => {
      const { fixture, token } = await companyWithToken();
      const path = externalIdPath(fixture.employees[0]!.id);
      const malformed = await server.request(path, {
        method: 'PUT',
        token,
        headers: { 'content-type': 'application/json' },
        body: '{"externalId": ',
      });
      await expectValidation(malformed, 'body');

      const big = await server.request(path, {
        method: 'PUT',
        token,
        json: { externalId: 'x', pad: 'y'.repeat(70 * 1024) },
      });
      await expectProblem(big, 413, 'payload_too_large');

      const plain = await server.request(path, {
        method: 'PUT',
        token,
        headers: { 'content-type': 'text/plain' },
        body: 'externalId=x',
      });
      await expectProblem(plain, 415, 'unsupported_media_type');

      const missing = await server.request(path, { method: 'PUT', token });
      expect(missing.status).toBeGreaterThanOrEqual(400);
      expect(missing.status).toBeLessThan(500);
      expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);

      expect(await externalIdOf(token, fixture.employees[0]!.id)).toBe('EXT-0');
    });

    it('authenticates before reading the body', async () => {
      const { fixture } = await companyWithToken();
      const response = await server.request(externalIdPath(fixture.employees[0]!.id), {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{bad',
      });
      await expectProblem(response, 401, 'invalid_token');
    });
  });

  async function externalIdOf(token: string, id: string): Promise<string | null | undefined> {
    return (await list(token, '?limit=100')).items.find((e) => e.id === id)?.externalId;
  }
});
