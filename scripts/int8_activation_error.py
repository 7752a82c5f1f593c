#!/usr/bin/env python3
"""How much embedding accuracy an int8 matrix-product path would cost (simulated, no Rust involved).

Question: a wasm kernel built on `i32x4.relaxed_dot_i8x16_i7x16_add` multiplies the model's own int8 weights
by an activation that has been quantised on the fly. How close do the final sentence embeddings stay to those
of the unmodified model?

What it does:
  * loads models/model.onnx (all-MiniLM-L6-v2, weights stored int8 + per-output-column float scale, dequantised
    by Cast -> Mul; no MatMulInteger nodes) and finds every "weight MatMul": a MatMul whose B operand is computed
    only from initializers and traces back to an int8 initializer (Q, K, V, attention output, FFN up, FFN down).
    The attention-score MatMuls (activation x activation) are left alone. It asserts there are 6 x 6 = 36.
  * for each scheme below, inserts fake quantisation (quantise, then dequantise in float, with standard ONNX ops)
    on the activation input A of every weight MatMul. The weights are untouched; because their scale is one per
    output column, A_q @ (W_int8 * s) equals (A_q @ W_int8) * s, i.e. exactly what an integer kernel computes
    (up to float summation order).
      per-tensor-u8   onnxruntime DynamicQuantizeLinear + DequantizeLinear (asymmetric uint8 over the whole
                      tensor: range widened to include 0, scale=(max-min)/255, zero point)
      per-row-s8      per token, symmetric int8: scale=max|x|/127, q in -127..127
      per-row-u7      per token, asymmetric 7-bit: range widened to include 0, scale=(max-min)/127,
                      zp=round(-min/scale), q in 0..127
      per-row-s7      per token, symmetric 7-bit: scale=max|x|/63, q in -63..63
      per-row-s8-not-qkv  per-row-s8 on the attention output, FFN up and FFN down only (Q, K, V stay f32)
      per-row-s8-out-up   per-row-s8 on the attention output and FFN up only
    ("identity" runs the same graph-rewriting path with no insertion, as a sanity check: cosine must be 1.0.)
  * embeds, one text per run (batch 1, no padding, so per-tensor ranges see only real tokens), the first 300
    documents of datasets/scifact/corpus.jsonl.gz (title + " " + text) and the first 100 queries of
    queries.jsonl.gz, truncated to 256 word pieces; embedding = mean pool of last_hidden_state over the
    attention mask, then L2 normalisation (same as scripts/reference_embeddings.py).
  * prints, per scheme and text set, min / 1st percentile / median cosine to the unmodified model's embedding
    and the fraction of texts with cosine >= 0.999 (the project's parity bar).

Install and run (single-threaded on purpose):
    python3 -m venv /tmp/int8lab && /tmp/int8lab/bin/pip install onnx onnxruntime tokenizers numpy
    OMP_NUM_THREADS=1 /tmp/int8lab/bin/python scripts/int8_activation_error.py
(or `python3 scripts/int8_activation_error.py` with those four packages importable).
"""
import gzip
import itertools
import json
import os
import pathlib
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL = ROOT / "models" / "model.onnx"
TOKENIZER = ROOT / "models" / "tokenizer.json"
DATASET = ROOT / "datasets" / "scifact"
N_DOCS, N_QUERIES, MAX_LEN, BAR = 300, 100, 256, 0.999
SCHEMES = ["identity", "per-tensor-u8", "per-row-s8", "per-row-u7", "per-row-s7", "per-row-s8-not-qkv",
           "per-row-s8-out-up"]
# Q, K and V read the same activation (a layer norm's output, whose few outlier channels set each row's scale):
# "-not-qkv" leaves the products whose input three weight MatMuls share in f32 and quantises the rest
# (attention output, FFN up, FFN down); "-out-up" quantises only the attention output and FFN up.


def weight_matmuls(graph):
    """MatMul nodes whose B input depends only on initializers and comes from an int8 initializer."""
    # (is_constant, derives_from_int8_initializer) per tensor; ONNX graph.node is topologically sorted.
    info = {i.name: (True, i.data_type == TensorProto.INT8) for i in graph.initializer}
    for i in graph.input:
        info.setdefault(i.name, (False, False))
    found = []
    for node in graph.node:
        ins = [info[x] for x in node.input if x]
        if node.op_type == "MatMul" and ins[1] == (True, True):
            found.append(node)
        flag = (all(c for c, _ in ins), any(q for _, q in ins))
        for o in node.output:
            info[o] = flag
    return found


