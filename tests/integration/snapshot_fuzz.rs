//! Fuzzes the snapshot decoder from real snapshots (flat and HNSW chunk indexes): rewritten HNSW links, then
//! random byte flips, sets, truncations, insertions and removals, usually re-framed with a valid length and
//! checksum so they reach the decoder. Every snapshot that decodes must answer every retriever, walk its graph and re-encode to a
//! snapshot that decodes again, without a panic.

use crate::snapshot_support;

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use quire::graph::{EdgeKind, NodeRef};
use quire::retrieve::{self, Method, Query};
use quire::store::{IndexedCorpus, node_texts};
use snapshot_support::{
    HEADER_LEN, StructureTwin, VectorIndexTwin, chunk_index_span, flat_demo, frame, hnsw_demo, with_chunk_index,
};

#[derive(Clone, Debug)]
enum Mutation {
    Flip { at: usize, bit: u8 },
    Set { at: usize, value: u8 },
    Truncate { at: usize },
    Insert { at: usize, bytes: Vec<u8> },
    Remove { at: usize, len: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        4 => (any::<usize>(), any::<u8>()).prop_map(|(at, value)| Mutation::Set { at, value }),
        1 => any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        2 => (any::<usize>(), vec(any::<u8>(), 1..8)).prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        2 => (any::<usize>(), 1usize..16).prop_map(|(at, len)| Mutation::Remove { at, len }),
    ]
}

#[derive(Clone, Debug)]
struct Case {
    hnsw: bool,
    /// Aim the mutations at the chunk vector index (the HNSW graph), else anywhere.
    at_chunk_index: bool,
    /// Give the damaged payload a valid header, else damage the file as it is.
    reframe: bool,
    /// Layer-0 links `(node, slot, target)` of the HNSW graph to rewrite before the byte damage; byte damage
    /// rarely leaves a graph that still decodes, these do.
    links: Vec<(usize, usize, u32)>,
    mutations: Vec<Mutation>,
}

fn case() -> impl Strategy<Value = Case> {
    let links = vec((any::<usize>(), 0usize..64, any::<u32>()), 0..4);
    (any::<bool>(), any::<bool>(), prop::bool::weighted(0.85), links, vec(mutation(), 0..3)).prop_map(
        |(hnsw, at_chunk_index, reframe, links, mutations)| Case { hnsw, at_chunk_index, reframe, links, mutations },
    )
}

/// Rewrites links to targets in range, just beyond it, or to the end-of-list marker.
fn rewrite_links(twin: &mut VectorIndexTwin, links: &[(usize, usize, u32)]) {
    let StructureTwin::Hnsw { zero, .. } = &mut twin.structure else { panic!("not HNSW") };
    let n = zero.len();
    for &(node, slot, target) in links {
        let target = if target % 8 == 0 { u32::MAX } else { target % (n as u32 + 4) };
        let node = &mut zero[node % n];
        if slot < 32 { node.0[slot] = target } else { node.1[slot - 32] = target }
    }
}

/// A position in `region` of `bytes` (clamped to what is left of `bytes`).
fn position(at: usize, region: &Range<usize>, len: usize) -> usize {
    (region.start + at % region.len().max(1)).min(len)
}

fn apply(bytes: &mut Vec<u8>, mutation: &Mutation, region: &Range<usize>) {
    let len = bytes.len();
    match mutation {
        Mutation::Flip { at, bit } if len > 0 => bytes[position(*at, region, len - 1)] ^= 1 << bit,
        Mutation::Set { at, value } if len > 0 => bytes[position(*at, region, len - 1)] = *value,
        Mutation::Truncate { at } => bytes.truncate(position(*at, region, len)),
        Mutation::Insert { at, bytes: inserted } => {
            let at = position(*at, region, len);
            bytes.splice(at..at, inserted.iter().copied());
        }
        Mutation::Remove { at, len: removed } => {
            let at = position(*at, region, len);
            bytes.drain(at..(at + removed).min(len));
        }
        _ => {}
    }
}

fn damaged(case: &Case) -> Vec<u8> {
    let index = if case.hnsw { hnsw_demo() } else { flat_demo() };
    let original = if case.hnsw && !case.links.is_empty() {
        with_chunk_index(index, |twin| rewrite_links(twin, &case.links))
    } else {
        index.to_snapshot().unwrap()
    };
    let (mut bytes, offset) = if case.reframe { (original[HEADER_LEN..].to_vec(), 0) } else { (original, HEADER_LEN) };
    // Where the undamaged index lies; rewritten links may have moved its end a little, which is fine for aim.
    let region = if case.at_chunk_index {
        let span = chunk_index_span(index);
        span.start + offset..span.end + offset
    } else {
        0..bytes.len()
    };
    for mutation in &case.mutations {
        apply(&mut bytes, mutation, &region);
    }
    if case.reframe { frame(&bytes) } else { bytes }
}

/// Everything a reader of an index does: every retriever, the chunks and graph nodes they name, every node
/// text, the summary, and saving it again.
fn exercise(index: &IndexedCorpus) {
    let dimension = index.embeddings().vectors().dimension();
    let mut unit = vec![0.0f32; dimension.max(1)];
    unit[0] = 1.0;
    let stored = index.rows().chunks.first().map(|&row| index.embeddings().vectors().get(row));
    for vector in [Some(unit), stored].into_iter().flatten() {
        for method in Method::catalogue() {
            let query = Query::new("Who walked on the Moon? Apollo landing", &vector);
            let (chunks, trace) = method.rank(index, query, 10).trace(index, 5);
            assert!(!trace.render().is_empty());
            for hit in chunks {
                assert!((hit.chunk as usize) < index.corpus().chunks.len(), "a hit names a missing chunk");
                let _ = index.corpus().chunk_text(hit.chunk);
                let _ = index.graph().neighbors(NodeRef::Chunk(hit.chunk), EdgeKind::IsChunkOf);
            }
        }
    }
    let _ = retrieve::dense(index, Query::new("", &[0.5; 384]), 5);
    let _ = node_texts(index.corpus());
    let _ = index.summary();
    for chunk in 0..index.corpus().chunks.len() as u32 {
        let _ = index.graph().neighbors(NodeRef::Chunk(chunk), EdgeKind::Next);
    }
    let again = index.to_snapshot().expect("a decoded index encodes");
    IndexedCorpus::from_snapshot(&again).expect("a decoded index re-encodes to a valid snapshot");
}

#[test]
fn damaged_real_snapshots_decode_to_queryable_indexes_or_errors() {
    let decoded = [AtomicUsize::new(0), AtomicUsize::new(0)];
    let config = Config { cases: 256, failure_persistence: None, ..Config::default() };
    let result = TestRunner::new(config).run(&case(), |case| {
        if let Ok(index) = IndexedCorpus::from_snapshot(&damaged(&case)) {
            exercise(&index);
            decoded[case.hnsw as usize].fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let [flat, hnsw] = decoded.map(AtomicUsize::into_inner);
    eprintln!("damaged snapshots that still decoded: {flat} flat, {hnsw} HNSW (of 256 cases)");
    // Otherwise the queries above never ran and the test proves nothing.
    assert!(flat > 0 && hnsw > 0, "no damaged snapshot decoded: {flat} flat, {hnsw} HNSW");
}
