//! The model's embedding tables, dequantised after the lookup instead of before it. The model keeps each
//! table as int8 with a scale per row (`Cast` and `Mul` ahead of the `Gather` that looks tokens up). tract
//! does not fold that dequantisation into a constant (the f32 table would be four times the size), so every
//! inference turned all 30,522 rows of the word table into f32 (47 MB, 11.7 million elements) to read the
//! few rows a sequence names: about a tenth of a question's embedding time in the browser
//! (tests/browser/profile-query.mjs). Looking up the int8 rows and their scales first and dequantising only
//! those does the same arithmetic on every element that is used, so embeddings do not change by a bit
//! (tests/embedding_parity.rs). No ONNX tool rewrites a graph in Rust, hence these few lines over tract's
//! own protobuf types.

use std::collections::HashMap;

use tract_onnx::pb::{GraphProto, NodeProto};

/// Rewrites every `Gather(Mul(Cast(table), scale), indices)` over an int8 initializer `table` into
/// `Mul(Cast(Gather(table, indices)), Gather(scale, indices))` (the scale gathered only when it has a row per
/// table row), removing the table-wide `Cast` and `Mul` where nothing else reads them. Returns how many
/// lookups it rewrote; a graph without the pattern is left as it is.
pub fn dequantise_after_lookup(graph: &mut GraphProto) -> usize {
    let dims: HashMap<String, Vec<i64>> = graph.initializer.iter().map(|t| (t.name.clone(), t.dims.clone())).collect();
    let mut rewritten = 0;
    let mut at = 0;
    while at < graph.node.len() {
        match lookup_rewrite(graph, &dims, at) {
            Some(nodes) => {
                let count = nodes.len();
                graph.node.splice(at..=at, nodes);
                rewritten += 1;
                at += count;
            }
            None => at += 1,
        }
    }
    if rewritten > 0 {
        remove_unread(graph);
    }
    rewritten
}

/// The nodes replacing the `Gather` at `at`, if it looks up rows of a dequantised int8 table.
fn lookup_rewrite(graph: &GraphProto, dims: &HashMap<String, Vec<i64>>, at: usize) -> Option<Vec<NodeProto>> {
    let gather = &graph.node[at];
    let axis = gather.attribute.iter().find(|a| a.name == "axis").map_or(0, |a| a.i);
    if gather.op_type != "Gather" || axis != 0 || gather.input.len() != 2 {
        return None;
    }
    let producer = |name: &str| graph.node.iter().find(|n| n.output.iter().any(|o| o == name));
    let mul = producer(&gather.input[0]).filter(|n| n.op_type == "Mul" && n.input.len() == 2)?;
    let (cast, scale) = [(0, 1), (1, 0)].into_iter().find_map(|(c, s)| {
        let cast = producer(&mul.input[c]).filter(|n| n.op_type == "Cast" && dims.contains_key(&n.input[0]))?;
        Some((cast, &mul.input[s]))
    })?;
    let table_dims = &dims[&cast.input[0]];
    let rows = *table_dims.first()?;
    let scale_dims = dims.get(scale)?;
    let per_row = match scale_dims.as_slice() {
        [r, 1] if *r == rows && rows > 1 => true,
        [] | [1] | [1, _] => false,
        [c] if Some(c) == table_dims.get(1) => false,
        _ => return None,
    };
    let output = &gather.output[0];
    let named = |suffix: &str| format!("{output}_{suffix}");
    let node = |op: &str, suffix: &str, inputs: Vec<String>, from: &NodeProto| NodeProto {
        op_type: op.to_string(),
        name: named(suffix),
        input: inputs,
        output: vec![if op == "Mul" { output.clone() } else { named(suffix) }],
        attribute: from.attribute.clone(),
        ..Default::default()
    };
    let indices = gather.input[1].clone();
    let mut nodes = vec![node("Gather", "rows_q", vec![cast.input[0].clone(), indices.clone()], gather)];
    let scale = match per_row {
        true => {
            nodes.push(node("Gather", "rows_scale", vec![scale.clone(), indices], gather));
            named("rows_scale")
        }
        false => scale.clone(),
    };
    nodes.push(node("Cast", "rows_f", vec![named("rows_q")], cast));
    nodes.push(node("Mul", "rows", vec![named("rows_f"), scale], mul));
    Some(nodes)
}

/// Drops nodes whose outputs nothing reads (the graph's outputs count as read), until none is left.
fn remove_unread(graph: &mut GraphProto) {
    loop {
        let mut read: std::collections::HashSet<&str> = graph.output.iter().map(|o| o.name.as_str()).collect();
        read.extend(graph.node.iter().flat_map(|n| n.input.iter().map(String::as_str)));
        let unread: Vec<usize> = (0..graph.node.len())
            .filter(|&i| graph.node[i].output.iter().all(|o| !read.contains(o.as_str())))
            .collect();
        if unread.is_empty() {
            return;
        }
        for i in unread.into_iter().rev() {
            graph.node.remove(i);
        }
    }
}
