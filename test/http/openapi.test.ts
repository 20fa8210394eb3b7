import { inTransaction } from '../../src/modules/context.js';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { enrolledDevice } from '../support/kiosk.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { createApiKey } from '../../src/modules/api-keys/service.js';
import { createUser, issueUserToken } from '../../src/modules/people/users.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents are walked as plain JSON
type Json = Record<string, any>;
const V1 = '/api/public/v1';
const PUBLIC_BASE_URL = 'https://punchclock.example.com';

const ALL_OPERATIONS = [
  'POST /api/public/v1/oauth/token',
  'GET /api/public/v1/me',
  'GET /api/public/v1/employees',
  'PUT /api/public/v1/employees/{id}/external-id',
  'POST /api/public/v1/time-clock/events',
  'POST /api/public/v1/time-entries',
  'GET /api/public/v1/time-entries',
  // Added within v1 by the change-feed issue and the terminals issue.
  'GET /api/public/v1/changes',
  'GET /api/public/v1/time-clock/status',
  'POST /api/public/v1/time-clock/events/batch',
  // Added within v1 by the timesheets issue (21).
  'GET /api/public/v1/reports/timesheets',
  // Added within v1 by the webhooks issue.
  'POST /api/public/v1/webhooks',
  'GET /api/public/v1/webhooks',
  'GET /api/public/v1/webhooks/{id}',
  'PATCH /api/public/v1/webhooks/{id}',
  'DELETE /api/public/v1/webhooks/{id}',
  'POST /api/public/v1/webhooks/{id}/rotate-secret',
  'POST /api/public/v1/webhooks/{id}/test',
  'GET /api/public/v1/webhooks/{id}/deliveries',
  'POST /api/public/v1/webhooks/{id}/replay',
  // Added within v1 by the absences issue (31).
  'GET /api/public/v1/absence-types',
  'GET /api/public/v1/holidays',
  'GET /api/public/v1/leave-balances',
  'GET /api/public/v1/absences',
  'POST /api/public/v1/absences',
  'GET /api/public/v1/absences/{id}',
  'POST /api/public/v1/absences/{id}/approve',
  'POST /api/public/v1/absences/{id}/reject',
  'POST /api/public/v1/absences/{id}/cancel',
  // Added within v1 by the planned-shifts issue (33).
  'GET /api/public/v1/planned-shifts',
  'POST /api/public/v1/planned-shifts/batch',
  'DELETE /api/public/v1/planned-shifts/{id}',
  'POST /api/public/v1/planned-shifts/publish',
  'GET /api/public/v1/attendance-exceptions',
  // Added within v1 by the corrections issue (30).
  'GET /api/public/v1/time-entries/{id}',
  'GET /api/public/v1/time-entries/{id}/revisions',
  'POST /api/public/v1/time-entries/{id}/approve',
  'POST /api/public/v1/time-entries/{id}/reject',
  'POST /api/public/v1/time-entries/{id}/reopen',
  'PATCH /api/public/v1/time-entries/{id}',
  'DELETE /api/public/v1/time-entries/{id}',
  'POST /api/public/v1/locked-periods',
  'GET /api/public/v1/locked-periods',
  'DELETE /api/public/v1/locked-periods/{id}',
  // Added within v1 by the kiosk issue (35).
  'POST /api/public/v1/devices/enrol',
  'GET /api/public/v1/kiosk/employees',
  'POST /api/public/v1/kiosk/identify',
].sort();

