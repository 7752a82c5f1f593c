// A first visit in each browser engine as a user meets it: the release build (dist/) served by
// `python3 -m http.server`, each engine started with a fresh profile (engines.mjs), the clock running from
// the address being opened to the page's Ready (the model loaded). Then the demo question by the default
// method, a reload, and a reload with the server stopped (the service worker answering); with `--folder DIR`,
// that folder given to the folder picker and timed to the page's "Indexed in", and `--question` asked of it.
// Timing only: it checks nothing but that each step happened.
//   trunk build --release && node tests/browser/bench-engines.mjs [--folder DIR --question TEXT]
// QUIRE_BROWSERS picks the engines (default: chromium,firefox,webkit).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DIST, pythonServer as serve } from "./harness.mjs";
import { chosenEngines, launchEngine } from "./engines.mjs";

const argument = (name) => { const at = process.argv.indexOf(name); return at > 0 ? process.argv[at + 1] : null; };
const folder = argument("--folder");
const question = argument("--question") ?? "Who was the first person to walk on the Moon?";
const ready = () => ["ready", "failed"].includes(document.querySelector("#status")?.dataset.state);


async function timed(step) {
  const started = Date.now();
  await step();
  return (Date.now() - started) / 1000;
}

async function untilReady(page, timeout = 300_000) {
  await page.waitFor(ready, null, { timeout, what: "Ready" });
  const state = await page.attribute("#status", "data-state");
  if (state !== "ready") throw new Error(`${page.engine}: ${await page.text("#status")}`);
}

async function ask(page, text) {
  await page.fill("#query", text);
  await page.click("#search");
  await page.waitFor((asked) => document.querySelector("#results")?.dataset.query === asked, text, { timeout: 120_000 });
  return page.evaluate(() => {
    const first = document.querySelector("#results .result");
    return { label: first?.querySelector(".label").textContent, method: document.querySelector("#answer-timing")?.textContent };
  });
}

/// Every file under `dir`, as paths.
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

const rows = [];
for (const name of chosenEngines(["chromium", "firefox", "webkit"])) {
  const server = await serve(DIST);
  const engine = await launchEngine(name);
  try {
    let page;
    const first = await timed(async () => { page = await engine.open(server.url); await untilReady(page); });
    const answer = await ask(page, "Who was the first person to walk on the Moon?");
    const reload = await timed(async () => { await page.reload(); await untilReady(page); });
    await page.waitFor(() => navigator.serviceWorker?.controller != null, null, { timeout: 300_000, what: "the service worker" });
    server.stop();
    const offline = await timed(async () => { await page.reload(); await untilReady(page); });
    const row = { engine: engine.version, first, reload, offline, demo: `${answer.label} · ${answer.method}` };
    if (folder) {
      const own = await serve(DIST);
      await page.goto(own.url);
      await untilReady(page);
      // Only Chromium's driver gives a folder to a folder picker; the others pick its files, every one.
      if (name === "chromium") await page.setFiles("#folder", [folder]);
      else await page.setFiles("#files", filesUnder(folder));
      row.picked = name === "chromium" ? "the folder picker" : "the file picker, every file";
      row.folder = await timed(() => page.waitFor(() => /^Indexed in /.test(document.querySelector("#ingest-summary")?.textContent ?? ""), null, { timeout: 3_600_000, what: "Indexed in" }));
      row.indexed = await page.text("#ingest-summary");
      row.answer = (await ask(page, question)).label;
      own.stop();
    }
    rows.push(row);
    console.log(JSON.stringify(row));
  } finally {
    server.stop();
    await engine.close();
  }
}
console.log("| engine | first visit to Ready | reload | offline reload | demo question |");
console.log("|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.engine} | ${r.first.toFixed(1)} s | ${r.reload.toFixed(1)} s | ${r.offline.toFixed(1)} s | ${r.demo} |`);
if (folder) {
  console.log("\n| engine | picked by | to \"Indexed in\" | report | first result |");
  console.log("|---|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.engine} | ${r.picked} | ${r.folder.toFixed(1)} s | ${r.indexed} | ${r.answer} |`);
}
