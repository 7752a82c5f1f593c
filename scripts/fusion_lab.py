#!/usr/bin/env python3
"""Signals tried, offline, for beating the standardised sum of dense and BM25 on SciFact (issue 7's learned
fusion target). Reads what `examples/dump_candidates.rs` writes (every question's retriever lists, the chunk
vectors and texts) and, for the sentence rows, contextual sentence vectors from `examples/embed_lines.rs`.
Prints nDCG@10 on both splits, each with its paired 95 % bootstrap interval against zsum on the same split.
docs/QUALITY.md ("What else was tried for SciFact") has the commands and the figures.

Needs numpy, scikit-learn and PyStemmer (a venv: `python3 -m venv /tmp/lab && /tmp/lab/bin/pip install numpy
scikit-learn PyStemmer`). Nothing here is part of Quire: the point is to measure ideas before building them.

    fusion_lab.py sentences DUMP      # writes DUMP/sentences.jsonl (+ .meta) for embed_lines
    fusion_lab.py rows DUMP           # every row below
    fusion_lab.py documents DUMP      # fusion and BM25 at document level
"""
import gzip
import json
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

DEPTH = 100  # each list's depth before fusion, as Quire's FUSION_DEPTH
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


# ---- data -------------------------------------------------------------------------------------------------
class Dump:
    def __init__(self, folder):
        self.dir = Path(folder)
        rows = [json.loads(line) for line in open(self.dir / "chunks.jsonl")]
        self.docs = [r["doc"] for r in rows]
        self.texts = [r["text"] for r in rows]
        self.vectors = np.fromfile(self.dir / "chunks.f32", dtype="<f4").reshape(len(rows), -1)
        self.doc_chunks = defaultdict(list)
        for chunk, doc in enumerate(self.docs):
            self.doc_chunks[doc].append(chunk)
        self.sentences = None
        if (self.dir / "sentences.f32").exists():
            meta = [line.strip() for line in open(self.dir / "sentences.meta")]
            vectors = np.fromfile(self.dir / "sentences.f32", dtype="<f4").reshape(len(meta), -1)
            self.sentences = (meta, vectors)

    def questions(self, split, depth=DEPTH):
        out = []
        for line in open(self.dir / f"{split}.jsonl"):
            q = json.loads(line)
            q["vector"] = np.array(q["vector"], dtype=np.float32)
            q["lists"] = {k: [(int(c), float(s)) for c, s in v][:depth] for k, v in q["lists"].items()}
            out.append(q)
        return out


def write_sentences(corpus_gz, folder):
    """Each abstract's sentences, each preceded by its title as Quire's chunks are by their context line."""
    folder = Path(folder)
    with open(folder / "sentences.jsonl", "w") as texts, open(folder / "sentences.meta", "w") as meta:
        for line in gzip.open(corpus_gz, "rt"):
            record = json.loads(line)
            for sentence in filter(None, (s.strip() for s in SENTENCE.split(record["text"].strip()))):
                texts.write(json.dumps(record["title"] + "\n" + sentence) + "\n")
                meta.write(f"{record['_id']}\n")


