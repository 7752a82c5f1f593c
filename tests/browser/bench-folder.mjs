// Indexing a real folder in the page the way a user's browser does it: the release build (dist/) served by
// `python3 -m http.server`, Debian's Chromium started headless with a fresh profile and none of Playwright's
// own switches (Playwright only attaches to it, over the DevTools protocol, to drive and read the page), the
// page opened as a first visit would, and the folder given to the folder picker as soon as it is enabled.
// The clock runs from the pick to the page's "Indexed in" report. Every second it reads the status line and
// the CPU time of Chromium's processes, and reports each stage (parsing, embedding, building) with its
// seconds, the texts embedded and their rate, the cores busy, and the engine's peak memory. With
// `--questions` it asks a question once a second while the folder is embedded, as a user may, and reports
// how long each took. Timing only: it checks nothing. The same folder natively: `quire index DIR -o OUT`.
//   trunk build --release && node tests/browser/bench-folder.mjs DIR [--questions] [--node-vectors]
// (--node-vectors: then the first query by the `page` retriever, which has the page embed the folder's
// pages, sections, entities and relations; QUIRE_BENCH_DIST=DIR measures another build than dist/.)
import { spawn } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { DIST, answerInPage, READY } from "./harness.mjs";

const folder = process.argv[2];
const askQuestions = process.argv.includes("--questions");
const nodeVectors = process.argv.includes("--node-vectors");
if (!folder) {
  console.error("usage: node tests/browser/bench-folder.mjs DIR [--questions] [--node-vectors]");
  process.exit(2);
}
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/// Starts `command` and resolves with the process and the first match of `pattern` in what it prints.
function started(command, args, pattern, options = {}) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  return new Promise((done, fail) => {
    let said = "";
    const hear = (chunk) => {
      said += chunk;
      const found = said.match(pattern);
      if (found) done({ child, found });
    };
    child.stdout.on("data", hear);
    child.stderr.on("data", hear);
    child.on("exit", (code) => fail(new Error(`${command} exited (${code}) before it was ready: ${said}`)));
  });
}

/// The build served as a user serves it: `python3 -m http.server` on 127.0.0.1.
async function serve(root) {
  const { child, found } = await started("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root],
    /port (\d+)/);
  return { url: `http://127.0.0.1:${found[1]}/`, close: () => child.kill() };
}

/// Chromium as a user runs it, headless, with a profile of its own; Playwright attaches over DevTools.
async function launch() {
  const profile = await mkdtemp(join(tmpdir(), "quire-user-"));
  const executable = process.env.CHROMIUM ?? "/usr/bin/chromium";
  // Root (CI, this machine) needs --no-sandbox; nothing else is switched off or on.
  const { child, found } = await started(executable, ["--headless", "--no-sandbox", `--user-data-dir=${profile}`,
    "--remote-debugging-port=0", "about:blank"], /DevTools listening on (ws:\S+)/);
  const browser = await chromium.connectOverCDP(found[1]);
  const close = async () => {
    await browser.close().catch(() => {});
    child.kill();
    await sleep(500);
    await rm(profile, { recursive: true, force: true });
  };
  return { browser, profile, version: browser.version(), close };
}

