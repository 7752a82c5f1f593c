#!/usr/bin/env python3
"""Reference sentence embeddings from onnxruntime, for the tract parity test.

Reads tests/fixtures/parity_sentences.txt (one sentence per line), tokenizes with models/tokenizer.json
(truncation at 256 word-pieces), runs models/model.onnx with onnxruntime, mean-pools over the attention
mask, L2-normalises, and writes tests/fixtures/reference_embeddings.json.

Rerun: pip install onnxruntime tokenizers numpy && python3 scripts/reference_embeddings.py
"""
import hashlib
import json
import pathlib

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

root = pathlib.Path(__file__).resolve().parent.parent
model_path = root / "models" / "model.onnx"
sentences = [line for line in (root / "tests/fixtures/parity_sentences.txt").read_text(encoding="utf-8").splitlines() if line]
tokenizer = Tokenizer.from_file(str(root / "models" / "tokenizer.json"))
tokenizer.enable_truncation(max_length=256)
tokenizer.no_padding()
session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])

vectors = []
for sentence in sentences:
    encoding = tokenizer.encode(sentence)
    feeds = {
        "input_ids": np.array([encoding.ids], dtype=np.int64),
        "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
        "token_type_ids": np.array([encoding.type_ids], dtype=np.int64),
    }
    hidden = session.run(None, feeds)[0][0]
    mask = np.array(encoding.attention_mask, dtype=np.float32)[:, None]
    pooled = (hidden * mask).sum(axis=0) / mask.sum()
    vectors.append((pooled / np.linalg.norm(pooled)).astype(float).round(7).tolist())

out = {
    "producer": f"onnxruntime {ort.__version__}",
    "model_sha256": hashlib.sha256(model_path.read_bytes()).hexdigest(),
    "sentences": sentences,
    "vectors": vectors,
}
(root / "tests/fixtures/reference_embeddings.json").write_text(json.dumps(out) + "\n", encoding="utf-8")
print(f"wrote {len(vectors)} reference vectors")
