// Quire's embedder against onnxruntime-web, side by side in one headless Chromium, on the same model.onnx and
// the same word-piece ids (Quire's tokenizer's, handed to onnxruntime-web), alternating page by page:
//   QUIRE_FEATURES=bench trunk build --release --features bench --dist dist-bench
//   node tests/browser/compare.mjs [count] [rounds]       # prints a table and the raw figures as JSON
//   node tests/browser/compare.mjs 4 1 --check            # the test command's check: both run and agree
// One thread each: Quire's engine worker alone, onnxruntime-web with one wasm thread. Each at its best:
// Quire as the app indexes (the engine worker and a pool of one embedding worker per other core, all
// embedding), onnxruntime-web with a wasm thread per core (the page is served cross-origin isolated, which
// its threads need). Quire runs twice: the module its workers choose in Chromium (relaxed SIMD, fused
// multiply-add in its matrix kernel) and the plain SIMD module other browsers get (`?simd=plain`). Every
// output must agree with onnxruntime-web's: cosine ≥ 0.9999 per text.
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

async function quire(workers, engineEmbeds, module) {
  const page = await browser.context.newPage();
  const simd = module === "plain" ? "&simd=plain" : "";
  try {
    const url = `${server.url}?bench=embed&count=${count}&workers=${workers}&here=${engineEmbeds ? 1 : 0}${simd}`;
    const report = await benchReport(page, url);
    if (report.module !== module) throw new Error(`asked for the ${module} module, the workers ran ${report.module}`);
    return report;
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
    // Chromium has relaxed SIMD (since 114), so its workers must choose that module.
    const single = { relaxed: await quire(0, false, "relaxed"), plain: await quire(0, false, "plain") };
    const ortSingle = await ort(single.relaxed.token_ids, 1);
    const agreement = {};
    for (const [module, report] of Object.entries(single)) {
      agreement[module] = Math.min(...report.vectors.map((v, i) => cosine(v, ortSingle.vectors[i])));
      if (!(agreement[module] >= AGREEMENT)) {
        throw new Error(`the ${module} module and onnxruntime-web disagree: lowest cosine ${agreement[module]} < ${AGREEMENT}`);
      }
    }
    if (check) {
      const lowest = Math.min(agreement.relaxed, agreement.plain).toFixed(6);
      console.log(`compare: Quire's relaxed-SIMD and plain modules and onnxruntime-web agree on ${count} sequences (lowest cosine ${lowest})`);
      break;
    }
    const ortBest = await ort(single.relaxed.token_ids, cores);
    const workers = Math.max(cores - 1, 1);
    const pool = { relaxed: await quire(workers, true, "relaxed"), plain: await quire(workers, true, "plain") };
    const figures = (module) => ({
      unbatched: single[module].ms_per_sequence_unbatched, batched: single[module].ms_per_sequence_batched, pool: pool[module].ms_per_sequence,
    });
    runs.push({
      round, agreement, quire: figures("relaxed"), plain: figures("plain"),
      ort: { unbatched: ortSingle.unbatched, batched: ortSingle.batched, threadedUnbatched: ortBest.unbatched, threadedBatched: ortBest.batched, crossOriginIsolated: ortBest.crossOriginIsolated },
    });
  }
  if (!check) {
    const version = (await browser.context.browser()?.version()) ?? "chromium";
    const f = (x) => x.toFixed(1);
    console.log(`Chromium ${version}, ${count} sequences of 128 word-pieces, ${cores} cores\n`);
    console.log("| round | configuration | onnxruntime-web ms/seq | Quire (relaxed SIMD) ms/seq | its throughput ÷ onnxruntime-web's | Quire (plain SIMD) ms/seq | its throughput ÷ onnxruntime-web's |");
    console.log("|---|---|---|---|---|---|---|");
    for (const run of runs) {
      const row = (name, o, key) => console.log(
        `| ${run.round + 1} | ${name} | ${f(o)} | ${f(run.quire[key])} | ${(o / run.quire[key]).toFixed(2)} | ${f(run.plain[key])} | ${(o / run.plain[key]).toFixed(2)} |`,
      );
      row("one thread, one at a time", run.ort.unbatched, "unbatched");
      row("one thread, batched by 16", run.ort.batched, "batched");
      const workers = Math.max(cores - 1, 1);
      row(`at its best (${cores} threads / engine + ${workers} worker${workers === 1 ? "" : "s"})`, run.ort.threadedBatched, "pool");
    }
    const lowest = Math.min(...runs.flatMap((r) => [r.agreement.relaxed, r.agreement.plain]));
    console.log(`\nlowest cosine between either module's outputs and onnxruntime-web's: ${lowest.toFixed(6)}`);
    console.log(JSON.stringify(runs, null, 2));
  }
} finally {
  await browser.close();
  await server.close();
}
