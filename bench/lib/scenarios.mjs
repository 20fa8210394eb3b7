// The request streams of each scenario, as autocannon `requests` arrays. The API and the floor get
// byte-for-byte the same requests (same paths, bodies and headers); each ignores the headers meant
// for the other (the floor reads x-bench-*, the API the bearer token).
import { URLSearchParams } from 'node:url';
import { DateTime } from 'luxon';
import { ZONE } from './zone.mjs';

export const API = '/api/public/v1';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Keeps the first few unexpected answers of a run, to show what went wrong. */
export function makeProblemLog(limit = 5) {
  const samples = [];
  return {
    samples,
    note(status, body) {
      if (samples.length < limit) samples.push({ status, body: String(body).slice(0, 400) });
    },
  };
}

function headersFor(fixture, token) {
  return {
    authorization: `Bearer ${token ?? 'none'}`,
    'x-bench-company-id': fixture.companyId,
    'x-bench-key-id': fixture.key.id,
  };
}

/**
 * A write stream over `employees`: each request goes to the next employee whose previous request has
 * been answered (so one employee's punches stay in order however many connections are open), and
 * carries that employee's n-th body and a unique Idempotency-Key, as a real client sends.
 */
function perEmployeeWrites({ path, fixture, token, employees, body, runId, problems }) {
  const count = employees.length;
  const next = new Int32Array(count);
  const busy = new Uint8Array(count);
  let pointer = 0;
  const base = headersFor(fixture, token);
  return [
    {
      method: 'POST',
      path,
      headers: { ...base, 'content-type': 'application/json' },
      setupRequest(request, context) {
        let e = -1;
        for (let i = 0; i < count; i++) {
          const candidate = (pointer + i) % count;
          if (!busy[candidate]) {
            e = candidate;
            break;
          }
        }
        if (e === -1) throw new Error('every employee has a request in flight: too many connections');
        pointer = (e + 1) % count;
        busy[e] = 1;
        const n = next[e]++;
        context.e = e;
        return {
          ...request,
          headers: { ...request.headers, 'idempotency-key': `${runId}-${e}-${n}` },
          body: JSON.stringify(body(employees[e], n)),
        };
      },
      onResponse(status, responseBody, context) {
        busy[context.e] = 0;
        if (status < 200 || status >= 300) problems.note(status, responseBody);
      },
    },
  ];
}

/**
 * Clock punches: clock_in, clock_out, clock_in... per employee, 5 minutes apart, starting 29 days
 * ago (inside the API's 30-day window, never in the future for 8,000 punches per employee). Sessions
 * are 5 minutes (< 24 h), never overlapping.
 */
export function clockEvents({ fixture, token, employees, runId, problems }) {
  const start = Date.now() - 29 * DAY;
  return perEmployeeWrites({
    path: `${API}/time-clock/events`,
    fixture,
    token,
    employees,
    runId,
    problems,
    body: (employee, n) => ({
      employee: { id: employee.id },
      type: n % 2 === 0 ? 'clock_in' : 'clock_out',
      occurredAt: new Date(start + n * 5 * MINUTE).toISOString(),
      deviceId: 'BENCH-T1',
    }),
  });
}

/**
 * Completed shifts: 90 minutes every 2 hours per employee from 29 days ago (≈ 340 per employee
 * before reaching the present), with a 15-minute break unless the shift crosses midnight in the
 * workplace's zone (the API refuses a break on an overnight shift).
 */
export function shifts({ fixture, token, employees, runId, problems }) {
  const start = Date.now() - 29 * DAY;
  const slots = new Map();
  const slot = (n) => {
    let s = slots.get(n);
    if (!s) {
      const clockIn = start + n * 2 * HOUR;
      const clockOut = clockIn + 90 * MINUTE;
      const overnight =
        DateTime.fromMillis(clockIn, { zone: ZONE }).toISODate() !==
        DateTime.fromMillis(clockOut, { zone: ZONE }).toISODate();
      s = {
        clockIn: new Date(clockIn).toISOString(),
        clockOut: new Date(clockOut).toISOString(),
        breakMinutes: overnight ? 0 : 15,
      };
      slots.set(n, s);
    }
    return s;
  };
  return perEmployeeWrites({
    path: `${API}/time-entries`,
    fixture,
    token,
    employees,
    runId,
    problems,
    body: (employee, n) => ({ employee: { id: employee.id }, ...slot(n), note: 'bench shift' }),
  });
}

/** POST /oauth/token with the key as client_id + client_secret in the form body. */
export function tokenRequests({ fixture, problems }) {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: fixture.key.clientId,
    client_secret: fixture.key.secret,
  }).toString();
  return [
    {
      method: 'POST',
      path: `${API}/oauth/token`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-bench-company-id': fixture.companyId,
        'x-bench-key-id': fixture.key.id,
      },
      body: form,
      onResponse(status, body) {
        if (status !== 200) problems.note(status, body);
      },
    },
  ];
}

export function meRequests({ fixture, token, problems }) {
  return [
    {
      method: 'GET',
      path: `${API}/me`,
      headers: headersFor(fixture, token),
      onResponse(status, body) {
        if (status !== 200) problems.note(status, body);
      },
    },
  ];
}

/**
 * One page (25) of an employee's time entries, for employees with a year of history, over a
 * 60-day window placed anywhere inside that year (≈ 43 entries: the page is full and has a next
 * cursor). Cycles through every target employee and 50 windows.
 */
export function timeEntryPages({ fixture, token, employees, days, problems }) {
  const windows = [];
  for (let w = 0; w < 50; w++) {
    const toIndex = days.length - 1 - Math.floor((w * (days.length - 50)) / 50);
    const to = days[toIndex].date;
    const from = new Date(Date.parse(`${to}T00:00:00Z`) - 60 * DAY).toISOString().slice(0, 10);
    windows.push({ from, to });
  }
  const paths = [];
  for (let i = 0; i < employees.length * windows.length; i++) {
    const employee = employees[i % employees.length];
    const window = windows[i % windows.length];
    paths.push(`${API}/time-entries?employeeId=${employee.id}&from=${window.from}&to=${window.to}&limit=25`);
  }
  let i = 0;
  const requests = [
    {
      method: 'GET',
      path: paths[0],
      headers: headersFor(fixture, token),
      setupRequest(request) {
        return { ...request, path: paths[i++ % paths.length] };
      },
      onResponse(status, body) {
        if (status !== 200) problems.note(status, body);
      },
    },
  ];
  // The number of requests after which the stream repeats itself (see outside.mjs).
  requests.cycle = paths.length;
  return requests;
}

/**
 * Walks the company's employee list 25 at a time, following nextCursor to the end and starting over.
 * Each connection takes a walker whose last page has been answered.
 */
export function employeePageWalk({ fixture, token, problems, stats }) {
  const ready = [];
  return [
    {
      method: 'GET',
      path: `${API}/employees?limit=25`,
      headers: headersFor(fixture, token),
      setupRequest(request, context) {
        const walker = ready.pop() ?? { cursor: null };
        context.walker = walker;
        return {
          ...request,
          path: walker.cursor
            ? `${API}/employees?limit=25&cursor=${encodeURIComponent(walker.cursor)}`
            : `${API}/employees?limit=25`,
        };
      },
      onResponse(status, body, context) {
        const walker = context.walker;
        if (status === 200) {
          const page = JSON.parse(body);
          walker.cursor = page.nextCursor;
          if (stats && page.nextCursor === null) stats.walks = (stats.walks ?? 0) + 1;
        } else {
          problems.note(status, body);
          walker.cursor = null;
        }
        ready.push(walker);
      },
    },
  ];
}
