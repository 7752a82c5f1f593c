// Serves the Trunk build (dist/) on 127.0.0.1 and drives Debian's Chromium headless through playwright-core.
import { createServer } from "node:http";
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
/// sends the headers that make the page cross-origin isolated (what onnxruntime-web's threads need).
export async function serveDist(root = DIST, { mounts = {}, isolated = false } = {}) {
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, "http://127.0.0.1").pathname);
    const [prefix, base] = Object.entries(mounts).find(([prefix]) => path.startsWith(prefix)) ?? ["/", root];
    const file = normalize(join(base, path.slice(prefix.length - 1).endsWith("/") ? path.slice(prefix.length - 1) + "index.html" : path.slice(prefix.length - 1)));
    if (!file.startsWith(base)) { response.writeHead(403).end(); return; }
    const headers = isolated ? { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" } : {};
    try {
      const body = await readFile(file);
      response.writeHead(200, { ...headers, "content-type": MIME[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      response.writeHead(404, headers).end("not found");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((ok) => server.close(ok)) };
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
