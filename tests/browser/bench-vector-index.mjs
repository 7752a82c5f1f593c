// A vector index in the browser, flat and HNSW: the bench build's `?bench=index` page builds it in the engine
// worker (one thread, as indexing in the app does) over the same synthetic vectors `cargo bench --bench
// vector_index` uses natively, with the shipped parameters, and reports build time, query time and recall@10.
//   trunk build --release --features bench --dist dist-bench
//   node tests/browser/bench-vector-index.mjs [--flat | --hnsw] [vectors ...]      (default both; 10000 100000)
import { resolve } from "node:path";
import { serveDist, launchBrowser, benchReport } from "./harness.mjs";

const args = process.argv.slice(2);
const sizes = args.filter((a) => !a.startsWith("--")).map(Number);
const kinds = ["flat", "hnsw"].filter((kind) => args.includes(`--${kind}`));
const server = await serveDist(resolve(import.meta.dirname, process.env.QUIRE_BENCH_DIST ?? "../../dist-bench"));
const browser = await launchBrowser();
try {
  console.log("| vectors | index | build (s) | mean query (ms) | p95 query (ms) | recall@10 vs exact f32 |\n|---|---|---|---|---|---|");
  for (const count of sizes.length ? sizes : [10_000, 100_000]) {
    for (const kind of kinds.length ? kinds : ["flat", "hnsw"]) {
      const page = await browser.context.newPage();
      const r = await benchReport(page, `${server.url}?bench=index&kind=${kind}&count=${count}`, 3_600_000);
      const name = kind === "flat" ? "flat (exact int8)" : "HNSW";
      console.log(`| ${r.vectors} | ${name} | ${r.build_s.toFixed(1)} | ${r.mean_query_ms.toFixed(2)} | ${r.p95_query_ms.toFixed(2)} | ${r.recall_at_k.toFixed(4)} |`);
      await page.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
