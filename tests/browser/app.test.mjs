// End-to-end: the wasm build loads the model, opens the prebuilt demo indexes, answers queries with the chosen
// retrievers and fusion (showing the trace), and indexes user files with a clear per-file error for a bad one,
// all inside headless Chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import {
  DIST, serveDist, launchBrowser, watchErrors, inputToFrameTimes, percentile, forgetSavedIndex, waitReady, READY, VIEWS, pythonServer, seriousViolations,
} from "./harness.mjs";

/// The native CLI the test command built (it also built the demo indexes the app opens).
const QUIRE = join(process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/quire/target"), "debug/quire");

let server, browser;

before(async () => {
  server = await serveDist();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/// A fresh app (its own wasm instance and index) per test, so no test depends on another's changes or order.
/// The page's errors are collected for the test to check at its end. `keepDemo`: files the test adds join the
/// demo corpus (the user's choice) instead of starting a corpus of their own (the default).
async function openApp({ keepDemo = true } = {}) {
  const page = await browser.context.newPage();
  // Tests share one browser profile: start each from empty storage, as a first visit would. (Errors are watched
  // from the app's load on; the browser's request for this bare JSON page's icon is answered, empty, by the
  // harness.)
  await page.goto(`${server.url}snapshots/planets-questions.json`);
  await page.evaluate(forgetSavedIndex);
  const errors = watchErrors(page);
  await page.goto(server.url);
  await waitReady(page);
  if (keepDemo) await page.check("#keep-published");
  return { page, errors };
}


/// Asks `text` and waits for the results of this question, not whatever results were shown before.
async function search(page, text) {
  await page.fill("#query", text);
  await page.click("#search");
  await page.waitForFunction((asked) => document.querySelector("#results")?.dataset.query === asked, text);
  return page.$$eval("#results .result", (items) => items.map((li) => ({
    label: li.querySelector(".label").textContent,
    meta: li.querySelector(".meta").textContent,
    text: li.querySelector(".text").textContent,
    marked: [...li.querySelectorAll(":scope > .text mark")].map((m) => m.textContent),
    ranks: [...li.querySelectorAll(":scope > .ranks .rank")].map((r) => r.textContent),
  })));
}

async function documentCount(page) {
  return Number((await page.textContent("#stats-line")).split(" ")[0]);
}

/// Clicks the sample question `text`, opening the list where the last answer folded it away.
async function pickSample(page, text) {
  await page.$eval("#samples", (details) => { details.open = true; });
  await page.click(`#samples button.sample:text-is(${JSON.stringify(text)})`);
}

const AXE = await readFile(join(import.meta.dirname, "node_modules/axe-core/axe.min.js"), "utf8");

/// Runs axe-core's WCAG 2 A and AA rules (none turned off) on the page as it is, and fails on any serious or
/// critical violation, naming the view.
async function checkAccessible(page, view) {
  // Evaluated through DevTools, as the page's Content-Security-Policy (rightly) refuses an injected script.
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(AXE);
  const violations = await page.evaluate(seriousViolations);
  assert.deepEqual(violations, [], `${view}: ${violations.join("\n")}`);
}

async function upload(page, files, expectedDocuments) {
  await page.setInputFiles("#files", files);
  await page.waitForFunction((n) => document.querySelector("#stats-line")?.textContent.startsWith(`${n} documents`), expectedDocuments, { timeout: 120_000 });
}

test("the demo corpus is indexed into a knowledge graph", async () => {
  const { page, errors } = await openApp();
  const line = await page.textContent("#stats-line");
  assert.match(line, /^6 documents · 1\d sections · \d+ chunks · \d+ entities · \d+ relations$/);
  const table = await page.textContent("#stats table");
  // (No `next` edges: every section of the demo is one chunk, the planets table's rows included.)
  for (const kind of ["page nodes", "entity nodes", "section nodes", "chunk nodes", "is_chunk_of edges", "cites edges", "semantic_rel edges"]) {
    assert.ok(table.includes(kind), `${kind} missing from ${table}`);
  }
  // The engine's memory in this tab: the model alone takes over 100 MB; a six-document index adds little.
  const bytes = Number(await page.getAttribute("#engine-memory", "data-bytes"));
  assert.ok(bytes > 100e6 && bytes < 1e9, `engine memory ${bytes} bytes`);
  const shown = (await page.textContent("#engine-memory")).match(/^The engine holds (\d+) MB of memory in this tab\.$/);
  assert.ok(shown && Math.abs(Number(shown[1]) - bytes / 1e6) <= 0.5, await page.textContent("#engine-memory"));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a question is answered with provenance from the right document", async () => {
  const { page, errors } = await openApp();
  const results = await search(page, "Who was the first person to walk on the Moon?");
  assert.equal(results.length, 6);
  assert.match(results[0].label, /^(Apollo 11|Moon) › /);
  assert.ok(results.slice(0, 3).some((r) => r.text.includes("Neil Armstrong became the first person")), JSON.stringify(results.slice(0, 3)));
  // The default method reads dense, BM25, community and the node-set join; each result says where each ranked it,
  // and names a document once.
  assert.match(results[0].meta, / · found by (all 4|[1-3] of 4) lists$/);
  assert.deepEqual(results[0].ranks.map((r) => r.split(" ")[0]), ["dense", "bm25", "community", "join"]);
  assert.ok(results[0].ranks.every((r) => /^\w+ (#\d+|–)$/.test(r)), JSON.stringify(results[0].ranks));
  // Each result shows the passage around the question's words, the words BM25 matched marked (stemmed).
  const marked = results.flatMap((r) => r.marked.map((m) => m.toLowerCase()));
  assert.ok(marked.some((m) => m.startsWith("moon")) && marked.includes("first"), JSON.stringify(marked));
  assert.ok(!marked.includes("the") && !marked.includes("was"), "stop words are not marked");
  const sources = results.map((r) => r.meta.split(" · ")[0]);
  assert.equal(new Set(sources).size, sources.length, JSON.stringify(sources));
  // A second question waits for its own answer, not the first one's results.
  const second = await search(page, "What is the Sun made of?");
  assert.notDeepEqual(second, results);
  assert.deepEqual(errors, []);
  await page.close();
});

test("every view passes axe-core's WCAG 2 A and AA rules, and every control is reached by the keyboard", async () => {
  const { page, errors } = await openApp();
  await checkAccessible(page, "start");
  await search(page, "Who was the first person to walk on the Moon?");
  await checkAccessible(page, "results");
  for (const [opener, shown, view] of VIEWS) {
    await page.click(opener);
    await page.waitForSelector(shown);
    await checkAccessible(page, view);
  }
  await page.setInputFiles("#files", [
    { name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# Notes\n\nThe harbour lights shine at night.\n") },
    { name: "broken.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.7\nnot a pdf") },
  ]);
  await page.waitForSelector("#ingest-problems li");
  await checkAccessible(page, "a folder's report");
  await page.emulateMedia({ colorScheme: "dark" });
  await checkAccessible(page, "every view open, dark");
  await page.emulateMedia({ colorScheme: "light" });

  // Tab from the top of the page: every kind of control is reached, in the order the page reads.
  await page.locator("h1").click();
  const reached = [];
  for (let i = 0; i < 400 && !reached.includes("#eval-bundled"); i++) {
    await page.keyboard.press("Tab");
    reached.push(await page.evaluate(() => {
      const e = document.activeElement;
      return e.id ? `#${e.id}` : e.closest("[id]") ? `#${e.closest("[id]").id} ${e.tagName.toLowerCase()}` : e.tagName.toLowerCase();
    }));
  }
  for (const control of ["#query", "#search", "#ask-llm", "#how-to-search summary", "#results button", "#files", "#llm-settings summary", "#corpus-graph summary", "#eval-bundled"]) {
    assert.ok(reached.includes(control), `${control} not reached by Tab: ${reached.join(" ")}`);
  }
  assert.ok(reached.indexOf("#query") < reached.indexOf("#results button"), "the question comes before the results");
  assert.deepEqual(errors, []);
  await page.close();
});

test("after a search the question and the whole first result show without scrolling, on a laptop and on a phone", async () => {
  const { page, errors } = await openApp();
  const questions = { 1280: "Who was the first person to walk on the Moon?", 390: "What is the Sun made of?" };
  for (const [width, height] of [[1280, 800], [390, 844]]) {
    await page.setViewportSize({ width, height });
    await search(page, questions[width]);
    await page.evaluate(() => window.scrollTo(0, 0));
    const shown = await page.evaluate(() => ({
      question: document.querySelector("#query").getBoundingClientRect().bottom,
      result: document.querySelector("#results .result").getBoundingClientRect().bottom,
      height: innerHeight, wide: document.documentElement.scrollWidth,
    }));
    assert.ok(shown.question <= shown.height && shown.result <= shown.height, `${width}×${height}: ${JSON.stringify(shown)}`);
    assert.ok(shown.wide <= width, `${width}×${height}: the page scrolls sideways (${shown.wide} px)`);
  }
  // At 360 px, with every panel open, nothing is wider than the screen.
  await page.setViewportSize({ width: 360, height: 740 });
  for (const panel of ["#how-to-search", "#llm-settings", "#documents", "#trace", "#teaching-view"]) {
    await page.$eval(panel, (details) => { details.open = true; });
  }
  await page.waitForSelector("#trace-graph .node");
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 360, `at 360 px with every panel open the page scrolls sideways (${wide} px)`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("/ puts the cursor in the question, except where a field takes the key", async () => {
  const { page, errors } = await openApp();
  const focused = () => page.evaluate(() => document.activeElement?.id ?? "");
  // The question starts as a sample question: emptied, then the focus left elsewhere.
  await page.fill("#query", "");
  await page.locator("body").click({ position: { x: 2, y: 2 } });
  assert.notEqual(await focused(), "query");
  await page.keyboard.press("/");
  assert.equal(await focused(), "query");
  // Typed into the question (or any field), / is a character like any other.
  await page.keyboard.type("a/b");
  assert.equal(await page.inputValue("#query"), "a/b");
  assert.deepEqual(errors, []);
  await page.close();
});

test("uploaded files are indexed; a bad file gets a clear error and the others still load", async () => {
  const { page, errors } = await openApp();
  const before = await documentCount(page);
  const saturn = Buffer.from("# Saturn\n\nSaturn is the sixth planet and is famous for its bright rings of ice.\n\n## Moons\n\nTitan, the largest moon of Saturn, has a thick nitrogen atmosphere and lakes of liquid methane.\n");
  await upload(page, [
    { name: "saturn.md", mimeType: "text/markdown", buffer: saturn },
    { name: "broken.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.7\nthis is not really a pdf") },
    { name: "photo.png", mimeType: "image/png", buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) },
  ], before + 1);
  const problems = await page.$$eval("#ingest-problems li", (items) => items.map((li) => li.textContent));
  assert.ok(problems.some((p) => p.startsWith("broken.pdf: unreadable PDF")), JSON.stringify(problems));
  assert.ok(problems.some((p) => p.startsWith("photo.png: unsupported file type `png`")), JSON.stringify(problems));
  const results = await search(page, "Which moon has lakes of methane?");
  assert.match(results[0].label, /^Saturn › Moons › #1$/);

  // The same file again under another name: reported, not indexed twice.
  await page.setInputFiles("#files", [{ name: "saturn-copy.md", mimeType: "text/markdown", buffer: saturn }]);
  await page.waitForFunction(() => [...document.querySelectorAll("#ingest-problems li")]
    .some((li) => li.textContent === "saturn-copy.md: the same content as saturn.md: indexed once, as saturn.md"));
  assert.equal(await documentCount(page), before + 1);

  // Word, OpenDocument and EPUB files written by pandoc from real documents (scripts/fetch_real_documents.sh),
  // and a Windows-1252 text file: each read, the encoding named in the file's report.
  const real = join(homedir(), ".cache/quire/real-documents");
  const file = async (name) => ({ name, mimeType: "application/octet-stream", buffer: await readFile(join(real, name)) });
  await upload(page, [
    await file("systemd-UIDS-GIDS.docx"), await file("systemd-DISTRO_PORTING.odt"), await file("systemd-DISTRO_PORTING-epub2.epub"),
    { name: "café.txt", mimeType: "text/plain", buffer: Buffer.from("Le café de la gare, où l'on sert du thé à côté de la fenêtre, était fermé.", "latin1") },
  ], before + 4);
  const titles = await page.$$eval("#documents li .title", (items) => items.map((t) => t.textContent));
  assert.ok(titles.includes("Users, Groups, UIDs and GIDs on systemd Systems"), JSON.stringify(titles));
  // The same document as ODT and as EPUB: one copy is indexed, the other reported as holding only its text.
  assert.equal(titles.filter((t) => t === "Porting systemd To New Distributions").length, 1, JSON.stringify(titles));
  const notes = await page.$$eval("#ingest-problems li", (items) => items.map((li) => li.textContent));
  assert.ok(notes.some((n) => /^systemd-DISTRO_PORTING(-epub2\.epub|\.odt): its text is in systemd-DISTRO_PORTING(\.odt|-epub2\.epub) \(\d+ % of its passages\): not indexed/.test(n)), JSON.stringify(notes));
  assert.ok(notes.includes("café.txt: not UTF-8: read as windows-1252 (detected)"), JSON.stringify(notes));
  const uids = await search(page, "Which UID range is used by the tty group?");
  assert.ok(uids.some((r) => r.label.startsWith("Users, Groups, UIDs and GIDs on systemd Systems › ")), JSON.stringify(uids));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a user's file named like a demo file joins the corpus instead of replacing it", async () => {
  const { page, errors } = await openApp();
  const before = await documentCount(page);
  await upload(page, [
    { name: "moon.md", mimeType: "text/markdown", buffer: Buffer.from("# Moon diary\n\nTonight the crescent hung above the harbour cranes.\n") },
  ], before + 1);
  const results = await search(page, "crescent above the harbour cranes");
  assert.match(results[0].meta, /^moon\.md · /);
  const demo = await search(page, "Who was the first person to walk on the Moon?");
  assert.ok(demo.some((r) => r.meta.startsWith("demo/")), JSON.stringify(demo));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a user's first files start a corpus of their own; the demo is kept beside them on request and stays one click away", async () => {
  const { page, errors } = await openApp({ keepDemo: false });
  assert.match(await page.textContent("#new-corpus"), /^Your files start a corpus of your own\. Keep "Planets and the Moon landing \(6 files\)" beside them$/);
  await checkAccessible(page, "the new corpus choice");
  await upload(page, [
    { name: "venus.md", mimeType: "text/markdown", buffer: Buffer.from("# Venus\n\nVenus has a thick carbon dioxide atmosphere and surface temperatures that melt lead.\n") },
  ], 1);
  const sources = await page.$$eval("#documents li", (items) => items.map((li) => li.dataset.source));
  assert.deepEqual(sources, ["venus.md"]);
  // Their own corpus now: no offer, and a second file joins it.
  assert.equal(await page.$("#new-corpus"), null);
  await upload(page, [
    { name: "mars.md", mimeType: "text/markdown", buffer: Buffer.from("# Mars\n\nOlympus Mons on Mars is the tallest volcano in the solar system.\n") },
  ], 2);
  // The demo is one click away, and kept beside new files when the user says so.
  await page.click('button[data-demo="planets"]');
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("6 documents"));
  await page.check("#keep-published");
  await upload(page, [
    { name: "ceres.md", mimeType: "text/markdown", buffer: Buffer.from("# Ceres\n\nCeres is the largest object in the asteroid belt.\n") },
  ], 7);
  const demo = await search(page, "Who was the first person to walk on the Moon?");
  assert.ok(demo.some((r) => r.meta.startsWith("demo/")), JSON.stringify(demo));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a German and a Japanese chapter bring the multilingual model, named with its size first, and are answered by meaning and by their words", async () => {
  const manual = "/usr/share/debian-reference"; // debian-reference-de and -ja (scripts/setup.sh)
  const { page, errors } = await openApp({ keepDemo: false });
  const e5 = [];
  page.on("request", (request) => { if (/models\/e5-/.test(request.url())) e5.push(request.url()); });
  assert.deepEqual(e5, [], "a first visit of the English demo downloads no multilingual model");
  const worker = await page.evaluate(() => fetch("sw.js").then((r) => r.text()));
  assert.ok(worker.includes('"models/model.onnx"') && !worker.includes("e5-small"), "the service worker installs MiniLM only");
  // The status names the model and its size as its download begins.
  const named = page.waitForFunction(() => /^Answering by words while the embedding model loads \(multilingual-e5-small \(77 MB\)\)/.test(document.querySelector("#status")?.textContent ?? ""), null, { timeout: 300_000, polling: 50 });
  await page.setInputFiles("#files", [join(manual, "ch08.de.html"), join(manual, "ch08.ja.html")]);
  await named;
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("2 documents"), null, { timeout: 300_000 });
  await page.waitForFunction(() => document.querySelector("#status")?.dataset.state === "ready", null, { timeout: 600_000 });
  assert.ok(e5.some((url) => url.endsWith("e5-small.onnx")) && e5.some((url) => url.endsWith("e5-tokenizer.json")), JSON.stringify(e5));
  assert.equal(await page.textContent("#stats-languages"), "Languages: de 1, ja 1");
  assert.match(await page.textContent("#ingest-problems"), /Languages: German 1, Japanese 1/);
  // By the default method, with the question's words marked.
  const german = await search(page, "Wie tippe ich japanische Schriftzeichen auf der Tastatur?");
  assert.match(german[0].meta, /^ch08\.de\.html · /, JSON.stringify(german.slice(0, 2)));
  assert.match(german[0].label, /Ein Beispiel für Japanisch/, JSON.stringify(german[0]));
  assert.ok(german[0].marked.some((word) => /japanisch/i.test(word)), JSON.stringify(german[0]));
  const japanese = await search(page, "日本語の文字をキーボードで入力するには");
  assert.match(japanese[0].meta, /^ch08\.ja\.html · /, JSON.stringify(japanese.slice(0, 2)));
  assert.match(japanese[0].label, /日本語の例/, JSON.stringify(japanese[0]));
  assert.ok(japanese[0].marked.some((word) => word.includes("日本") || word.includes("入力")), JSON.stringify(japanese[0]));
  // By meaning alone: dense, the multilingual model's vectors.
  await page.click("#how-to-search summary");
  await page.check('#fusion input[value="rrf"]');
  for (const other of ["bm25", "join"]) await page.uncheck(`#retrievers input[value="${other}"]`);
  for (const [question, file, section] of [
    ["Wie tippe ich japanische Schriftzeichen auf der Tastatur?", "ch08.de.html", /Ein Beispiel für Japanisch/],
    ["日本語の文字をキーボードで入力するには", "ch08.ja.html", /日本語の例/],
  ]) {
    const dense = await search(page, question);
    assert.match(dense[0].meta, new RegExp(`^${file.replace(".", "\\.")} · dense ranked it #1$`), JSON.stringify(dense.slice(0, 2)));
    assert.match(dense[0].label, section, JSON.stringify(dense[0]));
  }
  await checkAccessible(page, "two languages");
  // A reload restores the index with its own model.
  await page.reload();
  await waitReady(page);
  const again = await search(page, "日本語の文字をキーボードで入力するには");
  assert.match(again[0].meta, /^ch08\.ja\.html · /, JSON.stringify(again.slice(0, 2)));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a Cancel while an update waits for the multilingual model holds: the model arrives, the index stays as it was", async () => {
  let release;
  const held = new Promise((ok) => { release = ok; });
  // Its own origin: no cache of the model from another test, and the model's download held at will.
  const slow = await serveDist(DIST, { hold: (path) => (path.endsWith("/e5-small.onnx") ? held : null) });
  const page = await browser.context.newPage();
  const errors = watchErrors(page);
  await page.goto(slow.url);
  await waitReady(page);
  // A corpus of its own (the default): German alone, which asks for the multilingual model.
  await page.setInputFiles("#files", ["/usr/share/debian-reference/ch08.de.html"]);
  await page.waitForFunction(() => /\(multilingual-e5-small \(77 MB\)\)/.test(document.querySelector("#status")?.textContent ?? ""), null, { timeout: 120_000 });
  await page.click("#cancel");
  release();
  await page.waitForSelector(READY, { timeout: 300_000 });
  assert.match(await page.textContent("#ingest-summary"), /^Cancelled after embedding \d+ texts: the index is as it was\.$/);
  assert.equal(await documentCount(page), 6);
  assert.ok((await search(page, "Who was the first person to walk on the Moon?")).some((r) => r.meta.startsWith("demo/")));
  assert.deepEqual(errors, []);
  await page.close();
  await slow.close();
});

test("a book dropped beside the demo answers from its chapter while it is embedded, not from pages embedded already", async () => {
  const book = join(execFileSync("rustc", ["--print", "sysroot"], { encoding: "utf8" }).trim(), "share/doc/rust/html/book");
  const { page, errors } = await openApp();
  await page.setInputFiles("#folder", book);
  // Asked while the book's texts are being embedded, answered from the index being built.
  await page.waitForFunction(() => /^Embedding \d+ \/ \d+ texts · /.test(document.querySelector("#status")?.textContent ?? ""), null, { timeout: 300_000 });
  const results = await search(page, "How can several threads safely change the same counter?");
  assert.equal(await page.getAttribute("#status", "data-state"), "indexing", "asked while the book was being embedded");
  assert.match(await page.textContent("#still-indexing"), /new documents are still being embedded/);
  assert.match(results[0].meta, /^book\/ch16-03-shared-state\.html · /, JSON.stringify(results.slice(0, 3)));
  await page.click("#cancel");
  await page.waitForSelector(READY);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the demo opens from its prebuilt index without embedding anything", async () => {
  const { page, errors } = await openApp();
  // Embedding would show "Embedding n / m texts"; a prebuilt index goes straight from the model to ready.
  assert.equal(await page.$("#ingest-problems"), null);
  const samples = await page.$$eval("#samples .sample", (items) => items.map((b) => b.textContent));
  assert.ok(samples.includes("Who was the first person to walk on the Moon?"), JSON.stringify(samples));
  assert.deepEqual(errors, []);
  await page.close();
});

test("retrievers, fusion and the number of results are the user's choice, and the trace shows each step", async () => {
  const { page, errors } = await openApp();
  // The default reads its own retrievers; choosing a fusion hands the choice of retrievers to the user.
  assert.equal(await page.isDisabled('#retrievers input[value="join"]'), true);
  // The controls fold under "How to search", whose summary names the method in use.
  assert.equal(await page.textContent("#method-in-use"), "the default, 6 results");
  await page.click("#how-to-search summary");
  await page.check('#fusion input[value="rrf"]');
  await page.uncheck('#retrievers input[value="join"]');
  await page.fill("#top-k", "3");
  let results = await search(page, "Which agency launched Eagle?");
  assert.equal(results.length, 3);
  assert.match(results[0].meta, / · found by (all 2|1 of 2) lists$/);
  assert.deepEqual(results[0].ranks.map((r) => r.split(" ")[0]), ["dense", "bm25"]);
  assert.equal(await page.textContent("#method-in-use"), "reciprocal rank of dense, bm25, 3 results");
  assert.match(await page.textContent(".timing"), /\(rrf\)/);

  // One retriever alone ranks by itself; its trace lists its seeds and what it kept.
  await page.uncheck('#retrievers input[value="dense"]');
  await page.uncheck('#retrievers input[value="bm25"]');
  await page.check('#retrievers input[value="path"]');
  // The demo holds chunk vectors only: the first retriever that searches entities has them embedded first.
  results = await search(page, "Who commanded the mission that landed Eagle?");
  assert.match(results[0].meta, / · path ranked it #1$/);
  assert.match(await page.textContent("#notice"), /^Embedded this index's pages, sections, entities and relations \(\d+ texts/);
  const trace = await page.textContent("#trace pre");
  assert.match(trace, /\[path\] weight 1/);
  assert.match(trace, /seeds — entities nearest the query: /);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the multi-hop demo answers bridge questions with both paragraphs", async () => {
  const { page, errors } = await openApp();
  await page.click('button[data-demo="multihop"]');
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("400 documents"));
  const question = "The director of the romantic comedy \"Big Stone Gap\" is based in what New York city?";
  await pickSample(page, question);
  await page.waitForFunction((asked) => document.querySelector("#results")?.dataset.query === asked, question);
  const labels = await page.$$eval("#results .result .label", (items) => items.map((l) => l.textContent));
  for (const title of ["Big Stone Gap (film)", "Adriana Trigiani"]) {
    assert.ok(labels.some((l) => l.startsWith(`${title} › `)), `${title} missing from ${JSON.stringify(labels)}`);
  }
  const trace = await page.textContent("#trace pre");
  assert.match(trace, /\[join\] weight 1/);
  assert.match(trace, /keep — survivors taken, by their best pair/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a large corpus lists its first documents, and the filter finds any other", async () => {
  const { page, errors } = await openApp();
  await page.click('button[data-demo="multihop"]');
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("400 documents"));
  await page.click("#documents summary");
  assert.equal(await page.$$eval("#documents li", (items) => items.length), 200);
  assert.equal(await page.textContent("#documents-shown"), "200 of 400 shown; filter to find the others");
  const listed = await page.$$eval("#documents li .title", (items) => items.map((t) => t.textContent));
  assert.ok(!listed.includes("Miklos Porkolab"), "a document beyond the first 200");
  await page.fill("#document-filter", "miklos PORKOLAB");
  await page.waitForFunction(() => document.querySelector("#documents-shown").textContent === "1 shown");
  assert.deepEqual(await page.$$eval("#documents li .title", (items) => items.map((t) => t.textContent)), ["Miklos Porkolab"]);
  await page.fill("#document-filter", "");
  await page.waitForFunction(() => document.querySelectorAll("#documents li").length === 200);
  assert.deepEqual(errors, []);
  await page.close();
});

test("an exported index opens again, in this tab or from the CLI's file; a bad file is refused", async () => {
  const { page, errors } = await openApp();
  await upload(page, [
    { name: "venus.md", mimeType: "text/markdown", buffer: Buffer.from("# Venus\n\nVenus has a thick carbon dioxide atmosphere and surface temperatures that melt lead.\n") },
  ], 7);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  assert.equal(download.suggestedFilename(), "quire-index.quire");
  const exported = await download.path();
  // The CLI reads what the browser wrote.
  assert.match(execFileSync(QUIRE, ["stats", exported], { encoding: "utf8" }), /^documents\s+7$/m);

  await page.click('button[data-demo="multihop"]');
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("400 documents"));
  await page.setInputFiles("#import", exported);
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("7 documents"));
  const results = await search(page, "Which planet is hot enough to melt lead?");
  assert.match(results[0].label, /^Venus › /);

  await page.setInputFiles("#import", { name: "notes.quire", mimeType: "application/octet-stream", buffer: Buffer.from("not a snapshot") });
  await page.waitForSelector("#notice");
  assert.match(await page.textContent("#notice"), /^notes\.quire: /);
  assert.match(await page.textContent("#stats-line"), /^7 documents/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the index is kept in this browser across reloads; a saved index that cannot be read gives a message and the demo", async () => {
  const { page, errors } = await openApp();
  assert.equal(await page.getAttribute("#storage", "data-saved"), "false");
  await upload(page, [
    { name: "mars.md", mimeType: "text/markdown", buffer: Buffer.from("# Mars\n\nOlympus Mons on Mars is the tallest volcano in the solar system.\n") },
  ], 7);
  await page.waitForSelector('#storage[data-saved="true"]');
  assert.match(await page.textContent("#storage"), /MB used of [\d.]+ MB/);

  await page.reload();
  await waitReady(page);
  assert.match(await page.textContent("#stats-line"), /^7 documents/);
  assert.match(await page.textContent("#storage"), /^Restored from this browser's storage/);
  const results = await search(page, "What is the tallest volcano?");
  assert.match(results[0].label, /^Mars › /);

  // A saved index from a broken write or another version: a clear message, the demo, no blank page.
  await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const file = await root.getFileHandle("index.quire", { create: true });
    const stream = await file.createWritable();
    await stream.write(new TextEncoder().encode("QUIRESNP and then nothing a snapshot should hold"));
    await stream.close();
  });
  await page.reload();
  await waitReady(page);
  assert.match(await page.textContent("#notice"), /^the index saved in this browser: .+ Showing "Planets and the Moon landing \(6 files\)" instead/);
  assert.match(await page.textContent("#stats-line"), /^6 documents/);

  // Forget removes it: the next visit is a first visit.
  await page.click("#forget");
  await page.waitForFunction(() => document.querySelector("#notice")?.textContent.startsWith("The saved index is forgotten"));
  await page.reload();
  await waitReady(page);
  assert.equal(await page.$("#notice"), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a long indexing run shows its rate and time left, new files are found by their words while they are embedded, and Cancel keeps the index as it was", async () => {
  const { page, errors } = await openApp();
  const paragraph = (i, j) => `Report ${i}, part ${j}: the survey team logged tide heights, wind speed and the colour of the evening sky at station ${i * 7 + j}.`;
  const files = Array.from({ length: 240 }, (_, i) => ({
    name: `log-${i}.md`,
    mimeType: "text/markdown",
    buffer: Buffer.from(`# Station log ${i}\n\n${[0, 1, 2, 3].map((j) => paragraph(i, j)).join("\n\n")}\n`),
  }));
  await page.setInputFiles("#files", files);
  await page.waitForFunction(() => /texts\/s · about \d+ s left/.test(document.querySelector("#status")?.textContent ?? ""), null, { timeout: 120_000 });
  // While the new files are embedded, the index being built answers: the documents it had, and the new
  // ones by their words before their vectors, and the note says so.
  const during = await search(page, "Who was the first person to walk on the Moon?");
  assert.ok(during.some((r) => r.meta.startsWith("demo/")), JSON.stringify(during));
  assert.equal(await page.getAttribute("#status", "data-state"), "indexing");
  const stations = await search(page, "Which station logged the colour of the evening sky?");
  const byWords = await page.$$eval("#found-by-words .result .meta", (items) => items.map((item) => item.textContent));
  const found = [...stations.map((r) => r.meta), ...byWords].filter((meta) => meta.startsWith("log-"));
  assert.ok(found.length >= 5, JSON.stringify({ stations, byWords }));
  assert.ok(byWords.every((meta) => meta.startsWith("log-") && /· bm25 ranked it #\d+$/.test(meta)), JSON.stringify(byWords));
  assert.equal(await page.getAttribute("#status", "data-state"), "indexing");
  const note = byWords.length > 0 ? / \(below\)\.$/ : /[^)]\.$/;
  assert.match(await page.textContent("#still-indexing"), /^\d+ new documents are still being embedded: until then they are found by their words( \(below\))?\.$/);
  assert.match(await page.textContent("#still-indexing"), note);
  await page.click("#cancel");
  await page.waitForSelector(READY);
  assert.match(await page.textContent("#ingest-summary"), /^Cancelled after embedding \d+ texts: the index is as it was\.$/);
  assert.equal(await documentCount(page), 6);
  // (Another question than before: `search` waits for results to this question.)
  const after = await search(page, "Which station logged the wind speed and the colour of the evening sky?");
  assert.ok(!after.some((r) => r.meta.startsWith("log-")), JSON.stringify(after));
  assert.equal(await page.$("#still-indexing"), null);
  assert.equal(await page.$("#found-by-words"), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a document can be removed", async () => {
  const { page, errors } = await openApp();
  await page.click("#documents summary");
  await page.click('#documents li[data-source="demo/sun.txt"] .remove');
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("5 documents"));
  const sources = await page.$$eval("#documents li", (items) => items.map((li) => li.dataset.source));
  assert.ok(!sources.includes("demo/sun.txt") && sources.includes("demo/moon.md"), JSON.stringify(sources));
  const results = await search(page, "What is the Sun made of?");
  assert.ok(results.every((r) => !r.meta.startsWith("demo/sun.txt")), JSON.stringify(results));
  assert.deepEqual(errors, []);
  await page.close();
});

test("nothing leaves the tab: every request while loading, opening demos, indexing and asking is same-origin", async () => {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}snapshots/planets-questions.json`);
  await page.evaluate(forgetSavedIndex);
  const requests = [];
  page.on("request", (request) => requests.push(request.url()));
  const errors = watchErrors(page);
  await page.goto(server.url);
  await waitReady(page);
  await page.check("#keep-published");
  await upload(page, [
    { name: "ceres.md", mimeType: "text/markdown", buffer: Buffer.from("# Ceres\n\nCeres is the largest object in the asteroid belt.\n") },
  ], 7);
  await search(page, "What is the largest object in the asteroid belt?");
  await page.click('button[data-demo="multihop"]');
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("400 documents"));
  await search(page, "Who is older, Annie Morton or Terry Richardson?");
  const origin = new URL(server.url).origin;
  const elsewhere = requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:") && !url.startsWith("blob:"));
  assert.deepEqual(elsewhere, []);
  assert.ok(requests.some((url) => url.endsWith("/snapshots/multihop.quire")), JSON.stringify(requests));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a whole folder is added by its picker or by dropping it, and dropped files like picked ones", async () => {
  const { page, errors } = await openApp();
  const folder = await mkdtemp(join(tmpdir(), "quire-folder-"));
  await mkdir(join(folder, "notes", "outer"), { recursive: true });
  await writeFile(join(folder, "notes", "io.md"), "# Io\n\nIo is the most volcanically active body in the solar system.\n");
  await writeFile(join(folder, "notes", "outer", "eris.txt"), "Eris is a dwarf planet beyond Neptune, slightly smaller than Pluto.\n");
  await page.setInputFiles("#folder", join(folder, "notes"));
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("8 documents"));
  const sources = await page.$$eval("#documents li", (items) => items.map((li) => li.dataset.source));
  assert.ok(sources.includes("notes/io.md") && sources.includes("notes/outer/eris.txt"), JSON.stringify(sources));
  await rm(folder, { recursive: true, force: true });

  const dropped = await page.evaluateHandle(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File(["# Pluto\n\nPluto's heart-shaped glacier is made of nitrogen ice.\n"], "pluto.md", { type: "text/markdown" }));
    return transfer;
  });
  await page.dispatchEvent("#drop-zone", "drop", { dataTransfer: dropped });
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("9 documents"));
  const results = await search(page, "Which dwarf planet has a heart-shaped glacier?");
  assert.match(results[0].label, /^Pluto › /);

  // A folder dropped from the desktop: Chromium's own drag and drop (through DevTools), so the page gets the
  // folder's file-system entries as it would from a file manager, and walks them.
  const desktop = await mkdtemp(join(tmpdir(), "quire-drop-"));
  await mkdir(join(desktop, "moons", "outer"), { recursive: true });
  await writeFile(join(desktop, "moons", "titan.md"), "# Titan\n\nTitan has lakes and seas of liquid methane.\n");
  await writeFile(join(desktop, "moons", "outer", "triton.txt"), "Triton orbits Neptune backwards, against its spin.\n");
  const devtools = await page.context().newCDPSession(page);
  const zone = await page.locator("#drop-zone").boundingBox();
  const at = { x: zone.x + zone.width / 2, y: zone.y + zone.height / 2 };
  const data = { items: [], files: [join(desktop, "moons")], dragOperationsMask: 1 };
  for (const type of ["dragEnter", "dragOver", "drop"]) await devtools.send("Input.dispatchDragEvent", { type, ...at, data });
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("11 documents"));
  const all = await page.$$eval("#documents li", (items) => items.map((li) => li.dataset.source));
  assert.ok(all.includes("moons/titan.md") && all.includes("moons/outer/triton.txt"), JSON.stringify(all));
  const moons = await search(page, "Which moon has seas of methane?");
  assert.match(moons[0].label, /^Titan › /);
  await rm(desktop, { recursive: true, force: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a real book's folder: the chapter answers, not the all-in-one page; the report is a few lines", async () => {
  // Three chapters of the Rustonomicon as the toolchain ships them, the book's all-in-one page holding exactly
  // those chapters (as mdBook writes print.html), a redirect stub, and the book's stylesheets, scripts and images.
  const book = join(execFileSync("rustc", ["--print", "sysroot"], { encoding: "utf8" }).trim(), "share/doc/rust/html/nomicon");
  const folder = await mkdtemp(join(tmpdir(), "quire-book-"));
  const root = join(folder, "nomicon");
  await mkdir(join(root, "css"), { recursive: true });
  const chapters = ["poisoning.html", "transmutes.html", "unbounded-lifetimes.html"];
  const main = (page) => page.slice(page.indexOf("<main>") + 6, page.indexOf("</main>"));
  const contents = [];
  for (const chapter of chapters) {
    const page = await readFile(join(book, chapter), "utf8");
    contents.push(main(page));
    await writeFile(join(root, chapter), page);
  }
  const print = await readFile(join(book, "print.html"), "utf8");
  await writeFile(join(root, "print.html"), print.replace(main(print), contents.join("\n")));
  await writeFile(join(root, "arc.html"), await readFile(join(book, "arc.html")));
  const assets = (await readdir(book)).filter((name) => /\.(js|css|png|svg)$/.test(name));
  for (const name of assets) await writeFile(join(root, name), await readFile(join(book, name)));
  for (const name of await readdir(join(book, "css"))) await writeFile(join(root, "css", name), await readFile(join(book, "css", name)));

  const { page, errors } = await openApp();
  const before = await documentCount(page);
  await page.setInputFiles("#folder", root);
  await page.waitForFunction((n) => document.querySelector("#stats-line")?.textContent.startsWith(`${n} documents`), before + 3, { timeout: 120_000 });
  await rm(folder, { recursive: true, force: true });
  const results = await search(page, "What happens to a Mutex if a thread panics while it holds the lock?");
  assert.match(results[0].meta, /^nomicon\/poisoning\.html · /, JSON.stringify(results));
  assert.ok(results.every((r) => !r.meta.startsWith("nomicon/print.html")), JSON.stringify(results));
  const sources = results.map((r) => r.meta.split(" · ")[0]);
  assert.equal(new Set(sources).size, sources.length, `each document once: ${JSON.stringify(sources)}`);

  const lines = await page.$$eval("#ingest-problems > li", (items) => items.map((li) => ({ text: li.textContent, problem: li.classList.contains("problem") })));
  assert.deepEqual(lines.filter((l) => l.problem), [], JSON.stringify(lines));
  assert.ok(lines.some((l) => /^nomicon\/print\.html: its text is in /.test(l.text)), JSON.stringify(lines));
  assert.ok(lines.some((l) => l.text.startsWith("nomicon/arc.html: a redirect to ./arc-mutex/arc.html")), JSON.stringify(lines));
  assert.ok(lines.some((l) => /^\d+ files of types Quire does not read, skipped: (css|js) \d+/.test(l.text)), JSON.stringify(lines));
  assert.ok(lines.length <= 4, `one line per kind of file left out: ${JSON.stringify(lines)}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("indexing runs off the page's thread: the page stays responsive, and every step reports its progress", async () => {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}snapshots/planets-questions.json`);
  await page.evaluate(forgetSavedIndex);
  // Every status line from the first moment on, to see each step report itself.
  await page.addInitScript(() => {
    window.statusLines = [];
    new MutationObserver(() => {
      const line = document.querySelector("#status")?.textContent;
      if (line && line !== window.statusLines.at(-1)) window.statusLines.push(line);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const errors = watchErrors(page);
  await page.goto(server.url);
  await waitReady(page);
  const files = Array.from({ length: 60 }, (_, i) => ({
    name: `survey-${i}.md`,
    mimeType: "text/markdown",
    buffer: Buffer.from(`# Survey ${i}\n\n${[0, 1, 2, 3].map((j) => `Leg ${j} of survey ${i} crossed ridge ${1000 + i * 5 + j} where the team counted ${j + 3} marmots.`).join("\n\n")}\n`),
  }));
  await page.setInputFiles("#files", files);
  await page.waitForFunction(() => /^Embedding \d+ \/ \d+ texts · /.test(document.querySelector("#status")?.textContent ?? ""), null, { timeout: 120_000 });
  // While the engine embeds, the page's own event loop keeps turning and typing lands at once.
  const longestStall = await page.evaluate(() => new Promise((done) => {
    let last = performance.now(), longest = 0;
    const started = last;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (now - started < 1500) setTimeout(tick, 0); else done(longest);
    };
    setTimeout(tick, 0);
  }));
  assert.ok(longestStall < 400, `the page stalled for ${longestStall.toFixed(0)} ms while indexing`);
  await page.fill("#query", "marmots on the ridge");
  assert.equal(await page.inputValue("#query"), "marmots on the ridge");
  // (The user's first files start a corpus of their own: the demo's six documents are not beside them.)
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("60 documents"), null, { timeout: 300_000 });
  const lines = await page.evaluate(() => window.statusLines);
  for (const step of [/^Reading files: \d+ \/ 60/, /^Embedding \d+ \/ \d+ texts · [\d.]+ texts\/s · about \d+ s left/, /^Building the knowledge graph/]) {
    assert.ok(lines.some((line) => step.test(line)), `${step} never shown in ${JSON.stringify(lines)}`);
  }
  const results = await search(page, "How many marmots were counted on ridge 1042?");
  assert.match(results[0].label, /^Survey 8 › /);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a PDF that crashes the parser is skipped with an error naming it; the other files and the index are kept", async () => {
  const { page, errors } = await openApp();
  await upload(page, [
    { name: "report.pdf", mimeType: "application/pdf", buffer: await readFile(join(import.meta.dirname, "../fixtures/pdf-extract-panics.pdf")) },
    { name: "neptune.md", mimeType: "text/markdown", buffer: Buffer.from("# Neptune\n\nNeptune has the fastest winds in the solar system.\n") },
  ], 7);
  const problems = await page.$$eval("#ingest-problems li", (items) => items.map((li) => li.textContent));
  assert.ok(problems.some((p) => /^report\.pdf: the parser crashed on this file \(.+\); it was skipped$/.test(p)), JSON.stringify(problems));
  const results = await search(page, "Where are the fastest winds?");
  assert.match(results[0].label, /^Neptune › /);
  assert.ok((await search(page, "Who was the first person to walk on the Moon?")).some((r) => r.meta.startsWith("demo/")));
  // The engine's panic reaches the console; nothing else may.
  assert.deepEqual(errors.filter((e) => !/panicked|unreachable|unexpected encoding/.test(e)), []);
  await page.close();
});

test("a crash of the idle engine brings it back by itself with the index as it was, and the user is told once", async () => {
  const { page, errors } = await openApp();
  const question = "Who was the first person to walk on the Moon?";
  const before = (await search(page, question)).map((result) => result.label);
  await page.evaluate(() => {
    window.notices = [];
    new MutationObserver(() => {
      const text = document.querySelector("#notice")?.textContent;
      if (text && window.notices.at(-1) !== text) window.notices.push(text);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  // The engine answering is the last worker started in the engine's role (the one by words it replaced has
  // ended); an uncaught error is what the page hears of a wasm module's abort.
  const engines = [];
  for (const worker of page.workers()) {
    if (await worker.evaluate(() => self.quireRole).catch(() => null) === "engine") engines.push(worker);
  }
  assert.ok(engines.length > 0, "no engine worker found");
  await engines.at(-1).evaluate(() => { setTimeout(() => { throw new Error("a crash the test caused"); }); });
  await page.waitForFunction(() => /^The engine stopped/.test(document.querySelector("#notice")?.textContent ?? ""));
  await waitReady(page);
  assert.deepEqual((await search(page, question)).map((result) => result.label), before);
  assert.equal(await documentCount(page), 6);
  const notices = await page.evaluate(() => window.notices);
  assert.equal(notices.length, 1, JSON.stringify(notices));
  assert.match(notices[0], /^The engine stopped \(.*a crash the test caused.*\); it was restarted with the index as it was\.$/);
  assert.deepEqual(errors.filter((e) => !/a crash the test caused/.test(e)), []);
  await page.close();
});

test("hostile files from the repository's corpus leave the tab alive: the good file is indexed, each bad one named", async () => {
  const { page, errors } = await openApp();
  const root = await mkdtemp(join(tmpdir(), "quire-hostile-"));
  const folder = join(root, "drop");
  // Cases of scripts/hostile_inputs.py, made on the spot: a 3 MB header row over 2,000 rows, a PDF whose
  // outline points at itself, a file over the size limit (sparse: refused from its size, never read), and
  // a hidden file; each case also writes the good file.
  for (const name of ["csv-header-amplification", "pdf-outline-loop", "text-oversized"]) {
    execFileSync("python3", [join(import.meta.dirname, "../../scripts/hostile_inputs.py"), "-", "--write", folder, name]);
  }
  await writeFile(join(folder, ".hidden.md"), "# Hidden\n\nAn editor's backup, not read.\n");
  const before = await documentCount(page);
  await page.setInputFiles("#folder", folder);
  await page.waitForFunction((n) => document.querySelector("#stats-line")?.textContent.startsWith(`${n} documents`), before + 3, { timeout: 180_000 });
  const sources = await page.$$eval("#documents li", (items) => items.map((li) => li.dataset.source));
  for (const kept of ["drop/good.md", "drop/wide.csv", "drop/loop.pdf"]) assert.ok(sources.includes(kept), JSON.stringify(sources));
  assert.ok(!sources.some((source) => source.includes("hidden")), JSON.stringify(sources));
  assert.match(await page.textContent("#notice"), /drop\/huge\.txt: the file is 68157440 bytes, above the limit of 67108864 bytes/);
  const results = await search(page, "What does a lighthouse keeper trim every evening?");
  assert.match(results[0].meta, /^drop\/good\.md · /);
  assert.ok((await search(page, "Who was the first person to walk on the Moon?")).some((r) => r.meta.startsWith("demo/")), "the index as it was is kept");
  await rm(root, { recursive: true, force: true });
  assert.deepEqual(errors, []);
  await page.close();
});

/// Peak resident memory in MB of the browser's renderer processes (the page and its workers live in one),
/// sampled every 250 ms until `stop`.
function watchRendererMemory() {
  let peak = 0;
  const sample = async () => {
    for (const pid of (await readdir("/proc")).filter((entry) => /^\d+$/.test(entry))) {
      try {
        if (!(await readFile(`/proc/${pid}/cmdline`, "utf8")).includes("--type=renderer")) continue;
        const resident = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"));
        if (resident) peak = Math.max(peak, Number(resident[1]) / 1024);
      } catch { /* the process ended between the listing and the read */ }
    }
  };
  const timer = setInterval(sample, 250);
  return { stop: async () => { clearInterval(timer); await sample(); return peak; } };
}

test("files of many links, headings, rows and columns dropped beside a good one leave the tab alive, the good file found and the renderer under 2 GB", async () => {
  const { page, errors } = await openApp();
  const root = await mkdtemp(join(tmpdir(), "quire-costly-"));
  const folder = join(root, "drop");
  // Issue 48's seven cases of scripts/hostile_inputs.py (35 MB in all), each writing the good file too.
  const cases = ["html-many-links", "csv-one-word-rows", "markdown-many-headings", "csv-million-ones", "text-one-word",
    "markdown-table-of-x", "markdown-backticks"];
  for (const name of cases) {
    execFileSync("python3", [join(import.meta.dirname, "../../scripts/hostile_inputs.py"), "-", "--write", folder, name]);
  }
  const memory = watchRendererMemory();
  const dropped = Date.now();
  await page.setInputFiles("#folder", folder);
  // Once the new texts are being embedded, the new documents are found by their words. (Issue 48's 60 s is
  // docs/RELIABILITY.md's measurement, 32 s there; the bound here is a liveness check that a machine slower
  // than that one still passes: the test command's own machine ran its builds at half that speed on 2026-12-01.)
  await page.waitForFunction(() => /texts\/s · about \d+ s left/.test(document.querySelector("#status")?.textContent ?? ""), null, { timeout: 150_000 });
  const results = await search(page, "What does a lighthouse keeper trim every evening?");
  const byWords = await page.$$eval("#found-by-words .result .meta", (items) => items.map((item) => item.textContent));
  const seconds = (Date.now() - dropped) / 1000;
  const metas = [...results.map((r) => r.meta), ...byWords];
  assert.ok(metas.some((meta) => meta.startsWith("drop/good.md")), JSON.stringify(metas));
  assert.ok(seconds < 150, `the good file was found ${seconds} s after the drop`);
  // The tab answered the question while it indexes on.
  assert.equal(await page.getAttribute("#status", "data-state"), "indexing");
  const peak = await memory.stop();
  assert.ok(peak < 2048, `the renderer reached ${peak} MB`);
  console.log(`good file found ${seconds.toFixed(1)} s after the drop; renderer peak ${peak.toFixed(0)} MB`);
  await rm(root, { recursive: true, force: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a result opens its document's outline at that chunk, with each chunk's relevance to the question", async () => {
  const { page, errors } = await openApp();
  const results = await search(page, "Who was the first person to walk on the Moon?");
  await page.click("#results .result:first-child .label");
  await page.waitForSelector("#outline .outline-chunk.focused");
  const title = results[0].label.split(" › ")[0];
  assert.equal(await page.textContent("#outline-heading"), `Outline of ${title}`);
  assert.equal(await page.textContent("#outline .outline-chunk.focused .label"), results[0].label);
  const chunks = await page.$$eval("#outline .outline-chunk", (items) => items.map((li) => ({
    label: li.querySelector(".label").textContent, relevance: Number(li.dataset.relevance),
  })));
  assert.ok(chunks.length > 1 && chunks.every((c) => c.label.startsWith(`${title} › `) && c.relevance >= -1 && c.relevance <= 1), JSON.stringify(chunks));
  // The outline is the document in reading order; its sections are listed with their headings.
  const headings = await page.$$eval("#outline .outline-section > .heading", (items) => items.map((h) => h.textContent));
  assert.ok(headings.length >= 2, JSON.stringify(headings));
  const shot = await page.locator("#outline").screenshot();
  assert.ok(shot.length > 8000, `the outline looks blank (${shot.length} bytes of PNG)`);
  await page.click("#close-outline");
  assert.equal(await page.$("#outline"), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the teaching view steps through the retrieval as a graph in seed 000's colours, with pan, zoom and select", async () => {
  const { page, errors } = await openApp();
  await search(page, "Who commanded the mission that landed Eagle?");
  await page.click("#teaching-view summary");
  await page.waitForSelector("#trace-graph .node");
  const visible = () => page.$$eval("#trace-graph .node:not(.hidden)", (nodes) => nodes.length);
  const total = await page.$$eval("#trace-graph .node", (nodes) => nodes.length);
  assert.equal(await visible(), total, "the whole answer shows first");
  // The tour: the question, each retriever's steps (where it starts, what it follows, what it ranks), the
  // fusion, the final context; each step with a caption in plain words.
  const [, at, count] = (await page.textContent("#stage")).match(/^(\d+) \/ (\d+): final context$/);
  const steps = Number(count);
  assert.equal(Number(at), steps);
  assert.ok(steps >= 8, `${steps} steps`);
  for (let i = 1; i < steps; i++) await page.click("#step-back");
  assert.equal(await page.textContent("#stage"), `1 / ${steps}: the question`);
  assert.equal(await visible(), 1, "only the question at the first step");
  assert.equal(await page.textContent("#caption"), "The question: “Who commanded the mission that landed Eagle?”. 4 retrievers look for it, each in its own way.");
  const counts = [1];
  const captions = [];
  for (let i = 1; i < steps; i++) {
    await page.click("#step-forward");
    counts.push(await visible());
    captions.push(await page.textContent("#caption"));
  }
  assert.ok(counts.every((n, i) => i === 0 || n >= counts[i - 1]) && counts.at(-1) === total, JSON.stringify(counts));
  assert.ok(counts[1] > 1, `the first retriever adds nodes: ${JSON.stringify(counts)}`);
  for (const expected of [/^Dense search finds these \d+ chunks by meaning/, /^BM25 finds these \d+ chunks by their words\.$/,
    /^The node-set join starts from \d+ (pages|entities|nodes): /, /^The default method makes one list of the 4 lists: \d+ chunks/,
    /^The final context: the \d+ best chunks shown as results/]) {
    assert.ok(captions.some((c) => expected.test(c)), `${expected} in ${JSON.stringify(captions)}`);
  }

  // Presenting: full screen, → and space step on, ← back.
  await page.click("#present");
  await page.waitForFunction(() => document.fullscreenElement?.classList.contains("teaching"));
  await page.keyboard.press("ArrowLeft");
  assert.equal(await page.getAttribute("#stage", "data-stage"), String(steps - 2));
  await page.keyboard.press("Space");
  assert.equal(await page.getAttribute("#stage", "data-stage"), String(steps - 1));
  await page.evaluate(() => document.exitFullscreen());
  await page.waitForFunction(() => document.fullscreenElement === null);

  // Seed 000's colours: chunks green, sections blue, entities red.
  const fill = (kind) => page.$eval(`#trace-graph .node.${kind} circle`, (c) => getComputedStyle(c).fill).catch(() => null);
  assert.equal(await fill("chunk"), "rgb(38, 119, 63)");
  const entity = await fill("entity");
  assert.ok(entity === null || entity === "rgb(176, 54, 43)", entity);

  // Play runs from the question to the final context by itself.
  await page.click("#play");
  await page.waitForFunction(() => document.querySelector("#stage")?.dataset.stage === "0");
  await page.waitForFunction((last) => document.querySelector("#stage")?.dataset.stage === last, String(steps - 1), { timeout: 60_000 });

  // Select, zoom and pan.
  await page.click("#trace-graph .node.chunk.current >> nth=0", { force: true });
  assert.match(await page.textContent("#selected-node"), /^chunk: .+ › #\d+ · /);
  const viewBox = () => page.getAttribute("#trace-graph", "viewBox");
  const before = await viewBox();
  await page.click("#teaching-view .zoom-in");
  const zoomed = await viewBox();
  assert.notEqual(zoomed, before);
  const box = await page.locator("#trace-graph").boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + 20);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 120, box.y + 60, { steps: 4 });
  await page.mouse.up();
  assert.notEqual(await viewBox(), zoomed);
  const shot = await page.locator("#trace-graph").screenshot();
  assert.ok(shot.length > 8000, `the drawing looks blank (${shot.length} bytes of PNG)`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("on a projector (1280×720) every label of the teaching view is at least 14 px at every step", async () => {
  const { page, errors } = await openApp();
  await page.setViewportSize({ width: 1280, height: 720 });
  await search(page, "Who was the first person to walk on the Moon?");
  await page.click("#teaching-view summary");
  await page.waitForSelector("#trace-graph .node");
  const steps = Number((await page.textContent("#stage")).match(/^\d+ \/ (\d+):/)[1]);
  await page.locator("#teaching-view .teaching").focus();
  await page.keyboard.press("Home");
  const sizes = [];
  for (let step = 0; step < steps; step++) {
    if (step > 0) await page.keyboard.press("ArrowRight");
    await page.waitForFunction((s) => document.querySelector("#stage")?.dataset.stage === String(s), step);
    // The rendered size of each label shown: its font size times the drawing's scale on screen.
    sizes.push(await page.evaluate(() => Math.min(...[...document.querySelectorAll("#trace-graph .node:not(.hidden) text, #trace-graph .lane-label")]
      .map((text) => parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a))));
  }
  assert.ok(sizes.every((px) => px >= 14), `smallest label per step: ${sizes.map((px) => px.toFixed(1)).join(", ")} px`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the whole corpus is drawn as a graph you can pan, zoom and select, and a chunk opens in the outline", async () => {
  const { page, errors } = await openApp();
  await page.click('button[data-demo="multihop"]');
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("400 documents"));
  await page.click("#corpus-graph summary");
  await page.waitForSelector("#corpus-graph-drawing .node");
  assert.match(await page.textContent("#corpus-graph-status"), /^400 pages · 435 chunks · \d+ edges$/);
  const count = (selector) => page.$$eval(selector, (found) => found.length);
  assert.equal(await count("#corpus-graph-drawing .node.page"), 400);
  assert.equal(await count("#corpus-graph-drawing .node.chunk"), 435);
  assert.ok(await count("#corpus-graph-drawing .edge.semantic") > 100, "the pages' citations are drawn");
  const fill = (kind) => page.$eval(`#corpus-graph-drawing .node.${kind} circle`, (c) => getComputedStyle(c).fill);
  assert.notEqual(await fill("chunk"), await fill("page"));

  // Page labels from the start; chunk labels once zoomed in.
  const labelShown = (kind) => page.$eval(`#corpus-graph-drawing .node.${kind} text`, (t) => getComputedStyle(t).display !== "none");
  assert.ok(await labelShown("page"));
  assert.ok(!(await labelShown("chunk")));
  const svg = page.locator("#corpus-graph-drawing");
  const viewBox = () => svg.getAttribute("viewBox");
  const before = await viewBox();
  for (let i = 0; i < 6; i++) await page.click("#corpus-graph .zoom-in");
  assert.ok(await labelShown("chunk"));
  await svg.scrollIntoViewIfNeeded();
  const box = await svg.boundingBox();
  const zoomed = await viewBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, 300);
  await page.waitForFunction((zoomed) => document.querySelector("#corpus-graph-drawing").getAttribute("viewBox") !== zoomed, zoomed);
  await page.click("#corpus-graph .zoom-reset");
  assert.equal(await viewBox(), before);

  // Pan and zoom at this size stay quick: the time from each input to the next painted frame.
  const frames = await inputToFrameTimes(page, "#corpus-graph-drawing", 20);
  console.log(`corpus graph, 835 nodes: input to painted frame p50 ${percentile(frames, 0.5).toFixed(1)} ms, max ${frames.at(-1).toFixed(1)} ms`);

  // Select a chunk, then open it where it is in its document.
  await page.click("#corpus-graph-drawing .node.chunk >> nth=3", { force: true });
  const described = await page.textContent("#corpus-node");
  assert.match(described, /^chunk: .+ › #\d+ · .+Open in the outline$/);
  assert.equal(await count("#corpus-graph-drawing .selection-ring"), 1);
  await page.click("#corpus-node-open");
  await page.waitForSelector("#outline .outline-chunk.focused");
  const focused = await page.textContent("#outline .outline-chunk.focused .label");
  assert.ok(described.startsWith(`chunk: ${focused}`), `${described} / ${focused}`);
  const shot = await svg.screenshot();
  assert.ok(shot.length > 8000, `the drawing looks blank (${shot.length} bytes of PNG)`);

  // A new index is drawn again.
  await page.click('button[data-demo="planets"]');
  await page.waitForFunction(() => /^6 pages · 17 sections · 9 entities/.test(document.querySelector("#corpus-graph-status")?.textContent));
  assert.deepEqual(errors, []);
  await page.close();
});

/// Serves `root` with Python's own static server (not the test harness: a build or a site needs nothing of
/// the server); its address, and a way to stop it.

test("a first visit answers by words and by the query table's meaning before the embedding model has loaded, then asks again by the model once it has", async () => {
  // The model is held back, as a slow network would: the engine worker's request for it waits here. (A server
  // of its own: another origin, with nothing of the other tests' in its cache.)
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const slow = await serveDist(DIST, { hold: (path) => (path.endsWith("/models/model.onnx") ? held : null) });
  const page = await browser.context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(slow.url);
    await page.waitForSelector('#status[data-state="answering-by-words"]', { timeout: 120_000 });
    assert.match(await page.textContent("#status"), /^Answering by words while the embedding model loads/);
    assert.ok(await page.isDisabled("#files"), "files wait for the model");
    const byWords = await search(page, "Who walked on the Moon in 1969?");
    assert.match(byWords[0].label, /Apollo 11/, JSON.stringify(byWords));
    // By the chosen method (the default), its dense list ranked by the question's vector from the index's
    // query table: meaning without the model.
    assert.match(await page.textContent("#answer-timing"), /\(default\)$/);
    assert.match(await page.textContent("#by-words"), /^Found by their words and meaning, the question's meaning read from the index's query table while the embedding model loads/);
    assert.match(await page.textContent("#trace pre"), /\bdense\b/);
    release();
    await waitReady(page);
    // Asked again by the chosen method, without a click.
    await page.waitForFunction(() => !document.querySelector("#by-words") && /\(default\)$/.test(document.querySelector("#answer-timing")?.textContent ?? ""), null, { timeout: 60_000 });
    assert.match(await page.textContent("#results .result .label"), /Apollo 11/);
    assert.deepEqual(errors, []);
  } finally {
    release();
    await page.close();
    await slow.close();
  }
});

test("when the engine's module cannot be loaded, the page goes on answering by words and says why", async () => {
  const broken = await serveDist(DIST, { missing: (path) => /\/quire-engine-[^/]*$/.test(path) });
  const page = await browser.context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(broken.url);
    await page.waitForFunction(() => /^Answering by words only: the engine with the embedding model/.test(document.querySelector("#status")?.textContent ?? ""), null, { timeout: 120_000 });
    assert.equal(await page.getAttribute("#status", "data-state"), "answering-by-words");
    assert.match(await page.textContent("#status"), /could not be started/);
    assert.ok(await page.isDisabled("#files"), "files wait for a model that will not come");
    const results = await search(page, "Who walked on the Moon in 1969?");
    assert.match(results[0].label, /Apollo 11/, JSON.stringify(results));
    // The engine by words reads the index's query table: the default answers, by meaning too.
    assert.match(await page.textContent("#answer-timing"), /\(default\)$/);
    assert.match(await page.textContent("#by-words"), /query table/);
    // The 404 and the worker's error are the only complaints.
    assert.deepEqual(errors.filter((e) => !/404|quire-engine-|could not be started/.test(e)), []);
  } finally {
    await page.close();
    await broken.close();
  }
});

test("the page's module links neither the embedder, the parsers nor learned fusion's network; the engine's module has them", async () => {
  // Function names of a module, from its "name" custom section (the build keeps it): what the linker kept.
  const functionNames = async (file) => {
    const bytes = await readFile(join(DIST, file));
    const names = [];
    const leb = (at) => { let value = 0, shift = 0, byte; do { byte = bytes[at++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80); return [value, at]; };
    for (let at = 8; at < bytes.length;) {
      const id = bytes[at];
      const [size, body] = leb(at + 1);
      if (id === 0) {
        const [length, name] = leb(body);
        if (bytes.toString("utf8", name, name + length) === "name") names.push(bytes.toString("latin1", name + length, body + size));
      }
      at = body + size;
    }
    return { size: bytes.length, names: names.join("") };
  };
  const built = await readdir(DIST);
  const page = await functionNames(built.find((f) => /^quire-page-.*_bg\.wasm$/.test(f)));
  const engine = await functionNames(built.find((f) => /^quire-engine-.*_bg\.wasm$/.test(f)));
  // The zip crate's reader (DOCX, ODT, EPUB) by its module path: the linker inlines `ZipArchive`'s own
  // functions differently from build to build, and the page's module names `zip::result::ZipError` alone.
  for (const linked of ["tract_core", "tokenizers::", "pdf_extract::", "html5ever::", "zip::read::", "candle_nn::"]) {
    assert.ok(!page.names.includes(linked), `the page's module links ${linked}`);
    assert.ok(engine.names.includes(linked), `the engine's module lacks ${linked}`);
  }
  assert.ok(page.size < engine.size / 3, `page ${page.size} bytes, engine ${engine.size}`);
});

test("any static server serves the build, and after a first visit the app opens and answers offline", async () => {
  const served = await pythonServer(DIST);
  try {
    const url = served.url;
    const page = await browser.context.newPage();
    const errors = watchErrors(page);
    await page.goto(url);
    await waitReady(page);
    // The service worker takes the page over once it has cached the build.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 120_000 });
    const manifest = await page.evaluate(async () => (await fetch(document.querySelector('link[rel="manifest"]').href)).json());
    assert.equal(manifest.short_name, "Quire");
    assert.equal(manifest.display, "standalone");

    await browser.context.setOffline(true);
    served.stop();
    await page.reload();
    await waitReady(page);
    const results = await search(page, "Who was the first person to walk on the Moon?");
    assert.ok(results.slice(0, 3).some((r) => r.text.includes("Neil Armstrong became the first person")), JSON.stringify(results));
    await page.click('button[data-demo="multihop"]');
    await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("400 documents"));
    // Offline, the service worker cannot be fetched again; the browser reports that, and nothing else may fail.
    assert.deepEqual(errors.filter((e) => !/sw\.js|ServiceWorker|ERR_INTERNET_DISCONNECTED/.test(e)), []);
    await page.close();
  } finally {
    await browser.context.setOffline(false);
    served.stop();
  }
});

/// Serves `site` with every path `missing` names answered 404, and runs `visit` on a page opened at it, with
/// the paths the page and its workers requested.
async function visitWithout(site, missing, visit) {
  const host = await serveDist(site, { missing });
  const page = await browser.context.newPage();
  const fetched = [];
  page.on("request", (request) => fetched.push(new URL(request.url()).pathname));
  try {
    await page.goto(host.url);
    await visit(page, fetched);
  } finally {
    await page.close();
    await host.close();
  }
}

test("quire site publishes a folder as a static site that opens its index from a folder of its host, answers its sample question, and works offline without leaving its origin", async () => {
  const work = await mkdtemp(join(tmpdir(), "quire-site-"));
  const nomicon = join(execFileSync("rustc", ["--print", "sysroot"], { encoding: "utf8" }).trim(), "share/doc/rust/html/nomicon");
  const docs = join(work, "notes");
  await mkdir(docs);
  for (const chapter of ["send-and-sync.html", "ownership.html", "exotic-sizes.html", "leaking.html"]) {
    await writeFile(join(docs, chapter), await readFile(join(nomicon, chapter)));
  }
  await writeFile(join(work, "questions.txt"), "Which types are not Send?\nWhat is a zero-sized type?\n");
  await writeFile(join(work, "lesson.yaml"), [
    "title: Send, Sync and sizes", "steps:",
    "  - question: Which types are not Send?", "    compare: [dense, bm25]", "    note: Both find the chapter; BM25 by the word Send.",
    "  - question: What does leaking memory mean?", "    compare: [bm25, dense, join]", "    fusion: rrf", ""].join("\n"));
  const site = join(work, "site");
  const printed = execFileSync(QUIRE, ["site", docs, "-o", site, "--title", "Unsafe Rust notes", "--questions", join(work, "questions.txt"),
    "--lesson", join(work, "lesson.yaml"), "--app", DIST], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const handout = await readFile(join(site, "handout.html"), "utf8");
  assert.equal(handout.match(/<svg /g)?.length, 2, "a drawing per step");
  assert.match(handout, /<th>dense<\/th><th>bm25<\/th><th>fused \(zsum\)<\/th>/);
  const listing = await readdir(site, { recursive: true });
  for (const file of ["corpora.json", "corpus/index.quire", "corpus/fragments/lexicon.bin", "corpus/questions.json", "sw.js", "index.html.gz", "index.html.br"]) {
    assert.ok(listing.includes(file), `${file} missing from ${listing}`);
  }
  assert.ok(listing.some((f) => f.endsWith("_bg.wasm.br")), "the module has no .br copy");
  assert.ok(!listing.includes("snapshots/planets.quire"), "the demos are published too");
  // A host that lost the whole snapshot: the page answers by words from the fragments, then, once the model
  // has loaded, by words and meaning from them (their centroids and partitions), and says why not more.
  await visitWithout(site, (path) => path.endsWith("/corpus/index.quire"), async (lostPage, lostFetched) => {
    await lostPage.waitForSelector('#status[data-state="answering-by-words"]', { timeout: 120_000 });
    const found = await search(lostPage, "What is a zero-sized type?");
    assert.match(found[0].label, /Exotically Sized Types/, JSON.stringify(found));
    await lostPage.waitForFunction(() => /^The site's whole index could not be loaded \(.*corpus\/index\.quire: HTTP 404/.test(document.querySelector("#notice")?.textContent ?? ""), null, { timeout: 120_000 });
    await waitReady(lostPage);
    const byMeaning = await search(lostPage, "What is a type with no size at all?");
    assert.match(byMeaning[0].label, /Exotically Sized Types/, JSON.stringify(byMeaning));
    assert.match(await lostPage.textContent("#from-fragments"), /^Found in the site's index fragments \(by their words and meaning/);
    assert.match(await lostPage.textContent("#answer-timing"), /\(zsum\)/);
    assert.ok(lostFetched.some((f) => f.endsWith("/corpus/fragments/vectors/centroids.bin")), lostFetched.join(" "));
    assert.ok(lostFetched.some((f) => /\/corpus\/fragments\/vectors\/[0-9a-f]{3}\.bin$/.test(f)), lostFetched.join(" "));
  });

  // A host that lacks the fragments (a partial upload): the page opens the whole snapshot instead.
  await visitWithout(site, (path) => path.includes("/corpus/fragments/"), async (unsplitPage) => {
    await waitReady(unsplitPage);
    assert.match(await unsplitPage.textContent("#stats-line"), /^4 documents/);
    const found = await search(unsplitPage, "What is a zero-sized type?");
    assert.match(found[0].label, /Exotically Sized Types/, JSON.stringify(found));
  });

  // A site published before fragments held vectors: the engine by words answers from the lexicon, and the
  // full engine, which cannot open the fragments by meaning, opens the whole snapshot instead.
  await visitWithout(site, (path) => path.includes("/corpus/fragments/vectors/"), async (olderPage) => {
    await olderPage.waitForSelector('#status[data-state="answering-by-words"]', { timeout: 120_000 });
    await search(olderPage, "What is a zero-sized type?");
    await waitReady(olderPage);
    await olderPage.waitForFunction(() => document.querySelector("#by-words") === null && document.querySelector("#results")?.children.length > 0);
    const found = await search(olderPage, "What is a type with no size at all?");
    assert.match(found[0].label, /Exotically Sized Types/, JSON.stringify(found));
    assert.equal(await olderPage.$("#from-fragments"), null, "answered from the whole index");
    assert.equal(await olderPage.$("#notice"), null);
  });

  // Served from a folder of the host, not its root, as a course page or an object store would.
  const served = await pythonServer(work);
  const siteUrl = `${served.url}site/`;
  const page = await browser.context.newPage();
  const errors = watchErrors(page);
  const elsewhere = [];
  const fetched = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(siteUrl)) elsewhere.push(request.url());
    else fetched.push(request.url().slice(siteUrl.length));
  });
  try {
    // The first answer comes by words from the index's fragments: its lexicon and graph, its terms' buckets
    // and its results' text runs; the whole index downloads only after it, for the engine with the model.
    await page.goto(siteUrl);
    await page.waitForSelector('#status[data-state="answering-by-words"]', { timeout: 120_000 });
    const byWords = await search(page, "Which types are not Send?");
    assert.match(byWords[0].label, /Send and Sync/, JSON.stringify(byWords));
    // The fragments hold the graph: by words and through it, as over the whole index.
    assert.match(await page.textContent("#by-words"), /^Found by their words and through the graph \(BM25, the community retriever and the node-set join\) while the embedding model loads/);
    assert.ok(fetched.includes("corpus/fragments/lexicon.bin"), fetched.join(" "));
    assert.ok(fetched.includes("corpus/fragments/graph.bin"), fetched.join(" "));
    assert.ok(fetched.some((f) => /^corpus\/fragments\/summaries\/[0-9a-f]{3}\.bin$/.test(f)), fetched.join(" "));
    assert.ok(fetched.some((f) => /^corpus\/fragments\/terms\/[0-9a-f]{3}\.bin$/.test(f)), fetched.join(" "));
    assert.ok(fetched.some((f) => /^corpus\/fragments\/texts\/\d+\.bin$/.test(f)), fetched.join(" "));
    const whole = fetched.indexOf("corpus/index.quire");
    const fragments = fetched.findLastIndex((f) => f.startsWith("corpus/fragments/"));
    assert.ok(whole === -1 || whole > fragments, `the whole index waits for the first answer: ${fetched.join(" ")}`);
    // The corpus graph needs the whole index: it says so, and is drawn once the full engine has taken over.
    await page.click("#corpus-graph summary");
    await page.waitForFunction(() => /^(this is answered once the whole index has loaded|\d+ pages)/.test(document.querySelector("#corpus-graph-status")?.textContent ?? ""));
    await waitReady(page);
    await page.waitForSelector("#corpus-graph-drawing .node", { timeout: 60_000 });
    await page.click("#corpus-graph summary");
    assert.equal(await page.textContent("h1"), "Unsafe Rust notes");
    assert.equal(await page.title(), "Unsafe Rust notes · Quire");
    assert.match(await page.textContent("#stats-line"), /^4 documents/);
    await pickSample(page, "Which types are not Send?");
    await page.waitForFunction(() => document.querySelector("#results")?.dataset.query === "Which types are not Send?");
    assert.match(await page.textContent("#results .result .label"), /Send and Sync/);
    assert.equal(await page.$("#from-fragments"), null, "answered from the whole index once it has loaded");

    // The lesson: Start runs its first step, the arrow keys move between steps, each with its columns.
    await page.click("#lesson-next");
    await page.waitForFunction(() => document.querySelector("#lesson-step")?.dataset.step === "1");
    const headers = () => page.$$eval("#lesson-comparison th", (cells) => cells.map((c) => c.textContent));
    await page.waitForFunction(() => document.querySelectorAll("#lesson-comparison th").length === 3);
    assert.deepEqual(await headers(), ["dense", "bm25", "fused (zsum)"]);
    assert.ok(await page.$eval("#teaching-view", (d) => d.open), "the teaching view opens with a step");
    await checkAccessible(page, "lesson");
    await page.locator("h1").click();
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => document.querySelector("#results")?.dataset.query === "What does leaking memory mean?");
    await page.waitForFunction(() => document.querySelectorAll("#lesson-comparison th").length === 4);
    assert.deepEqual(await headers(), ["bm25", "dense", "join", "fused (rrf:bm25+dense+join)"]);
    assert.match(await page.textContent("#lesson-comparison tbody"), /Leaking › /);
    await page.keyboard.press("ArrowLeft");
    await page.waitForFunction(() => document.querySelector("#lesson-step")?.dataset.step === "1");
    // Presented full screen, space steps on.
    await page.click("#lesson-present");
    await page.waitForFunction(() => document.fullscreenElement?.id === "main");
    await page.locator("#lesson-step").click();
    await page.keyboard.press("Space");
    await page.waitForFunction(() => document.querySelector("#lesson-step")?.dataset.step === "2");
    await page.evaluate(() => document.exitFullscreen());
    await page.waitForFunction(() => document.fullscreenElement === null);

    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 120_000 });
    await browser.context.setOffline(true);
    served.stop();
    await page.reload();
    await waitReady(page);
    const results = await search(page, "What is a type with no size at all?");
    assert.match(results[0].label, /Exotically Sized Types/, JSON.stringify(results));
    assert.deepEqual(elsewhere, []);
    assert.deepEqual(errors.filter((e) => !/sw\.js|ServiceWorker|ERR_INTERNET_DISCONNECTED/.test(e)), []);
  } finally {
    await browser.context.setOffline(false);
    served.stop();
    await page.close();
    await rm(work, { recursive: true, force: true });
  }
  assert.match(printed, /a first visit downloads [\d.]+ MB \([\d.]+ MB where the server sends the \.gz copies/);
  // The page's module and the index's lexicon and graph: a few megabytes, not the engine's module and the model (over 25 MB).
  const first = Number(/the first answer, by words and through the graph, comes after ([\d.]+) MB of it/.exec(printed)?.[1]);
  assert.ok(first > 0.5 && first < 5, printed);
});

test("a site published again in the same folder answers from its new index, whatever the browser's cache kept of the old one's fragments", async () => {
  const work = await mkdtemp(join(tmpdir(), "quire-redeploy-"));
  const nomicon = join(execFileSync("rustc", ["--print", "sysroot"], { encoding: "utf8" }).trim(), "share/doc/rust/html/nomicon");
  const publish = async (chapters) => {
    const docs = await mkdtemp(join(work, "docs-"));
    for (const chapter of chapters) await writeFile(join(docs, chapter), await readFile(join(nomicon, chapter)));
    execFileSync(QUIRE, ["site", docs, "-o", join(work, "site"), "--app", DIST], { stdio: "ignore" });
  };
  await publish(["send-and-sync.html", "ownership.html"]);
  // Fragments kept an hour by the browser's cache, as a CDN's headers may say; no service worker, which would
  // open the whole snapshot it keeps instead of the fragments. The second visit's whole snapshot is held back,
  // so that it answers from the fragments.
  let release;
  const held = new Promise((done) => { release = done; });
  let holding = false;
  const host = await serveDist(join(work, "site"), {
    missing: (path) => path.endsWith("/sw.js"),
    headers: (path) => (path.includes("/corpus/fragments/") ? { "cache-control": "max-age=3600" } : {}),
    hold: (path) => (holding && path.endsWith("/corpus/index.quire") ? held : null),
  });
  const question = "What is a zero-sized type?";
  try {
    const first = await browser.context.newPage();
    await first.goto(host.url);
    await waitReady(first);
    await search(first, question);
    await first.close();
    await publish(["exotic-sizes.html", "leaking.html"]);
    holding = true;
    const second = await browser.context.newPage();
    const fetched = [];
    second.on("request", (request) => fetched.push(new URL(request.url()).pathname));
    await second.goto(host.url);
    await waitReady(second);
    const found = await search(second, question);
    assert.match(found[0].label, /Exotically Sized Types/, JSON.stringify(found));
    assert.match(await second.textContent("#from-fragments"), /^Found in the site's index fragments \(by their words and meaning/);
    assert.match(await second.textContent("#stats-line"), /^2 documents/);
    // The centroids the cache kept belong to the first index: refused, and fetched again from the server.
    assert.equal(fetched.filter((path) => path.endsWith("/vectors/centroids.bin")).length, 2, fetched.join(" "));
    assert.equal(await second.$("#notice"), null);
    await second.close();
  } finally {
    release();
    await host.close();
    await rm(work, { recursive: true, force: true });
  }
});

test("a link opens an index of the same site by its path, and refuses one elsewhere", async () => {
  const { page, errors } = await openApp();
  await page.goto(`${server.url}?index=snapshots/multihop.quire`);
  await waitReady(page);
  assert.match(await page.textContent("#stats-line"), /^400 documents/);
  // The build lists that index as a corpus: its sample questions come with it.
  const samples = await page.$$eval("#samples .sample", (items) => items.map((b) => b.textContent));
  assert.equal(samples.length, 8, samples.join(" | "));
  assert.match(samples[0], /woman who portrayed Corliss Archer/);
  await page.goto(`${server.url}?index=https://elsewhere.example/notes.quire`);
  await waitReady(page);
  assert.match(await page.textContent("#notice"), /opens only an index of its own site/);
  assert.match(await page.textContent("#stats-line"), /^6 documents/);
  // A path a URL parser would turn into another host is refused the same way.
  await page.goto(`${server.url}?index=%0A/%09/elsewhere.example/notes.quire`);
  await waitReady(page);
  assert.match(await page.textContent("#notice"), /opens only an index of its own site/);
  // A link to an index that is not there says so, and the page opens as without it.
  await page.goto(`${server.url}?index=snapshots/missing.quire`);
  await waitReady(page);
  assert.match(await page.textContent("#notice"), /^The link's index could not be opened: snapshots\/missing.quire: HTTP 404/);
  assert.match(await page.textContent("#stats-line"), /^6 documents/);
  // The browser reports the missing file itself; nothing else may fail.
  assert.deepEqual(errors.filter((e) => !/status of 404/.test(e)), []);
  await page.close();
});

test("the evaluation view measures retrievers on the bundled SciFact subset, with the figures quire eval gives", async () => {
  const { page, errors } = await openApp();
  await page.uncheck('#eval-methods input[value="rrf"]');
  await page.click("#run-eval");
  await page.waitForSelector("#eval-table, #eval-error", { timeout: 300_000 });
  assert.equal(await page.$("#eval-error"), null, await page.textContent("#eval-error").catch(() => ""));
  assert.match(await page.textContent("#eval-summary"), /^scifact-subset \(test split\): \d+ questions over 300 documents, \d+ chunks/);
  const header = await page.$$eval("#eval-table thead th", (cells) => cells.map((c) => c.textContent));
  assert.deepEqual(header, ["retriever", "nDCG@10", "MRR@10", "R@10", "P@10", "Hit@10", "Cov@10", "F1@10", "ms/query"]);
  const rows = await page.$$eval("#eval-table tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ["dense", "bm25", "zsum"]);
  await checkAccessible(page, "evaluation");
  const shot = await page.locator("#evaluation").screenshot();
  assert.ok(shot.length > 8000, `the evaluation view looks blank (${shot.length} bytes of PNG)`);

  // The CLI, on the same dataset, gives the same figures (the browser embeds the questions in wasm: the last
  // digit may differ).
  const output = execFileSync(QUIRE, ["eval", "tests/fixtures/scifact-subset", "-k", "10", "--retrievers", "dense,bm25,zsum", "--json"],
    { cwd: join(import.meta.dirname, "../.."), encoding: "utf8" });
  const report = JSON.parse(output.slice(output.indexOf("\n{") + 1));
  for (const [i, result] of report.results.entries()) {
    assert.equal(rows[i][0], result.method);
    for (const [m, mean] of result.means.entries()) {
      assert.ok(Math.abs(Number(rows[i][m + 1]) - mean) <= 0.011, `${result.method} ${header[m + 1]}: ${rows[i][m + 1]} in the browser, ${mean} from the CLI`);
    }
  }

  // A folder without the labels of the split is refused, naming what is missing.
  const folder = await mkdtemp(join(tmpdir(), "quire-beir-"));
  await mkdir(join(folder, "mini"));
  await writeFile(join(folder, "mini", "corpus.jsonl"), '{"_id": "d1", "title": "Tides", "text": "The Moon raises the tides."}\n');
  await writeFile(join(folder, "mini", "queries.jsonl"), '{"_id": "q1", "text": "What raises the tides?"}\n');
  await page.setInputFiles("#eval-folder", join(folder, "mini"));
  await page.waitForFunction(() => document.querySelector("#eval-dataset")?.textContent === "Dataset: mini (2 files)");
  await page.click("#run-eval");
  await page.waitForSelector("#eval-error");
  assert.match(await page.textContent("#eval-error"), /^qrels\/test\.tsv: not in the folder/);
  await rm(folder, { recursive: true, force: true });
  assert.deepEqual(errors, []);
  await page.close();
});
