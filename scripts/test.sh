#!/usr/bin/env bash
# Sets up what is missing, then runs every test: formatting, native unit and integration tests, the hostile
# inputs through the CLI, the trec_eval cross-check of the evaluation metrics, the release wasm build (with the
# demo indexes the CLI builds, scripts/build_demos.sh), learned fusion's inference and the matrix kernel in
# wasm32, and the browser tests against that build: the full suite in headless Chromium, the core suite in
# Firefox ESR and WebKitGTK, and the search a built site adds in all three. The benchmark pages' checks need a second build
# with the measuring mode and are a command of their own: scripts/test_bench_pages.sh.
source "$(dirname "${BASH_SOURCE[0]}")/test_env.sh"
echo "== formatting"
cargo fmt --check
echo "== the README's figures against the docs (scripts/check_figures.py): the headline table against the docs'"
echo "   current figures, every figure of its prose against a doc it links to; first the check itself"
python3 scripts/check_figures.py --self-test
python3 scripts/check_figures.py
echo "== module layering (scripts/check_modules.py): no module uses one that uses it back, no file over 400 lines"
echo "   without its reason; first the check itself, on small trees it must pass and fail"
python3 scripts/check_modules.py --self-test
python3 scripts/check_modules.py
echo "== native tests"
cargo test --locked
echo "== hostile inputs (scripts/hostile_inputs.py): every case's outcome through quire check and quire index;"
echo "   limits that catch a hang or a runaway, not a slow machine; a case with more than 500 texts to embed runs"
echo "   through check alone, since the debug build embeds a few a second (docs/RELIABILITY.md has the release"
echo "   build's figures for every case)"
python3 scripts/hostile_inputs.py "$CARGO_TARGET_DIR/debug/quire" --seconds 240 --megabytes 3072 --jobs 2 \
  --slowest-rate 0 --embed-at-most 500
echo "== metrics against trec_eval"
"${QUIRE_VENV:-$HOME/.cache/quire/venv}/bin/python" scripts/check_trec_eval.py "$CARGO_TARGET_DIR/debug/quire" tests/fixtures/scifact-subset
echo "== wasm build"
trunk build --release
echo "== wasm32 (Node): learned fusion's inference against the natively recorded scores; Quire's matrix kernel"
echo "   against tract's own, and the embedder against the natively recorded embeddings (the release profile,"
echo "   whose dependencies the wasm build has compiled)"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --locked --release --target wasm32-unknown-unknown --test wasm_parity
echo "== browser tests: the full suite in Chromium, then the core suite in Firefox ESR and WebKitGTK (engines.test.mjs),"
echo "   then the search a built site adds in all three (site-search.test.mjs)"
cd tests/browser
node --test --test-concurrency=1 app.test.mjs generate.test.mjs
QUIRE_BROWSERS=firefox,webkit node --test --test-concurrency=1 engines.test.mjs
# One run an engine: all three in one run leave WebKit's page without an answer (each alone, and any two, pass).
for engine in chromium firefox webkit; do
  QUIRE_BROWSERS=$engine node --test --test-concurrency=1 site-search.test.mjs
done
