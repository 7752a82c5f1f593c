// Where the browser embedder's time goes: Chromium's sampling profiler (CDP), attached to the engine worker of
// the bench build's `?bench=embed` page, records the span the worker marks with console.profile (embedding
// `count` sequences of 128 word-pieces one at a time, then batched; the model is already loaded). The wasm
// module keeps its name section, so samples name Rust functions; self time is summed per function and per
// kind of work.
//   trunk build --release --features bench --dist dist-bench
//   node tests/browser/profile-embed.mjs [count] [--json profile.cpuprofile]
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { serveDist, launchBrowser, benchReport, profileWorkers, profileTimes } from "./harness.mjs";

const args = process.argv.slice(2);
const at = args.indexOf("--json");
const saveTo = at >= 0 ? args.splice(at, 2)[1] : null;
const count = Number(args[0] ?? 32);

/// Kinds of work, by what the function names say (first match wins); the rest is "other".
const KINDS = [
  ["matrix products (tract-linalg kernels and packing)", /mmm|kernel|pack|linalg.*(frame|generic)|matmul|einsum/i],
  ["element-wise and reductions (softmax, layer norm, GELU, add)", /softmax|norm|gelu|erf|tanh|exp|binary|unary|reduce|sum|max|lir_unary|element/i],
  ["copies and memory (memcpy, memmove, allocation)", /memcpy|memmove|memset|alloc|dealloc|realloc|copy|clone|drop_in_place/i],
  ["tokenization", /tokeniz|wordpiece|normaliz|pre_tokeniz|unicode/i],
  ["tensor bookkeeping (shapes, views, scheduling)", /tract_core|tract_data|shape|tensor|session|plan|state|dims|tvec/i],
];

const server = await serveDist(resolve(import.meta.dirname, process.env.QUIRE_BENCH_DIST ?? "../../dist-bench"));
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  const profiler = await profileWorkers(browser.context, page);
  const report = await benchReport(page, `${server.url}?bench=embed&count=${count}&workers=0`);
  const profiles = profiler.marked;
  for (let waited = 0; profiles.length === 0 && waited < 100; waited++) await new Promise((r) => setTimeout(r, 100));
  if (profiles.length === 0) throw new Error("no profile came back from the engine worker");
  const profile = profiles[0];
  if (saveTo) writeFileSync(saveTo, JSON.stringify(profile));
  summarise(profile, report);
} finally {
  await browser.close();
  await server.close();
}

function summarise(profile, report) {
  const selfMs = profileTimes(profile).self;
  const total = [...selfMs.values()].reduce((a, b) => a + b, 0);
  const byKind = new Map();
  for (const [name, ms] of selfMs) {
    const kind = KINDS.find(([, pattern]) => pattern.test(name))?.[0] ?? "other";
    byKind.set(kind, (byKind.get(kind) ?? 0) + ms);
  }
  const pct = (ms) => `${(100 * ms / total).toFixed(1)} %`;
  console.log(`${count} sequences of 128 word-pieces, ${report.ms_per_sequence_unbatched.toFixed(1)} ms each one at a time, ` +
    `${report.ms_per_sequence_batched.toFixed(1)} ms batched; ${total.toFixed(0)} ms profiled\n`);
  console.log("| kind of work | self time | share |\n|---|---|---|");
  for (const [kind, ms] of [...byKind].sort((a, b) => b[1] - a[1])) console.log(`| ${kind} | ${ms.toFixed(0)} ms | ${pct(ms)} |`);
  console.log("\n| function (self time, top 25) | ms | share |\n|---|---|---|");
  for (const [name, ms] of [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`| \`${name.length > 110 ? name.slice(0, 107) + "..." : name}\` | ${ms.toFixed(0)} | ${pct(ms)} |`);
  }
}
