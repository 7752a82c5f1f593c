#!/usr/bin/env python3
"""Issue 28 item 6, measured offline before anything is built: can a fusion learned on the union of every
labelled set beat the equal-weight standardised sum (`zsum`) on each set, and the shipped `default`?

Reads what `examples/dump_candidates.rs` writes for each set (every question's retriever lists) and the TREC
runs `quire eval --runs` writes (for `default`, which the lab does not recompute). Trains on the union of
SciFact train and, by 5-fold cross-validation, the other sets' questions: each fold's questions are scored
by models that never saw them, and SciFact test by the mean of the five models (none saw it). Every set
weighs the same in training, every question the same within its set.

Features of a candidate chunk (the union of each list's top 100, as Quire's fusion reads):
- per list: the score standardised within the candidates (as `zsum`), whether the list holds the chunk
  (the path list as presence), and 1 / rank;
- the question's shape: its length in words, how many of the graph lists found anything, the join's
  length, the share of capitalised words;
- how many of the chunk's document's chunks are candidates.

Also the hybrid the default starts with (`zsum:dense+bm25+community`), alone and with dense pseudo-relevance
feedback, since the default's first 3 documents are the hybrid's.

Prints, per set, the set's metric for `zsum`, `default`, the hybrid and each model, with the paired 95 % bootstrap
interval against `zsum`, and Hit@3 on the folders. Needs numpy and scikit-learn.

    cargo build --release --example dump_candidates
    for s in nomicon cargo-book rust-reference hotpotqa-dev500 scifact; do
      S=$(ls -t ~/.cache/quire/eval/$s-[0-9a-f]*.quire | head -1)
      target/release/examples/dump_candidates $S datasets/$s test /tmp/dump/$s
      quire eval datasets/$s -k 10 --retrievers default,zsum --runs /tmp/runs/$s
    done
    target/release/examples/dump_candidates $S datasets/scifact train /tmp/dump/scifact
    python3 scripts/fusion_union.py /tmp/dump /tmp/runs
"""
import json
import math
import sys
from collections import defaultdict
from pathlib import Path
from urllib.parse import unquote

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import real_folder_report  # noqa: E402
from fusion_lab import DEPTH, ndcg10, paired_interval, rank_documents, standardised, top, zsum  # noqa: E402

INPUTS = ["dense", "bm25", "community", "join", "onehop", "entity", "hub", "path", "triplet"]
GRAPH = INPUTS[3:]
FOLDERS = ["nomicon", "cargo-book", "rust-reference"]
SETS = ["scifact", "hotpotqa-dev500", *FOLDERS]
FOLDS = 5


def coverage5(ranked, relevant):
    return float(all(d in ranked[:5] for d in relevant))


def hit3(ranked, relevant):
    return float(any(d in relevant for d in ranked[:3]))


METRIC = {"hotpotqa-dev500": ("Set Coverage@5", coverage5)}


def metric_of(name):
    return METRIC.get(name, ("nDCG@10", ndcg10))


def read_questions(path):
    questions = []
    for line in open(path):
        q = json.loads(line)
        q["lists"] = {k: [(int(c), float(s)) for c, s in v][:DEPTH] for k, v in q["lists"].items()}
        questions.append(q)
    return questions


def chunk_documents(folder):
    return [json.loads(line)["doc"] for line in open(folder / "chunks.jsonl")]


def features(q, docs):
    """Each candidate chunk of `q` and its feature row."""
    lists = [q["lists"].get(name, []) for name in INPUTS]
    candidates = sorted({c for ranked in lists for c, _ in ranked})
    columns = []
    for ranked in lists:
        ranks = {c: r + 1 for r, (c, _) in enumerate(ranked)}
        columns.append(standardised(ranked, candidates))
        columns.append(np.array([float(c in ranks) for c in candidates]))
        columns.append(np.array([1.0 / ranks[c] if c in ranks else 0.0 for c in candidates]))
    words = q["text"].split()
    shape = [
        math.log(1 + len(words)),
        sum(bool(q["lists"].get(name)) for name in GRAPH) / len(GRAPH),
        len(q["lists"].get("join", [])) / DEPTH,
        sum(w[:1].isupper() for w in words[1:]) / max(1, len(words) - 1),
    ]
    per_document = defaultdict(int)
    for c in candidates:
        per_document[docs[c]] += 1
    columns.extend(np.full(len(candidates), value) for value in shape)
    columns.append(np.array([math.log(per_document[docs[c]]) for c in candidates]))
    return candidates, np.column_stack(columns)


