#!/usr/bin/env bash
# Lays the real documentation folders under the labelled real-folder sets (datasets/<set>/corpus/), copied
# exactly as the Rust toolchain ships them (chapters, the all-in-one print.html, redirect stubs, assets), so
# `quire eval datasets/<set>` reads them through the real parsers. Skipped where a corpus is already there;
# the copies are not committed (.gitignore), the questions and labels are.
# The debian-reference-<lang> sets get the HTML pages of one language of Debian's manual "Debian Reference",
# as the Debian package debian-reference-<lang> installs them (scripts/setup.sh installs the packages).
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

# Every language's package puts its pages side by side in one folder, named <page>.<lang>.html: index (the title
# page and full table of contents), pr01 (preface), ch01 to ch12, apa (appendix). They are plain UTF-8 files
# (the per-package /usr/share/doc/debian-reference-<lang>/docs is a symlink to this folder); the copy takes that
# language's pages only (cp -L, so a corpus never holds a link), not the shared CSS and images, the PDF, the
# gzipped plain text or the index.html of all languages that the package's postinst writes.
manual=/usr/share/debian-reference
for lang in en de fr es it ja zh-cn; do
  set_name="debian-reference-$lang"
  target="$root/datasets/$set_name/corpus"
  [ -d "$root/datasets/$set_name" ] || continue
  [ -d "$target" ] && continue
  for page in index ch01; do
    if [ ! -f "$manual/$page.$lang.html" ]; then
      echo "fetch_real_folders: $manual/$page.$lang.html is missing (apt-get install debian-reference-$lang)" >&2
      exit 1
    fi
  done
  rm -rf "$target.partial"
  mkdir "$target.partial"
  cp -L "$manual"/*."$lang".html "$target.partial/"
  mv "$target.partial" "$target"
  echo "real folder: $set_name from $manual/*.$lang.html ($(find "$target" -type f | wc -l) files)"
done
