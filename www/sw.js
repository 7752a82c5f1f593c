// The service worker: after a first visit the app opens and answers with the network off. At install it
// caches the whole build (the page, the wasm module, the worker, the model and the published indexes);
// every same-origin GET is then answered from that cache first. scripts/finish_build.py writes the build's
// file list and version into the copy of this file that is served (`quire site` writes a site's), so a new
// build is a new service worker, which fetches the new files and drops the old cache.
const VERSION = "__QUIRE_BUILD_VERSION__";
const FILES = __QUIRE_BUILD_FILES__;
const CACHE = `quire-${VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      // Revalidated, not reloaded: what the page has just downloaded (the module, the model) is not
      // downloaded a second time unless the server has a newer copy.
      .then((cache) => cache.addAll(["./", ...FILES].map((file) => new Request(file, { cache: "no-cache" }))))
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
  // A file the build does not list (an index a link names, `?index=`) is kept once fetched, so that it too
  // opens offline on the next visit.
  event.respondWith(
    caches.open(CACHE).then(async (cache) => {
      const cached = await cache.match(request, { ignoreSearch: true });
      if (cached) return cached;
      const response = await fetch(request);
      if (response.status === 200) await cache.put(request, response.clone());
      return response;
    }),
  );
});
