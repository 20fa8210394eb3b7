import { api, ApiProblem, currentCsrfToken, haveCsrfToken } from '../../api.js';
import type { Punch, SelfToday } from './model.js';
import {
  dismissRefused,
  enqueue,
  moveToRefused,
  queuedOf,
  type QueuedPunch,
  refusedOf,
  removeQueued,
} from './outbox-store.js';

/*
 * The web clock's sender (issue 35, item 5): a punch is queued first (outbox-store.ts), then sent
 * through POST /self/clock with its own Idempotency-Key, its real `occurredAt` and the browser's clock
 * at sending (X-Device-Clock): at once, on the `online` event and every 20 seconds (not only
 * Background Sync, which Safari and Firefox lack). A punch leaves the queue only once stored, or
 * refused for good: then it is shown with the reason until dismissed, never dropped. "Not now" (no
 * network, no session, 5xx, 429, a key in flight, CSRF) keeps it waiting, in order.
 */

const SEND_EVERY_MS = 20_000;
/** How long one punch's request may take before it waits for the next run. */
const SEND_TIMEOUT_MS = 15_000;
/** A punch sent within this of its taking is live: the server's own time is used for it. */
const LIVE_MS = 30_000;
/** At most this many punches wait per person (a stuck or abused clock cannot fill the device). */
export const MAX_WAITING = 50;
const SNAPSHOT = 'punchclock-web-clock';

export interface PunchAnswer {
  type: string;
  time: string;
}

/** What became of a punch just taken: stored (the server's answer), refused (why), or waiting. */
export type Outcome =
  | { kind: 'stored'; answer: PunchAnswer }
  | { kind: 'refused'; reason: string }
  | { kind: 'waiting'; count: number };

let owner: string | null = null;
let sending: Promise<Map<string, Outcome>> | null = null;
/** Aborts the run in flight when the owner changes (sign-out, another person). */
let running: AbortController | null = null;
const listeners = new Set<(sent: boolean) => void>();

function changed(sent = false): void {
  for (const listener of listeners) listener(sent);
}

