// The service worker: after a first visit the app opens and answers with the network off. At install it
// caches the whole build (the page, the wasm module, the worker, the model and the demo indexes); every
// same-origin GET is then answered from that cache first. scripts/finish_build.py writes the build's file
// list and version into the copy of this file that is served, so a new build is a new service worker, which
// fetches the new files and drops the old cache.
const VERSION = "__QUIRE_BUILD_VERSION__";
const FILES = __QUIRE_BUILD_FILES__;
const CACHE = `quire-${VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(["./", ...FILES].map((file) => new Request(file, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("quire-") && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  // The worker script is asked for with the module to load in its query; the cached copy serves every query.
  event.respondWith(
    caches.open(CACHE)
      .then((cache) => cache.match(request, { ignoreSearch: true }))
      .then((cached) => cached ?? fetch(request)),
  );
});
