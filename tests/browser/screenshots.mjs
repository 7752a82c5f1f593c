// The README's screenshots, taken from the release build as a user would see each view:
//   trunk build --release && node tests/browser/screenshots.mjs docs/screenshots
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { serveDist, launchBrowser, DIST } from "./harness.mjs";

const QUIRE = join(process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/quire/target"), "debug/quire");

const out = resolve(process.argv[2] ?? "docs/screenshots");
await mkdir(out, { recursive: true });
const server = await serveDist();
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.goto(server.url);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 300_000 });
  await page.click('button[data-demo="multihop"]');
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("400 documents"));
  const question = "The director of the romantic comedy \"Big Stone Gap\" is based in what New York city?";
  await page.click(`#samples .sample >> text=${question}`);
  await page.waitForFunction((asked) => document.querySelector("#results")?.dataset.query === asked, question);
  await page.locator("main > section.panel").nth(1).screenshot({ path: join(out, "query.png") });
  await page.click("#teaching-view summary");
  await page.waitForSelector("#trace-graph .node");
  await page.click("#teaching-view .zoom-reset");
  await page.locator("#teaching-view").screenshot({ path: join(out, "teaching.png") });
  await page.click("#results .result:first-child .label");
  await page.waitForSelector("#outline .outline-chunk.focused");
  await page.locator("#outline").screenshot({ path: join(out, "outline.png") });
  await page.click("#corpus-graph summary");
  await page.waitForSelector("#corpus-graph-drawing .node");
  await page.locator("#corpus-graph").screenshot({ path: join(out, "corpus-graph.png") });
  await page.click("#run-eval");
  await page.waitForSelector("#eval-table", { timeout: 300_000 });
  await page.locator("#evaluation").screenshot({ path: join(out, "evaluation.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(out, "phone.png") });
  await lessonStep(browser, join(out, "lesson.png"));
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
  await server.close();
}

/// A lesson's step, in a site `quire site` published from the multi-hop demo with its lesson.
async function lessonStep(browser, path) {
  const site = join(await mkdtemp(join(tmpdir(), "quire-lesson-")), "site");
  const root = resolve(import.meta.dirname, "../..");
  execFileSync(QUIRE, ["site", "--snapshot", join(DIST, "snapshots/multihop.quire"), "-o", site, "--app", DIST,
    "--title", "Multi-hop questions", "--lesson", join(root, "datasets/hotpotqa-demo/lesson.yaml")], { stdio: "ignore" });
  const served = await serveDist(site);
  try {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(served.url);
    await page.waitForSelector('#status[data-state="ready"]', { timeout: 300_000 });
    await page.click("#lesson-next");
    await page.click("#lesson-next");
    await page.waitForFunction(() => document.querySelectorAll("#lesson-comparison th").length === 4);
    await page.locator("#lesson").screenshot({ path });
  } finally {
    await served.close();
    await rm(join(site, ".."), { recursive: true, force: true });
  }
}
