/* global indexedDB */
/*
 * The kiosk's queue of punches (issue 35), in IndexedDB: every punch is stored here first, with its
 * real time and its own idempotency key, and leaves only once the server stored it (or refused it:
 * then it moves to the refused store, which is shown until someone dismisses it).
 */
const DB_NAME = 'punchclock-kiosk';
const QUEUE = 'queue';
const REFUSED = 'refused';

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(QUEUE)) db.createObjectStore(QUEUE, { keyPath: 'idempotencyKey' });
      if (!db.objectStoreNames.contains(REFUSED))
        db.createObjectStore(REFUSED, { keyPath: 'idempotencyKey' });
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run(store, mode, fn) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(store, mode);
    const result = fn(tx.objectStore(store));
    tx.oncomplete = () => {
      db.close();
      resolve(result && 'result' in result ? result.result : undefined);
    };
    tx.onerror = () => {
      db.close();
      reject(tx.error);
    };
  });
}

export function enqueue(punch) {
  return run(QUEUE, 'readwrite', (store) => store.put(punch));
}

/** The waiting punches, oldest first. */
export async function queued() {
  const all = (await run(QUEUE, 'readonly', (store) => store.getAll())) ?? [];
  return all.sort((a, b) => a.takenAt - b.takenAt);
}

export function removeQueued(key) {
  return run(QUEUE, 'readwrite', (store) => store.delete(key));
}

export async function moveToRefused(punch, reason) {
  await run(REFUSED, 'readwrite', (store) => store.put({ ...punch, reason }));
  await removeQueued(punch.idempotencyKey);
}

export async function refused() {
  const all = (await run(REFUSED, 'readonly', (store) => store.getAll())) ?? [];
  return all.sort((a, b) => a.takenAt - b.takenAt);
}

export function dismissRefused(key) {
  return run(REFUSED, 'readwrite', (store) => store.delete(key));
}
