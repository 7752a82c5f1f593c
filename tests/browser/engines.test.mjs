// The core suite in every engine a user may have (engines.mjs: Firefox ESR over WebDriver BiDi, WebKitGTK's
// MiniBrowser over its WebDriver; Chromium runs the full suite in app.test.mjs and this one on request):
// a first visit reaches Ready with the model loaded and answers the demo question by the default method;
// picked and dropped files are indexed with a report; the index is kept across a reload where the browser can keep
// it, and where it cannot the page says so and Export still works; an export opens again; the page opens and
// answers offline; the teaching view steps and presents; every view passes axe-core; a streamed
// answer comes from the local LLM test server. `QUIRE_BROWSERS` picks the engines (default: firefox,webkit).
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST, VIEWS, serveDist, seriousViolations } from "./harness.mjs";
import { chosenEngines, launchEngine } from "./engines.mjs";

const QUESTION = "Who was the first person to walk on the Moon?";
const AXE = await readFile(join(import.meta.dirname, "node_modules/axe-core/axe.min.js"), "utf8");
const failedOrReady = () => ["ready", "failed"].includes(document.querySelector("#status")?.dataset.state);

/// Waits for Ready, failing with what the page says if it fails instead.
async function waitReady(page, timeout = 240_000) {
  await page.waitFor(failedOrReady, null, { timeout, what: "Ready" });
  assert.equal(await page.attribute("#status", "data-state"), "ready", `${page.engine}: ${await page.text("#status")}`);
}

/// Asks `text` and returns the results shown for it.
async function search(page, text) {
  await page.fill("#query", text);
  await page.click("#search");
  await page.waitFor((asked) => document.querySelector("#results")?.dataset.query === asked, text, { what: `results for ${text}` });
  return page.evaluate(() => [...document.querySelectorAll("#results .result")].map((li) => ({
    label: li.querySelector(".label").textContent,
    text: li.querySelector(".text").textContent,
    ranks: [...li.querySelectorAll(":scope > .ranks .rank")].map((r) => r.textContent),
  })));
}

async function documentCount(page) {
  return Number((await page.text("#stats-line")).split(" ")[0]);
}

/// axe-core's WCAG 2 A and AA rules on the page as it is: no serious or critical violation.
async function checkAccessible(page, view) {
  // The page's Content-Security-Policy refuses an injected <script>; the driver's own evaluation is allowed.
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.inject(AXE);
  const violations = await page.evaluate(seriousViolations);
  assert.deepEqual(violations, [], `${page.engine}, ${view}: ${violations.join("\n")}`);
}

/// Catches the next download the page offers and returns its bytes: the blob handed to
/// `URL.createObjectURL` for it (drivers differ in how they report downloads; the blob is what the page hands
/// over, whichever engine saves it).
async function catchDownload(page, click) {
  await page.evaluate(() => {
    window.quireDownloaded = null;
    const original = URL.createObjectURL;
    URL.createObjectURL = function (blob) {
      URL.createObjectURL = original;
      blob.arrayBuffer().then((buffer) => {
        let binary = "";
        const bytes = new Uint8Array(buffer);
        for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        window.quireDownloaded = btoa(binary);
      });
      return original.call(URL, blob);
    };
  });
  await click();
  await page.waitFor(() => window.quireDownloaded != null, null, { what: "the download" });
  return Buffer.from(await page.evaluate(() => window.quireDownloaded), "base64");
}

/// Whether this browser has the Origin Private File System the saved index lives in.
const hasOpfs = (page) => page.evaluate(() => typeof navigator.storage?.getDirectory === "function");

let files;

before(async () => {
  files = await mkdtemp(join(tmpdir(), "quire-engines-"));
  await writeFile(join(files, "venus.md"), "# Venus\n\nVenus has a thick carbon dioxide atmosphere and surface temperatures that melt lead.\n");
  await writeFile(join(files, "broken.pdf"), "%PDF-1.7\nnot a pdf");
});

after(async () => {
  await rm(files, { recursive: true, force: true });
});

