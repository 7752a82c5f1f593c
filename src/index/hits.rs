//! What every search of an index returns: hits, and the best `k` of them in a deterministic order.

/// A search result: which item of the searched collection (a chunk, an entity, a community: its id, its
/// position in that collection, never a row of the embedding store) and its similarity (higher is better).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    pub id: u32,
    pub score: f32,
}

/// The `k` best of `scored`, best first; ties broken by id so results are deterministic.
pub fn top_k(scored: impl IntoIterator<Item = Hit>, k: usize) -> Vec<Hit> {
    let mut hits: Vec<Hit> = scored.into_iter().collect();
    let by_score = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id));
    if hits.len() > k && k > 0 {
        hits.select_nth_unstable_by(k - 1, by_score);
        hits.truncate(k);
    }
    hits.sort_by(by_score);
    hits.truncate(k);
    hits
}
