// A published site's costs over a slow network, as a visitor meets them. For each index given, `quire site
// --snapshot` publishes it with the release build (dist/); a static server that sends the precompressed copies
// (as nginx's brotli_static or a CDN does) and answers revalidations with 304 serves it throttled to 10 Mbit/s
// with 40 ms before each response (the issue's DevTools preset, applied at the server so that the workers'
// and the service worker's requests are throttled too, all sharing the one link); headless Chromium visits it.
// Reported: the bytes sent and the seconds until the page answers by words (the model still loading) and its
// first answer then, and until it answers by meaning, the next questions (each one's bytes and time, in
// the page from the click to the results), everything the first visit downloads once the service worker has
// cached the site, and a second visit (warm: every question asked again, answered from that cache; each status
// line the page showed on the way, with its time). Timing only: it checks nothing.
// Each question also reports the bytes of the index's fragments it fetched and whether it was answered from
// them (by words and meaning, while the whole index loads) or from the whole index.
//   trunk build --release && cargo build --release && node tests/browser/bench-site.mjs INDEX.quire... [--questions N]
//     [--queries QUERIES.jsonl[.gz]]   (BEIR queries, the first N asked; SciFact's by default)
// A folder instead of an index is served as it is (a site published before, or changed by hand).
import { createServer } from "node:http";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { homedir, tmpdir } from "node:os";
import { extname, join, normalize, resolve } from "node:path";
import { launchBrowser, answerInPage, DIST, READY } from "./harness.mjs";

// The release build: partitioning a large index's vectors (k-means) is slow unoptimised.
const QUIRE = join(process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/quire/target"), "release/quire");
const BYTES_PER_SECOND = 10e6 / 8;
const LATENCY_MS = 40;
const SLICE = 16 * 1024;
const argument = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const OPTIONS = ["--questions", "--queries"];
const targets = process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && !OPTIONS.includes(all[i - 1]));
const questionCount = Number(argument("--questions", "11"));
const MIME = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css", ".json": "application/json" };

const pause = (ms) => new Promise((done) => setTimeout(done, ms));

