// Embedding throughput of the wasm build in headless Chromium. The measuring mode is not in the product:
// build it first with the `bench` feature into its own folder, then run
//   trunk build --release --features bench --dist dist-bench && node tests/browser/bench.mjs [count] [workers] [tokens] [here]
// `workers` 0 (the default) embeds in the engine worker alone; N > 0 through a pool of N embedding workers,
// with the engine worker embedding its share too when `here` is 1 (as the app indexes).
// `tokens` is each sequence's length in word-pieces (128 by default; a question is about 16 to 32).
// QUIRE_CHROMIUM_ARGS adds Chromium flags (space-separated), e.g. --js-flags=--no-wasm-inlining.
// With --check (the test command's), it only checks that a pool gives every text the engine worker's vector.
import { resolve } from "node:path";
import { serveDist, launchBrowser, benchReport } from "./harness.mjs";

const count = Number(process.argv[2] ?? 32);
const workers = Number(process.argv[3] ?? 0);
const tokens = Number(process.argv[4] ?? 128);
const here = Number(process.argv[5] ?? 0);
const server = await serveDist(resolve(import.meta.dirname, process.env.QUIRE_BENCH_DIST ?? "../../dist-bench"));
const browser = await launchBrowser({ args: (process.env.QUIRE_CHROMIUM_ARGS ?? "").split(" ").filter(Boolean) });
try {
  const page = await browser.context.newPage();
  const report = await benchReport(page, `${server.url}?bench=embed&count=${count}&workers=${workers}&tokens=${tokens}&here=${here}`);
  report.browser = await browser.context.browser()?.version() ?? "chromium";
  if (process.argv.includes("--check")) {
    if (!(report.agreement >= 0.9999)) throw new Error(`the pool's vectors differ from the engine worker's: ${JSON.stringify(report)}`);
    console.log(`bench: ${report.sequences} texts through the pool (${workers} workers, engine embedding: ${report.engine_embeds}) agree with the engine worker (lowest cosine ${report.agreement.toFixed(6)})`);
  } else {
    console.log(JSON.stringify(report, null, 2));
  }
} finally {
  await browser.close();
  await server.close();
}
