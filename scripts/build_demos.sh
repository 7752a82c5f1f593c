#!/usr/bin/env bash
# Builds the app's demo indexes with the native CLI, so a first visit opens a ready index instead of embedding
# in the tab: the planets notes (public/demo, the files its manifest lists) and 400 HotpotQA paragraphs
# (datasets/hotpotqa-demo, CC BY-SA 4.0), each with its sample questions, listed in the build's corpora.json
# (the corpora a build publishes, src/store/published.rs; `quire site` lists a user's own there); and the
# evaluation view's SciFact subset. Trunk runs this before every build
# (Trunk.toml's pre_build hook) and the snapshots land in the build's `snapshots/`. Snapshots are kept under
# ~/.cache/quire/demos, and `quire index` reuses their embeddings, so a rebuild embeds only what changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/quire/target}"
out="${TRUNK_STAGING_DIR:-$root/dist}/snapshots"
cache="${QUIRE_DEMO_CACHE:-$HOME/.cache/quire/demos}"
mkdir -p "$out" "$cache/multihop"

# The test profile: `cargo test` has built this binary already.
cargo build --locked --profile test --bin quire
quire="$CARGO_TARGET_DIR/debug/quire"
# The binary runs from other folders, and its compiled-in fallback names the checkout that compiled it: the
# build cache is shared between checkouts, so that may be another one (a fresh clone's CI run).
export QUIRE_MODEL_DIR="${QUIRE_MODEL_DIR:-$root/models}"

# Demo documents are known as demo/<name>, so a user's own moon.md joins them instead of replacing one.
mapfile -t planets < <(python3 -c 'import json,sys; print("\n".join("demo/" + f for f in json.load(open(sys.argv[1]))["files"]))' public/demo/manifest.json)
(cd public && "$quire" index "${planets[@]}" -o "$cache/planets.quire" > /dev/null)

gzip -dc datasets/hotpotqa-demo/corpus.jsonl.gz > "$cache/multihop/hotpotqa.jsonl"
(cd "$cache/multihop" && "$quire" index hotpotqa.jsonl -o "$cache/multihop.quire" > /dev/null)

# The evaluation view's bundled dataset: the SciFact subset the tests evaluate (tests/fixtures/scifact-subset),
# its corpus indexed here as `quire eval` indexes it, its questions and labels beside the snapshot.
mkdir -p "$cache/scifact-subset" "$out/../eval/scifact-subset/qrels"
gzip -dc tests/fixtures/scifact-subset/corpus.jsonl.gz > "$cache/scifact-subset/corpus.jsonl"
(cd "$cache/scifact-subset" && "$quire" index corpus.jsonl -o "$cache/scifact-subset.quire" > /dev/null)
cp tests/fixtures/scifact-subset/queries.jsonl.gz "$out/../eval/scifact-subset/"
cp tests/fixtures/scifact-subset/qrels/test.tsv "$out/../eval/scifact-subset/qrels/"

cp "$cache/planets.quire" "$cache/multihop.quire" "$cache/scifact-subset.quire" "$out/"
cp public/demo/questions.json "$out/planets-questions.json"
cp datasets/hotpotqa-demo/questions.json "$out/multihop-questions.json"
cat > "$out/../corpora.json" <<'JSON'
{
  "corpora": [
    {
      "key": "planets",
      "title": "Planets and the Moon landing (6 files)",
      "snapshot": "snapshots/planets.quire",
      "questions": "snapshots/planets-questions.json"
    },
    {
      "key": "multihop",
      "title": "Multi-hop encyclopedia (400 HotpotQA paragraphs)",
      "snapshot": "snapshots/multihop.quire",
      "questions": "snapshots/multihop-questions.json"
    }
  ]
}
JSON
echo "demos: $(du -h "$out/planets.quire" | cut -f1) planets, $(du -h "$out/multihop.quire" | cut -f1) multi-hop snapshots in $out"
