#!/usr/bin/env bash
# Sets up what is missing, builds the wasm app and serves it with the demo corpus on http://127.0.0.1:8080
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/quire/target}"
bash scripts/setup.sh
echo "serve: building; then open http://127.0.0.1:${PORT:-8080}/"
# No auto-reload: its injected script and socket are not part of the app, and the Content-Security-Policy
# (scripts/finish_build.py) allows only the app's own code; the page served is the build as shipped.
exec trunk serve --release --no-autoreload --address 127.0.0.1 --port "${PORT:-8080}"
