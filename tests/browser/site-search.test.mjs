// Search added to a site another generator built (`quire site --built`), in every engine (engines.mjs):
// chapters of the Rustonomicon as mdBook wrote them, with their styles, scripts and mdBook's own search
// index, get a bundle in their `quire/` folder; a chapter with the two lines the command prints answers a
// question by meaning from the bundle alone (no model, no page module), and its result leads to the right
// chapter; the ready search page answers the question in its address. Both pass axe-core.
// `QUIRE_BROWSERS` picks the engines (default: all three).
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { DIST, pythonServer, seriousViolations } from "./harness.mjs";
import { chosenEngines, launchEngine } from "./engines.mjs";

const QUIRE = join(process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/quire/target"), "debug/quire");
const AXE = await readFile(join(import.meta.dirname, "node_modules/axe-core/axe.min.js"), "utf8");
const CHAPTERS = ["send-and-sync.html", "ownership.html", "exotic-sizes.html", "leaking.html", "poisoning.html", "transmutes.html"];
const QUESTION = "What is a type with no size at all?";

let work, server;

before(async () => {
  const nomicon = join(execFileSync("rustc", ["--print", "sysroot"], { encoding: "utf8" }).trim(), "share/doc/rust/html/nomicon");
  work = await mkdtemp(join(tmpdir(), "quire-built-"));
  const book = join(work, "nomicon");
  await mkdir(book);
  // The chapters, and everything mdBook writes beside them but other pages: styles, scripts, fonts and its
  // own search index (searchindex.js, searchindex.json), which the bundle must not take for pages.
  for (const entry of await readdir(nomicon, { withFileTypes: true })) {
    const keep = entry.isDirectory() || !entry.name.endsWith(".html") || CHAPTERS.includes(entry.name);
    if (keep) await cp(join(nomicon, entry.name), join(book, entry.name), { recursive: true });
  }
  const printed = execFileSync(QUIRE, ["site", "--built", book, "--app", DIST], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  // The chapters, and those of the book's folders (vec/, arc-mutex/): mdBook writes some chapters there.
  assert.ok(Number(/the search of (\d+) pages/.exec(printed)?.[1]) > CHAPTERS.length, printed);
  // The lines the command prints, put into a chapter as a site's theme would put them.
  const lines = printed.split("\n").filter((line) => /^ {2}<(link|div|script)/.test(line)).map((line) => line.trim().replace('"/quire/', '"quire/'));
  assert.equal(lines.length, 3, printed);
  const chapter = join(book, "leaking.html");
  const page = await readFile(chapter, "utf8");
  await writeFile(chapter, page.replace("<main>", `<main>\n${lines.join("\n")}\n`));
  server = await pythonServer(work);
});

after(async () => {
  server?.stop();
  await rm(work, { recursive: true, force: true });
});

/// axe-core's WCAG rules on the search box (`within`), or on the whole page: mdBook's own page is the book's,
/// and has violations of its own.
async function checkAccessible(page, view, within = null) {
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.inject(AXE);
  const violations = within === null ? await page.evaluate(seriousViolations) : await page.evaluate(async (selector) => {
    const found = await window.axe.run(document.querySelector(selector), { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return found.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
  }, within);
  assert.deepEqual(violations, [], `${page.engine}, ${view}: ${violations.join("\n")}`);
}

/// What the search box shows once it has answered what its field holds (not the words typed before, which
/// it also answers while the reader types; a driver may type a question's last "?" or not).
async function shown(page) {
  await page.waitFor(() => {
    const status = document.querySelector(".quire-search-status")?.textContent ?? "";
    const asked = document.querySelector(".quire-search input")?.value.trim();
    return (asked && status.includes(`“${asked}”`)) || status.startsWith("The search could not");
  }, null, { what: "the search's answer" });
  return page.evaluate(() => ({
    status: document.querySelector(".quire-search-status").textContent,
    links: [...document.querySelectorAll(".quire-search-title a")].map((a) => a.getAttribute("href")),
    marked: [...document.querySelectorAll(".quire-search-excerpt mark")].map((m) => m.textContent),
    fetched: Number(document.querySelector(".quire-search").dataset.fetchedBytes),
    // What the page fetched of the bundle: the module, its script and style, and the index's fragments.
    bundleBytes: performance.getEntriesByType("resource").filter((r) => r.name.includes("/quire/")).reduce((sum, r) => sum + (r.encodedBodySize || 0), 0),
  }));
}

for (const name of chosenEngines(["chromium", "firefox", "webkit"])) {
  describe(name, { concurrency: 1 }, () => {
    let engine;
    before(async () => { engine = await launchEngine(name); });
    after(async () => { await engine?.close(); });

    test(`${name}: a chapter of a built book answers by meaning from the bundle, and a result leads to the right chapter`, async () => {
      const page = await engine.open(`${server.url}nomicon/leaking.html`);
      await page.waitFor(() => document.querySelector(".quire-search input") !== null, null, { what: "the search box" });
      // By keyboard, as a reader in the chapter would: the question, Enter; then the first result, Enter.
      await page.fill(".quire-search input", QUESTION);
      await page.evaluate(() => document.querySelector(".quire-search input").focus());
      await page.press("Enter");
      const answer = await shown(page);
      assert.match(answer.status, /pages? for “What is a type with no size at all\??”, by their words and meaning\./, JSON.stringify(answer));
      assert.match(answer.links[0], /exotic-sizes\.html$/, JSON.stringify(answer));
      assert.ok(answer.marked.includes("size") || answer.marked.includes("sized"), JSON.stringify(answer));
      console.log(`# ${name}: first answer after ${answer.fetched} bytes of the index, ${answer.bundleBytes} bytes of the bundle in all`);
      await checkAccessible(page, "a chapter's search box with results", ".quire-search");
      await page.evaluate(() => document.querySelector(".quire-search-title a").focus());
      await page.press("Enter");
      await page.waitFor(() => location.pathname.endsWith("/nomicon/exotic-sizes.html") && document.readyState === "complete", null, { what: "the chapter" });
      assert.match(await page.text("main h1"), /Exotically Sized Types/);
    });

    test(`${name}: the ready search page answers the question in its address`, async () => {
      const asked = "Which types are not Send?";
      const page = await engine.open(`${server.url}nomicon/quire/search.html?q=${encodeURIComponent(asked)}`);
      const answer = await shown(page);
      assert.match(answer.links[0], /\.\.\/send-and-sync\.html$|\/nomicon\/send-and-sync\.html$/, JSON.stringify(answer));
      await checkAccessible(page, "the search page");
    });
  });
}
