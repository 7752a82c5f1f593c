// What an index costs in the browser as it grows, on the shipped build (dist/), in headless Chromium: for each
// snapshot (made at 1k, 10k and 100k chunks by `cargo bench --bench scale_snapshots --features bench`), a fresh tab opens it
// through the import button, and the benchmark reports the snapshot's size, the time from picking the file to
// the corpus shown, the memory the tab holds for it (the engine worker's wasm memory, the page's JS heap after
// a garbage collection, and every Chromium process's resident memory), and end-to-end query latency: from the
// click on Search to the results on screen (embedding the question, every chosen retriever, fusion,
// rendering), p50 and p95 over SciFact's first questions, with the app's default retrievers and with all of
// them, next to the engine worker's own part of it.
//   node tests/browser/bench-scale.mjs SNAPSHOT.quire ... [--questions N]
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { serveDist, launchBrowser, watchErrors, percentile, waitReady, queryTimes, importSnapshot } from "./harness.mjs";

const args = process.argv.slice(2);
const at = args.indexOf("--questions");
const count = at >= 0 ? Number(args.splice(at, 2)[1]) : 40;
const snapshots = args;
if (snapshots.length === 0) throw new Error("usage: node tests/browser/bench-scale.mjs SNAPSHOT.quire ... [--questions N]");
const WARM_UP = 3;
const queries = gunzipSync(readFileSync(resolve(import.meta.dirname, "../../datasets/scifact/queries.jsonl.gz")))
  .toString().trim().split("\n").map((line) => JSON.parse(line).text).slice(0, count + WARM_UP);

/// Resident memory of every Chromium process, in MB (the benchmark's browser is the only one running).
function chromiumResidentMb() {
  const out = execFileSync("ps", ["-C", "chromium", "-o", "rss="]).toString();
  return out.trim().split(/\s+/).map(Number).reduce((sum, kb) => sum + kb, 0) / 1024;
}

const server = await serveDist();
const rows = [];
for (const snapshot of snapshots) {
  const browser = await launchBrowser({ args: ["--js-flags=--expose-gc"] });
  try {
    const page = await browser.context.newPage();
    const errors = watchErrors(page);
    await page.goto(server.url);
    await waitReady(page);
    const loadS = await importSnapshot(page, snapshot);
    const chunks = Number((await page.textContent("#stats-line")).match(/([\d,]+) chunks/)[1].replace(/,/g, ""));
    const engineMb = Number(await page.getAttribute("#engine-memory", "data-bytes")) / 1e6;
    // What the page keeps, not the garbage its last steps left (the import's copies of the file).
    const heapMb = await page.evaluate(() => { gc(); return performance.memory.usedJSHeapSize / 1e6; });
    const residentMb = chromiumResidentMb();
    const fixed = await queryTimes(page, queries, WARM_UP);
    for (const box of await page.$$('#retrievers input[type="checkbox"]')) await box.check();
    const all = await queryTimes(page, queries, WARM_UP);
    if (errors.length) throw new Error(errors.join("\n"));
    const ms = ({ times, engine }) => `${percentile(times, 0.5).toFixed(0)} / ${percentile(times, 0.95).toFixed(0)} ` +
      `(engine ${percentile(engine, 0.5).toFixed(0)} / ${percentile(engine, 0.95).toFixed(0)})`;
    rows.push(`| ${chunks} | ${(statSync(snapshot).size / 1e6).toFixed(1)} | ${loadS.toFixed(1)} | ${engineMb.toFixed(0)} | ` +
      `${heapMb.toFixed(0)} | ${residentMb.toFixed(0)} | ${ms(fixed)} | ${ms(all)} |`);
    console.error(rows.at(-1));
  } finally {
    await browser.close();
  }
}
await server.close();
console.log(`${count} questions each (after ${WARM_UP} unmeasured), click to results on screen\n`);
console.log("| chunks | snapshot (MB) | load (s) | engine wasm memory (MB) | page JS heap (MB) | Chromium resident (MB) | " +
  "query p50 / p95, default retrievers (ms) | query p50 / p95, all retrievers (ms) |");
console.log("|---|---|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
