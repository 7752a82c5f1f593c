#!/usr/bin/env python3
"""What a user of a real folder sees, from the TREC runs `quire eval DATASET --runs DIR` writes: per method,
the questions whose right file is first and in the top 3, and the questions where an all-in-one page
(`print.html`, which repeats every chapter) ranks above the best-ranked right file.

    quire eval datasets/cargo-book --retrievers zsum,join --runs /tmp/runs/cargo-book
    python3 scripts/real_folder_report.py /tmp/runs/cargo-book
"""
import collections
import pathlib
import sys

ALL_IN_ONE = {"print.html"}


def read_qrels(path):
    gold = collections.defaultdict(set)
    for line in path.read_text().splitlines():
        query, _, document, grade = line.split()
        if int(grade) > 0:
            gold[query].add(document)
    return gold


def read_run(path):
    ranked = collections.defaultdict(list)
    for line in path.read_text().splitlines():
        query, _, document, rank, _score, _tag = line.split()
        ranked[query].append((int(rank), document))
    return {query: [d for _, d in sorted(pairs)] for query, pairs in ranked.items()}


def main(folder):
    folder = pathlib.Path(folder)
    gold = read_qrels(folder / "qrels.trec")
    print(f"{folder.name}: {len(gold)} questions")
    print(f"{'method':<22} {'first':>6} {'top 3':>6} {'all-in-one above the right file':>32}")
    for run in sorted(folder.glob("*.run")):
        ranking = read_run(run)
        first = top3 = above = 0
        for query, right in gold.items():
            documents = ranking.get(query, [])
            positions = [i for i, d in enumerate(documents) if d in right]
            best = positions[0] if positions else float("inf")
            first += best == 0
            top3 += best < 3
            above += any(d in ALL_IN_ONE for d in (documents[:best] if positions else documents))
        n = len(gold)
        print(f"{run.stem:<22} {first:>3}/{n:<2} {top3:>3}/{n:<2} {above:>29}/{n}")


if __name__ == "__main__":
    main(sys.argv[1])