class Set:
    def __init__(self, name, dump, runs):
        folder = dump / name
        self.name = name
        self.docs = chunk_documents(folder)
        self.test = [self.prepare(q) for q in read_questions(folder / "test.jsonl")]
        train = folder / "train.jsonl"
        self.train = [self.prepare(q) for q in read_questions(train)] if name == "scifact" and train.exists() else []
        self.default = read_run(runs / name / "default.run")
        self.vectors = np.fromfile(folder / "chunks.f32", dtype="<f4").reshape(len(self.docs), -1)
        self.feedback = [self.with_feedback(q) for q in read_questions(folder / "test.jsonl")]
        del self.vectors

    def with_feedback(self, q):
        """The hybrid with dense pseudo-relevance feedback (Rocchio): the question's vector moved half-way
        towards the mean of the hybrid's first 5 chunks, dense searched again."""
        lists = [q["lists"]["dense"], q["lists"]["bm25"], q["lists"].get("community", [])]
        first = [c for c, _ in sorted(zsum(lists).items(), key=lambda x: -x[1])[:5]]
        vector = np.array(q["vector"], dtype=np.float32) + 0.5 * self.vectors[first].mean(0)
        dense = top(self.vectors @ (vector / np.linalg.norm(vector)))
        return rank_documents(zsum([dense, *lists[1:]]), self.docs)

    def prepare(self, q):
        candidates, x = features(q, self.docs)
        relevant = {d: g for d, g in q["relevant"].items() if g > 0}
        y = np.array([float(self.docs[c] in relevant) for c in candidates])
        hybrid = [q["lists"]["dense"], q["lists"]["bm25"], q["lists"].get("community", [])]
        return {"id": q["id"], "candidates": candidates, "x": x, "y": y, "relevant": relevant,
                "zsum": rank_documents(zsum(hybrid[:2]), self.docs), "hybrid": rank_documents(zsum(hybrid), self.docs)}


def read_run(path):
    """A TREC run's rankings; its document ids are percent-encoded (src/eval/run.rs)."""
    return {q: [unquote(d) for d in ranked] for q, ranked in real_folder_report.read_run(path).items()}


def folds(questions):
    order = np.random.default_rng(0).permutation(len(questions))
    return [set(order[k::FOLDS].tolist()) for k in range(FOLDS)]


def stacked(groups):
    """Rows, labels and weights of `groups` (each a set's list of questions); every set weighs the same."""
    xs, ys, ws = [], [], []
    for questions in groups:
        for q in questions:
            xs.append(q["x"])
            ys.append(q["y"])
            ws.append(np.full(len(q["y"]), 1.0 / (len(questions) * len(q["y"]))))
    weights = np.concatenate(ws)
    return np.vstack(xs), np.concatenate(ys), weights * len(weights) / weights.sum()


def models():
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return {
        "logistic": lambda: make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000)),
        "boosted trees": lambda: HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05,
                                                                max_leaf_nodes=15, random_state=0),
        "shallow trees": lambda: HistGradientBoostingClassifier(max_iter=100, learning_rate=0.05, max_depth=3,
                                                                min_samples_leaf=200, l2_regularization=1.0,
                                                                random_state=0),
    }


def ranking(model_scores, q, docs):
    return rank_documents(dict(zip(q["candidates"], model_scores)), docs)


def main(dump, runs):
    sets = [Set(name, Path(dump), Path(runs)) for name in SETS]
    split = {s.name: folds(s.test) for s in sets if s.name != "scifact"}
    scifact_train = next(s.train for s in sets if s.name == "scifact")
    results = {s.name: {} for s in sets}
    for label, make in models().items():
        scores = {s.name: [None] * len(s.test) for s in sets}
        for k in range(FOLDS):
            groups = [scifact_train] + [
                [q for i, q in enumerate(s.test) if i not in split[s.name][k]] for s in sets if s.name != "scifact"
            ]
            x, y, w = stacked(groups)
            model = make()
            fit_weights = {"sample_weight": w} if "trees" in label else {"logisticregression__sample_weight": w}
            model.fit(x, y, **fit_weights)
            for s in sets:
                for i, q in enumerate(s.test):
                    if s.name == "scifact":
                        p = model.predict_proba(q["x"])[:, 1] / FOLDS
                        scores[s.name][i] = p if scores[s.name][i] is None else scores[s.name][i] + p
                    elif i in split[s.name][k]:
                        scores[s.name][i] = model.predict_proba(q["x"])[:, 1]
        for s in sets:
            results[s.name][label] = [ranking(p, q, s.docs) for p, q in zip(scores[s.name], s.test)]
        print(f"trained: {label}", file=sys.stderr)
    report(sets, results)


def report(sets, results):
    print(f"{'set':<16} {'method':<17} {'metric':>8} {'vs zsum [95 % interval]':>28} {'Hit@3':>7}")
    for s in sets:
        name, metric = metric_of(s.name)
        rows = {"zsum": [q["zsum"] for q in s.test], "default": [s.default.get(q["id"], []) for q in s.test],
                "hybrid": [q["hybrid"] for q in s.test], "hybrid, feedback": s.feedback}
        rows.update(results[s.name])
        base = [metric(r, q["relevant"]) for r, q in zip(rows["zsum"], s.test)]
        for method, ranked in rows.items():
            values = [metric(r, q["relevant"]) for r, q in zip(ranked, s.test)]
            mean, low, high = paired_interval(values, base)
            hits = np.mean([hit3(r, q["relevant"]) for r, q in zip(ranked, s.test)])
            print(f"{s.name:<16} {method:<17} {np.mean(values):>8.3f} {mean:>+9.3f} [{low:+.3f}, {high:+.3f}]"
                  f"{'':>3} {hits:>7.3f}   {name}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
