//! How texts are split into jobs for several embedders working at once (the native threads of
//! `IndexBuilder::embed_all_parallel`, the browser's pool of workers): longest first, so that a job's texts
//! have similar lengths and pad little, and with jobs that shrink towards the end (guided scheduling: each
//! takes a share of what is left), so that no embedder is still on a large job when the others have run out.

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

#[cfg(test)]
mod tests {
    use super::*;

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
