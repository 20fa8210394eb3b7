import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { OverloadGate } from '../../src/http/overload-gate.js';

function gate(options: { maxInFlight?: number; target?: number; random?: () => number } = {}) {
  const shed: string[] = [];
  const g = new OverloadGate({
    maxInFlight: options.maxInFlight ?? 0,
    targetEventLoopDelayMs: options.target ?? 20,
    exempt: (path) => path === '/healthz',
    answerShed: (request) => shed.push(request.url ?? ''),
    onShed: () => {},
    random: options.random,
  });
  return { g, shed };
}

const request = (url: string) => ({ url }) as IncomingMessage;
const response = () => new EventEmitter() as unknown as ServerResponse;

/** `n` samples, 50 ms apart, of the given delay and queue (requests met on average). */
let clock = 0;
function steps(g: OverloadGate, n: number, delayMs: number, met: number) {
  for (let i = 0; i < n; i++) g.step(delayMs, 10, 10 * met, (clock += 50));
}

describe('overload gate: the adaptive share shed by queue and event-loop delay', () => {
  it('never sheds for a slow loop without a queue (a lone client beside a busy neighbour)', () => {
    const { g } = gate({ target: 20 });
    steps(g, 200, 1_000, 1); // the loop lags a second, each request meets one other at most
    expect(g.shedShare).toBe(0);
    steps(g, 200, 1_000, 10); // ten at once is still no queue
    expect(g.shedShare).toBe(0);
  });

  it('starts only after a second of samples with a queue, most of them above the target', () => {
    const { g } = gate({ target: 20 });
    steps(g, 20, 100, 20);
    expect(g.shedShare).toBe(0); // 950 ms since the first: not yet
    steps(g, 1, 100, 20);
    expect(g.shedShare).toBeCloseTo(0.2); // clamped step: 4 × 0.05
    const h = gate({ target: 20 }).g;
    // A queue with the loop mostly on target (stalls now and then) does not start it.
    for (let i = 0; i < 100; i++) steps(h, 1, i % 4 === 0 ? 200 : 10, 20);
    expect(h.shedShare).toBe(0);
    // A queue, the loop above target, but samples of a stalled loop in between with no request: starts.
    const k = gate({ target: 20 }).g;
    for (let i = 0; i < 23; i++) k.step(100, i % 3 === 0 ? 0 : 10, i % 3 === 0 ? 0 : 200, (clock += 50));
    expect(k.shedShare).toBeGreaterThan(0);
    // Two samples in a row with no request: the queue is gone.
    k.step(100, 0, 0, (clock += 50));
    const before = k.shedShare;
    k.step(100, 0, 0, (clock += 50));
    expect(k.shedShare).toBeCloseTo(Math.max(0, before - 0.2));
    expect(h.shedShare).toBe(0);
  });

  it('rises while the delay stays above target, falls slowly below it, and at once when the queue empties', () => {
    const { g } = gate({ target: 20 });
    steps(g, 21, 40, 20); // one target too slow: +0.05 once a second has passed
    expect(g.shedShare).toBeCloseTo(0.05);
    steps(g, 1, 1_000, 20);
    expect(g.shedShare).toBeCloseTo(0.25);
    steps(g, 10, 1_000, 20);
    expect(g.shedShare).toBe(1);
    steps(g, 1, 20, 20); // on target: unchanged
    expect(g.shedShare).toBe(1);
    steps(g, 1, 10, 20); // half the target, queue still there: -0.025
    expect(g.shedShare).toBeCloseTo(0.975);
    steps(g, 1, 10, 2); // the queue emptied: -0.2, as fast as it rises
    expect(g.shedShare).toBeCloseTo(0.775);
    steps(g, 4, 10, 0);
    expect(g.shedShare).toBe(0);
    // Starting again needs a whole second again.
    steps(g, 20, 100, 20);
    expect(g.shedShare).toBe(0);
  });

  it('sheds new requests with the current share; never /healthz, never a request that meets no other', async () => {
    let next = 0.5;
    const { g, shed } = gate({ random: () => next });
    steps(g, 21, 100, 20);
    steps(g, 6, 60, 20); // share 0.8
    expect(g.shedShare).toBeCloseTo(0.8);
    // Alone (nothing in flight, first of its turn): admitted.
    const alone = response();
    expect(g.admit(request('/api/public/v1/me'), alone)).toBe(true);
    // The second of the same turn meets the first: shed with the share.
    expect(g.admit(request('/api/public/v1/me'), response())).toBe(false);
    next = 0.9;
    expect(g.admit(request('/api/public/v1/me'), response())).toBe(true);
    next = 0;
    expect(g.admit(request('/healthz'), response())).toBe(true);
    expect(shed).toEqual(['/api/public/v1/me']);
    alone.emit('close');
    // A new turn: nothing in flight but the third request's response.
    await new Promise((resolve) => setImmediate(resolve));
    expect(g.requestsInFlight).toBe(1);
  });
});

describe('overload gate: requests in flight', () => {
  it('sheds beyond the limit and admits again once a response closes', () => {
    const { g, shed } = gate({ maxInFlight: 2, target: 0 });
    const first = response();
    expect(g.admit(request('/a'), first)).toBe(true);
    expect(g.admit(request('/b'), response())).toBe(true);
    expect(g.admit(request('/c'), response())).toBe(false);
    expect(g.admit(request('/healthz'), response())).toBe(true);
    first.emit('close');
    expect(g.admit(request('/d'), response())).toBe(true);
    expect(shed).toEqual(['/c']);
  });
});
