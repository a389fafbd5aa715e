/**
 * The demo's service worker: the app works offline after its first visit.
 * demo/vite.config.ts fills in the build's file list and version at build
 * time, so a new build is a new service worker with a new cache, and the old
 * cache is deleted when it takes over.
 *
 * What it caches (the recipe for an app's own service worker, README "Offline
 * PWA"): the page and every built file it needs, engram's worker chunk
 * included. Not: the model files, which engram keeps itself in the Cache API
 * (`engram-models`), nor transformers.js's chunk and the ONNX runtime's
 * `.wasm`, which a static model such as the offline one never loads.
 */
const VERSION = '__VERSION__';
const PRECACHE = __PRECACHE__;
const CACHE = `engram-demo-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith('engram-demo-') && key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  // Other hosts, the LLM proxy and config (/api/: the page handles being offline), the sync hub
  // (/sync/: its answers are never cached), and model files (engram's own cache): straight to the network, untouched.
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || /^\/(api|sync|models)\//.test(url.pathname)) return;
  event.respondWith(
    caches.open(CACHE).then(async (cache) => {
      const cached = (await cache.match(event.request, { ignoreSearch: true })) ?? (event.request.mode === 'navigate' ? await cache.match('/') : undefined);
      return cached ?? fetch(event.request);
    }),
  );
});