/// Serves `root` as a throttled static host; `sent()` is the bytes sent so far. The responses share one link:
/// two downloads at once each get half of it, as on a visitor's connection.
async function throttledHost(root) {
  let sent = 0;
  let fragmentsSent = 0;
  let linkFreeAt = 0;
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, "http://127.0.0.1").pathname);
    const file = normalize(join(root, path.endsWith("/") ? path + "index.html" : path));
    await pause(LATENCY_MS);
    let info;
    try { info = await stat(file); } catch { response.writeHead(404).end(); return; }
    const modified = info.mtime.toUTCString();
    const headers = { "content-type": MIME[extname(file)] ?? "application/octet-stream", "last-modified": modified };
    if (request.headers["if-modified-since"] === modified) { response.writeHead(304, headers).end(); return; }
    const accepted = request.headers["accept-encoding"] ?? "";
    let body = await readFile(file);
    for (const [encoding, extension] of [["br", ".br"], ["gzip", ".gz"]]) {
      if (!accepted.includes(encoding)) continue;
      try { body = await readFile(file + extension); headers["content-encoding"] = encoding; break; } catch { /* not precompressed */ }
    }
    response.writeHead(200, { ...headers, "content-length": body.length });
    for (let at = 0; at < body.length; at += SLICE) {
      const slice = body.subarray(at, at + SLICE);
      linkFreeAt = Math.max(linkFreeAt, Date.now()) + (slice.length / BYTES_PER_SECOND) * 1000;
      await pause(linkFreeAt - Date.now());
      sent += slice.length;
      if (path.includes("/fragments/")) fragmentsSent += slice.length;
      if (!response.write(slice)) await new Promise((drained) => response.once("drain", drained));
    }
    response.end();
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${server.address().port}/`, sent: () => sent, fragmentsSent: () => fragmentsSent, close: () => new Promise((ok) => server.close(ok)) };
}

const megabytes = (bytes) => +(bytes / 1e6).toFixed(2);

/// Runs in the page before its own scripts: keeps each status line it shows, with the seconds since the
/// navigation began, in `window.quireStatuses`.
function recordStatus() {
  window.quireStatuses = [];
  let last = null;
  new MutationObserver(() => {
    const status = document.querySelector("#status");
    const shown = status && `${status.dataset.state}: ${status.textContent}`;
    if (shown && shown !== last) {
      last = shown;
      window.quireStatuses.push([Number((performance.now() / 1000).toFixed(3)), shown.slice(0, 120)]);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}

async function visit(host, questions) {
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    const began = Date.now();
    let before = host.sent();
    await page.goto(host.url);
    // The first answer, by words, while the model loads; then the page answering by meaning.
    await page.waitForSelector(`#status[data-state="answering-by-words"], ${READY}`, { timeout: 900_000 });
    const byWords = { answering_s: (Date.now() - began) / 1000, answering_mb: megabytes(host.sent() - before) };
    if (await page.$('#status[data-state="answering-by-words"]')) {
      const { shown_ms } = await answerInPage(page, questions[0]);
      Object.assign(byWords, { first_answer_ms: Math.round(shown_ms), answered_after_s: (Date.now() - began) / 1000, answered_after_mb: megabytes(host.sent() - before) });
    }
    await page.waitForSelector(READY, { timeout: 900_000 });
    const cold = { by_words: byWords, ready_s: (Date.now() - began) / 1000, ready_mb: megabytes(host.sent() - before), questions: [] };
    // The question answered by words is asked again by meaning once the model has loaded: measured questions
    // start after that answer, with the next question.
    await page.waitForFunction(() => document.querySelector("#by-words") === null, null, { timeout: 900_000 });
    // What answering a first question by meaning took of the index's fragments in all: the lexicon, the
    // centroids, and the first question's buckets, partitions and text runs.
    cold.by_meaning = { answered_s: (Date.now() - began) / 1000, fragments_mb_in_all: megabytes(host.fragmentsSent()) };
    for (const question of questions.slice("first_answer_ms" in byWords ? 1 : 0)) {
      before = host.sent();
      const fragmentsBefore = host.fragmentsSent();
      const { shown_ms: ms } = await answerInPage(page, question);
      const fromFragments = (await page.$("#from-fragments")) !== null;
      cold.questions.push({ ms: Math.round(ms), mb: megabytes(host.sent() - before), fragments_mb: megabytes(host.fragmentsSent() - fragmentsBefore), from_fragments: fromFragments });
    }
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 900_000 });
    cold.first_visit_mb = megabytes(host.sent());
    before = host.sent();
    await page.addInitScript(recordStatus);
    const again = Date.now();
    await page.reload();
    await page.waitForSelector(READY, { timeout: 900_000 });
    const warm = { ready_s: (Date.now() - again) / 1000, ready_mb: megabytes(host.sent() - before), questions: [] };
    // Where the warm visit's time went: each status the page showed, from the navigation on.
    warm.statuses = await page.evaluate(() => window.quireStatuses);
    // Every question again, from the service worker's cache: the first is the warm visit's first question.
    for (const question of questions) {
      before = host.sent();
      const { shown_ms: ms } = await answerInPage(page, question);
      warm.questions.push({ ms: Math.round(ms), mb: megabytes(host.sent() - before) });
    }
    warm.first_question_ms = warm.questions[0].ms;
    return { cold, warm };
  } finally {
    await browser.close();
  }
}

const queriesFile = argument("--queries", resolve(import.meta.dirname, "../../datasets/scifact/queries.jsonl.gz"));
const queriesBytes = await readFile(queriesFile);
const queries = (queriesFile.endsWith(".gz") ? gunzipSync(queriesBytes) : queriesBytes).toString().trim().split("\n").slice(0, questionCount).map((line) => JSON.parse(line).text);
for (const target of targets) {
  const published = (await stat(target)).isDirectory();
  const work = published ? null : await mkdtemp(join(tmpdir(), "quire-site-bench-"));
  const site = published ? resolve(target) : join(work, "site");
  const printed = published ? "served as it is"
    : execFileSync(QUIRE, ["site", "--snapshot", resolve(target), "-o", site, "--app", DIST], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const host = await throttledHost(site);
  try {
    const { cold, warm } = await visit(host, queries);
    console.log(JSON.stringify({ target: resolve(target), site: printed.split("\n")[0], cold, warm }, null, 1));
  } finally {
    await host.close();
    if (work) await rm(work, { recursive: true, force: true });
  }
}
