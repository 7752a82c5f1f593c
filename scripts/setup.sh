#!/usr/bin/env bash
# Installs whatever is missing to build, serve and test Quire; every step is skipped when already done.
# Needs the package registries only (Debian, crates.io, npm, PyPI); Trunk is configured never to download.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing_packages=()
command -v chromium >/dev/null || missing_packages+=(chromium)
command -v chromedriver >/dev/null || missing_packages+=(chromium-driver)
# pandoc writes the DOCX, ODT and EPUB test files (scripts/fetch_real_documents.sh).
command -v pandoc >/dev/null || missing_packages+=(pandoc)
command -v wasm-opt >/dev/null || missing_packages+=(binaryen)
# The browser tests' other two engines: Firefox ESR (driven over WebDriver BiDi) and WebKitGTK's WebDriver with
# its MiniBrowser, which needs an X server (Xvfb).
command -v firefox-esr >/dev/null || missing_packages+=(firefox-esr)
command -v WebKitWebDriver >/dev/null || missing_packages+=(webkit2gtk-driver)
command -v Xvfb >/dev/null || missing_packages+=(xvfb)
# Debian Reference in seven languages, the corpora of datasets/debian-reference-<lang>
# (scripts/fetch_real_folders.sh copies each language's pages from /usr/share/debian-reference).
for lang in en de fr es it ja zh-cn; do
  dpkg -s "debian-reference-$lang" >/dev/null 2>&1 || missing_packages+=("debian-reference-$lang")
done
if [ ${#missing_packages[@]} -gt 0 ]; then
  echo "setup: installing ${missing_packages[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_packages[@]}" >/dev/null
fi

rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown

if ! trunk --version 2>/dev/null | grep -qx "trunk 0.21.14"; then
  echo "setup: installing trunk 0.21.14 (several minutes)"
  cargo install trunk --version 0.21.14 --locked
fi

# wasm-bindgen-cli must equal the wasm-bindgen crate in Cargo.lock. Installed without --locked: one of its
# locked dependencies is no longer on crates.io.
bindgen_version="$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')"
if ! wasm-bindgen --version 2>/dev/null | grep -q " ${bindgen_version}"; then
  echo "setup: installing wasm-bindgen-cli ${bindgen_version}"
  cargo install wasm-bindgen-cli --version "${bindgen_version}"
fi
grep -q "wasm_bindgen = \"${bindgen_version}\"" Trunk.toml \
  || { echo "setup: error: Trunk.toml must pin wasm_bindgen = \"${bindgen_version}\" (the Cargo.lock version)" >&2; exit 1; }

# The browser tests' drivers (Playwright's client for Chromium, puppeteer-core for Firefox over WebDriver BiDi,
# selenium-webdriver for WebKitGTK's WebDriver; none downloads a browser), axe-core and onnxruntime-web.
for package in playwright-core puppeteer-core selenium-webdriver onnxruntime-web axe-core; do
  if [ ! -d "tests/browser/node_modules/$package" ]; then
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
    break
  fi
done
# wasm-opt for the site search module, which every build shrinks, and for builds that ask for more
# (QUIRE_WASM_OPT; scripts/finish_build.py): Binaryen from npm, which handles reference types.
if [ ! -f tools/wasm-opt/node_modules/binaryen/bin/wasm-opt ]; then
  (cd tools/wasm-opt && npm ci --no-audit --no-fund --loglevel=error)
fi

bash models/fetch.sh

# trec_eval's own code (pytrec_eval-terrier) cross-checks `quire eval`'s metrics; kept in a venv outside the clone.
venv="${QUIRE_VENV:-$HOME/.cache/quire/venv}"
if ! "$venv/bin/python" -c "import pytrec_eval" 2>/dev/null; then
  echo "setup: installing pytrec-eval-terrier into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check pytrec-eval-terrier==0.5.11
fi

# Real documents from Debian packages for tests/integration/real_documents.rs.
bash scripts/fetch_real_documents.sh
