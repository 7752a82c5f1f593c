// What the search a built site adds (`quire site --built`) costs a visitor, in each engine (engines.mjs): a
// copy of a built site gets its bundle from the release CLI, `python3 -m http.server` serves it, and a fresh
// profile opens the bundle's search page with the first question in its address, then asks the others one by
// one in its box. Reported per question: the bytes it fetched (the resource entries' encoded bodies, by part:
// the module and its script and style, the index's fragments) and the milliseconds from asking to the
// results. Timing only: it checks nothing.
//   trunk build --release && cargo build --release --bin quire
//   node tests/browser/bench-built-site.mjs BUILT_SITE_FOLDER --questions QUESTIONS.txt [--engines chromium,firefox,webkit]
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { DIST, pythonServer } from "./harness.mjs";
import { launchEngine } from "./engines.mjs";

const QUIRE = join(process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/quire/target"), "release/quire");
const argument = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : fallback; };
const site = process.argv[2];
const questions = (await readFile(argument("--questions"), "utf8")).split("\n").map((q) => q.trim()).filter(Boolean);
const engines = argument("--engines", "chromium,firefox,webkit").split(",");

const work = await mkdtemp(join(tmpdir(), "quire-bench-built-"));
const copy = join(work, basename(site));
await cp(site, copy, { recursive: true });
const started = Date.now();
const printed = execFileSync(QUIRE, ["site", "--built", copy, "--app", DIST], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
console.log(printed.split("\n")[0], `(${((Date.now() - started) / 1000).toFixed(1)} s)`);
const server = await pythonServer(work);

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
const failed = () => document.querySelector(".quire-search-status")?.textContent.startsWith("The search could not") ? document.querySelector(".quire-search-status").textContent : null;

const report = [];
for (const name of engines) {
  const engine = await launchEngine(name);
  try {
    let clock = Date.now();
    const page = await engine.open(`${server.url}${basename(site)}/quire/search.html?q=${encodeURIComponent(questions[0])}`);
    await page.waitFor(answered, null, { timeout: 120_000, what: "the first answer" });
    const rows = [{ question: questions[0], ms: Date.now() - clock, ...(await page.evaluate(fetched)) }];
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
      rows.push({ question, ms: Date.now() - clock, module: after.module - before.module, index: after.index - before.index });
    }
    report.push({ engine: name, version: engine.version, rows });
    const later = rows.slice(1).map((r) => r.index).sort((a, b) => a - b);
    console.log(`${name} (${engine.version}): first answer ${rows[0].ms} ms after ${rows[0].module + rows[0].index} bytes (module ${rows[0].module}, index ${rows[0].index}); next ${later.length}: index ${later[0]}–${later.at(-1)} bytes, median ${later[Math.floor(later.length / 2)]}; ${rows.slice(1).map((r) => r.ms).join(", ")} ms`);
  } finally {
    await engine.close();
  }
}
server.stop();
await rm(work, { recursive: true, force: true });
console.log(JSON.stringify(report));
