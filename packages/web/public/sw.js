// The softphone's service worker: starts the app shell offline, and stays out of the way of
// everything live. /app/api and /app/ws are never cached or even intercepted, so signing in,
// sending and realtime always reach the server.
const CACHE = 'switchboard-shell-v1';
const SHELL = '/app/';
const STATIC = ['/app/manifest.webmanifest', '/app/icons/icon.svg', '/app/icons/icon-192.png'];

/** The hashed script and style files the shell page loads, read from its HTML. */
function assetsOf(html) {
  return [...html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((match) => match[1]);
}

async function cacheShell() {
  const cache = await caches.open(CACHE);
  const response = await fetch(SHELL, { cache: 'no-cache' });
  if (!response.ok) return;
  const html = await response.clone().text();
  await cache.put(SHELL, response);
  await cache.addAll([...STATIC, ...assetsOf(html)]);
}

self.addEventListener('install', (event) => {
  event.waitUntil(cacheShell().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

function isLive(url) {
  return url.pathname.startsWith('/app/api/') || url.pathname.startsWith('/app/ws');
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || isLive(url)) return;
  if (!url.pathname.startsWith('/app/')) return;

  if (request.mode === 'navigate') {
    // Network first, so a new release shows at once; the cached shell when offline.
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok) {
            const copy = response.clone();
            caches.open(CACHE).then((cache) => cache.put(SHELL, copy));
          }
          return response;
        })
        .catch(() => caches.match(SHELL).then((cached) => cached || Response.error())),
    );
    return;
  }

  if (url.pathname.startsWith('/app/assets/')) {
    // Hashed file names never change content: cache first, filling the cache as we go.
    event.respondWith(
      caches.match(request).then(
        (cached) =>
          cached ||
          fetch(request).then((response) => {
            if (response.ok) {
              const copy = response.clone();
              caches.open(CACHE).then((cache) => cache.put(request, copy));
            }
            return response;
          }),
      ),
    );
    return;
  }

  // Icons and the manifest: the network's copy, the cached one when offline.
  event.respondWith(
    fetch(request).catch(() => caches.match(request).then((cached) => cached || Response.error())),
  );
});

// Web Push: the server sends {title, body, url, tag} for a new text, call, mention or
// assignment (delivery/push-notifier.ts). Shown unless a tab of the app is in front of the
// user, which notifies by itself.
self.addEventListener('push', (event) => {
  let data;
  try {
    data = event.data ? event.data.json() : null;
  } catch {
    data = null;
  }
  if (!data || typeof data.title !== 'string') return;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      if (windows.some((w) => w.visibilityState === 'visible' && w.focused)) return undefined;
      return self.registration.showNotification(data.title, {
        body: data.body || '',
        tag: data.tag || undefined,
        icon: '/app/icons/icon-192.png',
        badge: '/app/icons/icon-192.png',
        data: { url: data.url || '/app/inbox' },
      });
    }),
  );
});

// A click opens the thread: in a tab of the app if one is open, else in a new window.
function openFromNotification(notification) {
  notification.close();
  const path = (notification.data && notification.data.url) || '/app/inbox';
  const url = new URL(path, self.location.origin);
  if (url.origin !== self.location.origin) return Promise.resolve();
  return self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
    const app = windows.find((w) => new URL(w.url).pathname.startsWith('/app/'));
    if (!app) return self.clients.openWindow(url.href);
    // A tab this worker does not control cannot be navigated from here: open a window.
    return app.navigate(url.href).then(
      (w) => (w || app).focus().catch(() => undefined),
      () => self.clients.openWindow(url.href),
    );
  });
}
self.openFromNotification = openFromNotification;

self.addEventListener('notificationclick', (event) => {
  event.waitUntil(openFromNotification(event.notification));
});
