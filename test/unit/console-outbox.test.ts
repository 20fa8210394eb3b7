import { beforeEach, describe, expect, it, vi } from 'vitest';

/*
 * The web clock's sender (console/src/features/self-service/outbox.ts) with the API and the
 * IndexedDB queue replaced: a change of person (or CSRF token) between punches stops the run, a live
 * punch goes without occurredAt, an address refusal waits, and the queue holds at most 50 a person.
 */

interface Sent {
  body: { type: string; occurredAt?: string };
  csrfToken: string | null | undefined;
}

const state = vi.hoisted(() => ({
  token: 'tokA' as string | null,
  sent: [] as Sent[],
  queue: [] as {
    idempotencyKey: string;
    personId: string;
    type: string;
    occurredAt: string;
    takenAt: number;
  }[],
  refused: [] as { idempotencyKey: string; reason: string }[],
  /** Answers each POST; by default 201. */
  answer: null as null | ((sent: Sent, signal: AbortSignal | undefined) => Promise<unknown>),
}));

vi.mock('../../console/src/api.js', () => {
  class ApiProblem extends Error {
    constructor(
      readonly status: number,
      readonly error: string,
      readonly title: string,
      readonly detail: string | null = null,
    ) {
      super(title);
    }
    get text() {
      return this.title;
    }
  }
  return {
    ApiProblem,
    currentCsrfToken: () => state.token,
    haveCsrfToken: () => state.token !== null,
    api: (
      _method: string,
      _path: string,
      body: Sent['body'],
      _headers: unknown,
      options: { signal?: AbortSignal; csrfToken?: string | null } = {},
    ) => {
      const sent = { body, csrfToken: options.csrfToken };
      state.sent.push(sent);
      const answer = state.answer ?? (() => Promise.resolve({ type: body.type, time: '08:00' }));
      return new Promise((resolve, reject) => {
        options.signal?.addEventListener('abort', () =>
          reject(new ApiProblem(0, 'network', 'The server could not be reached')),
        );
        answer(sent, options.signal).then(resolve, reject);
      });
    },
  };
});

vi.mock('../../console/src/features/self-service/outbox-store.js', () => ({
  enqueue: async (punch: (typeof state.queue)[number]) => void state.queue.push(punch),
  queuedOf: async (personId: string) => state.queue.filter((p) => p.personId === personId),
  removeQueued: async (key: string) => {
    state.queue = state.queue.filter((p) => p.idempotencyKey !== key);
  },
  moveToRefused: async (punch: (typeof state.queue)[number], reason: string) => {
    state.queue = state.queue.filter((p) => p.idempotencyKey !== punch.idempotencyKey);
    state.refused.push({ idempotencyKey: punch.idempotencyKey, reason });
  },
  refusedOf: async () => state.refused,
  dismissRefused: async () => undefined,
}));

// Imported by a path TypeScript does not follow: the console's modules need the DOM's types.
const OUTBOX: string = '../../console/src/features/self-service/outbox.js';
const API: string = '../../console/src/api.js';
const outbox = (await import(OUTBOX)) as {
  setOutboxOwner(personId: string | null): void;
  sendWaiting(): Promise<Map<string, unknown>>;
  takePunch(personId: string, type: string): Promise<{ kind: string; reason?: string }>;
};
const { ApiProblem } = (await import(API)) as {
  ApiProblem: new (status: number, error: string, title: string) => Error;
};

const HOUR = 3_600_000;
const queued = (personId: string, type: string, ageMs: number) => ({
  idempotencyKey: crypto.randomUUID(),
  personId,
  type,
  occurredAt: new Date(Date.now() - ageMs).toISOString(),
  takenAt: Date.now() - ageMs,
});
const settle = async () => {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setTimeout(resolve, 1));
};

describe("the web clock's sender", () => {
  beforeEach(() => {
    outbox.setOutboxOwner(null);
    state.token = 'tokA';
    state.sent = [];
    state.queue = [];
    state.refused = [];
    state.answer = null;
  });

  it("stops when another person signs in while a punch is in flight: A's next punch is never sent with B's token", async () => {
    state.queue.push(queued('A', 'clock_in', HOUR), queued('A', 'break_start', HOUR / 2));
    let release: () => void = () => undefined;
    state.answer = (sent) =>
      new Promise((resolve) => {
        release = () => resolve({ type: sent.body.type, time: '08:00' });
      });
    outbox.setOutboxOwner('A');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(state.sent).toHaveLength(1);
    // A signs out and B signs in in this tab before the first answer arrives.
    state.token = 'tokB';
    outbox.setOutboxOwner('B');
    release();
    await settle();
    expect(state.sent).toHaveLength(1);
    expect(state.sent[0]!.csrfToken).toBe('tokA');
    // A's punches still wait for A (the aborted one included: its key replays if it was stored).
    expect(state.queue.map((p) => p.type)).toEqual(['clock_in', 'break_start']);
  });

  it('stops when the CSRF token changed between punches (same person)', async () => {
    state.queue.push(queued('A', 'clock_in', HOUR), queued('A', 'break_start', HOUR / 2));
    state.answer = async (sent) => {
      state.token = 'tokOther';
      return { type: sent.body.type, time: '08:00' };
    };
    outbox.setOutboxOwner('A');
    await settle();
    // The run stopped after the first punch; the next run goes with the token now held.
    expect(state.sent.map((s) => s.csrfToken)).toEqual(['tokA']);
    expect(state.queue.map((p) => p.type)).toEqual(['break_start']);
  });

  it('sends a live punch without occurredAt (the server time), a queued one with it', async () => {
    state.queue.push(queued('A', 'clock_in', HOUR));
    outbox.setOutboxOwner('A');
    await settle();
    const outcome = await outbox.takePunch('A', 'break_start');
    expect(outcome.kind).toBe('stored');
    expect(state.sent.map((s) => s.body)).toEqual([
      { type: 'clock_in', occurredAt: expect.any(String) },
      { type: 'break_start' },
    ]);
  });

  it('keeps a punch refused for its address waiting until it is 12 hours old', async () => {
    state.answer = async () => {
      throw new ApiProblem(403, 'address_not_allowed', 'not from this address');
    };
    const fresh = queued('A', 'clock_in', HOUR);
    state.queue.push(fresh);
    outbox.setOutboxOwner('A');
    await settle();
    expect(state.refused).toEqual([]);
    expect(state.queue).toEqual([fresh]);
    // The network of the workplace: stored once.
    state.answer = null;
    await outbox.sendWaiting();
    expect(state.queue).toEqual([]);
    expect(state.refused).toEqual([]);
    // Older than 12 hours, the same refusal is final, with its reason.
    state.answer = async () => {
      throw new ApiProblem(403, 'address_not_allowed', 'not from this address');
    };
    state.queue.push(queued('A', 'clock_out', 13 * HOUR));
    await outbox.sendWaiting();
    expect(state.refused.map((r) => r.reason)).toEqual(['not from this address']);
  });

  it('holds at most 50 waiting punches a person: the 51st is refused with a message', async () => {
    state.token = null; // signed out: nothing is sent
    for (let i = 0; i < 50; i += 1) state.queue.push(queued('A', i % 2 ? 'clock_out' : 'clock_in', HOUR));
    const outcome = await outbox.takePunch('A', 'clock_in');
    expect(outcome).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/50 punches/) });
    expect(state.queue).toHaveLength(50);
  });
});
