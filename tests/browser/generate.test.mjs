// Answers from an LLM endpoint, in headless Chromium, against the real local test server (tests/llm_server.py,
// started here on 127.0.0.1, a different origin from the app's): settings and their presets, the connection
// test diagnosing each failure, a streamed answer with clickable citations and its sources, Stop, a hostile
// answer kept inert, LLM-assisted retrieval, and the Content-Security-Policy letting the page reach that
// endpoint and nothing else.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { serveDist, launchBrowser, watchErrors, forgetSavedIndex, waitReady } from "./harness.mjs";

const QUESTION = "Who was the first person to walk on the Moon?";
let server, browser, llm, llmOrigin;

before(async () => {
  server = await serveDist();
  browser = await launchBrowser();
  llm = spawn("python3", [join(import.meta.dirname, "../llm_server.py"), "0"], { stdio: ["pipe", "pipe", "inherit"] });
  const [line] = await new Promise((ok) => createInterface({ input: llm.stdout }).once("line", (l) => ok([l])));
  llmOrigin = `http://127.0.0.1:${Number(line.replace("listening on ", ""))}`;
});

after(async () => {
  await browser?.close();
  await server?.close();
  llm?.stdin.end();
});

/// A fresh app with empty storage, every request it makes (page and workers) recorded.
async function openApp() {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}snapshots/planets-questions.json`);
  await page.evaluate(forgetSavedIndex);
  const requests = [];
  browser.context.on("request", (request) => requests.push(request.url()));
  const errors = watchErrors(page);
  await page.goto(server.url);
  await waitReady(page);
  await page.click("#llm-settings summary");
  return { page, errors, requests };
}

/// Sets the settings form's fields (as a user's edits: a change event each).
async function fill(page, fields) {
  await page.evaluate((fields) => {
    for (const [selector, value] of Object.entries(fields)) {
      const input = document.querySelector(selector);
      if (input.type === "checkbox") input.checked = value; else input.value = value;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }, fields);
}

/// Saves the settings; a new endpoint origin reloads the page once, with the policy allowing it.
async function save(page) {
  const reloaded = page.waitForEvent("load", { timeout: 5_000 }).then(() => true, () => false);
  await page.click("#llm-save");
  if (await reloaded) {
    await waitReady(page);
    await page.click("#llm-settings summary");
  }
}

async function testConnection(page) {
  await page.click("#llm-test");
  await page.waitForSelector('#llm-check:not([data-state="running"])', { timeout: 20_000 });
  return { state: await page.getAttribute("#llm-check", "data-state"), text: await page.textContent("#llm-check") };
}

async function configure(page, mode, extra = {}) {
  await fill(page, { "#llm-provider": "openai", "#llm-url": `${llmOrigin}/${mode}/v1`, "#llm-model": "quire-test", ...extra });
  await save(page);
}

/// Asks the question in the box with the LLM; the exchange once it reaches one of `states`.
async function askLlm(page, states = ["done", "failed", "stopped"]) {
  const count = await page.locator(".exchange").count();
  await page.fill("#query", QUESTION);
  await page.click("#ask-llm");
  const selector = states.map((s) => `.exchange[data-index="${count}"][data-state="${s}"]`).join(", ");
  await page.waitForSelector(selector, { timeout: 60_000 });
  return page.locator(`.exchange[data-index="${count}"]`);
}

test("an answer streams from the configured endpoint with clickable citations, its sources and a copy; only that endpoint is called", async () => {
  const { page, errors, requests } = await openApp();
  await page.click("#preset-lmstudio");
  assert.equal(await page.inputValue("#llm-url"), "http://127.0.0.1:1234/v1");
  await page.click("#preset-ollama");
  assert.equal(await page.inputValue("#llm-url"), "http://127.0.0.1:11434");
  assert.equal(await page.inputValue("#llm-provider"), "ollama");

  // Before saving, the page's policy does not allow the endpoint, and the test says so.
  await fill(page, { "#llm-provider": "openai", "#llm-url": `${llmOrigin}/ok/v1`, "#llm-model": "" });
  assert.match((await testConnection(page)).text, /Content-Security-Policy does not allow http:\/\/127\.0\.0\.1:\d+ yet/);
  await save(page);
  const policy = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', "content");
  assert.match(policy, new RegExp(`connect-src 'self' ${llmOrigin};`));
  // With no model chosen the test lists the endpoint's; then the chosen one is checked by a short answer.
  assert.match((await testConnection(page)).text, /Connected: 1 models/);
  assert.deepEqual(await page.$$eval("#llm-models option", (o) => o.map((x) => x.value)), ["quire-test"]);
  await fill(page, { "#llm-model": "quire-test" });
  await save(page);
  assert.deepEqual(await testConnection(page), { state: "passed", text: "Connected: quire-test answers. (1 models)" });

  const exchange = await askLlm(page);
  assert.equal(await exchange.getAttribute("data-state"), "done", await exchange.textContent());
  const answer = (await exchange.locator(".answer").textContent()).trim();
  assert.match(answer, /^The documents say: .+ \[1\]\.$/);
  assert.equal(await exchange.locator(".answer button.cite").count(), 1);
  assert.match(await exchange.locator(".sources summary").textContent(), /^Sources: 1 of 6 cited$/);
  const cited = await exchange.locator(".sources li.cited .label").textContent();
  // The results panel shows the same retrieval the answer was given.
  assert.equal(await page.textContent("#results .result .label"), cited);

  await exchange.locator(".answer button.cite").click();
  await page.waitForSelector("#outline .outline-chunk.focused");
  const [document, ordinal] = [cited.split(" › ")[0], cited.split(" › ").at(-1)];
  assert.match(await page.textContent("#outline-heading"), new RegExp(document));
  assert.match(await page.textContent("#outline .outline-chunk.focused .label"), new RegExp(`${ordinal}$`));

  await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(server.url).origin });
  await exchange.locator(".copy").click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.ok(copied.startsWith(answer), copied);
  assert.match(copied, /\n\nSources \(1 of 6 cited\):\n\[1\] cited /);

  // A second question joins the conversation; the first stays.
  await askLlm(page);
  assert.equal(await page.locator(".exchange").count(), 2);

  const app = new URL(server.url).origin;
  const elsewhere = requests.filter((url) => !url.startsWith(`${app}/`) && !url.startsWith("data:") && !url.startsWith("blob:"));
  assert.ok(elsewhere.length > 0);
  assert.deepEqual(elsewhere.filter((url) => !url.startsWith(`${llmOrigin}/`)), []);
  assert.deepEqual(errors.filter((e) => !e.includes(llmOrigin)), []);
  await page.close();
});

test("the connection test names what is wrong: CORS, the key, the model, a broken, cut or stalled stream, silence, no server", async () => {
  const { page } = await openApp();
  const diagnosis = async (mode, extra = {}) => {
    await configure(page, mode, extra);
    return testConnection(page);
  };
  const nocors = await diagnosis("nocors");
  assert.equal(nocors.state, "failed");
  assert.match(nocors.text, /does not send CORS headers.*OLLAMA_ORIGINS.*Enable CORS/);
  assert.match((await diagnosis("auth")).text, /Invalid API key \(HTTP 401\)\. Check the API key/);
  await fill(page, { "#llm-key": "test-key" });
  assert.equal((await diagnosis("auth")).state, "passed");
  assert.match((await diagnosis("ok", { "#llm-model": "nope" })).text, /does not know the model `nope`; it has: quire-test/);
  assert.match((await diagnosis("broken")).text, /not a server-sent events stream/);
  assert.match((await diagnosis("truncated")).text, /stream ended before the answer was complete/);
  assert.match((await diagnosis("silent", { "#llm-timeout": "1" })).text, /no answer from .* within 1 s/);
  assert.match((await diagnosis("stall", { "#llm-timeout": "1" })).text, /\/stall\/v1\/chat\/completions stopped sending its answer: nothing came for 1 s/);
  // Ollama's own API through the same checks.
  await fill(page, { "#llm-timeout": "60" });
  await configure(page, "ok", { "#llm-provider": "ollama", "#llm-url": `${llmOrigin}/ok`, "#llm-model": "quire-test:latest" });
  assert.equal((await testConnection(page)).state, "passed");
  assert.equal(await (await askLlm(page)).getAttribute("data-state"), "done");
  // A port nothing listens on: allowed by the policy once saved, then unreachable.
  assert.equal(await page.inputValue("#llm-key"), "test-key", "the key stays while the origin does");
  await fill(page, { "#llm-provider": "openai", "#llm-url": "http://127.0.0.1:9/v1", "#llm-model": "quire-test" });
  assert.equal(await page.inputValue("#llm-key"), "", "a key is never carried to another origin");
  await save(page);
  assert.match((await testConnection(page)).text, /cannot reach http:\/\/127\.0\.0\.1:9\/v1\/models/);
  await page.close();
});

test("Stop ends a streaming answer and keeps what came; a hostile answer's markup stays inert text", async () => {
  const { page } = await openApp();
  await configure(page, "slow");
  await page.fill("#query", QUESTION);
  await page.click("#ask-llm");
  await page.waitForFunction(() => document.querySelector('.exchange[data-state="streaming"] .answer')?.textContent.length > 0, null, { timeout: 60_000 });
  await page.click(".exchange .stop");
  await page.waitForSelector('.exchange[data-state="stopped"]');
  const partial = await page.textContent(".exchange .answer");
  await page.waitForTimeout(1_200);
  assert.equal(await page.textContent(".exchange .answer"), partial);
  assert.ok(partial.length > 0 && !partial.endsWith("[1]."), partial);

  await configure(page, "hostile");
  const exchange = await askLlm(page);
  await exchange.locator(".answer").click();
  for (const link of await exchange.locator(".answer a").all()) await link.click({ modifiers: [] }).catch(() => {});
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await exchange.locator(".answer script, .answer img, .answer [onclick], .answer [onerror]").count(), 0);
  assert.equal(await exchange.locator('.answer a[href^="javascript"]').count(), 0);
  const text = await exchange.locator(".answer").textContent();
  assert.match(text, /<script>window\.pwned = "script"<\/script>/);
  // The answer opens with a raw HTML block, which Markdown leaves as it is: all of it is shown as text.
  assert.match(text, /<img src=x onerror="window\.pwned='img'">/);
  await page.close();
});

test("LLM-assisted retrieval runs its steps through the page's endpoint and is marked in the trace", async () => {
  const { page, requests } = await openApp();
  await configure(page, "ok", { "#llm-assist": "cot" });
  const exchange = await askLlm(page);
  assert.equal(await exchange.getAttribute("data-state"), "done", await exchange.textContent());
  const trace = await page.textContent("#trace pre");
  assert.match(trace, /LLM-assisted: cot/);
  assert.match(trace, /\[LLM: cot\]/);
  assert.match(trace, /search 2: /);
  assert.match(trace, /repeats/);
  // Two CoT steps, then the answer.
  assert.equal(requests.filter((url) => url.endsWith("/ok/v1/chat/completions")).length, 3);

  await configure(page, "ok", { "#llm-assist": "traverser" });
  await askLlm(page);
  assert.match(await page.textContent("#trace pre"), /\[LLM: traverser\][\s\S]*keep — what the LLM chose/);
  await page.close();
});
