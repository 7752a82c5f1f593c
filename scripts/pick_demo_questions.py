#!/usr/bin/env python3
"""Picks the multi-hop demo's sample questions: those whose two gold paragraphs the node-set join puts in
its top 5 and dense search does not, in dataset order.

    quire eval datasets/hotpotqa-demo -k 5 --metrics coverage --retrievers dense,join --save /tmp/demo.json
    python3 scripts/pick_demo_questions.py datasets/hotpotqa-demo /tmp/demo.json 8 > datasets/hotpotqa-demo/questions.json

`tests/integration/eval.rs` checks that every question in the file still behaves so.
"""
import gzip
import json
import sys
from pathlib import Path


def main():
    dataset, report_path, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    report = json.load(open(report_path))
    coverage = {r["method"]: [v[0] for v in r["per_query"]] for r in report["results"]}
    texts = {}
    for line in gzip.decompress((dataset / "queries.jsonl.gz").read_bytes()).decode().splitlines():
        record = json.loads(line)
        texts[record["_id"]] = record["text"]
    gold = {}
    for line in (dataset / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        query, doc, _ = line.split("\t")
        gold.setdefault(query, []).append(doc)
    picked = []
    for position, query in enumerate(report["queries"]):
        if coverage["join"][position] == 1.0 and coverage["dense"][position] == 0.0:
            note = "needs both " + " and ".join(gold[query])
            picked.append({"id": query, "text": texts[query], "note": note})
        if len(picked) == count:
            break
    json.dump(picked, sys.stdout, indent=1, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
