// Where a first visit's time to Ready goes, in each browser engine: the release build (dist/) served by
// `python3 -m http.server`, a fresh profile each, and the page's own clock (performance.now(), from the
// navigation's start). As soon as the driver hands the page back it records every change of the status line
// (its state and text: the engine by words, the model's download, Ready) and reads the resource timings of
// what the page itself fetched; the workers' fetches are not the page's, so their share shows as the gaps
// between the status line's changes. Timing only: it checks nothing.
//   trunk build --release && node tests/browser/profile-startup.mjs [--visits N]
// QUIRE_BROWSERS picks the engines (default: chromium,firefox,webkit).
import { DIST, pythonServer as serve } from "./harness.mjs";
import { chosenEngines, launchEngine } from "./engines.mjs";

const visits = Number(process.argv[process.argv.indexOf("--visits") + 1] || 1) || 1;

function watchStatus() {
  const seen = (window.__startup ??= []);
  // The status line's state and its words, the figures of a download's progress left out (one entry a step).
  const note = () => {
    const status = document.querySelector("#status");
    const now = { t: Math.round(performance.now()), state: status?.dataset.state ?? null, text: status?.textContent?.trim().replace(/[\d.]+/g, "#").slice(0, 80) ?? null };
    const last = seen[seen.length - 1];
    if (!last || last.state !== now.state || last.text !== now.text) seen.push(now);
  };
  note();
  new MutationObserver(note).observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true });
  return true;
}

function timeline() {
  const navigation = performance.getEntriesByType("navigation")[0];
  const resources = performance.getEntriesByType("resource")
    .filter((entry) => /\.(wasm|js|quire|onnx|json)$/.test(new URL(entry.name).pathname))
    .map((entry) => ({ file: new URL(entry.name).pathname.split("/").pop().replace(/-[0-9a-f]{8,}/, "-*"), start: Math.round(entry.startTime), end: Math.round(entry.responseEnd) }));
  return { loaded: Math.round(navigation?.loadEventEnd ?? 0), statuses: window.__startup, resources };
}

for (const name of chosenEngines(["chromium", "firefox", "webkit"])) {
  for (let visit = 0; visit < visits; visit++) {
    const server = await serve(DIST);
    const engine = await launchEngine(name);
    try {
      const page = await engine.open(server.url);
      await page.evaluate(watchStatus);
      await page.waitFor(() => ["ready", "failed"].includes(document.querySelector("#status")?.dataset.state), null, { timeout: 300_000, what: "Ready" });
      console.log(JSON.stringify({ engine: engine.version, visit: visit + 1, ...(await page.evaluate(timeline)) }));
    } finally {
      server.stop();
      await engine.close();
    }
  }
}