for (const name of chosenEngines(["firefox", "webkit"])) {
  describe(name, { concurrency: 1 }, () => {
    let engine, server, llm, llmOrigin;

    before(async () => {
      server = await serveDist();
      engine = await launchEngine(name);
      console.log(`# ${name}: ${engine.version}`);
    });

    after(async () => {
      await engine?.close();
      await server?.close();
      llm?.stdin.end();
    });

    test(`${name}: a first visit is Ready with the model loaded and answers the demo question by meaning and words`, async () => {
      const started = Date.now();
      const page = await engine.open(server.url);
      await waitReady(page);
      console.log(`# ${name}: Ready ${((Date.now() - started) / 1000).toFixed(1)} s after the address was opened`);
      assert.equal(await documentCount(page), 6);
      const results = await search(page, QUESTION);
      assert.match(results[0].label, /^(Apollo 11|Moon) › /);
      assert.ok(results.slice(0, 3).some((r) => r.text.includes("Neil Armstrong became the first person")), JSON.stringify(results.slice(0, 3)));
      // The default method: dense, BM25, community and the join each ranked it.
      assert.deepEqual(results[0].ranks.map((r) => r.split(" ")[0]), ["dense", "bm25", "community", "join"]);
      assert.ok(results.some((r) => /^dense #\d+$/.test(r.ranks[0])), "some result was found by meaning");
      await checkAccessible(page, "results");
      assert.deepEqual(page.errors, []);
    });

    test(`${name}: picked and dropped files are indexed with a report, a bad file named; the new documents answer`, async () => {
      const page = await engine.open(server.url);
      await waitReady(page);
      await page.setFiles("#files", [join(files, "venus.md"), join(files, "broken.pdf")]);
      await page.waitFor(() => document.querySelector("#ingest-problems li") !== null && document.querySelector("#status")?.dataset.state === "ready", null, { timeout: 120_000, what: "the report" });
      const report = await page.text("#ingest-problems");
      assert.match(report, /broken\.pdf/);
      await checkAccessible(page, "a folder's report");
      const venus = await search(page, "Which planet is hot enough to melt lead?");
      assert.match(venus[0].label, /^Venus › /);

      // Files dropped on the page, as from a file manager (the drivers of Firefox and WebKit cannot give a
      // folder to the folder picker: Firefox's input.setFiles refuses a directory, WebKit's WebDriver has none).
      // A drop made in the page carries its files where the engine lets a script make one (WebKit's DragEvent
      // drops the transfer it is given); else the two files go through the picker.
      const dropped = await page.evaluate(() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File(["# Io\n\nIo is the most volcanically active body in the solar system.\n"], "io.md", { type: "text/markdown" }));
        transfer.items.add(new File(["Eris is a dwarf planet beyond Neptune, slightly smaller than Pluto.\n"], "eris.txt", { type: "text/plain" }));
        const drop = new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true });
        if (drop.dataTransfer !== transfer) return false;
        document.querySelector("#drop-zone").dispatchEvent(drop);
        return true;
      });
      if (!dropped) {
        await writeFile(join(files, "io.md"), "# Io\n\nIo is the most volcanically active body in the solar system.\n");
        await writeFile(join(files, "eris.txt"), "Eris is a dwarf planet beyond Neptune, slightly smaller than Pluto.\n");
        await page.setFiles("#files", [join(files, "io.md"), join(files, "eris.txt")]);
      }
      await page.waitFor(() => [...document.querySelectorAll("#documents li")].some((li) => li.dataset.source === "eris.txt"), null, { timeout: 120_000, what: "the dropped documents" });
      const sources = await page.evaluate(() => [...document.querySelectorAll("#documents li")].map((li) => li.dataset.source));
      // The user's first files started a corpus of their own; the dropped ones joined it.
      assert.deepEqual(sources.sort(), ["eris.txt", "io.md", "venus.md"], JSON.stringify(sources));
      await waitReady(page);
      const io = await search(page, "Which moon is the most volcanically active?");
      assert.match(io[0].label, /^Io › /);
      assert.deepEqual(page.errors, []);
    });

    test(`${name}: the index is kept across a reload where the browser can keep it, else the page says so; an export opens again`, async () => {
      const page = await engine.open(server.url);
      await waitReady(page);
      await page.evaluate(async () => {
        const root = await navigator.storage?.getDirectory?.();
        if (root) for await (const name of root.keys()) await root.removeEntry(name, { recursive: true });
      });
      await page.reload();
      await waitReady(page);
      assert.equal(await documentCount(page), 6);
      // The user's first file starts a corpus of their own.
      await page.setFiles("#files", [join(files, "venus.md")]);
      await page.waitFor(() => document.querySelector("#stats-line")?.textContent.startsWith("1 documents"), null, { timeout: 120_000, what: "Venus indexed" });
      await waitReady(page);
      const keeps = await hasOpfs(page);
      if (keeps) {
        await page.waitFor(() => document.querySelector("#storage")?.dataset.saved === "true", null, { what: "saved" });
      } else {
        // One line says what is missing and what it costs; the index still answers.
        await page.waitFor(() => /cannot keep the index/.test(document.querySelector("#storage")?.textContent ?? ""), null, { what: "the storage notice" });
        assert.match(await page.text("#storage"), /This browser cannot keep the index: it lasts until you close the tab; Export keeps it\./);
        await checkAccessible(page, "storage notice");
      }
      const exported = await catchDownload(page, () => page.click("#export"));
      assert.equal(exported.subarray(0, 8).toString("latin1"), "QUIRESNP");

      await page.reload();
      await waitReady(page);
      if (keeps) {
        assert.equal(await documentCount(page), 1);
        assert.match(await page.text("#storage"), /^Restored from this browser's storage/);
      } else {
        assert.equal(await documentCount(page), 6);
      }
      // The export opens again, in a fresh page's engine.
      const file = join(files, "exported.quire");
      await writeFile(file, exported);
      await page.setFiles("#import", [file]);
      await page.waitFor(() => document.querySelector("#stats-line")?.textContent.startsWith("1 documents"), null, { timeout: 60_000, what: "the export opened" });
      await waitReady(page);
      const venus = await search(page, "Which planet is hot enough to melt lead?");
      assert.match(venus[0].label, /^Venus › /);
      assert.deepEqual(page.errors, []);
    });

    test(`${name}: the teaching view steps and presents, and every view passes axe-core`, async () => {
      const page = await engine.open(server.url);
      await waitReady(page);
      await checkAccessible(page, "start");
      await search(page, QUESTION);
      for (const [opener, shown, view] of VIEWS) {
        await page.click(opener);
        await page.waitFor((s) => document.querySelector(s) !== null, shown, { what: view });
        await checkAccessible(page, view);
      }
      // Stepping with the buttons, then presenting: full screen (where the browser allows it), → steps on.
      const stage = () => page.attribute("#stage", "data-stage");
      const last = await stage();
      await page.click("#step-back");
      await page.waitFor((was) => document.querySelector("#stage")?.dataset.stage !== was, last, { what: "a step back" });
      const back = await stage();
      await page.click("#present");
      await page.waitFor(() => document.fullscreenElement?.classList.contains("teaching"), null, { what: "Present" });
      await page.press("ArrowRight");
      await page.waitFor((was) => document.querySelector("#stage")?.dataset.stage !== was, back, { what: "→ in Present" });
      assert.equal(await stage(), last);
      await page.press("Escape");
      assert.deepEqual(page.errors, []);
    });

    test(`${name}: after a first visit the page opens and answers with the server gone`, async () => {
      const own = await serveDist(DIST);
      try {
        const page = await engine.open(own.url);
        await waitReady(page);
        await page.waitFor(() => navigator.serviceWorker?.controller != null, null, { timeout: 180_000, what: "the service worker" });
        await own.close();
        await page.reload();
        await waitReady(page);
        const results = await search(page, QUESTION);
        assert.ok(results.slice(0, 3).some((r) => r.text.includes("Neil Armstrong became the first person")), JSON.stringify(results));
      } finally {
        await own.close();
      }
    });

    test(`${name}: a streamed answer with citations comes from the LLM endpoint the user set`, async () => {
      llm = spawn("python3", [join(import.meta.dirname, "../llm_server.py"), "0"], { stdio: ["pipe", "pipe", "inherit"] });
      const [line] = await new Promise((ok) => createInterface({ input: llm.stdout }).once("line", (l) => ok([l])));
      llmOrigin = `http://127.0.0.1:${Number(line.replace("listening on ", ""))}`;
      const page = await engine.open(server.url);
      await waitReady(page);
      await page.click("#llm-settings summary");
      await page.evaluate((fields) => {
        for (const [selector, value] of Object.entries(fields)) {
          const input = document.querySelector(selector);
          input.value = value;
          input.dispatchEvent(new Event("change", { bubbles: true }));
        }
      }, { "#llm-provider": "openai", "#llm-url": `${llmOrigin}/ok/v1`, "#llm-model": "quire-test" });
      // A new endpoint's origin reloads the page once, with the policy allowing it.
      await page.click("#llm-save");
      await page.waitFor(failedOrReady, null, { timeout: 240_000 });
      await new Promise((next) => setTimeout(next, 1_000));
      await waitReady(page);
      await page.fill("#query", QUESTION);
      await page.click("#ask-llm");
      const finished = '.exchange[data-index="0"]:is([data-state="done"], [data-state="failed"], [data-state="stopped"])';
      await page.waitFor((s) => document.querySelector(s) !== null, finished, { timeout: 60_000, what: "the answer" });
      const exchange = await page.evaluate(() => {
        const shown = document.querySelector('.exchange[data-index="0"]');
        return { state: shown.dataset.state, answer: shown.querySelector(".answer")?.textContent.trim() ?? "", cited: shown.querySelectorAll(".answer button.cite").length };
      });
      assert.equal(exchange.state, "done", JSON.stringify(exchange));
      assert.match(exchange.answer, /^The documents say: .+ \[1\]\.$/);
      assert.equal(exchange.cited, 1);
      assert.deepEqual(page.errors, []);
    });
  });
}
