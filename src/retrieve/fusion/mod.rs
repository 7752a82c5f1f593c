//! Fusion of several retrievers' lists: (weighted) reciprocal-rank fusion and the (weighted) sum of scores
//! standardised within the query's candidate set (seed 000 §3.2.2's standardisation, nothing learned) here;
//! seed 000's trained network in [`learned`], and its training in [`training`].

mod fused;
mod importance;
pub mod learned;
pub mod training;

pub use fused::{
    FusedChunk, Fusion, RRF_K, describe_ranks, reciprocal_rank_fusion, standardised_candidates, standardised_scores,
    standardised_sum,
};
pub use importance::permutation_importance;
