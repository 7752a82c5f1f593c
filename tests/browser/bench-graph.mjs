// How the corpus graph view holds up at its node limit (2,000) in headless Chromium, on the shipped build
// (dist/): opens a `.quire` snapshot in the app, draws the whole corpus, and measures the time to draw it
// (engine layout, transfer and rendering), input-to-frame times for zoom and pan, and selecting a node.
//   node tests/browser/bench-graph.mjs SNAPSHOT.quire [inputs]
// docs/BENCHMARKS.md shows how the snapshot it reports on is made.
import { serveDist, launchBrowser, inputToFrameTimes, percentile, importSnapshot } from "./harness.mjs";

const snapshot = process.argv[2];
const inputs = Number(process.argv[3] ?? 60);
if (!snapshot) throw new Error("usage: node tests/browser/bench-graph.mjs SNAPSHOT.quire [inputs]");

const server = await serveDist();
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(server.url);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 300_000 });
  await importSnapshot(page, snapshot);

  const started = Date.now();
  await page.click("#corpus-graph summary");
  await page.waitForSelector("#corpus-graph-drawing .node", { timeout: 120_000 });
  await page.evaluate(() => new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0))));
  const drawMs = Date.now() - started;
  const nodes = await page.$$eval("#corpus-graph-drawing .node", (found) => found.length);
  const edges = await page.$$eval("#corpus-graph-drawing .edge", (found) => found.length);
  const status = await page.textContent("#corpus-graph-status");

  const frames = await inputToFrameTimes(page, "#corpus-graph-drawing", inputs);
  const selectMs = await page.evaluate(async () => {
    const node = document.querySelectorAll("#corpus-graph-drawing .node.chunk")[10] ??
      document.querySelector("#corpus-graph-drawing .node");
    const before = document.querySelector("#corpus-node").textContent;
    const start = performance.now();
    node.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    while (document.querySelector("#corpus-node").textContent === before) await new Promise((r) => setTimeout(r, 1));
    await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));
    return performance.now() - start;
  });
  const version = (await browser.context.browser()?.version()) ?? "chromium";
  console.log(`${status}\n`);
  console.log(`| Chromium | nodes | edges | draw (ms) | zoom/pan input → frame p50 / p95 / max (ms), ${inputs} inputs | select (ms) |`);
  console.log("|---|---|---|---|---|---|");
  console.log(`| ${version} | ${nodes} | ${edges} | ${drawMs} | ${percentile(frames, 0.5).toFixed(1)} / ` +
    `${percentile(frames, 0.95).toFixed(1)} / ${frames.at(-1).toFixed(1)} | ${selectMs.toFixed(1)} |`);
} finally {
  await browser.close();
  await server.close();
}
