#!/usr/bin/env python3
"""Ingest benchmark: for each size, generates a deterministic Markdown corpus of that many documents (front
matter, sections, wiki links), indexes it from scratch with the release CLI (embedding on every core) under
/usr/bin/time, and prints a Markdown table row; with --plot, also draws time and peak memory against size.

Run: python3 scripts/bench_ingest.py [DOCUMENTS ...] [--plot docs/ingest-scaling.svg]   (default 1000)
"""
import argparse
import pathlib
import random
import re
import subprocess
import tempfile

root = pathlib.Path(__file__).resolve().parent.parent
words = ("orbit moon planet signal archive river mountain treaty engine harvest language melody crystal "
         "library bridge comet harbour garden theory circuit voyage lantern meadow spiral canyon").split()


def corpus(count, folder):
    """`count` documents in `folder`; the same documents for the same count."""
    rng = random.Random(7)

    def sentence():
        return " ".join(rng.choice(words) for _ in range(rng.randint(8, 18))).capitalize() + "."

    for i in range(count):
        title = f"Topic {i}"
        links = [f"Topic {rng.randrange(count)}" for _ in range(3)]
        lines = ["---", f"title: {title}", "type: subject", f"related: \"[[{links[0]}]]\"", "---", f"# {title}", "",
                 " ".join(sentence() for _ in range(3)) + f" See [[{links[1]}]].", ""]
        for s in range(rng.randint(2, 4)):
            lines += [f"## Part {s + 1}", "", " ".join(sentence() for _ in range(rng.randint(3, 8))), "",
                      " ".join(sentence() for _ in range(rng.randint(2, 5))) + f" Compare with [[{links[2]}]].", ""]
        (folder / f"topic-{i:05}.md").write_text("\n".join(lines), encoding="utf-8")


def measure(binary, count):
    """Indexes a fresh corpus of `count` documents; the figures of one table row."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp) / "corpus"
        folder.mkdir()
        corpus(count, folder)
        snapshot = pathlib.Path(tmp) / "bench.quire"
        result = subprocess.run(["/usr/bin/time", "-v", str(binary), "--model-dir", str(root / "models"), "index",
                                 str(folder), "-o", str(snapshot), "--fresh"], capture_output=True, text=True, check=True)
        # Status lines go to stderr, beside /usr/bin/time's report.
        err = result.stderr
        stats = subprocess.run([str(binary), "stats", str(snapshot)], capture_output=True, text=True, check=True).stdout
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (.*)", err).group(1)
        seconds = sum(float(part) * 60 ** i for i, part in enumerate(reversed(wall.split(":"))))
        structured = re.search(r"structured in ([\d.]+)s", err).group(1)
        embedded_n, embedded_s = re.search(r"embedded (\d+) new texts \(\d+ word pieces\), reused \d+ in ([\d.]+)s", err).groups()
        return {
            "documents": count,
            "chunks": int(re.search(r"chunks\s+(\d+)", stats).group(1)),
            "texts": int(embedded_n),
            "parse": float(re.search(r"parsed \d+ documents \(\d+ files failed\) in ([\d.]+)s", err).group(1)),
            "structure": float(structured),
            "embedding": float(embedded_s),
            "indexes": float(re.search(r"indexed in ([\d.]+)s", err).group(1)),
            "wall": seconds,
            "user": float(re.search(r"User time \(seconds\): ([\d.]+)", err).group(1)),
            "rss": int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024,
            "snapshot": snapshot.stat().st_size / 1024,
        }


def plot(rows, path):
    """Two panels, wall time and peak memory against documents, as a standalone SVG. Written directly: two
    polylines do not justify a plotting library that the rest of the repository does not need."""
    width, height, margin = 360, 240, 50
    panels = [("wall time (s)", "wall"), ("peak resident memory (MiB)", "rss")]
    xs = [r["documents"] for r in rows]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * width}" height="{height}" '
             'font-family="sans-serif" font-size="11">', '<rect width="100%" height="100%" fill="white"/>']
    for panel, (label, key) in enumerate(panels):
        ys = [r[key] for r in rows]
        left, top = panel * width + margin, 20
        w, h = width - margin - 15, height - top - 40
        x_at = lambda x: left + w * x / max(xs)
        y_at = lambda y: top + h - h * y / (max(ys) * 1.1)
        parts.append(f'<text x="{left + w / 2}" y="14" text-anchor="middle">{label}</text>')
        parts.append(f'<line x1="{left}" y1="{top + h}" x2="{left + w}" y2="{top + h}" stroke="black"/>')
        parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + h}" stroke="black"/>')
        parts.append(f'<text x="{left + w / 2}" y="{height - 6}" text-anchor="middle">documents</text>')
        for fraction in (0, 0.5, 1):
            y = max(ys) * 1.1 * fraction
            parts.append(f'<text x="{left - 5}" y="{y_at(y) + 4}" text-anchor="end">{y:.0f}</text>')
        points = " ".join(f"{x_at(x):.1f},{y_at(y):.1f}" for x, y in zip(xs, ys))
        parts.append(f'<polyline points="{points}" fill="none" stroke="#2a6fb0" stroke-width="2"/>')
        for x, y in zip(xs, ys):
            parts.append(f'<circle cx="{x_at(x):.1f}" cy="{y_at(y):.1f}" r="3" fill="#2a6fb0"/>')
            parts.append(f'<text x="{x_at(x):.1f}" y="{top + h + 14}" text-anchor="middle">{x}</text>')
    parts.append("</svg>")
    pathlib.Path(path).write_text("\n".join(parts) + "\n", encoding="utf-8")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("documents", nargs="*", type=int, default=[1000])
    parser.add_argument("--plot", help="write the SVG plot here")
    args = parser.parse_args()
    subprocess.run(["cargo", "build", "--release", "--bin", "quire"], check=True, cwd=root)
    metadata = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], capture_output=True,
                              text=True, check=True, cwd=root).stdout
    binary = pathlib.Path(metadata.split('"target_directory":"')[1].split('"')[0]) / "release" / "quire"
    print("| documents | chunks | texts embedded | parse (s) | structure (s) | embedding (s) | indexes (s) | wall (s) | "
          "documents/s | cores busy | peak RSS (MiB) | snapshot (KiB) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for count in args.documents:
        r = measure(binary, count)
        rows.append(r)
        print(f"| {r['documents']} | {r['chunks']} | {r['texts']} | {r['parse']:.2f} | {r['structure']:.2f} | "
              f"{r['embedding']:.1f} | {r['indexes']:.2f} | {r['wall']:.1f} | {r['documents'] / r['wall']:.2f} | "
              f"{r['user'] / r['wall']:.2f} | {r['rss']:.0f} | {r['snapshot']:.0f} |", flush=True)
    if args.plot:
        plot(rows, args.plot)


main()
