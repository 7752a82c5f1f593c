// What an Export of a large index copies, on the shipped build (dist/) in headless Chromium: a fresh tab
// imports SNAPSHOT (made at the size wanted by `cargo bench --bench scale_snapshots --features bench`), then
// Export is clicked and the file it downloads is awaited. Around the export every Chromium process's peak
// resident memory is reset (/proc/PID/clear_refs) and read back (VmHWM): the sum of each process's peak above
// what it held before bounds from above what the export held at once beyond the index itself, which is told
// as a multiple of the snapshot's size. The file written counts as one; a copy of the snapshot's bytes in the
// engine (its serialisation) and one out of its memory are the others the export may hold. Linux only.
//   node tests/browser/bench-export.mjs SNAPSHOT.quire
import { execFileSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { serveDist, launchBrowser, watchErrors, waitReady, importSnapshot } from "./harness.mjs";

const [snapshot] = process.argv.slice(2);
if (!snapshot) throw new Error("usage: node tests/browser/bench-export.mjs SNAPSHOT.quire");

/// The pids of every Chromium process (the benchmark's browser is the only one running).
function chromiumPids() {
  return execFileSync("ps", ["-C", "chromium", "-o", "pid="]).toString().trim().split(/\s+/).map(Number);
}

/// A process's resident memory now and at its peak since the last reset, in MB.
function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))[1]) / 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

const server = await serveDist();
const browser = await launchBrowser({ args: ["--js-flags=--expose-gc"] });
try {
  const page = await browser.context.newPage();
  const errors = watchErrors(page);
  await page.goto(server.url);
  await waitReady(page);
  await importSnapshot(page, snapshot);
  // What the page holds for the index, not the import's garbage.
  await page.evaluate(() => gc());
  await new Promise((done) => setTimeout(done, 2_000));
  const before = new Map(chromiumPids().map((pid) => [pid, memoryMb(pid).rss]));
  for (const pid of before.keys()) writeFileSync(`/proc/${pid}/clear_refs`, "5");
  const started = Date.now();
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  const file = await download.path();
  const seconds = (Date.now() - started) / 1000;
  let grown = 0;
  for (const pid of chromiumPids()) {
    const { peak } = memoryMb(pid);
    const above = Math.max(0, peak - (before.get(pid) ?? 0));
    grown += above;
    const type = readFileSync(`/proc/${pid}/cmdline`, "utf8").match(/--type=([\w-]+)/)?.[1] ?? "browser";
    if (above >= 1) console.error(`${type} (${pid}): ${(before.get(pid) ?? 0).toFixed(0)} MiB before, peak ${peak.toFixed(0)} MiB`);
  }
  if (errors.length) throw new Error(errors.join("\n"));
  const snapshotMb = statSync(snapshot).size / 2 ** 20;
  const exportedMb = statSync(file).size / 2 ** 20;
  console.log("| snapshot (MiB) | exported file (MiB) | export to file (s) | peak above before, every Chromium process (MiB) | in snapshots |");
  console.log("|---|---|---|---|---|");
  console.log(`| ${snapshotMb.toFixed(1)} | ${exportedMb.toFixed(1)} | ${seconds.toFixed(1)} | ${grown.toFixed(0)} | ` +
    `${(grown / snapshotMb).toFixed(2)} |`);
} finally {
  await browser.close();
  await server.close();
}
