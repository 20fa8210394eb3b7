/* global self, caches, Response */
/*
 * The kiosk's service worker (issue 35): keeps the app shell, so a reload without network still opens
 * the clock. Shell files are fetched from the network first (so an update arrives), falling back to
 * the copy kept here; the API is never cached (punches wait in IndexedDB, see queue.js).
 */
const CACHE = 'punchclock-kiosk-v1';
const SHELL = [
  '/kiosk/',
  '/kiosk/app.js',
  '/kiosk/api.js',
  '/kiosk/queue.js',
  '/kiosk/styles.css',
  '/kiosk/manifest.webmanifest',
  '/kiosk/icon.svg',
];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith('/kiosk'))
    return;
  const key = url.pathname === '/kiosk' ? '/kiosk/' : url.pathname;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok && SHELL.includes(key)) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
        }
        return response;
      })
      .catch(() => caches.match(key).then((kept) => kept ?? Response.error())),
  );
});
