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
  // The results view at 1280×800, as the README opens with it, then the same on a phone.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(server.url);
  await page.waitForSelector('#status[data-state="ready"]', { timeout: 300_000 });
  await ask(page, "Who was the first person to walk on the Moon?");
  await page.screenshot({ path: join(out, "results.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  await ask(page, "What is the Sun made of?");
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(out, "phone.png") });
  // The teaching view as a projector shows it (1280×720), at the node-set join's first step.
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.click('button[data-demo="multihop"]');
  await page.waitForFunction(() => document.querySelector("#stats-line")?.textContent.startsWith("400 documents"));
  await ask(page, "The director of the romantic comedy \"Big Stone Gap\" is based in what New York city?");
  await page.click("#teaching-view summary");
  await page.waitForSelector("#trace-graph .node");
  await page.locator("#teaching-view .teaching").focus();
  await page.keyboard.press("Home");
  for (let i = 0; i < 40 && !(await page.textContent("#stage")).includes("join: where it starts"); i++) await page.keyboard.press("ArrowRight");
  await page.locator("#teaching-view").screenshot({ path: join(out, "teaching.png") });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.click("#results .result:first-child .label");
  await page.waitForSelector("#outline .outline-chunk.focused");
  await page.locator("#outline").screenshot({ path: join(out, "outline.png") });
  await page.click("#corpus-graph summary");
  await page.waitForSelector("#corpus-graph-drawing .node");
  await page.locator("#corpus-graph").screenshot({ path: join(out, "corpus-graph.png") });
  await page.click("#run-eval");
  await page.waitForSelector("#eval-table", { timeout: 300_000 });
  await page.locator("#evaluation").screenshot({ path: join(out, "evaluation.png") });
  await lessonStep(browser, join(out, "lesson.png"));
  console.log(`screenshots in ${out}`);
} finally {
  await browser.close();
  await server.close();
}

/// Asks `question` and waits for its results.
async function ask(page, question) {
  await page.fill("#query", question);
  await page.click("#search");
  await page.waitForFunction((asked) => document.querySelector("#results")?.dataset.query === asked, question);
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
    await page.setViewportSize({ width: 1280, height: 800 });
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
