#!/usr/bin/env python3
"""Cross-checks `quire eval` against trec_eval's own code (pytrec_eval-terrier): runs `quire eval` on a BEIR
folder with --runs and --save, re-scores every written run with pytrec_eval, and fails unless nDCG@10,
Recall@10, P@10 and MRR@10 agree with Quire's per-question values.

    python3 scripts/check_trec_eval.py QUIRE_BINARY DATASET_DIR

MRR@10 is compared with trec_eval's `recip_rank` on the run cut at rank 10 (BEIR's MRR@k); the other three
with trec_eval's `ndcg_cut_10`, `recall_10` and `P_10` on the whole run.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytrec_eval

TOLERANCE = 1e-6
MEASURES = {"Ndcg": "ndcg_cut_10", "Recall": "recall_10", "Precision": "P_10"}


def read_qrels(path):
    qrels = {}
    for line in path.read_text().splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    return qrels


def read_run(path, depth=None):
    run = {}
    for line in path.read_text().splitlines():
        query, _, doc, rank, score, _ = line.split()
        if depth is None or int(rank) <= depth:
            run.setdefault(query, {})[doc] = float(score)
    return run


def trec_id(text):
    out = []
    for ch in text:
        if ch == "%":
            out.append("%25")
        elif ch.isspace():
            out.append("".join(f"%{b:02X}" for b in ch.encode()))
        else:
            out.append(ch)
    return "".join(out)


def main():
    binary, dataset = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        subprocess.run(
            [binary, "eval", dataset, "--retrievers", "dense,bm25,rrf", "-k", "10",
             "--metrics", "ndcg,mrr,recall,precision", "--runs", str(work / "runs"), "--save", str(work / "report.json")],
            check=True, stdout=subprocess.DEVNULL,
        )
        report = json.loads((work / "report.json").read_text())
        qrels = read_qrels(work / "runs" / "qrels.trec")
        metric_names = [m["kind"] for m in report["metrics"]]
        queries = [trec_id(q) for q in report["queries"]]
        checked, failures = 0, []
        for result in report["results"]:
            run_file = work / "runs" / f"{result['method']}.run"
            full = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES.values())).evaluate(read_run(run_file))
            cut = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(read_run(run_file, depth=10))
            for query, values in zip(queries, result["per_query"]):
                for kind, ours in zip(metric_names, values):
                    if kind == "Mrr":
                        theirs = cut.get(query, {}).get("recip_rank", 0.0)
                    else:
                        theirs = full.get(query, {}).get(MEASURES[kind], 0.0)
                    checked += 1
                    if abs(ours - theirs) > TOLERANCE:
                        failures.append(f"{result['method']} {query} {kind}: quire {ours:.6f}, trec_eval {theirs:.6f}")
        if failures or checked == 0:
            print("\n".join(failures[:20]) or "nothing was checked", file=sys.stderr)
            print(f"trec_eval cross-check: 0 passed, {len(failures) or 1} failed")
            sys.exit(1)
        print(f"trec_eval cross-check: {checked} passed, 0 failed "
              f"({len(report['results'])} runs x {len(queries)} questions x {len(metric_names)} metrics)")


if __name__ == "__main__":
    main()