/** The error names the spec gives each operation (its own rows plus the general 401/403/422/429 rows). */
const SPEC_ERRORS: Record<string, string[]> = {
  'GET /api/public/v1/me': ['invalid_token', 'forbidden', 'rate_limited'],
  'GET /api/public/v1/employees': [
    'invalid_token',
    'insufficient_scope',
    'validation_failed',
    'rate_limited',
  ],
  'PUT /api/public/v1/employees/{id}/external-id': [
    'invalid_token',
    'insufficient_scope',
    'employee_not_found',
    'already_exists',
    'validation_failed',
    'rate_limited',
  ],
  'POST /api/public/v1/time-clock/events': [
    'invalid_token',
    'insufficient_scope',
    'time_tracking_disabled',
    'employee_not_found',
    'already_clocked_in',
    'no_open_session',
    'clock_out_before_clock_in',
    'session_too_long',
    'overlaps_existing_entry',
    'day_locked',
    'business_rule_violation',
    'idempotency_in_flight',
    'validation_failed',
    'idempotency_key_reused',
    'rate_limited',
    // Added within v1 by the terminals issue (breaks).
    'already_on_break',
    'not_on_break',
    'break_out_of_order',
  ],
  'POST /api/public/v1/time-clock/events/batch': [
    'invalid_token',
    'insufficient_scope',
    'time_tracking_disabled',
    'idempotency_in_flight',
    'validation_failed',
    'idempotency_key_reused',
    'rate_limited',
  ],
  'POST /api/public/v1/time-entries': [
    'invalid_token',
    'insufficient_scope',
    'time_tracking_disabled',
    'employee_not_found',
    'overlaps_existing_entry',
    'day_locked',
    'business_rule_violation',
    'idempotency_in_flight',
    'validation_failed',
    'idempotency_key_reused',
    'rate_limited',
  ],
  'GET /api/public/v1/time-entries': [
    'invalid_token',
    'insufficient_scope',
    'time_tracking_disabled',
    'employee_not_found',
    'validation_failed',
    'rate_limited',
  ],
};

