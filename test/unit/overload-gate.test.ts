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

describe('overload gate: the adaptive share shed by event-loop delay', () => {
  it('rises while the delay is above the target, at most to 1, and falls back to 0 below it', () => {
    const { g } = gate({ target: 20 });
    g.adjust(40); // one target too slow: +0.05
    expect(g.shedShare).toBeCloseTo(0.05);
    g.adjust(1_000); // far too slow: the step is clamped at 4 × 0.05
    expect(g.shedShare).toBeCloseTo(0.25);
    for (let i = 0; i < 10; i++) g.adjust(1_000);
    expect(g.shedShare).toBe(1);
    g.adjust(20); // on target: unchanged
    expect(g.shedShare).toBe(1);
    g.adjust(10); // half the target: -0.025
    expect(g.shedShare).toBeCloseTo(0.975);
    for (let i = 0; i < 60; i++) g.adjust(0);
    expect(g.shedShare).toBe(0);
  });

  it('sheds new requests with the current share; never /healthz', () => {
    let next = 0.5;
    const { g, shed } = gate({ random: () => next });
    for (let i = 0; i < 8; i++) g.adjust(60); // share 0.8
    expect(g.admit(request('/api/public/v1/me'), response())).toBe(false);
    next = 0.9;
    expect(g.admit(request('/api/public/v1/me'), response())).toBe(true);
    next = 0;
    expect(g.admit(request('/healthz'), response())).toBe(true);
    expect(shed).toEqual(['/api/public/v1/me']);
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
