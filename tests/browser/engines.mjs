// The three browser engines a user may meet, behind one small page API, so that one core suite
// (engines.test.mjs) runs the same flows in each: Debian's Chromium through playwright-core, Firefox ESR
// through puppeteer-core over WebDriver BiDi (Firefox speaks no CDP, and Playwright's own Firefox build cannot be
// downloaded here), and WebKitGTK's MiniBrowser through its WebDriver (classic: WebKitWebDriver has no BiDi)
// under Xvfb, which it needs for a window. Each engine starts from a fresh profile.
import { spawn, execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";

export const ENGINES = ["chromium", "firefox", "webkit"];

/// The engines `QUIRE_BROWSERS` names (comma-separated), else `fallback`.
export function chosenEngines(fallback) {
  const named = (process.env.QUIRE_BROWSERS ?? fallback.join(",")).split(",").map((name) => name.trim()).filter(Boolean);
  for (const name of named) if (!ENGINES.includes(name)) throw new Error(`QUIRE_BROWSERS: no engine ${name} (${ENGINES.join(", ")})`);
  return named;
}

const MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/// Starts `name` with a fresh profile; returns `{ name, version, open(url), close() }`, where `open` gives a
/// page of the common API below.
export async function launchEngine(name) {
  switch (name) {
    case "chromium": return launchChromium();
    case "firefox": return launchFirefox();
    case "webkit": return launchWebKit();
    default: throw new Error(`no engine ${name}`);
  }
}

/// What every engine's page offers: `evaluate` runs a function (its source, so no closure) with one JSON
/// argument in the page and returns its JSON result, awaited; `waitFor` polls a predicate until it holds;
/// `errors` holds the page's uncaught errors and console errors where the driver hears them (not in WebKit's
/// classic WebDriver).
class PageBase {
  async waitFor(predicate, arg = null, { timeout = 60_000, what = predicate.toString() } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      if (await this.evaluate(predicate, arg).catch(() => false)) return;
      if (Date.now() > deadline) {
        const status = await this.evaluate(() => document.querySelector("#notice, #status")?.textContent ?? "").catch((e) => String(e));
        throw new Error(`${this.engine}: timed out after ${timeout} ms waiting for ${what}; the page says: ${status}`);
      }
      await new Promise((next) => setTimeout(next, 200));
    }
  }

  /// Runs a script's source in the page (a library for the test: axe-core), past the page's
  /// Content-Security-Policy, as the driver's own evaluation is.
  inject(source) {
    return this.evaluate((script) => { (0, eval)(script); }, source);
  }

  text(selector) {
    return this.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);
  }

  attribute(selector, name) {
    return this.evaluate(([s, n]) => document.querySelector(s)?.getAttribute(n) ?? null, [selector, name]);
  }
}

/// A page of Playwright or puppeteer, whose page APIs agree on all but filling a field and picking files.
class DriverPage extends PageBase {
  constructor(engine, page) {
    super();
    this.engine = engine;
    this.page = page;
    this.errors = [];
    page.on("pageerror", (e) => this.errors.push(`pageerror: ${e.message}`));
    page.on("console", (m) => { if (m.type() === "error") this.errors.push(`console: ${m.text()}`); });
  }
  goto(url) { return this.page.goto(url); }
  reload() { return this.page.reload(); }
  evaluate(fn, arg = null) { return this.page.evaluate(fn, arg); }
  click(selector) { return this.page.click(selector); }
  press(key) { return this.page.keyboard.press(key); }
  close() { return this.page.close(); }
}

async function launchChromium() {
  const { chromium } = await import("playwright-core");
  const profile = await mkdtemp(join(tmpdir(), "quire-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"],
  });
  class ChromiumPage extends DriverPage {
    fill(selector, text) { return this.page.fill(selector, text); }
    setFiles(selector, paths) { return this.page.setInputFiles(selector, paths); }
  }
  return {
    name: "chromium",
    version: execFileSync(process.env.CHROMIUM ?? "/usr/bin/chromium", ["--version"], { encoding: "utf8" }).trim(),
    open: async (url) => { const page = new ChromiumPage("chromium", await context.newPage()); await page.goto(url); return page; },
    close: async () => { await context.close(); await rm(profile, { recursive: true, force: true }); },
  };
}

