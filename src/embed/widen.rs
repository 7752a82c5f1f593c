//! 4-bit weights widened to f32 once, as a model loads. The multilingual model ships its linear layers as
//! `com.microsoft` `MatMulNBits` (4-bit blocks of 32 weights, each with its scale: 68 MB to download instead
//! of 140), and tract runs that operator about 2.6 times slower than a plain f32 `MatMul` over the same
//! weights (`examples/model_rate.rs`: 2.0 against 5.3 texts a second on one core). Each such node whose
//! weights are constants becomes a `MatMul` over the weights it stands for, plus its bias: the same numbers,
//! four times the memory (85 MB for e5-small's 21 million weights). No ONNX tool rewrites a graph in Rust,
//! hence these lines over tract's own protobuf types, as `lookup.rs` does.

use std::collections::HashMap;

use tract_onnx::pb::{GraphProto, NodeProto, TensorProto};

const UINT8: i32 = 2;
const FLOAT: i32 = 1;

/// Replaces every `MatMulNBits` of 4 bits with constant weights and scales, no zero points and no group
/// indices, by `MatMul` (and `Add` where it has a bias) over f32 weights. Returns how many it replaced;
/// any other node is left as it is.
pub fn widen_4bit_matmuls(graph: &mut GraphProto) -> usize {
    let at: HashMap<String, usize> = graph.initializer.iter().enumerate().map(|(i, t)| (t.name.clone(), i)).collect();
    let mut widened = 0;
    let mut nodes = Vec::with_capacity(graph.node.len());
    let mut initializers = Vec::new();
    let mut unread = Vec::new();
    for node in std::mem::take(&mut graph.node) {
        match widen(&node, &graph.initializer, &at) {
            Some((weights, replacement)) => {
                unread.extend([node.input[1].clone(), node.input[2].clone()]);
                initializers.push(weights);
                nodes.extend(replacement);
                widened += 1;
            }
            None => nodes.push(node),
        }
    }
    graph.node = nodes;
    let read = |name: &String| graph.node.iter().any(|n| n.input.contains(name));
    let still_read: Vec<bool> = graph.initializer.iter().map(|t| !unread.contains(&t.name) || read(&t.name)).collect();
    let mut keep = still_read.into_iter();
    graph.initializer.retain(|_| keep.next().unwrap_or(true));
    graph.initializer.extend(initializers);
    widened
}

/// The f32 weights of `node`, and the nodes that compute what it did, where it is a `MatMulNBits` this
/// module can widen exactly.
fn widen(
    node: &NodeProto,
    initializers: &[TensorProto],
    at: &HashMap<String, usize>,
) -> Option<(TensorProto, Vec<NodeProto>)> {
    if node.op_type != "MatMulNBits" || node.domain != "com.microsoft" || node.output.len() != 1 {
        return None;
    }
    let attribute = |name: &str| node.attribute.iter().find(|a| a.name == name).map(|a| a.i);
    let (k, n, block) = (attribute("K")? as usize, attribute("N")? as usize, attribute("block_size")? as usize);
    if attribute("bits").unwrap_or(4) != 4 || block == 0 || block % 2 != 0 || k == 0 || n == 0 {
        return None;
    }
    let input = |i: usize| node.input.get(i).filter(|name| !name.is_empty());
    if input(3).is_some() || input(4).is_some() {
        return None;
    }
    let constant = |i: usize| input(i).and_then(|name| at.get(name)).map(|&index| &initializers[index]);
    let (packed, scales) = (constant(1)?, constant(2)?);
    let blocks = k.div_ceil(block);
    if packed.data_type != UINT8 || packed.raw_data.len() != n * blocks * block / 2 || scales.data_type != FLOAT {
        return None;
    }
    let scales: Vec<f32> =
        scales.raw_data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    if scales.len() != n * blocks {
        return None;
    }
    let mut weights = vec![0f32; k * n];
    for (row, (bytes, row_scales)) in
        packed.raw_data.chunks_exact(blocks * block / 2).zip(scales.chunks_exact(blocks)).enumerate()
    {
        for (column, slot) in (0..k).map(|column| (column, column * n + row)) {
            let byte = bytes[column / 2];
            let nibble = if column % 2 == 0 { byte & 0x0f } else { byte >> 4 };
            weights[slot] = (f32::from(nibble) - 8.0) * row_scales[column / block];
        }
    }
    let output = &node.output[0];
    let name = format!("{output}_widened");
    let tensor = TensorProto {
        name: name.clone(),
        dims: vec![k as i64, n as i64],
        data_type: FLOAT,
        raw_data: weights.iter().flat_map(|w| w.to_le_bytes()).collect(),
        ..Default::default()
    };
    let product = if input(5).is_some() { format!("{output}_product") } else { output.clone() };
    let mut replacement = vec![NodeProto {
        op_type: "MatMul".into(),
        name: product.clone(),
        input: vec![node.input[0].clone(), name],
        output: vec![product.clone()],
        ..Default::default()
    }];
    if let Some(bias) = input(5) {
        replacement.push(NodeProto {
            op_type: "Add".into(),
            name: output.clone(),
            input: vec![product, bias.clone()],
            output: vec![output.clone()],
            ..Default::default()
        });
    }
    Some((tensor, replacement))
}

