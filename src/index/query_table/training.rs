//! Training the query table: a ridge regression whose unknowns are the terms' rows. Chunk `c`'s terms, each
//! weighted by its idf and the weights summing to one over the chunk, make the design matrix `A` (chunks ×
//! terms); the chunks' vectors are the targets `V`. The rows `R` minimise `‖A R − V‖² + λ ‖R − R₀‖²`, where
//! `R₀` holds each term's starting row, the weighted mean of the vectors of the chunks that hold it, so a
//! term seen in few chunks stays near them. The normal equations `(AᵀA + λI) R = AᵀV + λR₀` share their
//! matrix across the dimensions; conjugate gradients with a diagonal preconditioner solve every dimension
//! at once, each step two passes over the postings. No crate solves a sparse least-squares problem with many
//! right-hand sides in wasm32 as well as natively, so the solver is written here: about sixty lines.

use crate::index::bm25::Bm25Index;
use crate::index::vectors::QuantizedVectors;

/// How the table is trained.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TableTraining {
    /// The ridge penalty toward each term's starting row, as a share of the mean of `AᵀA`'s diagonal.
    pub regularisation: f32,
    /// Conjugate-gradient steps.
    pub iterations: usize,
    /// EXPERIMENT: share of the model's vector of the term itself in the starting row.
    pub word_share: f32,
}

impl Default for TableTraining {
    fn default() -> Self {
        TableTraining { regularisation: 1.0, iterations: 30, word_share: 0.0 }
    }
}

impl TableTraining {
    /// TEMPORARY for the sweep: QUIRE_TABLE_REG, QUIRE_TABLE_ITERS.
    pub fn from_env() -> Self {
        let read = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<f32>().ok());
        let default = TableTraining::default();
        TableTraining {
            regularisation: read("QUIRE_TABLE_REG").unwrap_or(default.regularisation),
            iterations: read("QUIRE_TABLE_ITERS").map_or(default.iterations, |v| v as usize),
            word_share: read("QUIRE_TABLE_WORD").unwrap_or(default.word_share),
        }
    }
}

/// The design matrix `A`, held both by term (for `Aᵀ`) and by chunk (for `A`).
struct Design {
    by_term: Sparse,
    by_chunk: Sparse,
}

/// Compressed sparse rows: row `r`'s entries are `columns[starts[r]..starts[r + 1]]` with their `weights`.
struct Sparse {
    starts: Vec<usize>,
    columns: Vec<u32>,
    weights: Vec<f32>,
}

impl Sparse {
    fn rows(&self) -> usize {
        self.starts.len() - 1
    }

    fn row(&self, row: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let span = self.starts[row]..self.starts[row + 1];
        self.columns[span.clone()].iter().map(|&c| c as usize).zip(self.weights[span].iter().copied())
    }

    /// `self · dense`, where `dense` has `dimension` columns.
    fn times(&self, dense: &[f32], dimension: usize) -> Vec<f32> {
        let mut out = vec![0.0; self.rows() * dimension];
        fill_rows(&mut out, dimension, |row, out| {
            for (column, weight) in self.row(row) {
                let from = &dense[column * dimension..(column + 1) * dimension];
                out.iter_mut().zip(from).for_each(|(o, x)| *o += weight * x);
            }
        });
        out
    }
}