async function launchFirefox() {
  const { default: puppeteer } = await import("puppeteer-core");
  const executablePath = process.env.FIREFOX ?? "/usr/bin/firefox-esr";
  const profile = await mkdtemp(join(tmpdir(), "quire-firefox-"));
  const browser = await puppeteer.launch({
    browser: "firefox",
    executablePath,
    headless: true,
    userDataDir: profile,
    // A test profile: no first-run pages, no updates, nothing fetched from elsewhere.
    extraPrefsFirefox: { "browser.shell.checkDefaultBrowser": false, "app.update.enabled": false, "dom.storage_access.prompt.testing": true },
  });
  class FirefoxPage extends DriverPage {
    async fill(selector, text) {
      await this.page.$eval(selector, (input) => { input.value = ""; });
      await this.page.type(selector, text);
    }
    async setFiles(selector, paths) { await (await this.page.$(selector)).uploadFile(...paths); }
  }
  return {
    name: "firefox",
    version: execFileSync(executablePath, ["--version"], { encoding: "utf8" }).trim(),
    open: async (url) => { const page = new FirefoxPage("firefox", await browser.newPage()); await page.goto(url); return page; },
    close: async () => { await browser.close(); await rm(profile, { recursive: true, force: true }); },
  };
}

async function freePort() {
  const server = createServer();
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  await new Promise((ok) => server.close(ok));
  return port;
}

/// Waits until `port` on 127.0.0.1 answers HTTP, or fails after `timeout`.
async function answers(port, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    try { await fetch(`http://127.0.0.1:${port}/status`); return; } catch { await new Promise((next) => setTimeout(next, 100)); }
  }
  throw new Error(`WebKitWebDriver did not answer on port ${port}`);
}

async function launchWebKit() {
  const { Builder, By, Key } = await import("selenium-webdriver");
  // A display of its own: MiniBrowser has no headless mode.
  const display = `:${90 + (process.pid % 500)}`;
  const xvfb = spawn("Xvfb", [display, "-screen", "0", "1280x900x24", "-nolisten", "tcp"], { stdio: "ignore" });
  const port = await freePort();
  const driverProcess = spawn(process.env.WEBKIT_WEBDRIVER ?? "WebKitWebDriver", [`--port=${port}`], {
    stdio: "ignore", env: { ...process.env, DISPLAY: display },
  });
  const stop = () => { driverProcess.kill(); xvfb.kill(); };
  let driver;
  try {
    await answers(port);
    driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
      browserName: "MiniBrowser",
      // Automation sessions are ephemeral: a fresh profile each.
      "webkitgtk:browserOptions": { binary: process.env.MINIBROWSER ?? MINIBROWSER, args: ["--automation"] },
    }).build();
  } catch (failure) {
    stop();
    throw failure;
  }
  const keys = { Enter: Key.ENTER, Tab: Key.TAB, Escape: Key.ESCAPE, ArrowRight: Key.ARROW_RIGHT, ArrowLeft: Key.ARROW_LEFT, " ": " ", "/": "/" };
  class WebKitPage extends PageBase {
    constructor() {
      super();
      this.engine = "webkit";
      this.errors = [];
    }
    goto(url) { return driver.get(url); }
    reload() { return driver.navigate().refresh(); }
    async evaluate(fn, arg = null) {
      // The function travels as source and runs as an async script, so a promise it returns is awaited.
      const outcome = await driver.executeAsyncScript(
        `const done = arguments[arguments.length - 1];
         Promise.resolve().then(() => (${fn.toString()})(arguments[0]))
           .then((value) => done({ value: value === undefined ? null : value }), (error) => done({ error: String(error && error.stack || error) }));`,
        arg,
      );
      if (outcome.error) throw new Error(`webkit: ${outcome.error}`);
      return outcome.value;
    }
    // The script is the driver's own, which the policy allows; an `eval` inside it is refused.
    async inject(source) { await driver.executeScript(source); }
    async click(selector) { await (await driver.findElement(By.css(selector))).click(); }
    async fill(selector, text) {
      const input = await driver.findElement(By.css(selector));
      await input.clear();
      await input.sendKeys(text);
    }
    press(key) { return driver.actions().sendKeys(keys[key] ?? key).perform(); }
    async setFiles(selector, paths) { await (await driver.findElement(By.css(selector))).sendKeys(paths.join("\n")); }
    close() { return null; }
  }
  await driver.manage().setTimeouts({ script: 300_000 });
  return {
    name: "webkit",
    version: `WebKitGTK ${execFileSync("dpkg-query", ["-W", "-f", "${Version}", "libwebkit2gtk-4.1-0"], { encoding: "utf8" }).trim()} (MiniBrowser)`,
    // One window a session: a page is that window, sent to `url`.
    open: async (url) => { const page = new WebKitPage(); await page.goto(url); return page; },
    close: async () => { try { await driver.quit(); } finally { stop(); } },
  };
}
