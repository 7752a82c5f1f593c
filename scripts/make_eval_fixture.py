#!/usr/bin/env python3
"""Cuts a small, hard subset of a BEIR dataset for the end-to-end `quire eval` test.

    cargo run --release -- eval datasets/scifact --runs /tmp/scifact-runs
    python3 scripts/make_eval_fixture.py datasets/scifact /tmp/scifact-runs tests/fixtures/scifact-subset 300

    cargo run --release -- eval datasets/hotpotqa-dev500 --retrievers dense,bm25 --runs /tmp/hotpotqa-runs
    python3 scripts/make_eval_fixture.py datasets/hotpotqa-dev500 /tmp/hotpotqa-runs datasets/hotpotqa-demo 400

Questions are taken in qrels order. Each brings its gold documents and the best-ranked wrong documents of the
full dense and BM25 runs (3 of each), so the subset keeps the confusions of the full corpus instead of being
padded with easy random distractors. It stops before the documents would exceed the limit. Output is gzipped
(`gzip -9n` equivalent, reproducible bytes).
"""
import gzip
import json
import sys
from pathlib import Path
from urllib.parse import unquote

HARD_NEGATIVES_PER_RUN = 3


def open_text(path):
    path = Path(path)
    if path.exists():
        return path.read_text()
    return gzip.decompress(Path(str(path) + ".gz").read_bytes()).decode()


def read_run(path):
    run = {}
    for line in Path(path).read_text().splitlines():
        query, _, doc, rank, _, _ = line.split()
        run.setdefault(unquote(query), []).append((int(rank), unquote(doc)))
    return {q: [d for _, d in sorted(docs)] for q, docs in run.items()}


def write_gz(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0, filename="") as out:
        out.write(text.encode())


def main():
    source, runs, target, limit = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
    qrels_lines = open_text(source / "qrels" / "test.tsv").splitlines()
    gold = {}
    for line in qrels_lines[1:]:
        query, doc, grade = line.split("\t")
        if int(grade) > 0:
            gold.setdefault(query, []).append(doc)
    dense, bm25 = read_run(runs / "dense.run"), read_run(runs / "bm25.run")
    chosen_docs, chosen_queries = [], []
    for query, docs in gold.items():
        wanted = list(docs)
        for run in (dense, bm25):
            wrong = [d for d in run.get(query, []) if d not in docs]
            wanted += wrong[:HARD_NEGATIVES_PER_RUN]
        new = [d for d in dict.fromkeys(wanted) if d not in chosen_docs]
        if len(chosen_docs) + len(new) > limit:
            break
        chosen_docs += new
        chosen_queries.append(query)
    keep = set(chosen_docs)
    corpus = [line for line in open_text(source / "corpus.jsonl").splitlines() if json.loads(line)["_id"] in keep]
    asked = set(chosen_queries)
    queries = [line for line in open_text(source / "queries.jsonl").splitlines() if json.loads(line)["_id"] in asked]
    qrels = [qrels_lines[0]] + [l for l in qrels_lines[1:] if l.split("\t")[0] in asked]
    write_gz(target / "corpus.jsonl.gz", "\n".join(corpus) + "\n")
    write_gz(target / "queries.jsonl.gz", "\n".join(queries) + "\n")
    (target / "qrels").mkdir(parents=True, exist_ok=True)
    (target / "qrels" / "test.tsv").write_text("\n".join(qrels) + "\n")
    print(f"{len(corpus)} documents, {len(queries)} questions, {len(qrels) - 1} qrels rows -> {target}")


if __name__ == "__main__":
    main()
