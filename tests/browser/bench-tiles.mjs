// Matrix-product tiles in Chromium's wasm engine: the microbenchmark behind Quire's wasm matrix kernel
// (src/embed/wasm_kernel.rs). Build the tiles, then run:
//   cargo build --release --target wasm32-unknown-unknown --manifest-path benches/wasm_tiles/Cargo.toml
//   node tests/browser/bench-tiles.mjs [rounds] [pages]
// Prints GFLOP/s per tile and round (the first round includes the engine's optimising compile). With `pages`
// above 1, that many pages run the same rounds at once, each with its own copy of the matrices: whether
// embedders on several cores slow each other in the kernel (caches, memory bandwidth).
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { launchBrowser } from "./harness.mjs";

const rounds = Number(process.argv[2] ?? 3);
const pages = Number(process.argv[3] ?? 1);
const target = process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/quire/target");
const wasm = await readFile(join(target, "wasm32-unknown-unknown/release/wasm_tiles.wasm"));
const names = ["tract 8 × 8 (16 accumulators)", "tract 4 × 16 (16 accumulators)", "4 × 8 (8 accumulators)",
  "8 × 16 as four 4 × 8 quadrants (Quire's)"];
const browser = await launchBrowser();
try {
  const measure = async (page) => page.evaluate(async ({ bytes, rounds, tiles }) => {
    const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes), {});
    const { fill, run } = instance.exports;
    fill();
    const rates = [];
    for (let round = 0; round < rounds; round++) {
      for (let tile = 0; tile < tiles; tile++) {
        const started = performance.now();
        const gflop = run(tile, 10);
        rates.push([round, tile, gflop / ((performance.now() - started) / 1000)]);
      }
    }
    return rates;
  }, { bytes: [...wasm], rounds, tiles: names.length });
  const opened = await Promise.all(Array.from({ length: pages }, () => browser.context.newPage()));
  const results = await Promise.all(opened.map(measure));
  const together = pages > 1 ? `, on ${pages} pages at once` : "";
  console.log(`Chromium ${await browser.context.browser()?.version() ?? ""}: a 1536 × 384 by 384 × 128 product, 10 times${together}\n`);
  console.log(`| tile |${pages > 1 ? " page |" : ""} ${Array.from({ length: rounds }, (_, r) => `round ${r + 1} GFLOP/s`).join(" | ")} |`);
  console.log(`|---|${pages > 1 ? "---|" : ""}${"---|".repeat(rounds)}`);
  names.forEach((name, tile) => {
    results.forEach((rates, page) => {
      const cells = rates.filter(([, t]) => t === tile).map(([, , rate]) => rate.toFixed(1));
      console.log(`| ${name} |${pages > 1 ? ` ${page + 1} |` : ""} ${cells.join(" | ")} |`);
    });
  });
} finally {
  await browser.close();
}
