// What the search a built site adds (`quire site --built`) costs a visitor, in each engine (engines.mjs): a
// copy of a built site gets its bundle from the release CLI (a bundle the site already has gives its vectors),
// `python3 -m http.server` serves it behind a visitor's link (10 Mbit/s, 40 ms: harness.throttledLink;
// `--unthrottled` for none), and a fresh profile opens the bundle's search page with the first question in
// its address, then asks the others one by one in its box. Reported per question: the bytes it fetched (the
// resource entries' encoded bodies, by part: the module and its script and style, the index's fragments)
// and the milliseconds from asking to the results; with `--answers` (a JSON object from each question to
// the pages, from the site's root, that answer it), the reciprocal rank of its first right page among the
// ten shown. Measures only: it checks nothing.
//   trunk build --release && cargo build --release --bin quire
//   node tests/browser/bench-built-site.mjs BUILT_SITE_FOLDER --questions QUESTIONS.txt [--answers ANSWERS.json]
//     [--engines chromium,firefox,webkit] [--unthrottled]
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { DIST, pythonServer, throttledLink } from "./harness.mjs";
import { launchEngine } from "./engines.mjs";

const QUIRE = join(process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/quire/target"), "release/quire");
const argument = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const site = process.argv[2];
const questions = (await readFile(argument("--questions"), "utf8")).split("\n").map((q) => q.trim()).filter(Boolean);
const engines = argument("--engines", "chromium,firefox,webkit").split(",");
const answers = process.argv.includes("--answers") ? JSON.parse(await readFile(argument("--answers"), "utf8")) : null;

const work = await mkdtemp(join(tmpdir(), "quire-bench-built-"));
const copy = join(work, basename(site));
await cp(site, copy, { recursive: true });
const started = Date.now();
const printed = execFileSync(QUIRE, ["site", "--built", copy, "--app", DIST], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
console.log(printed.split("\n")[0], `(${((Date.now() - started) / 1000).toFixed(1)} s)`);
const server = await pythonServer(work);
const link = process.argv.includes("--unthrottled") ? null : await throttledLink(server.url);
const origin = link?.url ?? server.url;

/// The bundle's bytes the page fetched so far, by part.
const fetched = () => {
  const parts = { module: 0, index: 0 };
  for (const entry of performance.getEntriesByType("resource")) {
    if (!entry.name.includes("/quire/")) continue;
    parts[entry.name.includes("/quire/index/") ? "index" : "module"] += entry.encodedBodySize || 0;
  }
  return parts;
};
const answered = () => {
  const status = document.querySelector(".quire-search-status")?.textContent ?? "";
  const asked = document.querySelector(".quire-search input")?.value.trim();
  return (Boolean(asked) && status.includes(`“${asked}”`)) || status.startsWith("The search could not");
};
/// The pages the results link to, from the site's root.
const shown = (root) => [...document.querySelectorAll(".quire-search-result a")].map((a) => decodeURIComponent(new URL(a.href).pathname).slice(root.length));
/// The reciprocal rank of the first page that answers `question` among those shown, where it has answers.
const rank = (question, pages) => {
  const right = answers?.[question];
  if (!right) return undefined;
  const at = pages.slice(0, 10).findIndex((page) => right.includes(page));
  return at < 0 ? 0 : 1 / (at + 1);
};
const failed = () => document.querySelector(".quire-search-status")?.textContent.startsWith("The search could not") ? document.querySelector(".quire-search-status").textContent : null;

const report = [];
for (const name of engines) {
  const engine = await launchEngine(name);
  try {
    let clock = Date.now();
    const page = await engine.open(`${origin}${basename(site)}/quire/search.html?q=${encodeURIComponent(questions[0])}`);
    await page.waitFor(answered, null, { timeout: 120_000, what: "the first answer" });
    // The browser keeps 250 resource entries unless told more; later questions add theirs.
    const entries = await page.evaluate(() => { performance.setResourceTimingBufferSize(1e6); return performance.getEntriesByType("resource").length; });
    if (entries >= 250) throw new Error(`${name}: the first answer's ${entries} resource entries filled the browser's buffer: its bytes are not all counted`);
    const root = `/${basename(site)}/`;
    const rows = [{ question: questions[0], ms: Date.now() - clock, ...(await page.evaluate(fetched)), rr: rank(questions[0], await page.evaluate(shown, root)) }];
    for (const question of questions.slice(1)) {
      const before = await page.evaluate(fetched);
      clock = Date.now();
      await page.evaluate((q) => {
        document.querySelector(".quire-search input").value = q;
        document.querySelector(".quire-search form").requestSubmit();
      }, question);
      await page.waitFor(answered, null, { timeout: 60_000, what: question }).catch(async (timedOut) => {
        const shown = await page.evaluate(() => [document.querySelector(".quire-search-status")?.textContent, document.querySelector(".quire-search input")?.value]);
        throw new Error(`${timedOut.message}; the box says ${JSON.stringify(shown)}`);
      });
      const failure = await page.evaluate(failed);
      if (failure) throw new Error(`${name}: ${question}: ${failure}`);
      const after = await page.evaluate(fetched);
      const rr = rank(question, await page.evaluate(shown, root));
      rows.push({ question, ms: Date.now() - clock, module: after.module - before.module, index: after.index - before.index, rr });
    }
    report.push({ engine: name, version: engine.version, rows });
    const later = rows.slice(1).map((r) => r.index).sort((a, b) => a - b);
    const ranks = rows.map((r) => r.rr).filter((rr) => rr !== undefined);
    const mrr = ranks.length ? `; MRR@10 of the ${ranks.length} with answers ${(ranks.reduce((a, b) => a + b, 0) / ranks.length).toFixed(3)}` : "";
    console.log(`${name} (${engine.version}): first answer ${rows[0].ms} ms after ${rows[0].module + rows[0].index} bytes (module ${rows[0].module}, index ${rows[0].index}); next ${later.length}: index ${later[0]}–${later.at(-1)} bytes, median ${later[Math.floor(later.length / 2)]}; ${rows.slice(1).map((r) => r.ms).join(", ")} ms${mrr}`);
  } finally {
    await engine.close();
  }
}
await link?.close();
server.stop();
await rm(work, { recursive: true, force: true });
console.log(JSON.stringify(report));
