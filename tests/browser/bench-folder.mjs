// Indexing a real folder in the page, as a user does it: the release build (dist/) in headless Chromium, the
// folder given to the folder picker, the demo index open. Reports each stage (parsing, embedding, building)
// with its seconds, the texts embedded and their rate, and the engine's peak memory; then the first query by
// the `page` retriever, which has the page embed the folder's pages, sections, entities and relations
// (indexes hold chunk vectors until a method needs the others), reported the same way. While the folder is
// embedded it asks the open index a question about once a second, as a user may, and reports how long each
// took to answer (timed in the page from the click to the results shown, and the engine's own time), and when an answer first came from the index being
// built (the folder's documents searchable by their words, before their vectors). Timing only: it checks nothing. The same folder natively: `quire index DIR -o OUT` (and `--all-vectors`).
//   trunk build --release && node tests/browser/bench-folder.mjs DIR [--no-questions]
// (--no-questions for a build that cannot answer while it indexes, such as one from before it could;
// QUIRE_BENCH_DIST=DIR measures another build than dist/.)
import { resolve } from "node:path";
import { serveDist, launchBrowser, forgetSavedIndex, waitReady, answerInPage, READY } from "./harness.mjs";

const folder = process.argv[2];
const askQuestions = !process.argv.includes("--no-questions");
if (!folder) {
  console.error("usage: node tests/browser/bench-folder.mjs DIR");
  process.exit(2);
}

/// Runs `start`, then samples the status line and the engine's memory until the page is ready again:
/// the seconds each stage of the status line lasted, and the last count it showed. With `askWhileEmbedding`,
/// a question every second of the embedding stage, and the time each took.
async function stages(page, start, askWhileEmbedding = false) {
  const began = Date.now();
  await start();
  const seen = [];
  const answers = [];
  let lastAsked = 0;
  let peakBytes = 0;
  let searchableAt = null;
  for (;;) {
    const sample = await page.evaluate(() => ({
      state: document.querySelector("#status")?.dataset.state,
      text: document.querySelector("#status")?.textContent ?? "",
      bytes: Number(document.querySelector("#engine-memory")?.dataset.bytes ?? 0),
    }));
    peakBytes = Math.max(peakBytes, sample.bytes);
    const stage = /Reading files/.test(sample.text) ? "parse" : /Embedding \d/.test(sample.text) ? "embed"
      : /Building the/.test(sample.text) ? "build" : null;
    const at = (Date.now() - began) / 1000;
    if (stage && seen.at(-1)?.stage !== stage) seen.push({ stage, from: at, last: sample.text });
    else if (stage) seen.at(-1).last = sample.text;
    if (sample.state === "ready" && at > 1) break;
    if (askWhileEmbedding && stage === "embed" && at - lastAsked >= 1) {
      lastAsked = at;
      answers.push(await answerInPage(page, `Who was the first person to walk on the Moon? (${answers.length + 1})`));
      const note = await page.evaluate(() => document.querySelector("#still-indexing")?.textContent ?? "");
      if (searchableAt === null && /still being embedded/.test(note)) searchableAt = at;
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  const total = (Date.now() - began) / 1000;
  const rows = seen.map((s, i) => ({ stage: s.stage, seconds: +((seen[i + 1]?.from ?? total) - s.from).toFixed(1), last: s.last }));
  const report = { seconds: +total.toFixed(1), stages: rows, peak_engine_mb: Math.round(peakBytes / 1e6) };
  if (answers.length > 0) {
    const percentiles = (times) => {
      const sorted = [...times].sort((a, b) => a - b);
      const at = (p) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]);
      return { p50_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1) };
    };
    report.questions_while_embedding = {
      asked: answers.length,
      shown: percentiles(answers.map((a) => a.shown_ms)),
      engine: percentiles(answers.map((a) => a.engine_ms)),
    };
    report.searchable_by_words_after_s = searchableAt;
  }
  return report;
}

const server = await serveDist(process.env.QUIRE_BENCH_DIST ? resolve(process.env.QUIRE_BENCH_DIST) : undefined);
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}snapshots/planets-questions.json`);
  await page.evaluate(forgetSavedIndex);
  await page.goto(server.url);
  await waitReady(page);
  const indexing = await stages(page, () => page.setInputFiles("#folder", resolve(folder)), askQuestions);
  indexing.summary = await page.textContent("#ingest-summary");
  indexing.corpus = await page.textContent("#stats-line");

  await page.check('#fusion input[value="rrf"]');
  for (const retriever of ["dense", "bm25", "join"]) await page.uncheck(`#retrievers input[value="${retriever}"]`);
  await page.check('#retrievers input[value="page"]');
  await page.fill("#query", "What does this folder explain first?");
  const nodeVectors = await stages(page, () => page.click("#search"));
  await page.waitForSelector(READY);
  nodeVectors.notice = await page.textContent("#notice").catch(() => null);
  console.log(JSON.stringify({ folder: resolve(folder), browser: browser.context.browser()?.version(), indexing, node_vectors: nodeVectors }, null, 2));
} finally {
  await browser.close();
  await server.close();
}