/** Called whenever the queue or the refused list may have changed (`sent`: the server answered some). */
export function onOutboxChange(listener: (sent: boolean) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** How long an address or web-clock refusal is "not now" (the server's window for a punch). */
const RETRY_PLACE_MS = 12 * 3_600_000;

/**
 * A refusal that stays a refusal when sent again; anything else is tried later. The workplace's
 * address (the phone back on mobile data before the office Wi-Fi) and a web clock switched off may
 * change: those wait until the punch is 12 hours old.
 */
function isFinal(error: unknown, punch: QueuedPunch, now = Date.now()): error is ApiProblem {
  if (!(error instanceof ApiProblem)) return false;
  const { status } = error;
  if (status === 0 || status === 401 || status === 408 || status === 429 || status >= 500) return false;
  if (
    ['address_not_allowed', 'web_clock_disabled'].includes(error.error) &&
    now - punch.takenAt < RETRY_PLACE_MS
  )
    return false;
  return !['idempotency_in_flight', 'csrf_failed', 'rate_limited', 'service_unavailable'].includes(
    error.error,
  );
}

/** The local wall clock with its offset, as the API wants it: 2026-11-27T08:02:13+01:00. */
export function localInstant(date: Date): string {
  const pad = (n: number) => String(Math.abs(n)).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`
  );
}

/**
 * Sends `personId`'s queue in order. Before each POST it checks the tab still belongs to that person
 * with the same CSRF token (a sign-out and another person's sign-in in the same tab stop it), and
 * sends that token explicitly; a change of owner aborts the request in flight. `live`: the key of
 * the punch just taken, sent without `occurredAt` (the server's time) when it goes at once.
 */
async function sendAll(
  personId: string,
  token: string | null,
  signal: AbortSignal,
  live: string | null,
): Promise<Map<string, Outcome>> {
  const outcomes = new Map<string, Outcome>();
  const stillOwner = () => !signal.aborted && owner === personId && currentCsrfToken() === token;
  for (const punch of await queuedOf(personId)) {
    if (!stillOwner()) break;
    const isLive = punch.idempotencyKey === live && Date.now() - punch.takenAt < LIVE_MS;
    try {
      const answer = await api<PunchAnswer>(
        'POST',
        '/self/clock',
        isLive ? { type: punch.type } : { type: punch.type, occurredAt: punch.occurredAt },
        { 'idempotency-key': punch.idempotencyKey, 'x-device-clock': new Date().toISOString() },
        { signal, timeoutMs: SEND_TIMEOUT_MS, csrfToken: token },
      );
      await removeQueued(punch.idempotencyKey);
      outcomes.set(punch.idempotencyKey, { kind: 'stored', answer });
    } catch (error) {
      if (!isFinal(error, punch)) break; // Not now: this one and those after it wait, in order.
      await moveToRefused(punch, error.text);
      outcomes.set(punch.idempotencyKey, { kind: 'refused', reason: error.text });
    }
  }
  return outcomes;
}

/** Sends the signed-in person's waiting punches, one run at a time; what became of each sent. */
export async function sendWaiting(live: string | null = null): Promise<Map<string, Outcome>> {
  while (sending) await sending.catch(() => undefined);
  if (owner === null || !haveCsrfToken()) return new Map();
  const controller = new AbortController();
  running = controller;
  const run = sendAll(owner, currentCsrfToken(), controller.signal, live);
  sending = run;
  let sent = false;
  try {
    const outcomes = await run;
    sent = outcomes.size > 0;
    return outcomes;
  } finally {
    sending = null;
    if (running === controller) running = null;
    changed(sent);
  }
}

/** Queues a punch taken now by the person, then tries to send it; what became of it. */
export async function takePunch(personId: string, type: Punch): Promise<Outcome> {
  if ((await queuedOf(personId)).length >= MAX_WAITING)
    return {
      kind: 'refused',
      reason:
        `${MAX_WAITING} punches are already waiting to be sent from this device; this one was not ` +
        'saved. Connect to the network so that they are sent, or tell your manager.',
    };
  const punch: QueuedPunch = {
    idempotencyKey: crypto.randomUUID(),
    personId,
    type,
    occurredAt: localInstant(new Date()),
    takenAt: Date.now(),
  };
  await enqueue(punch);
  changed();
  const outcome = (await sendWaiting(punch.idempotencyKey)).get(punch.idempotencyKey);
  return outcome ?? { kind: 'waiting', count: (await queuedOf(personId)).length };
}

export const waitingOf = queuedOf;
export const refusedPunchesOf = refusedOf;

export async function dismiss(key: string): Promise<void> {
  await dismissRefused(key);
  changed();
}

/** Whose punches this tab sends (the signed-in person; null signed out), and sends them. */
export function setOutboxOwner(personId: string | null): void {
  if (personId !== owner) running?.abort();
  owner = personId;
  if (personId !== null) void sendWaiting();
}

let started = false;
/** Sends on the `online` event and every 20 seconds, for as long as the page is open. */
export function startOutbox(): void {
  if (started) return;
  started = true;
  window.addEventListener('online', () => void sendWaiting());
  setInterval(() => void sendWaiting(), SEND_EVERY_MS);
}

/** What My day last showed the person, kept so a reload without network still opens their clock. */
export interface Snapshot {
  personId: string;
  email: string;
  companyName: string;
  zone: string;
  self: SelfToday;
  /** The session's absolute end: no offline My day after it (nor for anyone once signed out). */
  expiresAt: string;
}

export function saveSnapshot(snapshot: Snapshot): void {
  try {
    localStorage.setItem(SNAPSHOT, JSON.stringify(snapshot));
  } catch {
    // Storage full or denied: the clock still works online.
  }
}

/** The stored snapshot while its session may still be live; an ended or unbound one is removed. */
export function loadSnapshot(now = Date.now()): Snapshot | null {
  let snapshot: Snapshot | null = null;
  try {
    snapshot = JSON.parse(localStorage.getItem(SNAPSHOT) ?? 'null') as Snapshot | null;
  } catch {
    snapshot = null;
  }
  if (snapshot === null) return null;
  const end = Date.parse(snapshot.expiresAt ?? '');
  if (Number.isNaN(end) || end <= now) {
    forgetSnapshot();
    return null;
  }
  return snapshot;
}

export function forgetSnapshot(): void {
  try {
    localStorage.removeItem(SNAPSHOT);
  } catch {
    // Storage denied: nothing was kept.
  }
}

/** A different person signed in: the previous person's snapshot goes. */
export function keepSnapshotOnlyFor(personId: string): void {
  const snapshot = loadSnapshot();
  if (snapshot && snapshot.personId !== personId) forgetSnapshot();
}

/** The state after the waiting punches: what the buttons offer while they are not sent yet. */
export function stateAfter(
  state: SelfToday['state'],
  waiting: { type: Punch; occurredAt: string }[],
): SelfToday['state'] {
  return waiting.reduce<SelfToday['state']>((s, { type, occurredAt }) => {
    if (type === 'clock_in') return { ...s, clockedIn: true, onBreak: false, since: occurredAt };
    if (type === 'break_start') return { ...s, onBreak: true };
    if (type === 'break_end') return { ...s, onBreak: false };
    return { ...s, clockedIn: false, onBreak: false, since: null, timeEntryId: null };
  }, state);
}