def fake_quant_nodes(scheme, x, p):
    """Nodes computing fake-quantised x; output name is p + '_fq'. Opset 17 (axes as attribute)."""
    c = lambda name, value: helper.make_node(
        "Constant", [], [p + name], value=numpy_helper.from_array(np.array(value, dtype=np.float32), p + name + "_v"))
    n = helper.make_node
    out = p + "_fq"
    if scheme == "per-tensor-u8":
        return [
            n("DynamicQuantizeLinear", [x], [p + "_q", p + "_s", p + "_zp"]),
            n("DequantizeLinear", [p + "_q", p + "_s", p + "_zp"], [out]),
        ]
    if scheme in ("per-row-s8", "per-row-s7"):
        qmax = 127.0 if scheme == "per-row-s8" else 63.0
        return [
            c("_qmax", qmax), c("_qmin", -qmax), c("_eps", 1e-12),
            n("Abs", [x], [p + "_abs"]),
            n("ReduceMax", [p + "_abs"], [p + "_amax"], axes=[-1], keepdims=1),
            n("Div", [p + "_amax", p + "_qmax"], [p + "_s0"]),
            n("Max", [p + "_s0", p + "_eps"], [p + "_s"]),
            n("Div", [x, p + "_s"], [p + "_xs"]),
            n("Round", [p + "_xs"], [p + "_r"]),
            n("Clip", [p + "_r", p + "_qmin", p + "_qmax"], [p + "_q"]),
            n("Mul", [p + "_q", p + "_s"], [out]),
        ]
    if scheme == "per-row-u7":
        return [
            c("_zero", 0.0), c("_qmax", 127.0), c("_eps", 1e-12),
            n("ReduceMax", [x], [p + "_max0"], axes=[-1], keepdims=1),
            n("ReduceMin", [x], [p + "_min0"], axes=[-1], keepdims=1),
            n("Max", [p + "_max0", p + "_zero"], [p + "_max"]),
            n("Min", [p + "_min0", p + "_zero"], [p + "_min"]),
            n("Sub", [p + "_max", p + "_min"], [p + "_rng"]),
            n("Div", [p + "_rng", p + "_qmax"], [p + "_s0"]),
            n("Max", [p + "_s0", p + "_eps"], [p + "_s"]),
            n("Div", [p + "_min", p + "_s"], [p + "_mins"]),
            n("Neg", [p + "_mins"], [p + "_zpf"]),
            n("Round", [p + "_zpf"], [p + "_zpr"]),
            n("Clip", [p + "_zpr", p + "_zero", p + "_qmax"], [p + "_zp"]),
            n("Div", [x, p + "_s"], [p + "_xs"]),
            n("Round", [p + "_xs"], [p + "_r"]),
            n("Add", [p + "_r", p + "_zp"], [p + "_rz"]),
            n("Clip", [p + "_rz", p + "_zero", p + "_qmax"], [p + "_q"]),
            n("Sub", [p + "_q", p + "_zp"], [p + "_qc"]),
            n("Mul", [p + "_qc", p + "_s"], [out]),
        ]
    raise ValueError(scheme)


def build(scheme):
    model = onnx.load(str(MODEL))
    graph = model.graph
    targets = weight_matmuls(graph)
    new_nodes, modified = [], 0
    if scheme.endswith("-not-qkv"):
        readers = {}
        for t in targets:
            readers[t.input[0]] = readers.get(t.input[0], 0) + 1
        targets = [t for t in targets if readers[t.input[0]] != 3]
    if scheme.endswith("-out-up"):
        readers = {}
        for t in targets:
            readers[t.input[0]] = readers.get(t.input[0], 0) + 1
        # In each layer, after Q, K and V: the attention output, FFN up, FFN down, in that order.
        targets = [t for i, t in enumerate(t for t in targets if readers[t.input[0]] != 3) if i % 3 != 2]
    target_ids = {id(t) for t in targets}
    for i, node in enumerate(graph.node):
        if id(node) in target_ids and scheme != "identity":
            prefix = f"fq{i}"
            new_nodes.extend(fake_quant_nodes(scheme.removesuffix("-not-qkv").removesuffix("-out-up"), node.input[0], prefix))
            node.input[0] = prefix + "_fq"
            modified += 1
        new_nodes.append(node)
    del graph.node[:]
    graph.node.extend(new_nodes)
    onnx.checker.check_model(model)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return session, targets, modified


