// Serves the Trunk build (dist/) on 127.0.0.1 and drives Debian's Chromium headless through playwright-core.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createServer as createTcpServer, connect } from "node:net";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";
import { tmpdir } from "node:os";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const MIME = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".css": "text/css",
  ".json": "application/json", ".md": "text/markdown; charset=utf-8", ".txt": "text/plain; charset=utf-8",
  ".csv": "text/csv; charset=utf-8", ".onnx": "application/octet-stream",
};

export const DIST = resolve(import.meta.dirname, "../../dist");

/// Serves `root` on 127.0.0.1. `mounts` serves more folders under URL prefixes (`{"/ort/": dir}`); `isolated`
/// sends the headers that make the page cross-origin isolated (what onnxruntime-web's threads need); `hold`
/// may return a promise for a path, and that file is sent once it settles (a slow download, held at will:
/// Chromium's request interception does not see the requests of workers); a path `missing` says is a 404.
export async function serveDist(root = DIST, { mounts = {}, isolated = false, hold = () => null, missing = () => false, headers: extra = () => ({}) } = {}) {
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, "http://127.0.0.1").pathname);
    await hold(path);
    // The browser asks for /favicon.ico on a page without an icon (the tests' bare JSON pages) whenever it
    // gets to it: a 404 could land as a console error in the app's page opened next (a CI run saw one).
    if (path === "/favicon.ico") { response.writeHead(204).end(); return; }
    if (missing(path)) { response.writeHead(404).end("not found"); return; }
    const [prefix, base] = Object.entries(mounts).find(([prefix]) => path.startsWith(prefix)) ?? ["/", root];
    const file = normalize(join(base, path.slice(prefix.length - 1).endsWith("/") ? path.slice(prefix.length - 1) + "index.html" : path.slice(prefix.length - 1)));
    if (!file.startsWith(base)) { response.writeHead(403).end(); return; }
    const headers = { ...(isolated ? { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" } : {}), ...extra(path) };
    try {
      const body = await readFile(file);
      response.writeHead(200, { ...headers, "content-type": MIME[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      response.writeHead(404, headers).end("not found");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  // Closing ends the connections still open too: a service worker the page registered goes on fetching the
  // build after the page has closed, and waiting for it took minutes.
  const close = () => new Promise((ok) => { server.close(ok); server.closeAllConnections(); });
  return { url: `http://127.0.0.1:${server.address().port}/`, close };
}

/// `args` adds Chromium flags (a benchmark's `--js-flags=--expose-gc`).
export async function launchBrowser({ args = [] } = {}) {
  const profile = await mkdtemp(join(tmpdir(), "quire-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", ...args],
  });
  return { context, close: async () => { await context.close(); await rm(profile, { recursive: true, force: true }); } };
}

// Fails on any uncaught page error or console error, which is how a wasm panic surfaces.
export function watchErrors(page) {
  const errors = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  return errors;
}

// Time from each of `count` inputs on the drawing `selector` (alternating wheel zooms, then drags by pointer)
// to the next painted frame, in ms, sorted: what a user feels when moving a large graph.
export async function inputToFrameTimes(page, selector, count) {
  return page.evaluate(async ({ selector, count }) => {
    const svg = document.querySelector(selector);
    const rect = svg.getBoundingClientRect();
    const at = { clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2, bubbles: true, cancelable: true };
    const painted = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
    const times = [];
    const timed = async (input) => {
      const start = performance.now();
      input();
      await painted();
      times.push(performance.now() - start);
    };
    for (let i = 0; i < count / 2; i++) {
      await timed(() => svg.dispatchEvent(new WheelEvent("wheel", { ...at, deltaY: i % 2 ? 100 : -100 })));
    }
    svg.dispatchEvent(new PointerEvent("pointerdown", at));
    for (let i = 0; i < count / 2; i++) {
      await timed(() => svg.dispatchEvent(new PointerEvent("pointermove", { ...at, clientX: at.clientX - 5 * (i + 1) })));
    }
    svg.dispatchEvent(new PointerEvent("pointerup", at));
    return times.sort((a, b) => a - b);
  }, { selector, count });
}

/// Milliseconds from the click on Search to each of `queries`' results on screen (the first `warmUp` not
/// counted), and the engine worker's part of them (embedding the question, retrieval, fusion, the trace),
/// each sorted. Timed inside the page, so the benchmark's own messages to the browser are not counted. "On screen" is the end of the first frame painted
/// after the results reach the document (seen by a mutation observer the moment they do): a task queued from
/// that frame's animation callback runs once its paint is done, as `inputToFrameTimes` times a drag.
export async function queryTimes(page, queries, warmUp = 0) {
  const measured = await page.evaluate(async (questions) => {
    const frame = () => new Promise((next) => requestAnimationFrame(next));
    const painted = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
    // Resolves when the results for `text` arrive; fails with what the page says if none come in a minute.
    const shown = (text) => new Promise((done, fail) => {
      const answered = () => document.querySelector("#results")?.dataset.query === text;
      const observer = new MutationObserver(() => { if (answered()) { observer.disconnect(); clearTimeout(timer); done(); } });
      const timer = setTimeout(() => {
        observer.disconnect();
        fail(new Error(`no results for ${JSON.stringify(text)}: ${document.querySelector("#notice, #status")?.textContent}`));
      }, 60_000);
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const times = [];
    const engine = [];
    for (const text of questions) {
      const input = document.querySelector("#query");
      input.value = text;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      await frame();
      const answered = shown(text);
      const started = performance.now();
      document.querySelector("#search").click();
      await answered;
      await painted();
      times.push(performance.now() - started);
      engine.push(Number(document.querySelector("#answer-timing").dataset.ms));
    }
    return { times, engine };
  }, queries);
  const sorted = (values) => values.slice(warmUp).sort((a, b) => a - b);
  return { times: sorted(measured.times), engine: sorted(measured.engine) };
}

/// Opens a measuring page of the bench build (`?bench=...`) in `page` and returns its JSON report, or throws
/// what the page's status says when it failed.
export async function benchReport(page, url, timeout = 600_000) {
  await page.goto(url);
  await page.waitForSelector('#bench-result, #status[data-state="failed"]', { timeout });
  const result = await page.$("#bench-result");
  if (!result) throw new Error(await page.textContent("#status"));
  return JSON.parse(await result.textContent());
}

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

export const READY = '#status[data-state="ready"]';

/// Every view the accessibility checks open, as the user opens it: what is clicked, what shows once it is
/// open, its name (app.test.mjs in Chromium, engines.test.mjs in Firefox and WebKit).
export const VIEWS = [
  ["#how-to-search summary", "#fusion", "how to search"],
  ["#teaching-view summary", "#trace-graph .node", "teaching view"],
  ["#results .result .label", "#outline .outline-chunk.focused", "outline"],
  ["#llm-settings summary", "#llm-instructions", "LLM settings"],
  ["#corpus-graph summary", "#corpus-graph-drawing .node", "corpus graph and evaluation"],
];

/// axe-core's WCAG 2 A and AA rules (none turned off) on the page as it is: its serious and critical
/// violations, each with up to three of its elements. Run in the page, once axe-core is there.
export async function seriousViolations() {
  const found = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
  return found.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

/// `root` served as a user serves it: `python3 -m http.server` on 127.0.0.1.
export async function pythonServer(root) {
  const process = spawn("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root]);
  const port = await new Promise((found, failed) => {
    process.stdout.on("data", (data) => { const match = /port (\d+)/.exec(String(data)); if (match) found(match[1]); });
    process.on("exit", () => failed(new Error("python3 -m http.server stopped")));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => process.kill() };
}

/// A visitor's link in front of a server: every connection to the returned URL reaches `upstream` through one
/// shared line of `bitsPerSecond` (10 Mbit/s) whose bytes arrive `latencyMs` (40 ms) after they left, as
/// DevTools' throttling presets model it. At the TCP level, so that any server (`python3 -m http.server`)
/// and every engine meet the same link, and the server's own responses cross it unchanged.
export async function throttledLink(upstream, { bitsPerSecond = 10e6, latencyMs = 40 } = {}) {
  const target = new URL(upstream);
  const SLICE = 16 * 1024;
  let lineFreeAt = 0;
  const sockets = new Set();
  const server = createTcpServer((client) => {
    const remote = connect(Number(target.port), target.hostname);
    for (const socket of [client, remote]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => { client.destroy(); remote.destroy(); });
    }
    client.pipe(remote);
    // Each slice takes its turn on the line, then arrives a latency later; a connection's slices keep
    // their order, since the line hands out departures in the order they were asked for.
    let delivered = Promise.resolve();
    remote.on("data", (data) => {
      for (let at = 0; at < data.length; at += SLICE) {
        const slice = data.subarray(at, at + SLICE);
        lineFreeAt = Math.max(lineFreeAt, Date.now()) + (slice.length * 8 * 1000) / bitsPerSecond;
        const arrives = lineFreeAt + latencyMs;
        delivered = delivered.then(() => new Promise((done) => setTimeout(done, arrives - Date.now()))).then(() => { if (!client.destroyed) client.write(slice); });
      }
    });
    remote.on("end", () => { delivered.then(() => client.end()); });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const close = () => { for (const socket of sockets) socket.destroy(); return new Promise((ok) => server.close(ok)); };
  return { url, close };
}

/// Removes everything this origin keeps in the browser: the saved index (Origin Private File System) and the
/// settings (local storage). Run in the page.
export async function forgetSavedIndex() {
  const root = await navigator.storage.getDirectory();
  for await (const name of root.keys()) await root.removeEntry(name, { recursive: true });
  localStorage.clear();
}

export async function waitReady(page) {
  await page.waitForSelector(`${READY}, #status[data-state="failed"]`, { timeout: 300_000 });
  assert.equal(await page.getAttribute("#status", "data-state"), "ready", await page.textContent("#status"));
}

/// Opens the `.quire` file `snapshot` through the import button and waits until its corpus is shown; fails
/// with the page's notice if it refused the file. The seconds from picking the file to the corpus shown.
export async function importSnapshot(page, snapshot) {
  const shown = await page.textContent("#stats-line");
  const started = Date.now();
  await page.setInputFiles("#import", snapshot);
  await page.waitForFunction((shown) => document.querySelector("#stats-line")?.textContent !== shown ||
    document.querySelector("#notice"), shown, { timeout: 600_000 });
  const refused = await page.$("#notice");
  if (refused) throw new Error(`${snapshot}: ${await refused.textContent()}`);
  return (Date.now() - started) / 1000;
}

/// Chromium's sampling profiler (DevTools protocol) on every worker `page` starts from now on, sampling every
/// `intervalUs` microseconds. Workers are reached through the page's session: each attached worker gets a
/// session id, and commands go to it wrapped in Target.sendMessageToTarget (the non-flattened protocol,
/// which playwright's session allows). `start` and `stop` profile every worker at once (`stop` returns their
/// profiles); a worker's own `console.profile` span lands in `marked`.
export async function profileWorkers(context, page, intervalUs = 100) {
  const cdp = await context.newCDPSession(page);
  let nextId = 1;
  const pending = new Map();
  const sessions = [];
  const marked = [];
  const toWorker = (sessionId, method, params = {}) => new Promise((ok, fail) => {
    const id = nextId++;
    pending.set(id, { ok, fail });
    cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method, params }) }).catch((e) => {
      pending.delete(id);
      fail(e);
    });
  });
  cdp.on("Target.receivedMessageFromTarget", ({ message }) => {
    const reply = JSON.parse(message);
    if (reply.method === "Profiler.consoleProfileFinished") marked.push(reply.params.profile);
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    if (reply.error) waiting.fail(new Error(reply.error.message)); else waiting.ok(reply.result);
  });
  // Workers attached while profiling is on start profiling as they attach; `stop` stops only the started.
  const started = new Set();
  let profiling = false;
  cdp.on("Target.attachedToTarget", async ({ sessionId }) => {
    sessions.push(sessionId);
    try {
      await toWorker(sessionId, "Profiler.enable");
      await toWorker(sessionId, "Profiler.setSamplingInterval", { interval: intervalUs });
      if (profiling) await toWorker(sessionId, "Profiler.start").then(() => started.add(sessionId));
    } finally {
      await toWorker(sessionId, "Runtime.runIfWaitingForDebugger").catch(() => {});
    }
  });
  cdp.on("Target.detachedFromTarget", ({ sessionId }) => {
    if (sessions.includes(sessionId)) sessions.splice(sessions.indexOf(sessionId), 1);
    started.delete(sessionId);
  });
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
  return {
    marked,
    start: async () => {
      profiling = true;
      await Promise.all(sessions.map((s) => toWorker(s, "Profiler.start").then(() => started.add(s))));
    },
    stop: async () => {
      profiling = false;
      const stopped = await Promise.all([...started].map((s) => toWorker(s, "Profiler.stop")));
      started.clear();
      return stopped.map((r) => r.profile);
    },
  };
}

/// A CPU profile's milliseconds per function name: `self` (the function itself running) and `inclusive`
/// (it or anything it called; a recursive function counted once per sample), idle time left out.
export function profileTimes(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const name = (id) => {
    const frame = nodes.get(id).callFrame;
    return frame.functionName || `(${frame.url ? "anonymous" : "program"})`;
  };
  const self = new Map();
  const inclusive = new Map();
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);
  profile.samples.forEach((id, i) => {
    if (name(id) === "(idle)") return;
    // A sample stands for the time until the next one (as DevTools counts it).
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    add(self, name(id), ms);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) seen.add(name(at));
    for (const caller of seen) add(inclusive, caller, ms);
  });
  return { self, inclusive };
}

/// Asks `text` and waits for its results. Timed inside the page, from the click to the results in the
/// document (a driver's round trips would add tens of milliseconds that a user does not wait for), and by
/// the engine alone (its own figure, shown under the results).
export async function answerInPage(page, text) {
  await page.fill("#query", text);
  return page.evaluate((asked) => new Promise((done) => {
    const results = () => document.querySelector("#results");
    const began = performance.now();
    const finish = () => {
      if (results()?.dataset.query !== asked) return false;
      observer.disconnect();
      const engine = Number(document.querySelector("#answer-timing")?.dataset.ms ?? NaN);
      done({ shown_ms: performance.now() - began, engine_ms: engine });
      return true;
    };
    const observer = new MutationObserver(finish);
    observer.observe(document.body, { subtree: true, childList: true, attributes: true });
    document.querySelector("#search").click();
    finish();
  }), text);
}
