#!/usr/bin/env bash
# Lays the real documentation folders under the labelled real-folder sets (datasets/<set>/corpus/), copied
# exactly as the Rust toolchain ships them (chapters, the all-in-one print.html, redirect stubs, assets), so
# `quire eval datasets/<set>` reads them through the real parsers. Skipped where a corpus is already there;
# the copies are not committed (.gitignore), the questions and labels are.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
books="$(rustc --print sysroot)/share/doc/rust/html"
for pair in cargo-book:cargo rust-reference:reference nomicon:nomicon; do
  set_name="${pair%%:*}"
  book="${pair##*:}"
  target="$root/datasets/$set_name/corpus"
  [ -d "$root/datasets/$set_name" ] || continue
  [ -d "$target" ] && continue
  if [ ! -d "$books/$book" ]; then
    echo "fetch_real_folders: $books/$book is missing (rustup component add rust-docs)" >&2
    exit 1
  fi
  cp -r "$books/$book" "$target.partial"
  mv "$target.partial" "$target"
  echo "real folder: $set_name from $books/$book ($(find "$target" -type f | wc -l) files)"
done