#[cfg(test)]
mod tests {
    use tract_onnx::pb::AttributeProto;

    use super::*;

    fn int(name: &str, i: i64) -> AttributeProto {
        AttributeProto { name: name.into(), i, ..Default::default() }
    }

    fn tensor(name: &str, data_type: i32, dims: &[i64], raw_data: Vec<u8>) -> TensorProto {
        TensorProto { name: name.into(), data_type, dims: dims.to_vec(), raw_data, ..Default::default() }
    }

    /// One `MatMulNBits` of `K` = 4 inputs and `N` = 2 outputs in blocks of 2: row 0's weights 0..3 are
    /// nibbles 9, 7, 8, 15 (1, -1, 0, 7 from the zero point 8), row 1's all 10 (2); scales 0.5, 2 and 1, 3.
    fn graph(bias: bool) -> GraphProto {
        let packed = vec![0x79, 0xf8, 0xaa, 0xaa];
        let scales: Vec<u8> = [0.5f32, 2.0, 1.0, 3.0].iter().flat_map(|s| s.to_le_bytes()).collect();
        let mut initializer = vec![tensor("w", UINT8, &[2, 2, 1], packed), tensor("s", FLOAT, &[4], scales)];
        let mut input = vec!["x".to_string(), "w".into(), "s".into()];
        if bias {
            initializer.push(tensor("b", FLOAT, &[2], [0.25f32, 0.5].iter().flat_map(|b| b.to_le_bytes()).collect()));
            input.extend(["".into(), "".into(), "b".into()]);
        }
        GraphProto {
            initializer,
            node: vec![NodeProto {
                op_type: "MatMulNBits".into(),
                domain: "com.microsoft".into(),
                name: "y".into(),
                input,
                output: vec!["y".into()],
                attribute: vec![int("K", 4), int("N", 2), int("bits", 4), int("block_size", 2)],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn floats(tensor: &TensorProto) -> Vec<f32> {
        tensor.raw_data.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
    }

    #[test]
    fn four_bit_weights_become_the_f32_weights_they_stand_for() {
        let mut graph = graph(true);
        assert_eq!(widen_4bit_matmuls(&mut graph), 1);
        let ops: Vec<(&str, Vec<&str>, &str)> = graph
            .node
            .iter()
            .map(|n| (n.op_type.as_str(), n.input.iter().map(String::as_str).collect(), n.output[0].as_str()))
            .collect();
        assert_eq!(ops, [("MatMul", vec!["x", "y_widened"], "y_product"), ("Add", vec!["y_product", "b"], "y")]);
        let names: Vec<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["b", "y_widened"], "the 4-bit weights and scales no node reads are gone");
        let weights = &graph.initializer[1];
        assert_eq!(weights.dims, [4, 2]);
        // [K, N]: column n is output n's weights.
        assert_eq!(floats(weights), [0.5, 2.0, -0.5, 2.0, 0.0, 6.0, 14.0, 6.0]);
    }

    #[test]
    fn without_a_bias_the_product_is_the_output() {
        let mut graph = graph(false);
        assert_eq!(widen_4bit_matmuls(&mut graph), 1);
        assert_eq!(graph.node.len(), 1);
        assert_eq!(graph.node[0].output, ["y"]);
    }

    #[test]
    fn what_cannot_be_widened_exactly_is_left_alone() {
        let zero_points = |g: &mut GraphProto| g.node[0].input.insert(3, "z".into());
        let eight_bits = |g: &mut GraphProto| g.node[0].attribute[2].i = 8;
        let weights_computed = |g: &mut GraphProto| g.initializer.remove(0).name.clear();
        let short_weights = |g: &mut GraphProto| g.initializer[0].raw_data.pop().map(drop).unwrap_or(());
        let changes: [fn(&mut GraphProto); 4] = [zero_points, eight_bits, weights_computed, short_weights];
        for change in changes {
            let mut graph = graph(false);
            change(&mut graph);
            let before = graph.clone();
            assert_eq!(widen_4bit_matmuls(&mut graph), 0);
            assert_eq!(graph, before);
        }
    }
}
