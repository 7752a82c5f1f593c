//! The model's embedding tables, dequantised after the lookup instead of before it. The model keeps each
//! table as int8 with a scale per row (`Cast` and `Mul` ahead of the `Gather` that looks tokens up). tract
//! does not fold that dequantisation into a constant (the f32 table would be four times the size), so every
//! inference turned all 30,522 rows of the word table into f32 (47 MB, 11.7 million elements) to read the
//! few rows a sequence names: about a tenth of a question's embedding time in the browser
//! (tests/browser/profile-query.mjs). Looking up the int8 rows and their scales first and dequantising only
//! those does the same arithmetic on every element that is used, so embeddings do not change by a bit
//! (tests/integration/embedding_parity.rs). No ONNX tool rewrites a graph in Rust, hence these few lines over tract's
//! own protobuf types.

use std::collections::HashMap;

use tract_onnx::pb::{GraphProto, NodeProto};

/// Rewrites every `Gather(Mul(Cast(table), scale), indices)` over a two-dimensional int8 initializer `table`
/// into `Mul(Cast(Gather(table, indices)), Gather(scale, indices))` (the scale gathered only when it has a
/// row per table row), removing the table-wide `Mul` and `Cast` where nothing else reads them. Returns how
/// many lookups it rewrote; a graph without the pattern is left as it is.
pub fn dequantise_after_lookup(graph: &mut GraphProto) -> usize {
    let dims: HashMap<String, Vec<i64>> = graph.initializer.iter().map(|t| (t.name.clone(), t.dims.clone())).collect();
    let mut replaced: Vec<[String; 2]> = Vec::new();
    let mut at = 0;
    while at < graph.node.len() {
        match lookup_rewrite(graph, &dims, at) {
            Some((nodes, table_wide)) => {
                let count = nodes.len();
                graph.node.splice(at..=at, nodes);
                replaced.push(table_wide);
                at += count;
            }
            None => at += 1,
        }
    }
    // A subgraph (If, Loop) may read an outer tensor without naming it among its node's inputs: there, the
    // table-wide nodes stay (unread, they cost tract nothing at run time).
    let subgraphs = graph.node.iter().any(|n| n.attribute.iter().any(|a| a.g.is_some() || !a.graphs.is_empty()));
    for [mul, cast] in replaced.iter().filter(|_| !subgraphs) {
        remove_if_unread(graph, mul);
        remove_if_unread(graph, cast);
    }
    replaced.len()
}

/// The nodes replacing the `Gather` at `at`, if it looks up rows of a dequantised int8 table, with the
/// outputs of the table-wide `Mul` and `Cast` it read.
fn lookup_rewrite(
    graph: &GraphProto,
    dims: &HashMap<String, Vec<i64>>,
    at: usize,
) -> Option<(Vec<NodeProto>, [String; 2])> {
    let standard = |n: &NodeProto, op: &str| n.op_type == op && (n.domain.is_empty() || n.domain == "ai.onnx");
    let gather = &graph.node[at];
    let axis = gather.attribute.iter().find(|a| a.name == "axis").map_or(0, |a| a.i);
    if !standard(gather, "Gather") || axis != 0 || gather.input.len() != 2 || gather.output.len() != 1 {
        return None;
    }
    let producer = |name: &str| graph.node.iter().find(|n| n.output.iter().any(|o| o == name));
    let mul = producer(&gather.input[0]).filter(|n| standard(n, "Mul") && n.input.len() == 2)?;
    let (cast, scale) = [(0, 1), (1, 0)].into_iter().find_map(|(c, s)| {
        let cast = producer(&mul.input[c])
            .filter(|n| standard(n, "Cast") && n.input.first().is_some_and(|i| dims.contains_key(i)))?;
        Some((cast, &mul.input[s]))
    })?;
    // A table of rows (the lookup's axis) and columns; its scale one per row, or one for all.
    let [rows, columns] = dims[&cast.input[0]].as_slice() else { return None };
    let per_row = match dims.get(scale)?.as_slice() {
        [r, 1] if r == rows && *rows > 1 => true,
        [] | [1] => false,
        [c] if c == columns => false,
        _ => return None,
    };
    let output = &gather.output[0];
    let named = |suffix: &str| format!("{output}_{suffix}");
    let taken = |name: &str| {
        dims.contains_key(name)
            || graph.input.iter().any(|i| i.name == name)
            || graph.node.iter().any(|n| n.name == name || n.output.iter().any(|o| o == name))
    };
    if ["rows_q", "rows_scale", "rows_f", "rows"].iter().any(|suffix| taken(&named(suffix))) {
        return None;
    }
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
    Some((nodes, [gather.input[0].clone(), mul.input.iter().find(|i| producer(i) == Some(cast))?.clone()]))
}

