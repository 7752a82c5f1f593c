# Sourced by the test scripts (scripts/test.sh, scripts/test_bench_pages.sh): the repository as the working
# folder, the shared build cache and model folder, then whatever setup is missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/quire/target}"
export CARGO_TERM_COLOR=never
# The CLI's compiled-in model folder names the checkout that compiled it, and the build cache is shared.
export QUIRE_MODEL_DIR="${QUIRE_MODEL_DIR:-$root/models}"

bash scripts/setup.sh
