// Quire's embedder against onnxruntime-web, side by side in one headless Chromium, on the same model.onnx and
// the same word-piece ids (Quire's tokenizer's, handed to onnxruntime-web), alternating page by page:
//   trunk build --release --features bench --dist dist-bench
//   node tests/browser/compare.mjs [count] [rounds]       # prints a table and the raw figures as JSON
//   node tests/browser/compare.mjs 4 1 --check            # the test command's check: both run and agree
// One thread each: Quire's engine worker alone, onnxruntime-web with one wasm thread. Each at its best:
// Quire as the app indexes (the engine worker and a pool of one embedding worker per other core, all
// embedding), onnxruntime-web with a wasm thread per core (the page is served cross-origin isolated, which
// its threads need). Outputs must agree: cosine ≥ 0.9999 per text.
import { resolve } from "node:path";
import { availableParallelism } from "node:os";
import { serveDist, launchBrowser, benchReport } from "./harness.mjs";

const [count, rounds] = [Number(process.argv[2] ?? 32), Number(process.argv[3] ?? 2)];
const check = process.argv.includes("--check");
const AGREEMENT = 0.9999;
const here = import.meta.dirname;
const server = await serveDist(resolve(here, process.env.QUIRE_BENCH_DIST ?? "../../dist-bench"), {
  mounts: { "/ort/": resolve(here, "node_modules/onnxruntime-web/dist"), "/compare/": resolve(here, "compare") },
  isolated: true,
});
const browser = await launchBrowser();

async function quire(workers, engineEmbeds = false) {
  const page = await browser.context.newPage();
  try {
    return await benchReport(page, `${server.url}?bench=embed&count=${count}&workers=${workers}&here=${engineEmbeds ? 1 : 0}`);
  } finally {
    await page.close();
  }
}

async function ort(sequences, threads) {
  const page = await browser.context.newPage();
  try {
    await page.goto(`${server.url}compare/`);
    await page.waitForFunction(() => window.ortReady === true);
    return await page.evaluate(([sequences, threads]) => window.ortEmbed(sequences, { threads }), [sequences, threads]);
  } finally {
    await page.close();
  }
}

const cosine = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0) / (Math.hypot(...a) * Math.hypot(...b));
const cores = availableParallelism();
const runs = [];
try {
  for (let round = 0; round < rounds; round++) {
    const single = await quire(0);
    const ortSingle = await ort(single.token_ids, 1);
    const agreement = Math.min(...single.vectors.map((v, i) => cosine(v, ortSingle.vectors[i])));
    if (!(agreement >= AGREEMENT)) throw new Error(`the embedders disagree: lowest cosine ${agreement} < ${AGREEMENT}`);
    if (check) {
      console.log(`compare: Quire and onnxruntime-web agree on ${count} sequences (lowest cosine ${agreement.toFixed(6)})`);
      break;
    }
    const ortBest = await ort(single.token_ids, cores);
    const pool = await quire(Math.max(cores - 1, 1), true);
    runs.push({
      round, agreement,
      quire: { unbatched: single.ms_per_sequence_unbatched, batched: single.ms_per_sequence_batched, pool: pool.ms_per_sequence },
      ort: { unbatched: ortSingle.unbatched, batched: ortSingle.batched, threadedUnbatched: ortBest.unbatched, threadedBatched: ortBest.batched, crossOriginIsolated: ortBest.crossOriginIsolated },
    });
  }
  if (!check) {
    const version = (await browser.context.browser()?.version()) ?? "chromium";
    const f = (x) => x.toFixed(1);
    console.log(`Chromium ${version}, ${count} sequences of 128 word-pieces, ${cores} cores\n`);
    console.log("| round | configuration | onnxruntime-web ms/seq | Quire ms/seq | Quire throughput ÷ onnxruntime-web's |");
    console.log("|---|---|---|---|---|");
    for (const run of runs) {
      const row = (name, o, q) => console.log(`| ${run.round + 1} | ${name} | ${f(o)} | ${f(q)} | ${(o / q).toFixed(2)} |`);
      row("one thread, one at a time", run.ort.unbatched, run.quire.unbatched);
      row("one thread, batched by 16", run.ort.batched, run.quire.batched);
      const workers = Math.max(cores - 1, 1);
      row(`at its best (${cores} threads / engine + ${workers} worker${workers === 1 ? "" : "s"})`, run.ort.threadedBatched, run.quire.pool);
    }
    console.log(`\nlowest cosine between the two embedders' outputs: ${Math.min(...runs.map((r) => r.agreement)).toFixed(6)}`);
    console.log(JSON.stringify(runs, null, 2));
  }
} finally {
  await browser.close();
  await server.close();
}
