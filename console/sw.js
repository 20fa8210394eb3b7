/* global self, caches, Response */
/*
 * The console's service worker (issue 35, item 5): keeps the app shell, so a reload without network
 * still opens the console and the web clock of My day (punches taken offline wait in IndexedDB, see
 * console/src/features/self-service/outbox.ts). The server writes the list of shell files and their
 * version into this file (src/http/plugins/console-assets.ts), so every new build installs a new
 * worker. Shell files come from the network first (an update arrives at once), else from the copy
 * kept here; the API is never cached.
 */
const VERSION = '__VERSION__';
const SHELL = ['__SHELL__'];
const CACHE = `punchclock-console-${VERSION}`;

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
      .then((keys) =>
        Promise.all(
          keys
            .filter((key) => key.startsWith('punchclock-console-') && key !== CACHE)
            .map((key) => caches.delete(key)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (
    request.method !== 'GET' ||
    url.origin !== self.location.origin ||
    !url.pathname.startsWith('/console/')
  )
    return;
  const key = url.pathname;
  if (!SHELL.includes(key)) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
        }
        return response;
      })
      .catch(() => caches.match(key).then((kept) => kept ?? Response.error())),
  );
});
