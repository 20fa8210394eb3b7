import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The benchmark's fixed-rate runner (bench/lib/paced.mjs): a plain ES module, imported by path.
type Summary = { p50: number; p90: number; p99: number; max: number; mean: number };
type Paced = {
  requests: number;
  unsent: number;
  errors: number;
  statusCounts: Record<string, number>;
  latency: Summary;
  serviceLatency: Summary;
  sendLag: Summary;
};
const pacedPath = '../../bench/lib/paced.mjs';
const { runPaced } = (await import(pacedPath)) as {
  runPaced(options: Record<string, unknown>): Promise<Paced>;
};

describe('fixed-rate load runner', () => {
  let server: Server;
  let url: string;
  let arrivals: number[] = [];
  let stallOnRequest = -1;
  beforeAll(async () => {
    server = createServer((request, response) => {
      arrivals.push(performance.now());
      if (arrivals.length === stallOnRequest) {
        const until = performance.now() + 120;
        while (performance.now() < until); // the server's only thread, stalled
      }
      request.resume();
      request.on('end', () => response.end(JSON.stringify({ path: request.url })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** GETs `path` at `rate` for `duration` seconds; the server stalls on its `stallOn`-th request. */
  const pace = (path: string, connections: number, duration: number, rate: number, stallOn = -1) => {
    arrivals = [];
    stallOnRequest = stallOn;
    return runPaced({ url, requests: [{ method: 'GET', path }], connections, duration, rate });
  };

  it('spaces requests evenly over the run instead of sending each second in one burst', async () => {
    const result = await pace('/even', 4, 1, 200);
    expect(result.requests).toBe(200);
    expect(result.statusCounts).toEqual({ '200': 200 });
    expect(result.unsent + result.errors).toBe(0);
    // 200/s is one request every 5 ms: a 100 ms window's share is 20, and one burst per second would
    // put all 200 in one window. A runner that catches up after a stall of its own (a loaded machine:
    // 32 seen in a CI rehearsal) sends a few late ones back to back, so the bound is 3 times the share.
    const busiest = Math.max(...arrivals.map((t) => arrivals.filter((u) => u >= t && u < t + 100).length));
    expect(busiest).toBeLessThanOrEqual(60);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(900);
  });

  it('counts a request that waited for a connection from the moment it was due', async () => {
    const result = await pace('/stall', 2, 1, 200, 50);
    expect(result.requests).toBe(200);
    // The stall holds the answer of the request that caused it and of those due meanwhile: ~24 of them
    // queue behind two busy connections, and each is counted from its own due time.
    expect(result.latency.max).toBeGreaterThanOrEqual(110);
    expect(result.latency.p90).toBeGreaterThan(result.serviceLatency.p90);
    expect(result.serviceLatency.max).toBeLessThan(result.latency.max);
  });

  it("tells the load generator's own pauses apart as requests sent late with a connection free", async () => {
    const pause = setTimeout(() => {
      const until = performance.now() + 120;
      while (performance.now() < until); // the load generator's thread, stalled
    }, 300);
    const result = await pace('/client-pause', 4, 1, 200);
    clearTimeout(pause);
    expect(result.requests).toBe(200);
    expect(result.sendLag.max).toBeGreaterThanOrEqual(100);
    expect(result.latency.max).toBeGreaterThanOrEqual(100);
  });

  it('calls setupRequest and onResponse with one context per connection', async () => {
    arrivals = [];
    stallOnRequest = -1;
    const contexts = new Set<object>();
    const seen: string[] = [];
    let n = 0;
    const result = await runPaced({
      url,
      requests: [
        {
          method: 'POST',
          path: '/template',
          headers: { 'content-type': 'application/json' },
          setupRequest(request: Record<string, unknown>, context: { sent?: number }) {
            contexts.add(context);
            context.sent = (context.sent ?? 0) + 1;
            return { ...request, path: `/n/${n++}`, body: '{}' };
          },
          onResponse(status: number, body: string) {
            expect(status).toBe(200);
            seen.push((JSON.parse(body) as { path: string }).path);
          },
        },
      ],
      connections: 3,
      duration: 0.5,
      rate: 100,
    });
    expect(result.requests).toBe(50);
    expect(contexts.size).toBeLessThanOrEqual(3);
    expect(new Set(seen).size).toBe(50);
  });
});
