// One round of every public v1 operation (and the description, the health routes and a timesheet
// CSV), as a client working through them one after the other would send them: reads, punches with
// keys, a batch, a shift, an external id, the change feed, and a webhook endpoint taken through its
// whole life (create, read, list, change, test, deliveries, rotate, replay, delete).
import { randomUUID } from 'node:crypto';
import { URLSearchParams } from 'node:url';

const API = '/api/public/v1';
const MINUTE = 60_000;

/**
 * A generator of requests ({ method, path, headers, body, label }) for a tenant: `employees` are ids,
 * `receiverUrl` a webhook receiver the server may send to. Each call of `next()` gives the next
 * request; a round covers every operation. Time moves on a minute per punch, from a week ago, so
 * that every write is accepted.
 */
export function everyEndpoint({ token, key, employees, workplaceId, receiverUrl }) {
  const bearer = () => ({ authorization: `Bearer ${token()}` });
  const json = (body) => ({
    headers: { ...bearer(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  let clock = Date.now() - 7 * 86_400_000;
  const at = () => new Date((clock += MINUTE)).toISOString();
  let employeeIndex = 0;
  let webhookId = null;
  let round = 0;
  const today = new Date().toISOString().slice(0, 10);
  const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);

  const steps = [
    () => ({
      label: 'POST /oauth/token',
      method: 'POST',
      path: `${API}/oauth/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: key.clientId,
        client_secret: key.secret,
      }).toString(),
    }),
    () => ({ label: 'GET /openapi.json', method: 'GET', path: `${API}/openapi.json` }),
    () => ({ label: 'GET /me', method: 'GET', path: `${API}/me`, headers: bearer() }),
    () => ({ label: 'GET /employees', method: 'GET', path: `${API}/employees?limit=100`, headers: bearer() }),
    () => {
      const id = employees[employeeIndex % employees.length];
      return {
        label: 'PUT /employees/{id}/external-id',
        method: 'PUT',
        path: `${API}/employees/${id}/external-id`,
        ...json({ externalId: `EXT-${id.slice(-12)}-${round}` }),
      };
    },
    ...['clock_in', 'break_start', 'break_end', 'clock_out'].map((type) => () => ({
      label: `POST /time-clock/events (${type})`,
      method: 'POST',
      path: `${API}/time-clock/events`,
      ...json({ employee: { id: employees[employeeIndex % employees.length] }, type, occurredAt: at() }),
      headers: { ...json({}).headers, 'idempotency-key': randomUUID() },
    })),
    () => {
      const start = clock + MINUTE;
      clock += 3 * MINUTE;
      const events = employees.slice(0, 10).flatMap((id, i) => [
        {
          employee: { id },
          type: 'clock_in',
          occurredAt: new Date(start + i).toISOString(),
          idempotencyKey: randomUUID(),
        },
        {
          employee: { id },
          type: 'clock_out',
          occurredAt: new Date(start + MINUTE + i).toISOString(),
          idempotencyKey: randomUUID(),
        },
      ]);
      return {
        label: 'POST /time-clock/events/batch',
        method: 'POST',
        path: `${API}/time-clock/events/batch`,
        ...json({ events }),
      };
    },
    () => {
      const clockIn = at();
      clock += 29 * MINUTE;
      const clockOut = at();
      return {
        label: 'POST /time-entries',
        method: 'POST',
        path: `${API}/time-entries`,
        ...json({ employee: { id: employees[(employeeIndex + 1) % employees.length] }, clockIn, clockOut }),
        headers: { ...json({}).headers, 'idempotency-key': randomUUID() },
      };
    },
    () => ({
      label: 'GET /time-entries',
      method: 'GET',
      path: `${API}/time-entries?employeeId=${employees[employeeIndex % employees.length]}&limit=50`,
      headers: bearer(),
    }),
    () => ({
      label: 'GET /time-clock/status',
      method: 'GET',
      path: `${API}/time-clock/status?workplaceId=${workplaceId}&limit=100`,
      headers: bearer(),
    }),
    () => ({ label: 'GET /changes', method: 'GET', path: `${API}/changes?limit=100`, headers: bearer() }),
    () => ({
      label: 'GET /reports/timesheets',
      method: 'GET',
      path: `${API}/reports/timesheets?from=${monthAgo}&to=${today}&status=all&limit=50`,
      headers: bearer(),
    }),
    () => ({
      label: 'GET /reports/timesheets (CSV)',
      method: 'GET',
      path: `${API}/reports/timesheets?from=${monthAgo}&to=${today}&status=all`,
      headers: { ...bearer(), accept: 'text/csv' },
    }),
    () => ({
      label: 'POST /webhooks',
      method: 'POST',
      path: `${API}/webhooks`,
      ...json({ url: `${receiverUrl}/bench`, eventTypes: ['time_entry.opened', 'time_entry.completed'] }),
      onResponse: (status, body) => {
        if (status === 201) webhookId = JSON.parse(body).id;
      },
    }),
    () => ({ label: 'GET /webhooks', method: 'GET', path: `${API}/webhooks`, headers: bearer() }),
    ...[
      ['GET /webhooks/{id}', 'GET', ''],
      ['PATCH /webhooks/{id}', 'PATCH', '', { description: `round ${round}` }],
      ['POST /webhooks/{id}/test', 'POST', '/test'],
      ['GET /webhooks/{id}/deliveries', 'GET', '/deliveries'],
      ['POST /webhooks/{id}/rotate-secret', 'POST', '/rotate-secret'],
      ['POST /webhooks/{id}/replay', 'POST', '/replay', 'range'],
      ['DELETE /webhooks/{id}', 'DELETE', ''],
    ].map(([label, method, suffix, body]) => () => {
      const payload =
        body === 'range'
          ? { from: new Date(Date.now() - 60 * MINUTE).toISOString(), to: new Date().toISOString() }
          : body;
      return {
        label,
        method,
        path: `${API}/webhooks/${webhookId ?? '00000000-0000-7000-8000-000000000000'}${suffix}`,
        ...(payload === undefined ? { headers: bearer() } : json(payload)),
        onResponse: label.startsWith('DELETE') ? () => (webhookId = null) : undefined,
      };
    }),
    () => ({ label: 'GET /healthz', method: 'GET', path: '/healthz' }),
    () => ({ label: 'GET /readyz', method: 'GET', path: '/readyz' }),
  ];
  let index = 0;
  return {
    operations: steps.length,
    next() {
      const request = steps[index]();
      index++;
      if (index === steps.length) {
        index = 0;
        round++;
        employeeIndex++;
      }
      return request;
    },
  };
}
