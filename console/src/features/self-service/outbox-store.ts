/*
 * The web clock's queue in IndexedDB (issue 35, item 5), as the kiosk's (kiosk/queue.js): every punch
 * is stored here first, with its real time and its own Idempotency-Key, and leaves only once the
 * server stored it, or refused it: then it moves to the refused store, shown until the person
 * dismisses it. Each punch names the person who took it: only their session sends it.
 */

import type { Punch } from './model.js';

export interface QueuedPunch {
  idempotencyKey: string;
  personId: string;
  type: Punch;
  /** The moment of the punch, RFC 3339 with the device's offset. */
  occurredAt: string;
  /** Date.now() when taken: the queue's order. */
  takenAt: number;
}

export interface RefusedPunch extends QueuedPunch {
  reason: string;
}

const DB_NAME = 'punchclock-web-clock';
const QUEUE = 'queue';
const REFUSED = 'refused';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(QUEUE)) db.createObjectStore(QUEUE, { keyPath: 'idempotencyKey' });
      if (!db.objectStoreNames.contains(REFUSED))
        db.createObjectStore(REFUSED, { keyPath: 'idempotencyKey' });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB is not available'));
  });
}

async function run<T>(
  store: string,
  mode: IDBTransactionMode,
  fn: (s: IDBObjectStore) => IDBRequest<T> | void,
): Promise<T | undefined> {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(store, mode);
    const request = fn(tx.objectStore(store));
    tx.oncomplete = () => {
      db.close();
      resolve(request ? request.result : undefined);
    };
    tx.onerror = () => {
      db.close();
      reject(tx.error ?? new Error('IndexedDB transaction failed'));
    };
  });
}

export async function enqueue(punch: QueuedPunch): Promise<void> {
  await run(QUEUE, 'readwrite', (store) => store.put(punch));
}

/** The person's waiting punches, oldest first. */
export async function queuedOf(personId: string): Promise<QueuedPunch[]> {
  const all = ((await run(QUEUE, 'readonly', (store) => store.getAll())) ?? []) as QueuedPunch[];
  return all.filter((p) => p.personId === personId).sort((a, b) => a.takenAt - b.takenAt);
}

export async function removeQueued(key: string): Promise<void> {
  await run(QUEUE, 'readwrite', (store) => store.delete(key));
}

export async function moveToRefused(punch: QueuedPunch, reason: string): Promise<void> {
  await run(REFUSED, 'readwrite', (store) => store.put({ ...punch, reason }));
  await removeQueued(punch.idempotencyKey);
}

/** The person's refused punches, oldest first. */
export async function refusedOf(personId: string): Promise<RefusedPunch[]> {
  const all = ((await run(REFUSED, 'readonly', (store) => store.getAll())) ?? []) as RefusedPunch[];
  return all.filter((p) => p.personId === personId).sort((a, b) => a.takenAt - b.takenAt);
}

export async function dismissRefused(key: string): Promise<void> {
  await run(REFUSED, 'readwrite', (store) => store.delete(key));
}
