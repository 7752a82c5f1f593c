// Embedding throughput of the wasm build in headless Chromium. The measuring mode is not in the product:
// build it first with the `bench` feature into its own folder, then run
//   trunk build --release --features bench --dist dist-bench && node tests/browser/bench.mjs [count] [workers] [tokens]
// `workers` 0 (the default) embeds in the engine worker alone; N > 0 through a pool of N embedding workers.
// `tokens` is each sequence's length in word-pieces (128 by default; a question is about 16 to 32).
import { resolve } from "node:path";
import { serveDist, launchBrowser, benchReport } from "./harness.mjs";

const count = Number(process.argv[2] ?? 32);
const workers = Number(process.argv[3] ?? 0);
const tokens = Number(process.argv[4] ?? 128);
const server = await serveDist(resolve(import.meta.dirname, process.env.QUIRE_BENCH_DIST ?? "../../dist-bench"));
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  const report = await benchReport(page, `${server.url}?bench=embed&count=${count}&workers=${workers}&tokens=${tokens}`);
  report.browser = await browser.context.browser()?.version() ?? "chromium";
  console.log(JSON.stringify(report, null, 2));
} finally {
  await browser.close();
  await server.close();
}