impl Design {
    fn of(bm25: &Bm25Index) -> Design {
        let (terms, chunks) = (bm25.term_count(), bm25.len());
        let power = std::env::var("QUIRE_TABLE_IDFPOW").ok().and_then(|v| v.parse::<f32>().ok()).unwrap_or(1.0);
        let by_tf = std::env::var_os("QUIRE_TABLE_TF").is_some();
        let idf: Vec<f32> = (0..terms as u32).map(|t| bm25.idf(bm25.postings_of_id(t).len()).powf(power)).collect();
        let tf_weight = |tf: u32| if by_tf { 1.0 + (tf as f32).ln() } else { 1.0 };
        let mut chunk_total = vec![0f32; chunks];
        let mut chunk_count = vec![0usize; chunks];
        for term in 0..terms {
            for posting in bm25.postings_of_id(term as u32) {
                chunk_total[posting.doc as usize] += idf[term] * tf_weight(posting.tf);
                chunk_count[posting.doc as usize] += 1;
            }
        }
        let mut by_term = Sparse { starts: vec![0], columns: Vec::new(), weights: Vec::new() };
        for term in 0..terms {
            for posting in bm25.postings_of_id(term as u32) {
                by_term.columns.push(posting.doc);
                by_term.weights.push(idf[term] * tf_weight(posting.tf) / chunk_total[posting.doc as usize]);
            }
            by_term.starts.push(by_term.columns.len());
        }
        let mut starts = vec![0usize; chunks + 1];
        for (chunk, count) in chunk_count.iter().enumerate() {
            starts[chunk + 1] = starts[chunk] + count;
        }
        let mut next = starts.clone();
        let mut by_chunk = Sparse { starts, columns: vec![0; by_term.columns.len()], weights: vec![0.0; by_term.columns.len()] };
        for term in 0..terms {
            for (chunk, weight) in by_term.row(term) {
                by_chunk.columns[next[chunk]] = term as u32;
                by_chunk.weights[next[chunk]] = weight;
                next[chunk] += 1;
            }
        }
        Design { by_term, by_chunk }
    }
}

/// The trained rows, by term id, one after another.
pub(super) fn solve(
    bm25: &Bm25Index,
    vectors: &QuantizedVectors,
    chunk_rows: &[u32],
    training: TableTraining,
    words: Option<&[f32]>,
) -> Vec<f32> {
    let dimension = vectors.dimension();
    let design = Design::of(bm25);
    let terms = design.by_term.rows();
    let targets: Vec<f32> = chunk_rows.iter().flat_map(|&row| vectors.get(row)).collect();
    let pulled = design.by_term.times(&targets, dimension);
    drop(targets);
    let mass: Vec<f32> = (0..terms).map(|t| design.by_term.row(t).map(|(_, w)| w).sum()).collect();
    let diagonal: Vec<f32> = (0..terms).map(|t| design.by_term.row(t).map(|(_, w)| w * w).sum()).collect();
    let lambda = training.regularisation * diagonal.iter().sum::<f32>() / terms.max(1) as f32;
    let mut rows: Vec<f32> = pulled.clone();
    fill_rows(&mut rows, dimension, |term, row| {
        row.iter_mut().for_each(|x| *x /= mass[term].max(f32::MIN_POSITIVE));
        if let Some(words) = words {
            let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt();
            let word = &words[term * dimension..(term + 1) * dimension];
            let share = training.word_share;
            row.iter_mut().zip(word).for_each(|(x, w)| *x = (1.0 - share) * *x + share * norm * w);
        }
    });
    let normal = |x: &[f32]| {
        let mut out = design.by_term.times(&design.by_chunk.times(x, dimension), dimension);
        out.iter_mut().zip(x).for_each(|(o, x)| *o += lambda * x);
        out
    };
    // The right side is AᵀV + λR₀, and R starts at R₀.
    let mut residual = normal(&rows);
    residual.iter_mut().zip(&pulled).zip(&rows).for_each(|((r, b), x)| *r = b + lambda * x - *r);
    drop(pulled);
    let inverse: Vec<f32> = diagonal.iter().map(|d| 1.0 / (d + lambda)).collect();
    let preconditioned = |residual: &[f32]| {
        let mut out = residual.to_vec();
        fill_rows(&mut out, dimension, |term, row| row.iter_mut().for_each(|x| *x *= inverse[term]));
        out
    };
    let mut direction = preconditioned(&residual);
    let mut rz = column_dots(&residual, &direction, dimension);
    for _ in 0..training.iterations {
        let image = normal(&direction);
        let curvature = column_dots(&direction, &image, dimension);
        let step: Vec<f32> = rz.iter().zip(&curvature).map(|(rz, c)| if *c > 0.0 { (rz / c) as f32 } else { 0.0 }).collect();
        let (rows_, steps) = (rows.chunks_exact_mut(dimension), direction.chunks_exact(dimension));
        for ((row, direction), (residual, image)) in
            rows_.zip(steps).zip(residual.chunks_exact_mut(dimension).zip(image.chunks_exact(dimension)))
        {
            for j in 0..dimension {
                row[j] += step[j] * direction[j];
                residual[j] -= step[j] * image[j];
            }
        }
        let next = preconditioned(&residual);
        let next_rz = column_dots(&residual, &next, dimension);
        let beta: Vec<f32> = next_rz.iter().zip(&rz).map(|(n, o)| if *o > 0.0 { (n / o) as f32 } else { 0.0 }).collect();
        direction.chunks_exact_mut(dimension).zip(next.chunks_exact(dimension)).for_each(|(d, z)| {
            d.iter_mut().zip(z).zip(&beta).for_each(|((d, z), beta)| *d = z + beta * *d);
        });
        rz = next_rz;
    }
    rows
}