def load_texts():
    with gzip.open(DATASET / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for line in itertools.islice(f, N_DOCS)]
    with gzip.open(DATASET / "queries.jsonl.gz", "rt", encoding="utf-8") as f:
        queries = [json.loads(line)["text"] for line in itertools.islice(f, N_QUERIES)]
    return [(d.get("title", "") + " " + d.get("text", "")).strip() for d in docs], queries


def embed(session, encodings):
    out = []
    for enc in encodings:
        feeds = {
            "input_ids": np.array([enc.ids], dtype=np.int64),
            "attention_mask": np.array([enc.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([enc.type_ids], dtype=np.int64),
        }
        hidden = session.run(["last_hidden_state"], feeds)[0][0]
        mask = np.array(enc.attention_mask, dtype=np.float32)[:, None]
        pooled = (hidden * mask).sum(axis=0) / mask.sum()
        out.append(pooled / np.linalg.norm(pooled))
    return np.stack(out).astype(np.float64)


def main():
    for path in (MODEL, TOKENIZER, DATASET / "corpus.jsonl.gz", DATASET / "queries.jsonl.gz"):
        if not path.exists():
            sys.exit(f"missing {path}")
    outputs = [o.name for o in onnx.load(str(MODEL), load_external_data=False).graph.output]
    assert outputs == ["last_hidden_state"], outputs  # token states, so we mean-pool ourselves

    tokenizer = Tokenizer.from_file(str(TOKENIZER))
    tokenizer.enable_truncation(max_length=MAX_LEN)
    tokenizer.no_padding()
    docs, queries = load_texts()
    sets = {"docs": tokenizer.encode_batch(docs), "questions": tokenizer.encode_batch(queries)}
    for name, encs in sets.items():
        lens = [len(e.ids) for e in encs]
        print(f"{name}: {len(encs)} texts, word pieces min/median/max {min(lens)}/{int(np.median(lens))}/{max(lens)}, "
              f"{sum(l == MAX_LEN for l in lens)} truncated at {MAX_LEN}")

    base_opts = ort.SessionOptions()
    base_opts.intra_op_num_threads = 1
    base_opts.inter_op_num_threads = 1
    base = ort.InferenceSession(str(MODEL), base_opts, providers=["CPUExecutionProvider"])
    reference = {name: embed(base, encs) for name, encs in sets.items()}

    rows = []
    for scheme in SCHEMES:
        t0 = time.time()
        session, targets, modified = build(scheme)
        if scheme == "identity":
            assert len(targets) == 36, len(targets)
            print(f"weight MatMuls found: {len(targets)} of "
                  f"{sum(n.op_type == 'MatMul' for n in onnx.load(str(MODEL)).graph.node)} MatMuls "
                  f"(first: {targets[0].name} B={targets[0].input[1]})")
        else:
            expected = 18 if scheme.endswith("-not-qkv") else 12 if scheme.endswith("-out-up") else 36
            assert modified == expected, (scheme, modified)
        for name, encs in sets.items():
            cos = np.sum(embed(session, encs) * reference[name], axis=1)
            rows.append((scheme, modified, name, len(cos), cos.min(), np.percentile(cos, 1), np.median(cos),
                         np.mean(cos >= BAR)))
        print(f"  {scheme}: {modified} MatMul activations fake-quantised ({time.time() - t0:.0f}s)", flush=True)

    print()
    header = f"{'scheme':<19} {'MatMuls':>7} {'set':<9} {'n':>4} {'min':>8} {'p1':>8} {'median':>8} {'>=0.999':>8}"
    print(header)
    print("-" * len(header))
    for scheme, modified, name, n, mn, p1, med, frac in rows:
        print(f"{scheme:<19} {modified:>7} {name:<9} {n:>4} {mn:>8.5f} {p1:>8.5f} {med:>8.5f} {frac:>8.1%}")


if __name__ == "__main__":
    main()
