//! How texts are split into jobs for several embedders working at once (the native threads of
//! `IndexBuilder::embed_all_parallel`, the browser's pool of workers): longest first, so that a job's texts
//! have similar lengths and pad little, and with jobs that shrink towards the end (guided scheduling: each
//! takes a share of what is left), so that no embedder is still on a large job when the others have run out;
//! and the time such a batch has left, counted in word pieces.

/// Jobs over the texts whose lengths are `lengths`, as indices into them, for `embedders` working at once.
/// A job holds `ceil(left / (2 · embedders))` texts, bounded to `smallest..=largest`; with `smallest` equal to
/// `largest` every job but the last has exactly that many.
pub fn longest_first(lengths: &[usize], embedders: usize, smallest: usize, largest: usize) -> Vec<Vec<usize>> {
    let (smallest, largest) = (smallest.max(1), largest.max(1));
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(lengths[i]));
    let mut jobs = Vec::new();
    let mut rest = order.as_slice();
    while !rest.is_empty() {
        let share = rest.len().div_ceil(2 * embedders.max(1)).clamp(smallest.min(largest), largest);
        let (job, left) = rest.split_at(share.min(rest.len()));
        jobs.push(job.to_vec());
        rest = left;
    }
    jobs
}

/// The time left to embed a batch of texts, from their word pieces rather than their number: texts go
/// longest first, so the first hundred take far longer than the last, and a count of texts would promise
/// the end too late at the start and too early at the end.
pub struct TimeLeft {
    /// Word pieces done once the first `n` texts (in the order they are embedded) are: `done[n]`.
    done: Vec<u64>,
}

impl TimeLeft {
    /// For texts of `pieces` word pieces each, embedded in rounds of `round` texts, each round longest
    /// first (a round of 1 keeps their order; one round of all is all of them longest first).
    pub fn new(mut pieces: Vec<usize>, round: usize) -> Self {
        for texts in pieces.chunks_mut(round.max(1)) {
            texts.sort_unstable_by_key(|&p| std::cmp::Reverse(p));
        }
        let mut done = Vec::with_capacity(pieces.len() + 1);
        done.push(0);
        for piece in pieces {
            done.push(done.last().copied().unwrap_or(0) + piece.max(1) as u64);
        }
        Self { done }
    }

    /// Seconds left once `texts` of them are done after `elapsed` seconds, at the word-piece rate so far.
    pub fn seconds_left(&self, texts: usize, elapsed: f64) -> Option<f64> {
        let total = *self.done.last()?;
        let done = *self.done.get(texts.min(self.done.len() - 1))?;
        (done > 0 && elapsed > 0.0).then(|| (total - done) as f64 / (done as f64 / elapsed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_counts_word_pieces_not_texts() {
        // Ten long texts and ninety short ones; the ten longest are done first, in 10 s.
        let pieces: Vec<usize> = (0..100).map(|i| if i % 10 == 0 { 250 } else { 10 }).collect();
        let left = TimeLeft::new(pieces.clone(), pieces.len());
        // 2,500 pieces in 10 s; 900 left: 3.6 s, where texts (90 of 100 left) would say 90 s.
        assert!((left.seconds_left(10, 10.0).unwrap() - 3.6).abs() < 1e-9);
        assert_eq!(left.seconds_left(100, 20.0), Some(0.0));
        assert_eq!(left.seconds_left(0, 5.0), None, "no rate yet");
        let in_order = TimeLeft::new(pieces.clone(), 1);
        assert!((in_order.seconds_left(1, 1.0).unwrap() - 3_150.0 / 250.0).abs() < 1e-9);
        // Two rounds of 50, each longest first: the first 10 texts are the first round's 5 long and 5 short
        // ones (1,300 pieces), so 2,100 of 3,400 are left, not the 900 that all ten long ones first leave.
        let in_rounds = TimeLeft::new(pieces, 50);
        assert!((in_rounds.seconds_left(10, 1_300.0).unwrap() - 2_100.0).abs() < 1e-9);
        assert_eq!(TimeLeft::new(Vec::new(), 1).seconds_left(0, 1.0), None);
    }

    fn sizes(jobs: &[Vec<usize>]) -> Vec<usize> {
        jobs.iter().map(Vec::len).collect()
    }

    #[test]
    fn jobs_shrink_towards_the_end_and_cover_every_text_once_longest_first() {
        let lengths: Vec<usize> = (0..64).map(|i| (i * 37) % 101).collect();
        let jobs = longest_first(&lengths, 2, 1, 16);
        assert_eq!(sizes(&jobs), [16, 12, 9, 7, 5, 4, 3, 2, 2, 1, 1, 1, 1]);
        let flat: Vec<usize> = jobs.concat();
        assert!(flat.windows(2).all(|w| lengths[w[0]] >= lengths[w[1]]), "longest first");
        let mut seen = flat.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..64).collect::<Vec<_>>());
    }

    #[test]
    fn equal_bounds_give_fixed_jobs() {
        let jobs = longest_first(&[3; 70], 4, 32, 32);
        assert_eq!(sizes(&jobs), [32, 32, 6]);
    }

    #[test]
    fn few_texts_and_no_texts() {
        assert_eq!(sizes(&longest_first(&[5, 9, 1], 8, 1, 16)), [1, 1, 1]);
        assert!(longest_first(&[], 2, 1, 16).is_empty());
        assert_eq!(sizes(&longest_first(&[1, 2], 0, 0, 0)), [1, 1]);
    }
}
