// The service worker: after a first visit the app opens and answers with the network off. At install it
// caches the whole build (the page, the wasm module, the worker, the model and the published indexes);
// every same-origin GET is then answered from that cache first. scripts/finish_build.py writes the build's
// file list and version into the copy of this file that is served (`quire site` writes a site's), so a new
// build is a new service worker, which fetches the new files and drops the old cache.
const VERSION = "__QUIRE_BUILD_VERSION__";
const FILES = __QUIRE_BUILD_FILES__;
// Caches are the origin's, shared by every site under it: each site's names carry its scope, so that one
// site's new version drops its own old cache and never another's.
const SITE = `quire ${new URL(self.registration.scope).pathname} `;
const CACHE = `${SITE}${VERSION}`;
// Files fetched that the build does not list.
const FETCHED = `${SITE}fetched ${VERSION}`;
// Caches named before they carried a scope, when a build could only be served from an origin's root.
const UNSCOPED = /^quire-(fetched-)?[0-9a-f]{16}$/;

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
      .then((names) => Promise.all(names.filter((name) => (name.startsWith(SITE) || UNSCOPED.test(name)) && name !== CACHE && name !== FETCHED).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  // The build's files come from the cache (the worker script is asked for with the module to load in its
  // query; the cached copy serves every query). Anything else (an index a link names, `?index=`) comes from
  // the network, so it is never stale, and is kept for when the network is gone; an HTML page answering for
  // a missing file (a server's fallback) is not kept as the file.
  event.respondWith(
    caches.match(request, { ignoreSearch: true, cacheName: CACHE }).then((listed) => listed ?? fetch(request).then((response) => {
      const html = (response.headers.get("content-type") ?? "").startsWith("text/html");
      if (response.status === 200 && !html) {
        const copy = response.clone();
        event.waitUntil(caches.open(FETCHED).then((cache) => cache.put(request, copy)).catch(() => {}));
      }
      return response;
    }, (offline) => caches.match(request, { cacheName: FETCHED }).then((kept) => kept ?? Promise.reject(offline)))),
  );
});
