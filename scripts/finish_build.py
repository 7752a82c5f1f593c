#!/usr/bin/env python3
"""Trunk's post-build hook: finishes the build in TRUNK_STAGING_DIR (or the folder given).

0. With QUIRE_WASM_OPT set (to wasm-opt's flags, e.g. "-Oz"), a release build's wasm goes through Binaryen's
   wasm-opt from npm (tools/wasm-opt; Debian's binaryen 108 re-types wasm-bindgen's externref table, and
   Chromium then refuses the module), and the preload link's integrity hash is written again. Off by default:
   every Binaryen pass measured, even a bare re-encode, made embedding slower (docs/BENCHMARKS.md, "The wasm
   module"), and embedding speed is what the app spends its time on.
0b. The site search module (quire-search_bg.wasm, `quire site --built`), whose every byte a visitor fetches
   before a first answer, always goes through that wasm-opt at -Oz, its function names and producers dropped
   (it embeds nothing, so no speed is lost).
1. The Content-Security-Policy: the page may run only its own scripts (the one inline loader Trunk writes is
   allowed by its sha256) and its own wasm, and may connect only to its own origin and, once the user has saved
   one in the app's LLM settings, their LLM endpoint. It is a <meta> element, so that it holds for a build
   served by any static server; a meta policy cannot be widened once in force, so the first thing in <head> is
   a small script that writes it, with the endpoint origin the app stored (src/app/settings.rs, ORIGIN_KEY)
   if it is a bare http(s) origin, and nothing else.
2. The engine's module (Trunk names a worker build `quire.js`, unhashed) is named by its content, as the page's
   is, and the page learns its name from a <meta name="quire-engine"> (src/web/browser.rs): a page of one build
   never starts another build's engine from a cache.
3. The service worker: www/sw.js with this build's file list and version written in, so that a new build is a
   new service worker (browsers compare the script's bytes) that caches the new files.
"""
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WASM_OPT = ROOT / "tools" / "wasm-opt" / "node_modules" / "binaryen" / "bin" / "wasm-opt"
SEARCH_MODULE = "quire-search_bg.wasm"
# The features rustc enables for wasm32 (with +simd128 from .cargo/config.toml) and wasm-bindgen uses.
WASM_FEATURES = [
    "--enable-reference-types", "--enable-bulk-memory", "--enable-nontrapping-float-to-int",
    "--enable-sign-ext", "--enable-simd", "--enable-multivalue", "--enable-mutable-globals",
]

POLICY = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' {inline}; style-src 'self'; "
    "img-src 'self' data: blob:; connect-src 'self'__ENDPOINT__; worker-src 'self'; manifest-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'none'"
)
SERVICE_WORKER = "sw.js"
# The multilingual model's files (src/embed/catalogue.rs): a first visit does not download them; the page
# fetches them when a corpus in other languages needs them, and the service worker keeps them then.
ON_DEMAND = {"models/e5-small.onnx", "models/e5-tokenizer.json"}
# Runs before the policy exists; the origin is checked again here because local storage is the page's input.
POLICY_WRITER = """<script>
(function () {
  var endpoint = "";
  try {
    var origin = localStorage.getItem("quire.llm.origin");
    if (origin && /^https?:\\/\\/([a-z0-9.-]+|\\[[0-9a-f:.]+\\])(:[0-9]{1,5})?$/.test(origin)) endpoint = " " + origin;
  } catch (e) {}
  document.write('<meta http-equiv="Content-Security-Policy" content="' + POLICY.replace("__ENDPOINT__", endpoint) + '" />');
})();
</script>"""


def optimise_wasm(staging: Path, flags: list) -> None:
    if not WASM_OPT.is_file():
        sys.exit(f"finish_build: QUIRE_WASM_OPT is set but {WASM_OPT} is missing (run scripts/setup.sh with it set)")
    index = staging / "index.html"
    html = index.read_text(encoding="utf-8")
    for wasm in staging.glob("*_bg.wasm"):
        before = wasm.stat().st_size
        subprocess.run(["node", str(WASM_OPT), *flags, *WASM_FEATURES, str(wasm), "-o", str(wasm)], check=True)
        digest = base64.b64encode(hashlib.sha384(wasm.read_bytes()).digest()).decode()
        html = re.sub(
            rf'(href="(?:/|\./)?{re.escape(wasm.name)}"[^>]*integrity=")sha384-[^"]*"', rf'\g<1>sha384-{digest}"', html
        )
        print(f"finish_build: wasm-opt {' '.join(flags)} {wasm.name}: {before / 1e6:.1f} MB -> {wasm.stat().st_size / 1e6:.1f} MB")
    index.write_text(html, encoding="utf-8")