function operationsOf(document: Json): string[] {
  return Object.entries<Json>(document.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

function operation(document: Json, key: string): Json {
  const [method, path] = key.split(' ') as [string, string];
  return document.paths[path][method.toLowerCase()];
}

function documentedErrors(op: Json): string[] {
  return Object.entries<Json>(op.responses)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([, response]) => {
      const problem = response.content['application/problem+json'];
      if (problem) return problem.schema.allOf[1].properties.error.enum as string[];
      return response.content['application/json'].schema.properties.error.enum as string[];
    });
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'OpenAPI description on %s',
  (_name, dialect) => {
    let server: TestServer;
    let fixture: CompanyFixture;
    let fullDocument: Json;

    const keyWithScopes = async (scopes: string) => {
      const key = await inTransaction(server.ctx, (tx, now) =>
        createApiKey(tx, now, {
          companyId: fixture.companyId,
          createdBy: fixture.adminId,
          name: `key ${scopes}`,
          scopes,
        }),
      );
      return fetchToken(server, key.clientId, key.secret);
    };

    beforeAll(async () => {
      server = await startTestServer(dialect, { env: { PUBLIC_BASE_URL } });
      fixture = await createCompanyFixture(server.ctx);
      const response = await server.request(`${V1}/openapi.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      fullDocument = (await response.json()) as Json;
    });
    afterAll(async () => server?.stop());

    it('passes an OpenAPI 3.1 schema validator', async () => {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(fullDocument));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    });

    it('is OpenAPI 3.1 labelled v1, with servers from PUBLIC_BASE_URL and every operation', () => {
      expect(fullDocument.openapi).toBe('3.1.0');
      expect(fullDocument.info.version).toBe('v1');
      expect(fullDocument.servers).toEqual([{ url: PUBLIC_BASE_URL, description: expect.any(String) }]);
      expect(operationsOf(fullDocument)).toEqual(ALL_OPERATIONS);
      const operationIds = operationsOf(fullDocument).map((key) => operation(fullDocument, key).operationId);
      expect(new Set(operationIds).size).toBe(ALL_OPERATIONS.length);
    });

    it('declares the OAuth2 client-credentials scheme with its token URL and every scope', () => {
      const scheme = fullDocument.components.securitySchemes.oauth2;
      expect(scheme.type).toBe('oauth2');
      expect(scheme.flows.clientCredentials.tokenUrl).toBe(`${PUBLIC_BASE_URL}${V1}/oauth/token`);
      expect(Object.keys(scheme.flows.clientCredentials.scopes).sort()).toEqual(
        [
          'attendance.read',
          'attendance.record',
          'attendance.reports',
          'employees.read',
          'leave.read',
          'leave.manage',
          'shifts.manage',
          'webhooks.manage',
          'attendance.manage',
          // A kiosk device's token (issue 35): a pseudo-scope naming what it may call.
          'device',
        ].sort(),
      );
      expect(operation(fullDocument, 'POST /api/public/v1/webhooks').security).toEqual([
        { oauth2: ['webhooks.manage'] },
      ]);
      // OpenAPI 3.1's top-level webhooks: each delivery's payload, by event type, and the ping.
      expect(Object.keys(fullDocument.webhooks).sort()).toEqual(
        [
          'time_entry.opened',
          'time_entry.completed',
          'time_entry.approved',
          'time_entry.rejected',
          'day.confirmed',
          'employee.created',
          'employee.updated',
          'employee.deleted',
          'time_entry.break_started',
          'time_entry.break_ended',
          'absence.requested',
          'absence.approved',
          'absence.rejected',
          'absence.cancelled',
          // Planned shifts (issue 33).
          'attendance.exception_detected',
          'attendance.exception_resolved',
          'time_entry.updated',
          'time_entry.deleted',
          'time_entry.reopened',
          'period.closed',
          'period.reopened',
          // Self-service correction requests (issue 35).
          'correction.requested',
          'correction.approved',
          'correction.rejected',
          'correction.withdrawn',
          'ping',
        ].sort(),
      );
      expect(
        fullDocument.webhooks['absence.approved'].post.requestBody.content['application/json'].schema
          .properties.data,
      ).toEqual({
        $ref: '#/components/schemas/Absence',
      });
      const opened = fullDocument.webhooks['time_entry.opened'].post;
      expect(opened.requestBody.content['application/json'].schema.properties.data).toEqual({
        $ref: '#/components/schemas/TimeEntry',
      });
      expect(opened.parameters.map((p: Json) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      const scopeOf = (key: string) => operation(fullDocument, key).security;
      expect(scopeOf('GET /api/public/v1/employees')).toEqual([{ oauth2: ['employees.read'] }]);
      expect(scopeOf('POST /api/public/v1/time-clock/events')).toEqual([
        { oauth2: ['attendance.record'] },
        { oauth2: ['device'] },
      ]);
      expect(scopeOf('GET /api/public/v1/kiosk/employees')).toEqual([{ oauth2: ['device'] }]);
      expect(scopeOf('POST /api/public/v1/devices/enrol')).toEqual([]);
      expect(scopeOf('POST /api/public/v1/time-entries')).toEqual([{ oauth2: ['attendance.record'] }]);
      expect(scopeOf('PUT /api/public/v1/employees/{id}/external-id')).toEqual([
        { oauth2: ['attendance.record'] },
      ]);
      expect(scopeOf('GET /api/public/v1/time-entries')).toEqual([{ oauth2: ['attendance.read'] }]);
      expect(scopeOf('GET /api/public/v1/me')).toEqual([{ oauth2: [] }]);
      expect(scopeOf('GET /api/public/v1/absences')).toEqual([{ oauth2: ['leave.read'] }]);
      expect(scopeOf('POST /api/public/v1/absences/{id}/approve')).toEqual([{ oauth2: ['leave.manage'] }]);
      const token = operation(fullDocument, 'POST /api/public/v1/oauth/token');
      expect(token.security).toEqual([{ clientBasic: [] }, {}]);
      expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
      expect(token.requestBody.content['application/x-www-form-urlencoded'].schema).toEqual({
        $ref: '#/components/schemas/TokenRequest',
      });
      expect(fullDocument.components.schemas.TokenRequest.required).toEqual(['grant_type']);
    });

    it('publishes the resources as named schemas that the operations reference', () => {
      const schemaOf = (key: string, status: string) =>
        operation(fullDocument, key).responses[status].content['application/json'].schema.$ref;
      expect(schemaOf('POST /api/public/v1/time-clock/events', '201')).toBe(
        '#/components/schemas/WriteResult',
      );
      expect(schemaOf('POST /api/public/v1/time-entries', '200')).toBe('#/components/schemas/WriteResult');
      expect(schemaOf('GET /api/public/v1/time-entries', '200')).toBe('#/components/schemas/TimeEntryPage');
      expect(schemaOf('GET /api/public/v1/employees', '200')).toBe('#/components/schemas/EmployeePage');
      expect(schemaOf('GET /api/public/v1/me', '200')).toBe('#/components/schemas/TokenDescription');
      const body = (key: string) =>
        operation(fullDocument, key).requestBody.content['application/json'].schema.$ref;
      expect(body('POST /api/public/v1/time-clock/events')).toBe('#/components/schemas/ClockEvent');
      expect(body('POST /api/public/v1/time-entries')).toBe('#/components/schemas/Shift');
      const schemas = fullDocument.components.schemas;
      expect(schemas.TimeEntryPage.properties.items.items).toEqual({
        $ref: '#/components/schemas/TimeEntry',
      });
      expect(schemas.TimeEntry.properties.employee).toEqual({ $ref: '#/components/schemas/EmployeeRef' });
      expect(schemas.ClockEvent.properties.type).toMatchObject({
        type: 'string',
        enum: ['clock_in', 'clock_out', 'toggle', 'break_start', 'break_end'],
      });
      expect(schemas.TimeEntry.properties.breaks.items).toEqual({
        $ref: '#/components/schemas/TimeEntryBreak',
      });
      expect(body('POST /api/public/v1/time-clock/events/batch')).toBe(
        '#/components/schemas/ClockEventBatch',
      );
      expect(schemaOf('POST /api/public/v1/time-clock/events/batch', '200')).toBe(
        '#/components/schemas/ClockEventBatchResult',
      );
      // Every named schema is used, and every reference resolves.
      const text = JSON.stringify(fullDocument);
      const referenced = new Set([...text.matchAll(/#\/components\/schemas\/(\w+)/g)].map((m) => m[1]));
      expect([...referenced].sort()).toEqual(Object.keys(schemas).sort());
    });

    it('documents the write headers: X-Service-Dry-Run defaulting to true, Idempotency-Key up to 128', () => {
      for (const key of ['POST /api/public/v1/time-clock/events', 'POST /api/public/v1/time-entries']) {
        const parameters = operation(fullDocument, key).parameters as Json[];
        const dryRun = parameters.find((p) => p.name === 'X-Service-Dry-Run');
        expect(dryRun).toMatchObject({
          in: 'header',
          required: false,
          schema: { type: 'boolean', default: true },
        });
        const idempotency = parameters.find((p) => p.name === 'Idempotency-Key');
        expect(idempotency).toMatchObject({ in: 'header', required: false, schema: { maxLength: 128 } });
      }
      const externalId = operation(fullDocument, 'PUT /api/public/v1/employees/{id}/external-id')
        .parameters as Json[];
      expect(externalId.find((p) => p.name === 'X-Service-Dry-Run')?.schema).toMatchObject({
        type: 'boolean',
        default: true,
      });
      expect(externalId.find((p) => p.in === 'path')).toMatchObject({
        name: 'id',
        required: true,
        schema: { format: 'uuid' },
      });
    });

    it("documents every error of the spec's tables as problem+json, with rate-limit headers on every response", () => {
      for (const [key, expected] of Object.entries(SPEC_ERRORS)) {
        const op = operation(fullDocument, key);
        expect(documentedErrors(op), key).toEqual(expect.arrayContaining(expected));
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          expect(response.description, `${key} ${status}`).not.toBe('Default Response');
          expect(Object.keys(response.headers)).toEqual(
            expect.arrayContaining([
              'RateLimit-Policy',
              'RateLimit',
              'X-RateLimit-Limit',
              'X-RateLimit-Remaining',
              'X-RateLimit-Reset',
            ]),
          );
          if (Number(status) >= 400) {
            expect(Object.keys(response.content), `${key} ${status}`).toEqual(['application/problem+json']);
            expect(response.content['application/problem+json'].schema.allOf[0]).toEqual({
              $ref: '#/components/schemas/Problem',
            });
          } else {
            expect(Object.keys(response.content)).toEqual(['application/json']);
          }
          if (status === '429') expect(Object.keys(response.headers)).toContain('Retry-After');
        }
      }
      expect(fullDocument.components.schemas.Problem.required).toEqual([
        'type',
        'title',
        'status',
        'detail',
        'instance',
        'code',
        'error',
        'correlationId',
        'errors',
      ]);
      const conflicts = operation(fullDocument, 'POST /api/public/v1/time-clock/events').responses['409'];
      expect(conflicts.content['application/problem+json'].schema.allOf[1].properties.code.enum).toContain(
        2904,
      );
      const token = operation(fullDocument, 'POST /api/public/v1/oauth/token');
      expect(documentedErrors(token).sort()).toEqual([
        'invalid_client',
        'invalid_request',
        'rate_limited',
        'server_error',
        // The database away for a moment (issue 25): 503 with Retry-After, in OAuth's own form.
        'temporarily_unavailable',
        // A kiosk device of a company whose API access is off (issue 35, review #3).
        'unauthorized_client',
        'unsupported_grant_type',
      ]);
      expect(Object.keys(token.responses['400'].content)).toEqual(['application/json']);
    });

    describe('fetched with a token', () => {
      /** One request per operation, made with `token`; true unless the server refuses it for its scope. */
      const mayCall = async (token: string, key: string): Promise<boolean> => {
        const employee = fixture.employees[0]!;
        const now = Date.now();
        const dryRun = { 'x-service-dry-run': 'true' };
        const unknownId = '00000000-0000-4000-8000-000000000000';
        const calls: Record<string, () => Promise<Response>> = {
          'GET /api/public/v1/me': () => server.request(`${V1}/me`, { token }),
          'GET /api/public/v1/employees': () => server.request(`${V1}/employees`, { token }),
          'PUT /api/public/v1/employees/{id}/external-id': () =>
            server.request(`${V1}/employees/${employee.id}/external-id`, {
              method: 'PUT',
              token,
              headers: dryRun,
              json: { externalId: 'X-1' },
            }),
          'POST /api/public/v1/time-clock/events': () =>
            // No dry run (a kiosk device may not: 403); a value refused (422) stores nothing.
            server.request(`${V1}/time-clock/events`, {
              method: 'POST',
              token,
              json: {
                employee: { id: employee.id },
                type: 'clock_in',
                occurredAt: 'not an instant',
              },
            }),
          'POST /api/public/v1/time-entries': () =>
            server.request(`${V1}/time-entries`, {
              method: 'POST',
              token,
              headers: dryRun,
              json: {
                employee: { id: employee.id },
                clockIn: new Date(now - 3 * 3_600_000).toISOString(),
                clockOut: new Date(now - 2 * 3_600_000).toISOString(),
              },
            }),
          'GET /api/public/v1/time-entries': () =>
            server.request(`${V1}/time-entries?employeeId=${employee.id}`, { token }),
          'GET /api/public/v1/changes': () => server.request(`${V1}/changes`, { token }),
          'GET /api/public/v1/time-clock/status': () => server.request(`${V1}/time-clock/status`, { token }),
          'POST /api/public/v1/time-clock/events/batch': () =>
            server.request(`${V1}/time-clock/events/batch`, {
              method: 'POST',
              token,
              json: {
                events: [
                  {
                    employee: { id: employee.id },
                    type: 'clock_in',
                    occurredAt: 'not an instant',
                  },
                ],
              },
            }),
          'GET /api/public/v1/reports/timesheets': () =>
            server.request(`${V1}/reports/timesheets`, { token }),
          // Webhook operations, called so that they change nothing: a body refused (422) or an unknown id (404).
          'POST /api/public/v1/webhooks': () =>
            server.request(`${V1}/webhooks`, { method: 'POST', token, json: { url: 'x', eventTypes: [] } }),
          'GET /api/public/v1/webhooks': () => server.request(`${V1}/webhooks`, { token }),
          'GET /api/public/v1/webhooks/{id}': () => server.request(`${V1}/webhooks/${unknownId}`, { token }),
          'PATCH /api/public/v1/webhooks/{id}': () =>
            server.request(`${V1}/webhooks/${unknownId}`, { method: 'PATCH', token, json: {} }),
          'DELETE /api/public/v1/webhooks/{id}': () =>
            server.request(`${V1}/webhooks/${unknownId}`, { method: 'DELETE', token }),
          'POST /api/public/v1/webhooks/{id}/rotate-secret': () =>
            server.request(`${V1}/webhooks/${unknownId}/rotate-secret`, { method: 'POST', token }),
          'POST /api/public/v1/webhooks/{id}/test': () =>
            server.request(`${V1}/webhooks/${unknownId}/test`, { method: 'POST', token }),
          'GET /api/public/v1/webhooks/{id}/deliveries': () =>
            server.request(`${V1}/webhooks/${unknownId}/deliveries`, { token }),
          'POST /api/public/v1/webhooks/{id}/replay': () =>
            server.request(`${V1}/webhooks/${unknownId}/replay`, {
              method: 'POST',
              token,
              json: { deliveryId: unknownId },
            }),
          // Absence operations (issue 31), called so that they change nothing: a dry run or an unknown id.
          'GET /api/public/v1/absence-types': () => server.request(`${V1}/absence-types`, { token }),
          'GET /api/public/v1/holidays': () =>
            server.request(`${V1}/holidays?workplaceId=${unknownId}`, { token }),
          'GET /api/public/v1/leave-balances': () =>
            server.request(`${V1}/leave-balances?employeeId=${employee.id}`, { token }),
          'GET /api/public/v1/absences': () => server.request(`${V1}/absences`, { token }),
          'POST /api/public/v1/absences': () =>
            server.request(`${V1}/absences`, {
              method: 'POST',
              token,
              headers: dryRun,
              json: {
                employee: { id: employee.id },
                typeCode: 'sick',
                startDate: '2030-01-07',
                endDate: '2030-01-07',
              },
            }),
          'GET /api/public/v1/absences/{id}': () => server.request(`${V1}/absences/${unknownId}`, { token }),
          'POST /api/public/v1/absences/{id}/approve': () =>
            server.request(`${V1}/absences/${unknownId}/approve`, { method: 'POST', token }),
          'POST /api/public/v1/absences/{id}/reject': () =>
            server.request(`${V1}/absences/${unknownId}/reject`, {
              method: 'POST',
              token,
              json: { reason: 'x' },
            }),
          'POST /api/public/v1/absences/{id}/cancel': () =>
            server.request(`${V1}/absences/${unknownId}/cancel`, {
              method: 'POST',
              token,
              json: { reason: 'x' },
            }),
          // Planned shifts: a dry run, an unknown id, reads.
          'GET /api/public/v1/planned-shifts': () =>
            server.request(`${V1}/planned-shifts?from=2026-11-16&to=2026-11-22`, { token }),
          'POST /api/public/v1/planned-shifts/batch': () =>
            server.request(`${V1}/planned-shifts/batch`, {
              method: 'POST',
              token,
              headers: dryRun,
              json: {
                shifts: [
                  {
                    employee: { id: employee.id },
                    start: '2026-11-16T09:00:00Z',
                    end: '2026-11-16T17:00:00Z',
                  },
                ],
              },
            }),
          'DELETE /api/public/v1/planned-shifts/{id}': () =>
            server.request(`${V1}/planned-shifts/${unknownId}`, { method: 'DELETE', token }),
          'POST /api/public/v1/planned-shifts/publish': () =>
            server.request(`${V1}/planned-shifts/publish`, {
              method: 'POST',
              token,
              headers: dryRun,
              json: { from: '2026-11-16', to: '2026-11-22' },
            }),
          'GET /api/public/v1/attendance-exceptions': () =>
            server.request(`${V1}/attendance-exceptions`, { token }),
          // Corrections (issue 30): an unknown entry or period (404), or a body refused (422).
          'GET /api/public/v1/time-entries/{id}': () =>
            server.request(`${V1}/time-entries/${unknownId}`, { token }),
          'GET /api/public/v1/time-entries/{id}/revisions': () =>
            server.request(`${V1}/time-entries/${unknownId}/revisions`, { token }),
          ...Object.fromEntries(
            ['approve', 'reject', 'reopen'].map((decision) => [
              `POST /api/public/v1/time-entries/{id}/${decision}`,
              () =>
                server.request(`${V1}/time-entries/${unknownId}/${decision}`, {
                  method: 'POST',
                  token,
                  json: { reason: 'r' },
                }),
            ]),
          ),
          'PATCH /api/public/v1/time-entries/{id}': () =>
            server.request(`${V1}/time-entries/${unknownId}`, {
              method: 'PATCH',
              token,
              json: { note: 'n', reason: 'r' },
            }),
          'DELETE /api/public/v1/time-entries/{id}': () =>
            server.request(`${V1}/time-entries/${unknownId}`, {
              method: 'DELETE',
              token,
              json: { reason: 'r' },
            }),
          'POST /api/public/v1/locked-periods': () =>
            server.request(`${V1}/locked-periods`, { method: 'POST', token, json: { from: 'x' } }),
          'GET /api/public/v1/locked-periods': () => server.request(`${V1}/locked-periods`, { token }),
          'DELETE /api/public/v1/locked-periods/{id}': () =>
            server.request(`${V1}/locked-periods/${unknownId}`, {
              method: 'DELETE',
              token,
              json: { reason: 'r' },
            }),
          // Kiosk (issue 35): a body refused (422) for the enrolment, which needs no token; reads.
          'POST /api/public/v1/devices/enrol': () =>
            server.request(`${V1}/devices/enrol`, { method: 'POST', token, json: {} }),
          'GET /api/public/v1/kiosk/employees': () => server.request(`${V1}/kiosk/employees`, { token }),
          'POST /api/public/v1/kiosk/identify': () =>
            server.request(`${V1}/kiosk/identify`, { method: 'POST', token, json: { badge: 'NOPE' } }),
        };
        const response = await calls[key]!();
        const body = (await response.json()) as Json;
        expect(response.status, `${key}: ${JSON.stringify(body)}`).toBeLessThan(500);
        expect(response.status, key).not.toBe(401);
        return !(response.status === 403 && body.error === 'insufficient_scope');
      };

      it.each([
        ['attendance.record'],
        ['attendance.read'],
        ['employees.read'],
        ['attendance.read,employees.read'],
        ['leave.read'],
        ['leave.read,leave.manage'],
        ['attendance.record,attendance.read,employees.read'],
        ['attendance.reports'],
        ['webhooks.manage'],
        ['shifts.manage'],
        ['attendance.manage'],
      ])('lists exactly what a %s token may call, plus /me and the token endpoint', async (scopes) => {
        const token = await keyWithScopes(scopes);
        const response = await server.request(`${V1}/openapi.json`, { token });
        expect(response.status).toBe(200);
        const document = (await response.json()) as Json;
        const listed = operationsOf(document);
        expect(listed).toContain('GET /api/public/v1/me');
        expect(listed).toContain('POST /api/public/v1/oauth/token');
        for (const key of ALL_OPERATIONS.filter((k) => k !== 'POST /api/public/v1/oauth/token')) {
          expect(listed.includes(key), `${key} listed for ${scopes}`).toBe(await mayCall(token, key));
        }
        expect((await new Validator().validate(document)).valid).toBe(true);
        const usedTags = new Set(listed.flatMap((key) => operation(document, key).tags as string[]));
        expect((document.tags as Json[]).map((t) => t.name).sort()).toEqual([...usedTags].sort());
      });

      it("lists for a person's session token only the reads the person's permissions cover", async () => {
        const reader = await inTransaction(server.ctx, (tx, now) =>
          createUser(tx, now, {
            companyId: fixture.companyId,
            email: 'reader@acme.example',
            permissions: '47',
          }),
        );
        const { access_token: token } = await inTransaction(server.ctx, (tx) =>
          issueUserToken(tx, server.tokens, reader.id),
        );
        const document = (await (await server.request(`${V1}/openapi.json`, { token })).json()) as Json;
        expect(operationsOf(document)).toEqual(
          [
            'POST /api/public/v1/oauth/token',
            'GET /api/public/v1/me',
            'GET /api/public/v1/time-entries',
            'GET /api/public/v1/changes',
            'GET /api/public/v1/time-clock/status',
            'GET /api/public/v1/planned-shifts',
            'GET /api/public/v1/attendance-exceptions',
            'GET /api/public/v1/time-entries/{id}',
            'GET /api/public/v1/time-entries/{id}/revisions',
            'GET /api/public/v1/locked-periods',
            'POST /api/public/v1/devices/enrol',
          ].sort(),
        );
        for (const key of ALL_OPERATIONS.filter((k) => k !== 'POST /api/public/v1/oauth/token')) {
          expect(operationsOf(document).includes(key), key).toBe(await mayCall(token, key));
        }
      });

      it("lists for a kiosk device's token the kiosk operations and the punches (issue 35)", async () => {
        const device = await enrolledDevice(server, fixture.workplaceId);
        const token = await fetchToken(server, device.clientId, device.clientSecret);
        const document = (await (await server.request(`${V1}/openapi.json`, { token })).json()) as Json;
        expect(operationsOf(document)).toEqual(
          [
            'POST /api/public/v1/oauth/token',
            'GET /api/public/v1/me',
            'POST /api/public/v1/devices/enrol',
            'GET /api/public/v1/kiosk/employees',
            'POST /api/public/v1/kiosk/identify',
            'POST /api/public/v1/time-clock/events',
            'POST /api/public/v1/time-clock/events/batch',
          ].sort(),
        );
        for (const key of ALL_OPERATIONS.filter((k) => k !== 'POST /api/public/v1/oauth/token')) {
          expect(operationsOf(document).includes(key), key).toBe(await mayCall(token, key));
        }
      });

      it('refuses an invalid token instead of ignoring it', async () => {
        const response = await server.request(`${V1}/openapi.json`, { token: 'not-a-token' });
        expect(response.status).toBe(401);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(((await response.json()) as Json).error).toBe('invalid_token');
      });
    });

    describe('reference page', () => {
      it('serves Swagger UI from the installed package, loading this description', async () => {
        const page = await server.request(`${V1}/docs`);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        const html = await page.text();
        expect(html).toContain(`${V1}/docs/static/swagger-ui-bundle.js`);
        expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
        const bundle = await server.request(`${V1}/docs/static/swagger-ui-bundle.js`);
        expect(bundle.status).toBe(200);
        expect((await bundle.text()).length).toBeGreaterThan(100_000);
        const initializer = await (await server.request(`${V1}/docs/static/swagger-initializer.js`)).text();
        expect(initializer).toContain("resolveUrl('./json')");
        expect(initializer).toContain('"tryItOutEnabled":true');
        // The page's copy is the same description with origin-relative URLs, so it works under any host name.
        const pageDocument = (await (await server.request(`${V1}/docs/json`)).json()) as Json;
        expect(pageDocument.servers).toEqual([{ url: '/', description: expect.any(String) }]);
        expect(pageDocument.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
          `${V1}/oauth/token`,
        );
        expect({
          ...pageDocument,
          servers: fullDocument.servers,
          components: fullDocument.components,
        }).toEqual(fullDocument);
      });
    });
  },
);

describe.each(testDialects().map((d) => [d.name, d] as const))('v1 deprecation on %s', (_name, dialect) => {
  let server: TestServer;
  let fixture: CompanyFixture;
  beforeAll(async () => {
    server = await startTestServer(dialect, { env: { V1_SUNSET: '2027-06-30' } });
    fixture = await createCompanyFixture(server.ctx);
  });
  afterAll(async () => server?.stop());

  it('announces Deprecation, Sunset and Link on every v1 response, errors included', async () => {
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    const responses = [
      await server.request(`${V1}/me`, { token }),
      await server.request(`${V1}/me`),
      await server.request(`${V1}/employees?limit=0`, { token }),
      await server.request(`${V1}/no-such-thing`),
      await server.request(`${V1}/openapi.json`),
      await server.request(`${V1}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=password',
      }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 401, 422, 404, 200, 400]);
    for (const response of responses) {
      expect(response.headers.get('deprecation')).toBe('true');
      expect(response.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
      expect(response.headers.get('link')).toBe(`<${server.listenUrl}${V1}/docs>; rel="deprecation"`);
    }
    const health = await server.request('/healthz');
    expect(health.headers.get('deprecation')).toBeNull();
    expect(health.headers.get('sunset')).toBeNull();
  });

  it('marks every operation of the description deprecated', async () => {
    const document = (await (await server.request(`${V1}/openapi.json`)).json()) as Json;
    for (const key of operationsOf(document)) expect(operation(document, key).deprecated, key).toBe(true);
    expect(document.info.description).toContain('Wed, 30 Jun 2027 00:00:00 GMT');
  });

  it('sends no deprecation headers while v1 is current', async () => {
    const current = await startTestServer(dialect);
    try {
      const response = await current.request(`${V1}/openapi.json`);
      expect(response.headers.get('deprecation')).toBeNull();
      expect(response.headers.get('sunset')).toBeNull();
      expect(response.headers.get('link')).toBeNull();
    } finally {
      await current.stop();
    }
  });

  it('points Link at the configured page', async () => {
    const configured = await startTestServer(dialect, {
      env: {
        V1_SUNSET: '2027-06-30T12:00:00Z',
        V1_DEPRECATION_LINK: 'https://punchclock.example.com/v2-migration',
      },
    });
    try {
      const response = await configured.request('/api/public/v1/me');
      expect(response.headers.get('sunset')).toBe('Wed, 30 Jun 2027 12:00:00 GMT');
      expect(response.headers.get('link')).toBe(
        '<https://punchclock.example.com/v2-migration>; rel="deprecation"',
      );
    } finally {
      await configured.stop();
    }
  });
});
