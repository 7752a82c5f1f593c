#!/usr/bin/env python3
"""How the default method was chosen: ways of combining two document rankings, the hybrid (a standardised
sum) and the node-set join, scored from the TREC runs `quire eval --runs DIR` writes, on every labelled set
at once. Each set is `NAME=DIR:METRIC`, METRIC one of `ndcg10` (nDCG@10, the folders and SciFact),
`cov2`, `cov5`, `cov10` (Set Coverage@k: every gold document in the top k, HotpotQA).

    R=default,zsum,zsum:dense+bm25+community,join
    quire eval datasets/scifact -k 10 --retrievers $R --runs /tmp/runs/scifact          # likewise every set
    python3 scripts/default_search.py --hybrid zsum:dense+bm25+community \\
        scifact=/tmp/runs/scifact:ndcg10 hotpotqa=/tmp/runs/hotpotqa:cov5 nomicon=/tmp/runs/nomicon:ndcg10 ...

`first N, then alternate` is the hybrid's first N documents, then the join's and the hybrid's documents of
the same rank in turn (the join's first), each document once: what `default_method.rs` ranks with N = 3, so
the `default` run must equal that row (checked and printed).
"""
import argparse
import collections
import math
import pathlib

from real_folder_report import read_run


def read_qrels(path):
    gold = collections.defaultdict(dict)
    for line in path.read_text().splitlines():
        query, _, document, grade = line.split()
        if int(grade) > 0:
            gold[query][document] = int(grade)
    return gold


def ndcg(ranking, gold, k=10):
    gain = sum(gold.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranking[:k]))
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(gold.values(), reverse=True)[:k]))
    return gain / ideal if ideal else 0.0


def coverage(k):
    return lambda ranking, gold: float(set(gold) <= set(ranking[:k]))


METRICS = {"ndcg10": ndcg, "cov2": coverage(2), "cov5": coverage(5), "cov10": coverage(10)}


def once(documents):
    seen = set()
    return [d for d in documents if not (d in seen or seen.add(d))]


def first_then_alternate(n):
    def combine(hybrid, join):
        alternating = [d for pair in zip(join, hybrid) for d in pair]
        return once(hybrid[:n] + alternating + join + hybrid)
    return combine


def strictly_alternating(n):
    def combine(hybrid, join):
        out, seen, lists = [], set(), [iter(hybrid), iter(join)]
        def take(source):
            for d in source:
                if d not in seen:
                    seen.add(d)
                    out.append(d)
                    return
        for _ in range(n):
            take(lists[0])
        for _ in range(len(hybrid) + len(join)):
            take(lists[1])
            take(lists[0])
        return out
    return combine


STRATEGIES = {"hybrid alone": lambda h, j: h, "join alone": lambda h, j: j}
STRATEGIES.update({f"first {n}, then alternate": first_then_alternate(n) for n in (1, 2, 3, 4)})
STRATEGIES.update({f"first {n}, then strictly in turn": strictly_alternating(n) for n in (1, 3)})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hybrid", default="zsum:dense+bm25+community")
    parser.add_argument("--join", default="join")
    parser.add_argument("sets", nargs="+", help="NAME=DIR:METRIC")
    args = parser.parse_args()
    rows = collections.defaultdict(list)
    names = []
    for spec in args.sets:
        name, rest = spec.split("=", 1)
        folder, metric = rest.rsplit(":", 1)
        folder = pathlib.Path(folder)
        names.append(f"{name} {metric}")
        gold = read_qrels(folder / "qrels.trec")
        hybrid = read_run(folder / f"{args.hybrid}.run")
        join = read_run(folder / f"{args.join}.run")
        score = METRICS[metric]
        for strategy, combine in STRATEGIES.items():
            values = [score(combine(hybrid.get(q, []), join.get(q, [])), g) for q, g in gold.items()]
            rows[strategy].append(sum(values) / len(values))
        shipped = folder / "default.run"
        if shipped.exists():
            default = read_run(shipped)
            values = [score(default.get(q, []), g) for q, g in gold.items()]
            rows["default (as shipped)"].append(sum(values) / len(values))
    width = max(map(len, rows))
    print(f"{'':{width}}  " + "  ".join(f"{n:>18}" for n in names))
    for strategy, values in rows.items():
        print(f"{strategy:{width}}  " + "  ".join(f"{v:>18.3f}" for v in values))


if __name__ == "__main__":
    main()
