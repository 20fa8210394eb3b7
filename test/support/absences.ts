import { expect } from 'vitest';
import { setEntitlement } from '../../src/modules/absences/leave.js';
import { cliCaller } from '../../src/modules/absences/actors.js';
import { findType } from '../../src/modules/absences/calendar.queries.js';
import { updateAbsenceType } from '../../src/modules/absences/types.js';
import { setHolidayRegion } from '../../src/modules/absences/working-days.js';
import { updateEmployee } from '../../src/modules/employees/changes.js';
import { inTransaction } from '../../src/modules/context.js';
import { call, type Reply, type Tenant, type TimeTrackingSuite } from './time-tracking.js';

/** Shared helpers of the absences tests (issue 31). */

export const V1 = '/api/public/v1';
export const LEAVE_SCOPES =
  'attendance.record,attendance.read,employees.read,attendance.reports,leave.read,leave.manage';
const CLI = { type: 'cli' as const, id: null };

/** Any JSON answer; tests read the fields they expect. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read as plain JSON
export type Json = Record<string, any>;

export interface LeaveTenant extends Tenant {
  employees: string[];
  /** GET/POST under /api/public/v1 with the tenant's token; the answer's JSON as `json`. */
  api(
    method: 'GET' | 'POST',
    path: string,
    json?: unknown,
    headers?: Record<string, string>,
  ): Promise<Reply & { json: Json }>;
  /** Sets the server's clock and takes a new token (tokens last 15 minutes of that clock). */
  at(instant: string): Promise<void>;
  vacation(changes: Parameters<typeof updateAbsenceType>[4]): Promise<void>;
  entitlement(employeeId: string, year: number, days: number): Promise<void>;
  employee(employeeId: string, changes: { hiredOn?: string; leftOn?: string }): Promise<void>;
}

/** A Berlin company whose workplace keeps Bavaria's holidays (`region`), with a key of every leave scope. */
export async function leaveTenant(
  suite: TimeTrackingSuite,
  options: { employeeCount?: number; region?: string | null; scopes?: string } = {},
): Promise<LeaveTenant> {
  const tenant = await suite.berlin({
    scopes: options.scopes ?? LEAVE_SCOPES,
    employeeCount: options.employeeCount ?? 3,
  });
  const ctx = suite.server.ctx;
  const companyId = tenant.fixture.companyId;
  if (options.region !== null)
    await inTransaction(ctx, (tx, now) =>
      setHolidayRegion(tx, now, tenant.fixture.workplaceId, options.region ?? 'DE-BY', CLI),
    );
  const caller = cliCaller({ id: companyId, time_zone: 'Europe/Berlin' });
  const leave: LeaveTenant = Object.assign(tenant, {
    employees: tenant.fixture.employees.map((e) => e.id),
    async api(method: 'GET' | 'POST', path: string, json?: unknown, headers: Record<string, string> = {}) {
      const reply = await call(suite.server, tenant.token, method, `${V1}${path}`, json, headers);
      return { ...reply, json: reply.body as Json };
    },
    async at(instant: string) {
      suite.now = Date.parse(instant);
      await tenant.refreshToken();
    },
    async vacation(changes: Parameters<typeof updateAbsenceType>[4]) {
      const type = (await findType(ctx.database.db, companyId, { code: 'vacation' }))!;
      await inTransaction(ctx, (tx, now) => updateAbsenceType(tx, now, companyId, type.id, changes, CLI));
    },
    async entitlement(employeeId: string, year: number, days: number) {
      await inTransaction(ctx, (tx, now) =>
        setEntitlement(tx, now, caller, { employeeId, typeCode: 'vacation', year, days }),
      );
    },
    async employee(employeeId: string, changes: { hiredOn?: string; leftOn?: string }) {
      await inTransaction(ctx, (tx, now) => updateEmployee(tx, now, employeeId, changes));
    },
  });
  return leave;
}

/** POST /absences for `employeeId`; `extra` adds or replaces fields. */
export function requestAbsence(
  t: LeaveTenant,
  employeeId: string,
  typeCode: string,
  startDate: string,
  endDate: string,
  extra: Json = {},
  headers: Record<string, string> = {},
) {
  return t.api(
    'POST',
    '/absences',
    { employee: { id: employeeId }, typeCode, startDate, endDate, ...extra },
    headers,
  );
}

/** An approved absence: requested, then approved by the tenant's key. */
export async function approvedAbsence(
  t: LeaveTenant,
  employeeId: string,
  typeCode: string,
  startDate: string,
  endDate: string,
  extra: Json = {},
): Promise<Json> {
  const created = await requestAbsence(t, employeeId, typeCode, startDate, endDate, extra);
  expect(created.status, created.text).toBe(201);
  if (created.json.status === 'approved') return created.json;
  const approved = await t.api('POST', `/absences/${created.json.id}/approve`);
  expect(approved.status, approved.text).toBe(200);
  return approved.json;
}

export async function balanceOf(t: LeaveTenant, employeeId: string, year: number): Promise<Json> {
  const reply = await t.api('GET', `/leave-balances?employeeId=${employeeId}&year=${year}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.json.items.find((b: Json) => b.type.code === 'vacation');
}
