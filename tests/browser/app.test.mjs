// End-to-end: the wasm build loads the model, indexes the bundled demo corpus, answers queries, and indexes
// user files with a clear per-file error for a bad one, all inside headless Chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serveDist, launchBrowser, watchErrors } from "./harness.mjs";

const READY = '#status[data-state="ready"]';
let server, browser, page, errors;

before(async () => {
  server = await serveDist();
  browser = await launchBrowser();
  page = await browser.context.newPage();
  errors = watchErrors(page);
  await page.goto(server.url);
  await page.waitForSelector(`${READY}, #status[data-state="failed"]`, { timeout: 300_000 });
  assert.equal(await page.getAttribute("#status", "data-state"), "ready", await page.textContent("#status"));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function search(text) {
  await page.fill("#query", text);
  await page.click("#search");
  await page.waitForFunction(() => document.querySelectorAll("#results .result").length > 0);
  return page.$$eval("#results .result", (items) => items.map((li) => ({
    label: li.querySelector(".label").textContent,
    meta: li.querySelector(".meta").textContent,
    text: li.querySelector(".text").textContent,
  })));
}

test("the demo corpus is indexed into a knowledge graph", async () => {
  const line = await page.textContent("#stats-line");
  assert.match(line, /^6 documents · 1\d sections · \d+ chunks · \d+ entities · \d+ relations$/);
  const table = await page.textContent("#stats table");
  for (const kind of ["page nodes", "entity nodes", "section nodes", "chunk nodes", "is_chunk_of edges", "cites edges", "semantic_rel edges", "next edges"]) {
    assert.ok(table.includes(kind), `${kind} missing from ${table}`);
  }
});

test("a question is answered with provenance from the right document", async () => {
  const results = await search("Who was the first person to walk on the Moon?");
  assert.equal(results.length, 6);
  assert.match(results[0].label, /^(Apollo 11|Moon) › /);
  assert.ok(results.slice(0, 3).some((r) => r.text.includes("Neil Armstrong became the first person")), JSON.stringify(results.slice(0, 3)));
  assert.match(results[0].meta, /RRF 0\.0\d+ · dense (#\d+|–) · BM25 (#\d+|–)/);
});

test("uploaded files are indexed; a bad file gets a clear error and the others still load", async () => {
  await page.setInputFiles("#files", [
    { name: "saturn.md", mimeType: "text/markdown", buffer: Buffer.from("# Saturn\n\nSaturn is the sixth planet and is famous for its bright rings of ice.\n\n## Moons\n\nTitan, the largest moon of Saturn, has a thick nitrogen atmosphere and lakes of liquid methane.\n") },
    { name: "broken.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.7\nthis is not really a pdf") },
    { name: "photo.png", mimeType: "image/png", buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) },
  ]);
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("7 documents"), null, { timeout: 120_000 });
  const problems = await page.$$eval("#ingest-problems li", (items) => items.map((li) => li.textContent));
  assert.ok(problems.some((p) => p.startsWith("broken.pdf: unreadable PDF")), JSON.stringify(problems));
  assert.ok(problems.some((p) => p.startsWith("photo.png: unsupported file type `png`")), JSON.stringify(problems));
  const results = await search("Which moon has lakes of methane?");
  assert.match(results[0].label, /^Saturn › Moons › #1$/);
});

test("no errors were logged by the page", () => {
  assert.deepEqual(errors, []);
});