# ---- metrics and fusion, as Quire computes them -----------------------------------------------------------
def ndcg10(ranked, relevant):
    dcg = sum(relevant.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(relevant.values(), reverse=True)[:10]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def rank_documents(chunk_scores, docs):
    """A document's score is its best chunk's; ties by id (src/eval/run.rs)."""
    best = {}
    for chunk, score in chunk_scores.items():
        doc = docs[chunk]
        best[doc] = max(score, best.get(doc, -math.inf))
    return [d for d, _ in sorted(best.items(), key=lambda x: (-x[1], x[0]))]


def standardised(ranked, candidates):
    """src/retrieve/fusion/mod.rs standardised_scores: fill just below the list's minimum, z within the set."""
    if not ranked:
        return np.zeros(len(candidates))
    by_chunk = dict(ranked)
    low, high = min(by_chunk.values()), max(by_chunk.values())
    fill = low - 0.01 * max(high - low, 1e-7)
    x = np.array([by_chunk.get(c, fill) for c in candidates])
    return (x - x.mean()) / x.std() if x.std() > 0 else np.zeros(len(candidates))


def zsum(lists, weights=None):
    candidates = sorted({c for ranked in lists for c, _ in ranked})
    total = np.zeros(len(candidates))
    for i, ranked in enumerate(lists):
        total += (weights[i] if weights else 1.0) * standardised(ranked, candidates)
    return dict(zip(candidates, total))


def top(scores, k=DEPTH):
    return [(int(i), float(scores[i])) for i in np.argsort(-scores)[:k]]


def paired_interval(a, b, draws=2000):
    difference = np.asarray(a) - np.asarray(b)
    rng = np.random.default_rng(0)
    means = difference[rng.integers(0, len(difference), size=(draws, len(difference)))].mean(1)
    return difference.mean(), np.percentile(means, 2.5), np.percentile(means, 97.5)


# ---- the signals tried ------------------------------------------------------------------------------------
STOP = set(
    "a about above after again against all am an and any are as at be because been before being below between "
    "both but by can could did do does doing down during each few for from further had has have having he her "
    "here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not "
    "now of off on once only or other our ours ourselves out over own same she should so some such than that the "
    "their theirs them themselves then there these they this those through to too under until up very was we "
    "were what when where which while who whom why will with would you your yours yourself yourselves".split()
)
WORD = re.compile(r"\w+(?:['’]\w+)*")


class Bm25:
    """Okapi BM25 (k1 1.2, b 0.75) with Snowball English and Quire's stop list; close to src/index/bm25.rs
    (SciFact test nDCG@10 0.685 against Quire's 0.690), used here only for query expansion."""

    def __init__(self, texts, k1=1.2, b=0.75):
        import Stemmer
        from scipy.sparse import csr_matrix

        self.stemmer = Stemmer.Stemmer("english")
        self.vocabulary = {}
        rows, cols, counts = [], [], []
        lengths = np.zeros(len(texts))
        for i, text in enumerate(texts):
            terms = Counter(self.terms(text))
            lengths[i] = sum(terms.values())
            for term, n in terms.items():
                rows.append(i)
                cols.append(self.vocabulary.setdefault(term, len(self.vocabulary)))
                counts.append(n)
        self.by_row = csr_matrix((counts, (rows, cols)), shape=(len(texts), len(self.vocabulary)))
        self.by_term = self.by_row.tocsc()
        frequency = np.diff(self.by_term.indptr)
        self.idf = np.log(1 + (len(texts) - frequency + 0.5) / (frequency + 0.5))
        self.norm = k1 * (1 - b + b * lengths / lengths.mean())
        self.k1 = k1
        self.term_of = {j: t for t, j in self.vocabulary.items()}

    def terms(self, text):
        return self.stemmer.stemWords([w for w in (m.lower() for m in WORD.findall(text)) if w not in STOP])

    def scores(self, weights):
        total = np.zeros(self.by_row.shape[0])
        for term, weight in weights.items():
            j = self.vocabulary.get(term)
            if j is None:
                continue
            column = self.by_term[:, j]
            tf = column.data
            total[column.indices] += weight * self.idf[j] * tf * (self.k1 + 1) / (tf + self.norm[column.indices])
        return total

    def rm3(self, text, feedback, terms=10, mix=0.3):
        """RM3-style expansion: the feedback chunks' most idf-weighted terms mixed into the query."""
        original = Counter(self.terms(text))
        total = sum(original.values()) or 1
        expansion = Counter()
        for chunk in feedback:
            row = self.by_row[chunk]
            for j, n in zip(row.indices, row.data):
                expansion[self.term_of[j]] += n / row.data.sum() / len(feedback) * self.idf[j]
        chosen = dict(expansion.most_common(terms))
        weights = Counter({t: (1 - mix) * n / total for t, n in original.items()})
        for t, v in chosen.items():
            weights[t] += mix * v / sum(chosen.values())
        return top(self.scores(weights))


def hybrid_feedback(q, k):
    fused = zsum([q["lists"]["dense"], q["lists"]["bm25"]])
    return [c for c, _ in sorted(fused.items(), key=lambda x: -x[1])[:k]]


def rocchio(dump, q, k=2, beta=0.5):
    """Dense pseudo-relevance feedback: the query vector moved towards the hybrid top k chunks' mean."""
    vector = q["vector"] + beta * dump.vectors[hybrid_feedback(q, k)].mean(0)
    return top(dump.vectors @ (vector / np.linalg.norm(vector)))


def sentence_dense(dump, q):
    """A document scored by its best contextual sentence (title + sentence), given to each of its chunks."""
    meta, vectors = dump.sentences
    scores = vectors @ q["vector"]
    best = {}
    for i in np.argsort(-scores)[: 4 * DEPTH]:
        best.setdefault(meta[i], float(scores[i]))
    chunks = {c: s for d, s in best.items() for c in dump.doc_chunks[d]}
    return sorted(chunks.items(), key=lambda x: -x[1])[:DEPTH]


def document_bm25(dump, k1, b):
    """BM25 over whole documents (title once, then every chunk's text), as the reference runs index them; a
    document's score is given to each of its chunks."""
    documents = defaultdict(list)
    for doc, text in zip(dump.docs, dump.texts):
        title, _, body = text.partition("\n")
        documents[doc] = documents[doc] or [title]
        documents[doc].append(body)
    ids = list(documents)
    index = Bm25([" ".join(parts) for parts in documents.values()], k1, b)

    def ranked(q):
        scores = index.scores(Counter(index.terms(q["text"])))
        return [(c, float(scores[i])) for i in np.argsort(-scores)[:DEPTH] for c in dump.doc_chunks[ids[i]]]

    return ranked


def document_maxima(dump, ranked, candidates):
    """Each candidate chunk given its document's best score in `ranked`, standardised over the candidates."""
    best = {}
    for chunk, score in ranked:
        best[dump.docs[chunk]] = max(score, best.get(dump.docs[chunk], -math.inf))
    low = min(best.values())
    return standardised([(c, best.get(dump.docs[c], low)) for c in candidates], candidates)


def document_zsum(dump, lists, depth):
    """Fusion at document level: each list's documents scored by their best chunk among its top `depth`,
    standardised over the candidate documents and summed; the sum goes to each document's first chunk."""
    per_document = []
    for ranked in lists:
        best = {}
        for chunk, score in ranked[:depth]:
            best[dump.docs[chunk]] = max(score, best.get(dump.docs[chunk], -math.inf))
        per_document.append(list(best.items()))
    fused = zsum(per_document)
    return {dump.doc_chunks[doc][0]: score for doc, score in fused.items()}


# ---- rows -------------------------------------------------------------------------------------------------
def evaluate(dump, questions, rank):
    return [ndcg10(rank_documents(rank(q), dump.docs), q["relevant"]) for q in questions]


def print_row(split, name, values, baseline):
    mean, low, high = paired_interval(values, baseline)
    star = "*" if low > 0 or high < 0 else " "
    print(f"{split:5}  {name:48} {np.mean(values):.3f}  {mean:+.3f} [{low:+.3f}, {high:+.3f}]{star}")


def learned_rows(dump, splits, names, product_dims=False, made=None, document_maxima_of=()):
    """Logistic regression (class-balanced) on train over standardised lists (and optionally each dimension
    of query ⊙ chunk vector, standardised per question): what a learned fusion of these inputs can reach.
    `made` computes lists the dump does not hold (name → function of the question); `document_maxima_of`
    adds, for those lists, each candidate's document's best score as one more input."""
    from sklearn.linear_model import LogisticRegression

    made = {"sentence": lambda q: sentence_dense(dump, q)} | (made or {})

    def features(q):
        lists = {n: made[n](q) if n in made else q["lists"][n] for n in names}
        candidates = sorted({c for ranked in lists.values() for c, _ in ranked})
        columns = [standardised(lists[n], candidates) for n in names]
        columns += [document_maxima(dump, lists[n], candidates) for n in document_maxima_of]
        x = np.stack(columns, 1)
        if product_dims:
            p = dump.vectors[candidates] * q["vector"][None, :]
            x = np.hstack([x, (p - p.mean(0)) / (p.std(0) + 1e-6)])
        return candidates, x, np.array([dump.docs[c] in q["relevant"] for c in candidates])

    train = [features(q) for q in splits["train"]]
    model = LogisticRegression(max_iter=3000, C=0.01 if product_dims else 1.0, class_weight="balanced")
    model.fit(np.vstack([x for _, x, _ in train]), np.concatenate([y for *_, y in train]))
    test = splits["test"]
    values = []
    for q in test:
        candidates, x, _ = features(q)
        ranked = rank_documents(dict(zip(candidates, model.decision_function(x))), dump.docs)
        values.append(ndcg10(ranked, q["relevant"]))
    return values


def rows(folder):
    dump = Dump(folder)
    splits = {s: dump.questions(s) for s in ("train", "test")}
    bm25 = Bm25(dump.texts)
    print(f"{'split':5}  {'method':48} nDCG@10  against zsum, paired 95 % interval")
    baselines = {}
    for split, questions in splits.items():
        lists = lambda q, *names: [q["lists"][n] for n in names]  # noqa: E731
        single = lambda name: lambda q: dict(q["lists"][name])  # noqa: E731
        baselines[split] = evaluate(dump, questions, lambda q: zsum(lists(q, "dense", "bm25")))
        methods = {
            "dense": single("dense"),
            "bm25": single("bm25"),
            "zsum": lambda q: zsum(lists(q, "dense", "bm25")),
            "community": single("community"),
            "zsum(dense, bm25, community)": lambda q: zsum(lists(q, "dense", "bm25", "community")),
            "dense with Rocchio feedback (hybrid top 2, 0.5)": lambda q: dict(rocchio(dump, q)),
            "zsum(Rocchio dense, bm25)": lambda q: zsum([rocchio(dump, q), q["lists"]["bm25"]]),
            "zsum(dense, bm25, Rocchio dense)": lambda q: zsum(lists(q, "dense", "bm25") + [rocchio(dump, q)]),
            "BM25 with RM3 (hybrid top 3, 10 terms, 0.3)": lambda q: dict(bm25.rm3(q["text"], hybrid_feedback(q, 3))),
            "zsum(dense, bm25, RM3)": lambda q: zsum(lists(q, "dense", "bm25") + [bm25.rm3(q["text"], hybrid_feedback(q, 3))]),
        }
        if dump.sentences:
            methods |= {
                "contextual sentences (best per document)": lambda q: dict(sentence_dense(dump, q)),
                "zsum(sentences, bm25)": lambda q: zsum([sentence_dense(dump, q), q["lists"]["bm25"]]),
                "zsum(dense, bm25, sentences)": lambda q: zsum(lists(q, "dense", "bm25") + [sentence_dense(dump, q)]),
            }
        for name, rank in methods.items():
            print_row(split, name, evaluate(dump, questions, rank), baselines[split])
    learned = {
        "learned: dense, bm25, page, section, community": (["dense", "bm25", "page", "section", "community"], False),
        "learned: dense, bm25 + query⊙chunk dimensions": (["dense", "bm25"], True),
    }
    if dump.sentences:
        learned["learned: dense, bm25, sentences"] = (["dense", "bm25", "sentence"], False)
        learned["learned: + page, section, community"] = (["dense", "bm25", "sentence", "page", "section", "community"], False)
    for name, (names, product_dims) in learned.items():
        print_row("test", name, learned_rows(dump, splits, names, product_dims), baselines["test"])


def document_rows(folder):
    """Fusion at document level, and BM25 over whole documents: the reference runs score documents, Quire
    scores chunks and ranks a document by its best chunk."""
    dump = Dump(folder)
    splits = {s: dump.questions(s, depth=1000) for s in ("train", "test")}
    variants = {(k1, b): document_bm25(dump, k1, b) for k1, b in ((1.2, 0.75), (0.9, 0.4), (1.5, 0.75), (1.2, 0.9))}
    print(f"{'split':5}  {'method':48} nDCG@10  against zsum, paired 95 % interval")
    for split, questions in splits.items():
        hybrid = lambda q: [q["lists"]["dense"][:DEPTH], q["lists"]["bm25"][:DEPTH]]  # noqa: E731
        baseline = evaluate(dump, questions, lambda q: zsum(hybrid(q)))
        methods = {"zsum": lambda q: zsum(hybrid(q))}
        for depth in (100, 300, 1000):
            methods[f"zsum at document level, lists {depth} chunks deep"] = (
                lambda q, depth=depth: document_zsum(dump, [q["lists"]["dense"], q["lists"]["bm25"]], depth)
            )
        for (k1, b), ranked in variants.items():
            methods[f"document BM25 (k1 {k1}, b {b})"] = lambda q, ranked=ranked: dict(ranked(q))
            methods[f"zsum(dense, document BM25 {k1}/{b})"] = lambda q, ranked=ranked: zsum([q["lists"]["dense"][:DEPTH], ranked(q)])
            methods[f"zsum(dense, bm25, document BM25 {k1}/{b})"] = lambda q, ranked=ranked: zsum(hybrid(q) + [ranked(q)])
        for name, rank in methods.items():
            print_row(split, name, evaluate(dump, questions, rank), baseline)
    for questions in splits.values():  # back to the depth every other row fuses
        for q in questions:
            q["lists"] = {name: ranked[:DEPTH] for name, ranked in q["lists"].items()}
    baseline = evaluate(dump, splits["test"], lambda q: zsum([q["lists"]["dense"], q["lists"]["bm25"]]))
    made = {"document bm25": variants[(0.9, 0.4)]}
    learned = {
        "learned: dense, bm25, their documents' best": (["dense", "bm25"], ["dense", "bm25"]),
        "learned: dense, bm25, document BM25 0.9/0.4": (["dense", "bm25", "document bm25"], []),
        "learned: dense, bm25, sentences, document BM25": (["dense", "bm25", "sentence", "document bm25"], []),
        "learned: + community, documents' best": (
            ["dense", "bm25", "sentence", "document bm25", "community"],
            ["dense", "bm25"],
        ),
    }
    for name, (names, maxima) in learned.items():
        if "sentence" in names and not dump.sentences:
            continue
        print_row("test", name, learned_rows(dump, splits, names, made=made, document_maxima_of=maxima), baseline)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "rows":
        rows(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "documents":
        document_rows(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "sentences":
        write_sentences(Path(__file__).resolve().parent.parent / "datasets/scifact/corpus.jsonl.gz", sys.argv[2])
    else:
        sys.exit(__doc__)
