#!/usr/bin/env python3
"""Ingest benchmark: generates a deterministic 1,000-document Markdown corpus with sections, wiki links and
front-matter relations, indexes it with the release CLI under /usr/bin/time, and prints a Markdown table.

Run: python3 scripts/bench_ingest.py [DOCUMENTS]
"""
import pathlib
import random
import re
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parent.parent
count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
rng = random.Random(7)
words = ("orbit moon planet signal archive river mountain treaty engine harvest language melody crystal "
         "library bridge comet harbour garden theory circuit voyage lantern meadow spiral canyon").split()

def sentence():
    return " ".join(rng.choice(words) for _ in range(rng.randint(8, 18))).capitalize() + "."

def document(i):
    title = f"Topic {i}"
    links = [f"Topic {rng.randrange(count)}" for _ in range(3)]
    lines = ["---", f"title: {title}", "type: subject", f"related: \"[[{links[0]}]]\"", "---", f"# {title}", "",
             " ".join(sentence() for _ in range(3)) + f" See [[{links[1]}]].", ""]
    for s in range(rng.randint(2, 4)):
        lines += [f"## Part {s + 1}", "", " ".join(sentence() for _ in range(rng.randint(3, 8))), "",
                  " ".join(sentence() for _ in range(rng.randint(2, 5))) + f" Compare with [[{links[2]}]].", ""]
    return "\n".join(lines)

with tempfile.TemporaryDirectory() as tmp:
    corpus = pathlib.Path(tmp) / "corpus"
    corpus.mkdir()
    for i in range(count):
        (corpus / f"topic-{i:04}.md").write_text(document(i), encoding="utf-8")
    binary = pathlib.Path(subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], capture_output=True,
                                         text=True, check=True, cwd=root).stdout.split('"target_directory":"')[1].split('"')[0])
    subprocess.run(["cargo", "build", "--release", "--bin", "quire"], check=True, cwd=root)
    result = subprocess.run(["/usr/bin/time", "-v", str(binary / "release" / "quire"), "--model-dir", str(root / "models"),
                             "index", str(corpus), "-o", str(pathlib.Path(tmp) / "bench.quire"), "--fresh"],
                            capture_output=True, text=True, check=True)
    out, err = result.stdout, result.stderr
    parsed = re.search(r"parsed \d+ documents \(\d+ files failed\) in ([\d.]+)s", out).group(1)
    structured, embedded_n, embedded_s = re.search(r"structured in ([\d.]+)s; embedded (\d+) new texts, reused \d+ in ([\d.]+)s", out).groups()
    indexed = re.search(r"indexed in ([\d.]+)s", out).group(1)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (.*)", err).group(1)
    rss_mib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024
    size_kib = (pathlib.Path(tmp) / "bench.quire").stat().st_size / 1024
    stats = subprocess.run([str(binary / "release" / "quire"), "stats", str(pathlib.Path(tmp) / "bench.quire")],
                           capture_output=True, text=True, check=True).stdout
    chunks = re.search(r"chunks\s+(\d+)", stats).group(1)
    print("| documents | chunks | texts embedded | parse (s) | structure (s) | embedding (s) | indexes (s) | wall (m:ss) | peak RSS (MiB) | snapshot (KiB) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {count} | {chunks} | {embedded_n} | {parsed} | {structured} | {embedded_s} | {indexed} | {wall} | {rss_mib:.0f} | {size_kib:.0f} |")
