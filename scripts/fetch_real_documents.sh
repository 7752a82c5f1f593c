#!/usr/bin/env bash
# Real documents nobody here wrote, for tests/integration/real_documents.rs: documentation shipped in Debian packages
# (specification and manual PDFs, an HTML manual, Markdown files), fetched from the package archive with
# `apt-get download` and unpacked into ~/.cache/quire/real-documents; then one of them converted to DOCX, ODT
# and EPUB by pandoc (from Debian, installed by setup.sh), as an office tool writes them. Licences:
# tests/real-documents/README.md. Idempotent: a file already there is kept.
set -euo pipefail
out="${QUIRE_REAL_DOCUMENTS:-$HOME/.cache/quire/real-documents}"
# package | file inside it | name here
documents=(
  "shared-mime-info|usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf|shared-mime-info-spec.pdf"
  "libtasn1-doc|usr/share/doc/libtasn1-doc/libtasn1.pdf|libtasn1.pdf"
  "base-passwd|usr/share/doc/base-passwd/users-and-groups.html|users-and-groups.html"
  "python3-yaml|usr/share/doc/python3-yaml/README.md|pyyaml-README.md"
  "systemd|usr/share/doc/systemd/DISTRO_PORTING.md|systemd-DISTRO_PORTING.md"
  "systemd|usr/share/doc/systemd/UIDS-GIDS.md.gz|systemd-UIDS-GIDS.md"
  "groff|usr/share/doc/groff-base/pdf/automake.pdf.gz|groff-automake.pdf"
  "groff|usr/share/doc/groff-base/examples/mom/mon_premier_doc.pdf.gz|groff-mon_premier_doc.pdf"
  "distro-info-data|usr/share/distro-info/debian.csv|distro-info-debian.csv"
  "base-passwd|usr/share/doc/base-passwd/README|base-passwd-README.txt"
  "debian-reference-de|usr/share/debian-reference/ch02.de.html|debian-reference-ch02.de.html"
  "debian-reference-ja|usr/share/debian-reference/ch02.ja.html|debian-reference-ch02.ja.html"
)
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for entry in "${documents[@]}"; do
  IFS='|' read -r package inside name <<< "$entry"
  [ -s "$out/$name" ] && continue
  if ls "$work"/"${package}"_*.deb >/dev/null 2>&1; then
    :
  elif ! (cd "$work" && apt-get download -q "$package" >/dev/null 2>&1); then
    # A fresh machine may have no package lists yet.
    if [ "$(id -u)" = 0 ]; then apt-get update -qq; else sudo apt-get update -qq; fi
    (cd "$work" && apt-get download -q "$package" >/dev/null)
  fi
  [ -d "$work/$package" ] || dpkg-deb -x "$work"/"${package}"_*.deb "$work/$package"
  case "$inside" in
    *.gz) gzip -dc "$work/$package/$inside" > "$out/$name" ;;
    *) cp "$work/$package/$inside" "$out/$name" ;;
  esac
done
for document in systemd-DISTRO_PORTING systemd-UIDS-GIDS; do
  for format in docx odt epub; do
    [ -s "$out/$document.$format" ] || pandoc "$out/$document.md" -o "$out/$document.$format"
  done
  # EPUB 2 too: its contents are an NCX file, not a nav page.
  [ -s "$out/$document-epub2.epub" ] || pandoc "$out/$document.md" -t epub2 -o "$out/$document-epub2.epub"
done
echo "real documents in $out: $(ls "$out" | wc -l) files"
