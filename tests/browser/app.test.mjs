// End-to-end: the wasm build loads the model, indexes the bundled demo corpus, answers queries, and indexes
// user files with a clear per-file error for a bad one, all inside headless Chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serveDist, launchBrowser, watchErrors } from "./harness.mjs";

const READY = '#status[data-state="ready"]';
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
/// The page's errors are collected for the test to check at its end.
async function openApp() {
  const page = await browser.context.newPage();
  const errors = watchErrors(page);
  await page.goto(server.url);
  await page.waitForSelector(`${READY}, #status[data-state="failed"]`, { timeout: 300_000 });
  assert.equal(await page.getAttribute("#status", "data-state"), "ready", await page.textContent("#status"));
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
  })));
}

async function documentCount(page) {
  return Number((await page.textContent("#stats-line")).split(" ")[0]);
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
  for (const kind of ["page nodes", "entity nodes", "section nodes", "chunk nodes", "is_chunk_of edges", "cites edges", "semantic_rel edges", "next edges"]) {
    assert.ok(table.includes(kind), `${kind} missing from ${table}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test("a question is answered with provenance from the right document", async () => {
  const { page, errors } = await openApp();
  const results = await search(page, "Who was the first person to walk on the Moon?");
  assert.equal(results.length, 6);
  assert.match(results[0].label, /^(Apollo 11|Moon) › /);
  assert.ok(results.slice(0, 3).some((r) => r.text.includes("Neil Armstrong became the first person")), JSON.stringify(results.slice(0, 3)));
  assert.match(results[0].meta, /RRF 0\.0\d+ · dense (#\d+|–) · BM25 (#\d+|–)/);
  // A second question waits for its own answer, not the first one's results.
  const second = await search(page, "What is the Sun made of?");
  assert.notDeepEqual(second, results);
  assert.deepEqual(errors, []);
  await page.close();
});

test("uploaded files are indexed; a bad file gets a clear error and the others still load", async () => {
  const { page, errors } = await openApp();
  const before = await documentCount(page);
  await upload(page, [
    { name: "saturn.md", mimeType: "text/markdown", buffer: Buffer.from("# Saturn\n\nSaturn is the sixth planet and is famous for its bright rings of ice.\n\n## Moons\n\nTitan, the largest moon of Saturn, has a thick nitrogen atmosphere and lakes of liquid methane.\n") },
    { name: "broken.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.7\nthis is not really a pdf") },
    { name: "photo.png", mimeType: "image/png", buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) },
  ], before + 1);
  const problems = await page.$$eval("#ingest-problems li", (items) => items.map((li) => li.textContent));
  assert.ok(problems.some((p) => p.startsWith("broken.pdf: unreadable PDF")), JSON.stringify(problems));
  assert.ok(problems.some((p) => p.startsWith("photo.png: unsupported file type `png`")), JSON.stringify(problems));
  const results = await search(page, "Which moon has lakes of methane?");
  assert.match(results[0].label, /^Saturn › Moons › #1$/);
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
