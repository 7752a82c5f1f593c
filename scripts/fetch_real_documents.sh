#!/usr/bin/env bash
# Real documents nobody here wrote, for tests/real_documents.rs: documentation shipped in Debian packages
# (specification and manual PDFs, an HTML manual, a Markdown README), fetched from the package archive with
# `apt-get download` and unpacked into ~/.cache/quire/real-documents. Licences: tests/real-documents/README.md.
# Idempotent: a file already there is kept.
set -euo pipefail
out="${QUIRE_REAL_DOCUMENTS:-$HOME/.cache/quire/real-documents}"
# package | file inside it | name here
documents=(
  "shared-mime-info|usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf|shared-mime-info-spec.pdf"
  "libtasn1-doc|usr/share/doc/libtasn1-doc/libtasn1.pdf|libtasn1.pdf"
  "base-passwd|usr/share/doc/base-passwd/users-and-groups.html|users-and-groups.html"
  "python3-yaml|usr/share/doc/python3-yaml/README.md|pyyaml-README.md"
)
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for entry in "${documents[@]}"; do
  IFS='|' read -r package inside name <<< "$entry"
  [ -s "$out/$name" ] && continue
  if ! (cd "$work" && apt-get download -q "$package" >/dev/null 2>&1); then
    # A fresh machine may have no package lists yet.
    if [ "$(id -u)" = 0 ]; then apt-get update -qq; else sudo apt-get update -qq; fi
    (cd "$work" && apt-get download -q "$package" >/dev/null)
  fi
  dpkg-deb -x "$work"/"${package}"_*.deb "$work/$package"
  cp "$work/$package/$inside" "$out/$name"
done
echo "real documents in $out: $(ls "$out" | wc -l) files"
