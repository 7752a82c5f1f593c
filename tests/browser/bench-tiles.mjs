// Matrix-product tiles in Chromium's wasm engine: the microbenchmark behind Quire's wasm matrix kernel
// (src/embed/wasm_kernel.rs). Build the tiles, then run:
//   cargo build --release --target wasm32-unknown-unknown --manifest-path benches/wasm_tiles/Cargo.toml
//   node tests/browser/bench-tiles.mjs [rounds]
// Prints GFLOP/s per tile and round (the first round includes the engine's optimising compile).
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { launchBrowser } from "./harness.mjs";

const rounds = Number(process.argv[2] ?? 3);
const target = process.env.CARGO_TARGET_DIR ?? join(homedir(), ".cache/quire/target");
const wasm = await readFile(join(target, "wasm32-unknown-unknown/release/wasm_tiles.wasm"));
const names = ["tract 8 × 8 (16 accumulators)", "tract 4 × 16 (16 accumulators)", "4 × 8 (8 accumulators)",
  "8 × 16 as four 4 × 8 quadrants (Quire's)"];
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  const rates = await page.evaluate(async ({ bytes, rounds, tiles }) => {
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
  console.log(`Chromium ${await browser.context.browser()?.version() ?? ""}: a 1536 × 384 by 384 × 128 product, 10 times\n`);
  console.log(`| tile | ${Array.from({ length: rounds }, (_, r) => `round ${r + 1} GFLOP/s`).join(" | ")} |`);
  console.log(`|---|${"---|".repeat(rounds)}`);
  names.forEach((name, tile) => {
    const cells = rates.filter(([, t]) => t === tile).map(([, , rate]) => rate.toFixed(1));
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  });
} finally {
  await browser.close();
}