/// The dot product of each column of `a` with the same column of `b`, both with `dimension` columns.
fn column_dots(a: &[f32], b: &[f32], dimension: usize) -> Vec<f64> {
    let mut dots = vec![0f64; dimension];
    for (a, b) in a.chunks_exact(dimension).zip(b.chunks_exact(dimension)) {
        dots.iter_mut().zip(a.iter().zip(b)).for_each(|(dot, (a, b))| *dot += (a * b) as f64);
    }
    dots
}

/// Fills every row of `out` (rows of `dimension`) with `fill(row, its values)`, on every core natively;
/// the page's engine has one thread.
fn fill_rows(out: &mut [f32], dimension: usize, fill: impl Fn(usize, &mut [f32]) + Sync) {
    let rows = out.len() / dimension.max(1);
    #[cfg(not(target_arch = "wasm32"))]
    {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per_thread = rows.div_ceil(threads).max(1);
        let fill = &fill;
        std::thread::scope(|scope| {
            for (block, rows) in out.chunks_mut(per_thread * dimension).enumerate() {
                scope.spawn(move || {
                    for (at, row) in rows.chunks_exact_mut(dimension).enumerate() {
                        fill(block * per_thread + at, row);
                    }
                });
            }
        });
    }
    #[cfg(target_arch = "wasm32")]
    for (at, row) in out.chunks_exact_mut(dimension).enumerate().take(rows) {
        fill(at, row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::query_table::tests::planets;

    /// Enough steps solve the normal equations: `(AᵀA + λI) R = AᵀV + λR₀` holds to a thousandth of its
    /// right side, in every dimension.
    #[test]
    fn conjugate_gradients_solve_the_normal_equations() {
        let (bm25, vectors) = planets();
        let training = TableTraining { regularisation: 0.1, iterations: 60, word_share: 0.0 };
        let rows = solve(&bm25, &vectors, &[0, 1, 2, 3], training, None);
        let design = Design::of(&bm25);
        let targets: Vec<f32> = (0..4).flat_map(|row| vectors.get(row)).collect();
        let pulled = design.by_term.times(&targets, 8);
        let terms = design.by_term.rows();
        let mass: Vec<f32> = (0..terms).map(|t| design.by_term.row(t).map(|(_, w)| w).sum()).collect();
        let diagonal: f32 = (0..terms).map(|t| design.by_term.row(t).map(|(_, w)| w * w).sum::<f32>()).sum();
        let lambda = 0.1 * diagonal / terms as f32;
        let mut left = design.by_term.times(&design.by_chunk.times(&rows, 8), 8);
        left.iter_mut().zip(&rows).for_each(|(l, x)| *l += lambda * x);
        let right: Vec<f32> =
            (0..terms * 8).map(|at| pulled[at] + lambda * pulled[at] / mass[at / 8]).collect();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let difference: Vec<f32> = left.iter().zip(&right).map(|(l, r)| l - r).collect();
        assert!(norm(&difference) < 1e-3 * norm(&right), "{} against {}", norm(&difference), norm(&right));
    }
}