def shrink_search_module(staging: Path) -> None:
    module = staging / SEARCH_MODULE
    if not module.is_file():
        return
    if not WASM_OPT.is_file():
        sys.exit(f"finish_build: {WASM_OPT} is missing (scripts/setup.sh installs it)")
    before = module.stat().st_size
    flags = ["-Oz", "--strip-debug", "--strip-producers", *WASM_FEATURES]
    subprocess.run(["node", str(WASM_OPT), *flags, str(module), "-o", str(module)], check=True)
    print(f"finish_build: wasm-opt -Oz {module.name}: {before / 1e3:.0f} kB -> {module.stat().st_size / 1e3:.0f} kB")


def add_policy(index: Path) -> None:
    html = index.read_text(encoding="utf-8")
    if "Content-Security-Policy" in html:
        return
    inline = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", html, flags=re.S)
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(body.encode('utf-8')).digest()).decode()}'" for body in inline
    )
    writer = POLICY_WRITER.replace("POLICY", json.dumps(POLICY.format(inline=hashes)), 1)
    html, count = re.subn(r"<head>", lambda _: "<head>\n  " + writer, html, count=1)
    if count != 1:
        sys.exit(f"finish_build: no <head> in {index}")
    index.write_text(html, encoding="utf-8")


ENGINE_MODULE = "quire"


def name_engine_module(staging: Path) -> None:
    glue, wasm = staging / f"{ENGINE_MODULE}.js", staging / f"{ENGINE_MODULE}_bg.wasm"
    if not (glue.is_file() and wasm.is_file()):
        sys.exit(f"finish_build: the engine's module ({glue.name}, {wasm.name}) is missing from {staging}")
    digest = hashlib.sha256(glue.read_bytes() + wasm.read_bytes()).hexdigest()[:16]
    named = f"{ENGINE_MODULE}-engine-{digest}"
    glue.rename(staging / f"{named}.js")
    wasm.rename(staging / f"{named}_bg.wasm")
    index = staging / "index.html"
    html, count = re.subn(
        r"<head>", lambda _: f'<head>\n  <meta name="quire-engine" content="{named}.js" />', index.read_text(encoding="utf-8"), count=1
    )
    if count != 1:
        sys.exit(f"finish_build: no <head> in {index}")
    index.write_text(html, encoding="utf-8")


def write_service_worker(staging: Path) -> None:
    every = sorted(
        path.relative_to(staging).as_posix()
        for path in staging.rglob("*")
        if path.is_file() and path.name != SERVICE_WORKER
    )
    # The version covers the files fetched on demand too: a new model is a new cache of fetched files.
    version = hashlib.sha256()
    for name in every:
        version.update(name.encode() + b"\0" + hashlib.sha256((staging / name).read_bytes()).digest())
    files = [name for name in every if name not in ON_DEMAND]
    template = (ROOT / "www" / SERVICE_WORKER).read_text(encoding="utf-8")
    worker = template.replace('"__QUIRE_BUILD_VERSION__"', json.dumps(version.hexdigest()[:16])).replace(
        "__QUIRE_BUILD_FILES__", json.dumps(files)
    )
    (staging / SERVICE_WORKER).write_text(worker, encoding="utf-8")


def main() -> None:
    staging = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ["TRUNK_STAGING_DIR"])
    flags = os.environ.get("QUIRE_WASM_OPT", "").split()
    if flags and os.environ.get("TRUNK_PROFILE", "release") == "release":
        optimise_wasm(staging, flags)
    shrink_search_module(staging)
    name_engine_module(staging)
    add_policy(staging / "index.html")
    write_service_worker(staging)
    print(f"finish_build: Content-Security-Policy and service worker written in {staging}")


if __name__ == "__main__":
    main()
