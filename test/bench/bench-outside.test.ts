import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The benchmark's request files for wrk (bench/lib/outside.mjs, read by bench/outside/replay.lua).
// Plain ES modules without types: imported by path.
type Json = Record<string, unknown>;
const outsidePath = '../../bench/lib/outside.mjs';
const scenariosPath = '../../bench/lib/scenarios.mjs';
const outside = (await import(outsidePath)) as {
  TOKEN_PLACEHOLDER: string;
  writeOutsideRequests(options: Json): Promise<{ file: string; side: string; requests: number }[]>;
};
const scenarios = (await import(scenariosPath)) as {
  clockEvents(options: Json): Json[];
  meRequests(options: Json): Json[];
};

/** What replay.lua does with a file: the mode, then the raw requests between NUL bytes. */
function readRequests(file: string): { mode: string; requests: string[] } {
  const parts = readFileSync(file, 'utf8').split('\0');
  expect(parts.pop()).toBe('');
  return { mode: parts[0]!, requests: parts.slice(1) };
}

function parse(raw: string) {
  const [head, body] = raw.split('\r\n\r\n') as [string, string];
  const [requestLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 2)]),
  );
  return { requestLine, headers, body };
}

describe('request files for another load generator', () => {
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-outside-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const fixture = { companyId: 'company-1', key: { id: 'key-1', clientId: 'svc_1', secret: 'svc_1_s' } };
  const employeesOf = (phase: string) => [0, 1, 2].map((i) => ({ id: `${phase}-employee-${i}` }));
  const servers = {
    floor: { url: 'http://127.0.0.1:4001' },
    api: { url: 'http://127.0.0.1:4002' },
    tokenFor: () => Promise.resolve('unused'),
  };
  const problems = { samples: [], note() {} };
  const written = outside.writeOutsideRequests({
    dir: join(dir, 'out'),
    servers,
    writes: 7,
    sets: 2,
    log: () => {},
    scenarios: [
      {
        key: 'clock',
        kind: 'write',
        fixture,
        build: (phase: string, token: string, _p: unknown, runId: string) =>
          scenarios.clockEvents({ fixture, token, employees: employeesOf(phase), runId, problems }),
      },
      {
        key: 'me',
        kind: 'read',
        fixture,
        build: (_phase: string, token: string) => scenarios.meRequests({ fixture, token, problems }),
      },
    ],
  });

  it('writes each write set once, with fresh employees, unique keys and each employee in order', async () => {
    const files = await written;
    const clock = files.filter((f) => f.file.includes('clock.'));
    expect(clock.map((f) => f.file.slice(f.file.lastIndexOf('/') + 1)).sort()).toEqual([
      'clock.api.1.req',
      'clock.api.2.req',
      'clock.floor.1.req',
      'clock.floor.2.req',
    ]);
    const seenKeys = new Set<string>();
    const seenEmployees = new Set<string>();
    for (const { file } of clock) {
      const { mode, requests } = readRequests(file);
      expect(mode).toBe('once');
      expect(requests).toHaveLength(7);
      const punches = new Map<string, { type: string; occurredAt: string }[]>();
      for (const raw of requests) {
        const { requestLine, headers, body } = parse(raw);
        expect(requestLine).toBe('POST /api/public/v1/time-clock/events HTTP/1.1');
        expect(headers.host).toBe(file.includes('.api.') ? '127.0.0.1:4002' : '127.0.0.1:4001');
        expect(headers.authorization).toBe(`Bearer ${outside.TOKEN_PLACEHOLDER}`);
        expect(Number(headers['content-length'])).toBe(Buffer.byteLength(body));
        expect(seenKeys.has(headers['idempotency-key']!)).toBe(false);
        seenKeys.add(headers['idempotency-key']!);
        const punch = JSON.parse(body) as { employee: { id: string }; type: string; occurredAt: string };
        punches.set(punch.employee.id, [...(punches.get(punch.employee.id) ?? []), punch]);
      }
      for (const [employee, list] of punches) {
        expect(seenEmployees.has(employee)).toBe(false);
        expect(list.map((p) => p.type)).toEqual(list.map((_, i) => (i % 2 === 0 ? 'clock_in' : 'clock_out')));
        expect([...list.map((p) => p.occurredAt)].sort()).toEqual(list.map((p) => p.occurredAt));
      }
      for (const employee of punches.keys()) seenEmployees.add(employee);
    }
    expect(seenEmployees.size).toBe(12);
  });

  it('writes a read as one cycle of requests that wrk repeats', async () => {
    const files = await written;
    const me = files.filter((f) => f.file.includes('me.'));
    expect(me).toHaveLength(2);
    for (const { file } of me) {
      const { mode, requests } = readRequests(file);
      expect(mode).toBe('cycle');
      expect(requests).toHaveLength(1);
      const { requestLine, headers, body } = parse(requests[0]!);
      expect(requestLine).toBe('GET /api/public/v1/me HTTP/1.1');
      expect(headers['x-bench-key-id']).toBe('key-1');
      expect(headers['content-length']).toBeUndefined();
      expect(body).toBe('');
    }
  });
});
