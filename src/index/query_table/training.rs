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
}

impl Default for TableTraining {
    fn default() -> Self {
        TableTraining { regularisation: 1.0, iterations: 30 }
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
        let idf: Vec<f32> = (0..terms as u32).map(|t| bm25.idf(bm25.postings_of_id(t).len())).collect();
        let mut chunk_total = vec![0f32; chunks];
        let mut chunk_count = vec![0usize; chunks];
        // A term counts once in its chunk, whatever its frequency, as it counts once in a question.
        for (term, idf) in idf.iter().enumerate() {
            for posting in bm25.postings_of_id(term as u32) {
                chunk_total[posting.doc as usize] += idf;
                chunk_count[posting.doc as usize] += 1;
            }
        }
        let mut by_term = Sparse { starts: vec![0], columns: Vec::new(), weights: Vec::new() };
        for (term, idf) in idf.iter().enumerate() {
            for posting in bm25.postings_of_id(term as u32) {
                by_term.columns.push(posting.doc);
                by_term.weights.push(idf / chunk_total[posting.doc as usize]);
            }
            by_term.starts.push(by_term.columns.len());
        }
        let mut starts = vec![0usize; chunks + 1];
        for (chunk, count) in chunk_count.iter().enumerate() {
            starts[chunk + 1] = starts[chunk] + count;
        }
        let mut next = starts.clone();
        let mut by_chunk =
            Sparse { starts, columns: vec![0; by_term.columns.len()], weights: vec![0.0; by_term.columns.len()] };
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
) -> Vec<f32> {
    Ridge::of(Design::of(bm25), vectors, chunk_rows, training.regularisation).solve(training.iterations)
}

/// The normal equations `(AᵀA + λI) R = AᵀV + λR₀`.
struct Ridge {
    design: Design,
    dimension: usize,
    lambda: f32,
    /// `R₀`, where the solution starts.
    start: Vec<f32>,
    /// `AᵀV + λR₀`.
    right: Vec<f32>,
    /// `1 / (AᵀA + λI)ᵢᵢ` for each term: the preconditioner.
    inverse_diagonal: Vec<f32>,
}

impl Ridge {
    fn of(design: Design, vectors: &QuantizedVectors, chunk_rows: &[u32], regularisation: f32) -> Ridge {
        let dimension = vectors.dimension();
        let terms = design.by_term.rows();
        let targets: Vec<f32> = chunk_rows.iter().flat_map(|&row| vectors.get(row)).collect();
        let mut right = design.by_term.times(&targets, dimension);
        let mass: Vec<f32> = (0..terms).map(|t| design.by_term.row(t).map(|(_, w)| w).sum()).collect();
        let diagonal: Vec<f32> = (0..terms).map(|t| design.by_term.row(t).map(|(_, w)| w * w).sum()).collect();
        let lambda = regularisation * diagonal.iter().sum::<f32>() / terms.max(1) as f32;
        // AᵀV's row of a term is the weighted sum of its chunks' vectors: divided by their weights, their mean.
        let mut start = right.clone();
        fill_rows(&mut start, dimension, |term, row| {
            row.iter_mut().for_each(|x| *x /= mass[term].max(f32::MIN_POSITIVE))
        });
        right.iter_mut().zip(&start).for_each(|(right, start)| *right += lambda * start);
        let inverse_diagonal = diagonal.iter().map(|d| 1.0 / (d + lambda)).collect();
        Ridge { design, dimension, lambda, start, right, inverse_diagonal }
    }

    /// `(AᵀA + λI) x`.
    fn normal(&self, x: &[f32]) -> Vec<f32> {
        let Design { by_term, by_chunk } = &self.design;
        let mut out = by_term.times(&by_chunk.times(x, self.dimension), self.dimension);
        out.iter_mut().zip(x).for_each(|(o, x)| *o += self.lambda * x);
        out
    }

    fn preconditioned(&self, residual: &[f32]) -> Vec<f32> {
        let mut out = residual.to_vec();
        fill_rows(&mut out, self.dimension, |term, row| row.iter_mut().for_each(|x| *x *= self.inverse_diagonal[term]));
        out
    }

    /// Preconditioned conjugate gradients from `R₀`, `iterations` steps, each dimension its own step sizes.
    fn solve(self, iterations: usize) -> Vec<f32> {
        let dimension = self.dimension;
        let mut rows = self.start.clone();
        let mut residual = self.normal(&rows);
        residual.iter_mut().zip(&self.right).for_each(|(r, right)| *r = right - *r);
        let mut direction = self.preconditioned(&residual);
        let mut rz = column_dots(&residual, &direction, dimension);
        for _ in 0..iterations {
            let image = self.normal(&direction);
            let step = ratios(&rz, &column_dots(&direction, &image, dimension));
            let pairs = rows.chunks_exact_mut(dimension).zip(residual.chunks_exact_mut(dimension));
            for ((row, residual), (direction, image)) in
                pairs.zip(direction.chunks_exact(dimension).zip(image.chunks_exact(dimension)))
            {
                for j in 0..dimension {
                    row[j] += step[j] * direction[j];
                    residual[j] -= step[j] * image[j];
                }
            }
            let next = self.preconditioned(&residual);
            let next_rz = column_dots(&residual, &next, dimension);
            let beta = ratios(&next_rz, &rz);
            direction.chunks_exact_mut(dimension).zip(next.chunks_exact(dimension)).for_each(|(d, z)| {
                d.iter_mut().zip(z).zip(&beta).for_each(|((d, z), beta)| *d = z + beta * *d);
            });
            rz = next_rz;
        }
        rows
    }
}

/// Each `a / b`, or 0 where `b` is not positive (a dimension already solved).
fn ratios(a: &[f64], b: &[f64]) -> Vec<f32> {
    a.iter().zip(b).map(|(a, b)| if *b > 0.0 { (a / b) as f32 } else { 0.0 }).collect()
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
    /// right side, in every dimension; and `R₀` is the mean of each term's chunks' vectors.
    #[test]
    fn conjugate_gradients_solve_the_normal_equations() {
        let (bm25, vectors) = planets();
        let ridge = || Ridge::of(Design::of(&bm25), &vectors, &[0, 1, 2, 3], 0.1);
        let rows = ridge().solve(60);
        let equations = ridge();
        let difference: Vec<f32> = equations.normal(&rows).iter().zip(&equations.right).map(|(l, r)| l - r).collect();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!(
            norm(&difference) < 1e-3 * norm(&equations.right),
            "{} against {}",
            norm(&difference),
            norm(&equations.right)
        );
        // `mars` is in the second text alone: its starting row is that text's vector, the second axis.
        let mars = bm25.term_id("mar").unwrap() as usize;
        assert_eq!(&equations.start[mars * 8..mars * 8 + 8], &[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    }
}
