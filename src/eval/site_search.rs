//! The search a built site adds, measured as its visitors meet it: each question ranked over the index's
//! fragments as `quire site --built` splits them ([`Sizes::SEARCH`]), scanning the partitions of
//! [`SEARCH_PROBED_VECTORS`] vectors, by the standardised sum of dense and BM25
//! ([`over_fragments::hybrid_chunks`]); its vector is the caller's (the query table's, as the site's is).

use crate::retrieve::over_fragments;
use crate::retrieve::{Query, ScoredChunk};
use crate::store::IndexedCorpus;
use crate::store::fragments::{self, Fragment, FragmentError, FragmentedIndex, LEXICON, SEARCH_PROBED_VECTORS, Sizes};

/// The name its row has in a report.
pub const SITE_SEARCH: &str = "site-search";

/// `index` as a built site's search holds it once every fragment is fetched: what it scans for a question
/// is still only the partitions its probe picks.
pub fn site_fragments(index: &IndexedCorpus) -> Result<FragmentedIndex, FragmentError> {
    let snapshot = index.to_snapshot().map_err(|e| FragmentError::Encode(e.to_string()))?;
    let files = fragments::split(index, &snapshot, Sizes::SEARCH)?;
    let lexicon = files.iter().find(|(path, _)| path == LEXICON).map(|(_, bytes)| bytes.as_slice());
    let mut fragmented = FragmentedIndex::open(lexicon.ok_or(FragmentError::NotAFragment)?)?;
    fragmented.probe(SEARCH_PROBED_VECTORS);
    let searched = files.iter().filter_map(|(path, bytes)| Some((Fragment::of_path(path)?, bytes)));
    for (fragment, bytes) in searched.filter(|(f, _)| !matches!(f, Fragment::Graph | Fragment::Summaries(_))) {
        fragmented.add_except_graph(fragment, bytes)?;
    }
    Ok(fragmented)
}

/// The `depth` best chunks for `query` as the site search ranks them.
pub fn site_search_chunks(fragments: &FragmentedIndex, query: Query<'_>, depth: usize) -> Vec<ScoredChunk> {
    over_fragments::hybrid_chunks(fragments, query, depth).unwrap_or_default()
}