/// Removes the node that outputs `tensor` when neither another node nor the graph's outputs read it.
fn remove_if_unread(graph: &mut GraphProto, tensor: &str) {
    let read =
        graph.output.iter().any(|o| o.name == tensor) || graph.node.iter().any(|n| n.input.iter().any(|i| i == tensor));
    if !read {
        graph.node.retain(|n| n.output.iter().all(|o| o != tensor));
    }
}

#[cfg(test)]
mod tests {
    use tract_onnx::pb::{AttributeProto, TensorProto, ValueInfoProto};

    use super::*;

    fn node(op: &str, inputs: &[&str], output: &str) -> NodeProto {
        let to_float = AttributeProto { name: "to".into(), i: 1, ..Default::default() };
        NodeProto {
            op_type: op.into(),
            name: output.into(),
            input: inputs.iter().map(|i| i.to_string()).collect(),
            output: vec![output.into()],
            attribute: if op == "Cast" { vec![to_float] } else { Vec::new() },
            ..Default::default()
        }
    }

    /// `table` (int8, `table_dims`) dequantised by `scale` (`scale_dims`), then looked up by `ids`.
    fn lookup_graph(table_dims: &[i64], scale_dims: &[i64]) -> GraphProto {
        let initializer = |name: &str, dims: &[i64], data_type| TensorProto {
            name: name.into(),
            dims: dims.to_vec(),
            data_type,
            ..Default::default()
        };
        GraphProto {
            initializer: vec![initializer("table_q", table_dims, 3), initializer("scale", scale_dims, 1)],
            node: vec![
                node("Cast", &["table_q"], "table_f"),
                node("Mul", &["table_f", "scale"], "table"),
                node("Gather", &["table", "ids"], "rows"),
            ],
            output: vec![ValueInfoProto { name: "rows".into(), ..Default::default() }],
            ..Default::default()
        }
    }

    fn ops(graph: &GraphProto) -> Vec<(&str, Vec<&str>)> {
        graph.node.iter().map(|n| (n.op_type.as_str(), n.input.iter().map(String::as_str).collect())).collect()
    }

    #[test]
    fn a_table_with_a_scale_per_row_is_dequantised_after_its_lookup() {
        let mut graph = lookup_graph(&[30, 4], &[30, 1]);
        assert_eq!(dequantise_after_lookup(&mut graph), 1);
        assert_eq!(
            ops(&graph),
            [
                ("Gather", vec!["table_q", "ids"]),
                ("Gather", vec!["scale", "ids"]),
                ("Cast", vec!["rows_rows_q"]),
                ("Mul", vec!["rows_rows_f", "rows_rows_scale"]),
            ]
        );
        assert_eq!(graph.node[3].output, ["rows"]);
        assert_eq!(graph.node[2].attribute[0].i, 1, "the Cast keeps its target type");
    }

    #[test]
    fn one_scale_for_the_whole_table_is_not_looked_up() {
        let mut graph = lookup_graph(&[30, 4], &[]);
        assert_eq!(dequantise_after_lookup(&mut graph), 1);
        assert_eq!(ops(&graph)[2], ("Mul", vec!["rows_rows_f", "scale"]));
    }

    #[test]
    fn lookups_the_rewrite_cannot_keep_exact_are_left_alone() {
        // Three axes; one axis; a scale that broadcasts over the rows into a new axis; a scale per column
        // of another table.
        for (table, scale) in
            [(&[30, 4, 2][..], &[30, 1][..]), (&[30], &[1, 30]), (&[30, 4], &[1, 4]), (&[30, 4], &[5])]
        {
            let mut graph = lookup_graph(table, scale);
            let before = graph.clone();
            assert_eq!(dequantise_after_lookup(&mut graph), 0, "{table:?} scaled by {scale:?}");
            assert_eq!(graph, before);
        }
    }

    #[test]
    fn a_table_read_elsewhere_keeps_its_dequantisation() {
        let mut graph = lookup_graph(&[30, 4], &[30, 1]);
        graph.output.push(ValueInfoProto { name: "table".into(), ..Default::default() });
        assert_eq!(dequantise_after_lookup(&mut graph), 1);
        assert!(graph.node.iter().any(|n| n.output == ["table"]) && graph.node.iter().any(|n| n.output == ["table_f"]));
    }
}
