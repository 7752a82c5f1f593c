// The entry of every worker of the app: the engine worker (src/web/worker/) and the embedding workers of its
// pool (src/web/pool.rs). Its first message names the module to load (the app's own wasm glue, whose file name
// Trunk hashed), the role to take, and the module compiled where the worker that starts it runs the same one;
// the module's `main` reads the role and serves it. (Not the script's URL:
// a response the service worker serves from its cache carries the cached URL, without a query.)
self.addEventListener("message", async (event) => {
  const { module, role, compiled } = event.data;
  if (new URL(module, self.location.href).origin !== self.location.origin) {
    throw new Error(`engine-worker.js: the module to load must come from this site, not ${module}`);
  }
  self.quireRole = role;
  try {
    const { default: init } = await import(module);
    // The glue's own default is the unhashed `quire_bg.wasm`; the build names it `<module>_bg.wasm`. A worker
    // started by a worker of the same module is handed it compiled, and compiles nothing.
    const wasm = compiled instanceof WebAssembly.Module ? compiled : module.replace(/\.js$/, "_bg.wasm");
    await init({ module_or_path: wasm });
  } catch (failure) {
    // A module that cannot be fetched or started (a network gone mid-download) is an error the page hears
    // (a worker's `error` event), not a rejected promise nobody awaits while the page waits for the engine.
    setTimeout(() => { throw new Error(`engine-worker.js: ${module} could not be started: ${failure}`); });
  }
}, { once: true });
