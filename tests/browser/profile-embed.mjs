// Where the browser embedder's time goes: Chromium's sampling profiler (CDP), attached to the engine worker of
// the bench build's `?bench=embed` page, records the span the worker marks with console.profile (embedding
// `count` sequences of 128 word-pieces one at a time, then batched; the model is already loaded). The wasm
// module keeps its name section, so samples name Rust functions; self time is summed per function and per
// kind of work.
//   trunk build --release --features bench --dist dist-bench
//   node tests/browser/profile-embed.mjs [count] [--json profile.cpuprofile]
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { serveDist, launchBrowser, benchReport } from "./harness.mjs";

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
  const cdp = await browser.context.newCDPSession(page);
  // Workers are reached through the page's session: each attached worker gets a session id, and commands go
  // to it wrapped in Target.sendMessageToTarget (the non-flattened protocol, which playwright's session allows).
  let nextId = 1;
  const pending = new Map();
  const profiles = [];
  const toWorker = (sessionId, method, params = {}) => new Promise((ok, fail) => {
    const id = nextId++;
    pending.set(id, { ok, fail });
    cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method, params }) });
  });
  cdp.on("Target.receivedMessageFromTarget", ({ message }) => {
    const reply = JSON.parse(message);
    if (reply.method === "Profiler.consoleProfileFinished") profiles.push(reply.params.profile);
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (reply.error) waiting.fail(new Error(reply.error.message)); else waiting.ok(reply.result);
  });
  cdp.on("Target.attachedToTarget", async ({ sessionId }) => {
    await toWorker(sessionId, "Profiler.enable");
    await toWorker(sessionId, "Profiler.setSamplingInterval", { interval: 100 });
    await toWorker(sessionId, "Runtime.runIfWaitingForDebugger");
  });
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
  const report = await benchReport(page, `${server.url}?bench=embed&count=${count}&workers=0`);
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
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map();
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id).callFrame;
    const name = frame.functionName || `(${frame.url ? "anonymous" : "program"})`;
    selfMs.set(name, (selfMs.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
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
