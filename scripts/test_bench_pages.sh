#!/usr/bin/env bash
# The benchmark pages' checks, after scripts/test.sh (whose setup and build cache they reuse): a second wasm
# build with the measuring mode (`--features bench`, into dist-bench), then Quire's embedder against
# onnxruntime-web, the embedding pool against the engine worker's vectors, and the profilers and the vector index
# page at small sizes. No timing is checked. Not part of the test command: the second build costs CI about a
# quarter of an hour on two cores, and the product's own build is what the test command checks.
source "$(dirname "${BASH_SOURCE[0]}")/test_env.sh"
echo "== wasm build with the measuring mode"
trunk build --release --features bench --dist dist-bench
cd tests/browser
echo "== Quire's embedder and onnxruntime-web agree"
node compare.mjs 4 1 --check
echo "== the embedding pool, with the engine worker embedding too, gives every text the engine worker's vector"
node bench.mjs 40 1 32 1 --check
echo "== the profilers and the vector index benchmark page still run"
node profile-embed.mjs 4 > /dev/null
node profile-query.mjs --questions 3 > /dev/null
[ "$(node bench-vector-index.mjs 2000 | grep -c '^| 2000 |')" = 2 ]  # a row for the flat index, one for HNSW
