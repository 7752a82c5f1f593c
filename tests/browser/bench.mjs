// Embedding throughput of the wasm build in headless Chromium: node tests/browser/bench.mjs [count]
import { serveDist, launchBrowser } from "./harness.mjs";

const count = Number(process.argv[2] ?? 32);
const server = await serveDist();
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  await page.goto(`${server.url}?bench=embed&count=${count}`);
  await page.waitForSelector('#bench-result, #status[data-state="failed"]', { timeout: 600_000 });
  const result = await page.$("#bench-result");
  if (!result) throw new Error(await page.textContent("#status"));
  const report = JSON.parse(await result.textContent());
  report.browser = await browser.context.browser()?.version() ?? "chromium";
  console.log(JSON.stringify(report, null, 2));
} finally {
  await browser.close();
  await server.close();
}