/// Seconds of CPU time used so far by the processes whose command line names `profile`.
async function cpuSeconds(profile) {
  let ticks = 0;
  for (const pid of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8");
      if (!cmdline.includes(profile)) continue;
      const stat = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1].split(" ");
      ticks += Number(stat[11]) + Number(stat[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks / 100;
}

/// Runs `start`, then once a second reads the status line, the engine's memory and Chromium's CPU time until
/// `done` says the step is over: the seconds each stage of the status line lasted, the last count it
/// showed and the cores busy meanwhile. With `askWhileEmbedding`, a question every second of the embedding.
async function stages(page, profile, start, done, askWhileEmbedding = false) {
  const began = Date.now();
  const cpuAtStart = await cpuSeconds(profile);
  await start();
  const seen = [];
  const answers = [];
  let peakBytes = 0;
  let left = false;
  for (;;) {
    const sample = await page.evaluate(() => ({
      state: document.querySelector("#status")?.dataset.state,
      text: document.querySelector("#status")?.textContent ?? "",
      bytes: Number(document.querySelector("#engine-memory")?.dataset.bytes ?? 0),
    }));
    const at = (Date.now() - began) / 1000;
    const cpu = (await cpuSeconds(profile)) - cpuAtStart;
    peakBytes = Math.max(peakBytes, sample.bytes);
    const stage = /Reading files/.test(sample.text) ? "parse" : /Embedding \d/.test(sample.text) ? "embed"
      : /Building the/.test(sample.text) ? "build" : null;
    if (stage && seen.at(-1)?.stage !== stage) seen.push({ stage, from: at, cpuFrom: cpu, last: sample.text });
    else if (stage) seen.at(-1).last = sample.text;
    left ||= sample.state !== "ready";
    if (left && await done()) break;
    if (at > 1800) throw new Error(`not done after 30 minutes: ${sample.text}`);
    if (askWhileEmbedding && stage === "embed") {
      answers.push(await answerInPage(page, `Who was the first person to walk on the Moon? (${answers.length + 1})`));
    }
    await sleep(1000);
  }
  const total = (Date.now() - began) / 1000;
  const cpuTotal = (await cpuSeconds(profile)) - cpuAtStart;
  const rows = seen.map((s, i) => {
    const seconds = (seen[i + 1]?.from ?? total) - s.from;
    const cpu = (seen[i + 1]?.cpuFrom ?? cpuTotal) - s.cpuFrom;
    return { stage: s.stage, seconds: +seconds.toFixed(1), cores_busy: +(cpu / seconds).toFixed(2), last: s.last };
  });
  const report = { seconds: +total.toFixed(1), cores_busy: +(cpuTotal / total).toFixed(2), stages: rows,
    peak_engine_mb: Math.round(peakBytes / 1e6) };
  if (answers.length > 0) {
    const sorted = answers.map((a) => a.shown_ms).sort((a, b) => a - b);
    const at = (p) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]);
    report.questions_while_embedding = { asked: answers.length, p50_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1) };
  }
  return report;
}

const server = await serve(process.env.QUIRE_BENCH_DIST ? resolve(process.env.QUIRE_BENCH_DIST) : DIST);
const user = await launch();
try {
  const page = user.browser.contexts()[0].pages()[0] ?? await user.browser.contexts()[0].newPage();
  const opened = Date.now();
  await page.goto(server.url);
  // The picker is enabled once the page takes files: that is when a user could pick the folder.
  await page.waitForSelector("#folder:not([disabled])", { timeout: 600_000 });
  const pickable_after_s = +((Date.now() - opened) / 1000).toFixed(1);
  const summaryShown = async () => (await page.$("#ingest-summary")) !== null;
  const indexing = await stages(page, user.profile, () => page.setInputFiles("#folder", resolve(folder)), summaryShown,
    askQuestions);
  indexing.summary = await page.textContent("#ingest-summary");
  indexing.notice = await page.textContent("#notice").catch(() => null);
  indexing.corpus = await page.textContent("#stats-line");
  const report = { folder: resolve(folder), browser: user.version, server: "python3 -m http.server", pickable_after_s, indexing };
  if (nodeVectors) {
    await page.check('#fusion input[value="rrf"]');
    for (const retriever of ["dense", "bm25", "join"]) await page.uncheck(`#retrievers input[value="${retriever}"]`);
    await page.check('#retrievers input[value="page"]');
    await page.fill("#query", "What does this folder explain first?");
    const answered = async () => (await page.$(READY)) !== null && (await page.$("#results")) !== null;
    report.node_vectors = await stages(page, user.profile, () => page.click("#search"), answered);
  }
  console.log(JSON.stringify(report, null, 2));
} finally {
  await user.close();
  server.close();
}
