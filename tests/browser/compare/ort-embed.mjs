// The same model.onnx through onnxruntime-web (its wasm backend, files served locally by the benchmark), with
// the pooling Quire applies (mean over the attention mask, then unit length), timed one sequence at a time and
// in batches. Used by tests/browser/compare.mjs; nothing here is part of the app.
import * as ort from "/ort/ort.wasm.min.mjs";

ort.env.wasm.wasmPaths = "/ort/";

function tensors(batch) {
  const length = Math.max(...batch.map((ids) => ids.length));
  const make = (value) => {
    const data = new BigInt64Array(batch.length * length);
    batch.forEach((ids, row) => ids.forEach((id, i) => { data[row * length + i] = BigInt(value(id)); }));
    return new ort.Tensor("int64", data, [batch.length, length]);
  };
  return { length, feeds: { input_ids: make((id) => id), attention_mask: make(() => 1), token_type_ids: make(() => 0) } };
}

function pooled(output, batch, length) {
  const width = output.dims[2];
  return batch.map((ids, row) => {
    const vector = new Float64Array(width);
    for (let t = 0; t < ids.length; t++) {
      for (let d = 0; d < width; d++) vector[d] += output.data[(row * length + t) * width + d];
    }
    const norm = Math.hypot(...vector) || 1e-12;
    return Array.from(vector, (v) => v / norm);
  });
}

async function embed(session, batch) {
  const { length, feeds } = tensors(batch);
  const wanted = Object.fromEntries(session.inputNames.map((name) => [name, feeds[name]]));
  const outputs = await session.run(wanted);
  return pooled(outputs[session.outputNames[0]], batch, length);
}

/// Times `sequences` (arrays of word-piece ids) one at a time and in batches of `batch`, after a warm-up.
window.ortEmbed = async (sequences, { threads = 1, batch = 16 } = {}) => {
  ort.env.wasm.numThreads = threads;
  const session = await ort.InferenceSession.create("/models/model.onnx", { executionProviders: ["wasm"] });
  await embed(session, sequences.slice(0, 1));
  let started = performance.now();
  for (const ids of sequences) await embed(session, [ids]);
  const unbatched = (performance.now() - started) / sequences.length;
  started = performance.now();
  const vectors = [];
  for (let i = 0; i < sequences.length; i += batch) vectors.push(...await embed(session, sequences.slice(i, i + batch)));
  const batched = (performance.now() - started) / sequences.length;
  return { threads, crossOriginIsolated, unbatched, batched, vectors };
};
window.ortReady = true;
