// Where a question's time goes in the browser: the app (dist/) answers SciFact's first questions over an
// index (the demo's, or a snapshot it imports, such as benches/scale_snapshots.rs writes), with the default
// retrievers or all of them, while Chromium's sampling profiler records every worker. Prints click-to-screen
// and engine p50 (unprofiled first, then under the profiler) and the engine worker's time per question in
// Quire's own functions (inclusive: each with what it calls) and in the functions that run longest.
//   trunk build --release
//   node tests/browser/profile-query.mjs [SNAPSHOT.quire] [--questions N] [--all]
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { serveDist, launchBrowser, waitReady, queryTimes, percentile, profileWorkers, profileTimes, importSnapshot } from "./harness.mjs";

const args = process.argv.slice(2);
const flag = (name) => { const at = args.indexOf(name); return at >= 0 && args.splice(at, 1).length > 0; };
const option = (name, fallback) => { const at = args.indexOf(name); return at >= 0 ? args.splice(at, 2)[1] : fallback; };
const all = flag("--all");
const count = Number(option("--questions", 40));
const snapshot = args[0];
const WARM_UP = 3;
const queries = gunzipSync(readFileSync(resolve(import.meta.dirname, "../../datasets/scifact/queries.jsonl.gz")))
  .toString().trim().split("\n").map((line) => JSON.parse(line).text).slice(0, count + WARM_UP);

const server = await serveDist();
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  const profiler = await profileWorkers(browser.context, page, 50);
  await page.goto(server.url);
  await waitReady(page);
  if (snapshot) await importSnapshot(page, snapshot);
  if (all) for (const box of await page.$$('#retrievers input[type="checkbox"]')) await box.check();
  const unprofiled = await queryTimes(page, queries, WARM_UP);
  await profiler.start();
  const profiled = await queryTimes(page, queries.slice(WARM_UP), 0);
  const profiles = await profiler.stop();
  const p50 = ({ times, engine }) => `${percentile(times, 0.5).toFixed(0)} ms on screen, engine ${percentile(engine, 0.5).toFixed(0)} ms`;
  console.log(`${await page.textContent("#stats-line")}\n${count} questions, ${all ? "all retrievers" : "default retrievers"}: ` +
    `p50 ${p50(unprofiled)}; under the profiler ${p50(profiled)}\n`);
  // The engine worker is the one that spent the most time answering.
  const times = profiles.map(profileTimes);
  if (times.length === 0) throw new Error("no worker was profiled");
  const answering = ({ inclusive }) => Math.max(0, ...[...inclusive].filter(([name]) => name.startsWith("quire::web::worker::")).map(([, ms]) => ms));
  const busy = ({ self }) => [...self.values()].reduce((a, b) => a + b, 0);
  const engine = times.reduce((a, b) => (answering(b) > answering(a) ? b : a));
  const perQuestion = (ms) => (ms / count).toFixed(2);
  console.log(`engine worker: ${perQuestion(busy(engine))} ms per question under the profiler\n`);
  console.log("| Quire function (inclusive) | ms per question |\n|---|---|");
  const ours = [...engine.inclusive].filter(([name]) => /^<?quire::/.test(name) && !/::\{\{closure\}\}/.test(name));
  for (const [name, ms] of ours.sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`| \`${name.replace(/::h[0-9a-f]{16}$/, "")}\` | ${perQuestion(ms)} |`);
  console.log("\n| function (self time, top 15) | ms per question |\n|---|---|");
  for (const [name, ms] of [...engine.self].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    const short = name.replace(/::h[0-9a-f]{16}$/, "");
    console.log(`| \`${short.length > 110 ? short.slice(0, 107) + "..." : short}\` | ${perQuestion(ms)} |`);
  }
} finally {
  await browser.close();
  await server.close();
}
