// The entry of every worker of the app: the engine worker (src/app/worker/) and the embedding workers of its
// pool (src/app/pool.rs). Its first message names the module to load (the app's own wasm glue, whose file name
// Trunk hashed), the role to take and which build of the module to prefer; the module's `main` reads the role
// and serves it. (Not the script's URL: a response the service worker serves from its cache carries the cached
// URL, without a query.)
//
// Every build holds the module twice (scripts/finish_build.py): `…_bg.wasm` with SIMD, and `…_relaxed_bg.wasm`,
// the same code compiled with relaxed SIMD as well, whose matrix kernel multiplies and adds in one instruction
// (src/embed/wasm_kernel.rs). A worker loads the relaxed one where this engine validates a relaxed-SIMD
// instruction (Chromium, Firefox), the plain one elsewhere (Safari) or when asked to (`simd: "plain"`, from the
// page's `?simd=plain`).

// (module (func (result v128) (f32x4.relaxed_madd (v128.const 0) (v128.const 0) (v128.const 0))))
const V128_ZERO = [0xfd, 0x0c, ...new Array(16).fill(0)];
const RELAXED_BODY = [0x00, ...V128_ZERO, ...V128_ZERO, ...V128_ZERO, 0xfd, 0x85, 0x02, 0x0b];
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // one type: [] -> [v128]
  0x03, 0x02, 0x01, 0x00, // one function of that type
  0x0a, RELAXED_BODY.length + 2, 0x01, RELAXED_BODY.length, ...RELAXED_BODY,
]);

self.addEventListener("message", async (event) => {
  const { module, role, simd } = event.data;
  if (new URL(module, self.location.href).origin !== self.location.origin) {
    throw new Error(`engine-worker.js: the module to load must come from this site, not ${module}`);
  }
  self.quireRole = role;
  self.quireSimd = simd !== "plain" && WebAssembly.validate(RELAXED_SIMD_PROBE) ? "relaxed" : "plain";
  const { default: init } = await import(module);
  // The glue's own default is the unhashed `quire_bg.wasm`; Trunk writes `quire-<hash>_bg.wasm`.
  const wasm = self.quireSimd === "relaxed" ? "_relaxed_bg.wasm" : "_bg.wasm";
  await init({ module_or_path: module.replace(/\.js$/, wasm) });
}, { once: true });
