//! Quire's wasm32 matrix kernel (src/embed/wasm_kernel.rs) against tract's own, and the embedder that uses
//! it against the native one. Runs only in wasm32 with `simd128`, under wasm-bindgen-test-runner in Node
//! (`scripts/test.sh`); natively there is nothing to test, since the kernel exists only in the wasm build.
//!
//! - Every fused operation, on random data: Quire's 8 × 16 tile must equal, bit for bit, tract's 8 × 8
//!   kernel run on the tile's two column halves (both multiply then add, in the same order).
//! - The pinned model embeds fixed texts in wasm32 as it does natively (cosine ≥ 0.9999 with the vectors
//!   recorded by the native build in `tests/data/embeddings.json`; re-record with
//!   `QUIRE_BLESS=1 cargo test --test wasm_parity`), and tract ran Quire's kernel to do it.

const TEXTS: [&str; 3] = [
    "Which planet has the shortest day?",
    "Jupiter is the largest planet in the Solar System. It is a gas giant with a mass more than two and a half \
     times that of all the other planets combined, and slightly less than one thousandth of the Sun's.",
    "BM25 ranks documents by the query terms they contain, weighted by how rare each term is in the corpus and \
     normalised by the length of the document; dense retrieval compares embeddings. Fusion combines both \
     lists, standardising each retriever's scores within the question's candidates so that neither scale \
     dominates, and a learned network may weigh them.",
];

const RECORDED: &str = include_str!("../data/embeddings.json");

/// The lowest cosine between each vector and its recorded counterpart.
fn agreement(vectors: &[Vec<f32>]) -> f32 {
    let recorded: Vec<Vec<f32>> = serde_json::from_str(RECORDED).expect("recorded vectors parse");
    assert_eq!(vectors.len(), recorded.len());
    let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    vectors.iter().zip(&recorded).map(|(got, want)| cosine(got, want)).fold(f32::INFINITY, f32::min)
}

/// The recording is what the native build computes (other CPUs' kernels round differently, hence a cosine).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn native_embeddings_are_the_recorded_ones() {
    let vectors = quire::embed::TextEmbedder::embed(crate::common::embedder(), &TEXTS).expect("embeds");
    if std::env::var_os("QUIRE_BLESS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/embeddings.json");
        std::fs::write(path, serde_json::to_string(&vectors).unwrap()).unwrap();
    }
    assert!(agreement(&vectors) >= 0.99999, "{}", agreement(&vectors));
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use quire::embed::wasm_kernel;
    use quire::embed::{Embedder, EmbeddingModel, TextEmbedder};
    use tract_linalg::mmm::{FusedKerSpec, OutputStoreKer, RoundingPolicy};
    use wasm_bindgen_test::wasm_bindgen_test;

    const K: usize = 37;
    const ROWS: usize = 8;
    const COLUMNS: usize = 16;
    const HALF: usize = 8;

    /// Deterministic values in [-2, 2), some negative, none repeating in a short run.
    fn values(count: usize, seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ((state >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
            })
            .collect()
    }

    /// f32 values on 16-byte boundaries, as tract lays its buffers out (its kernel reads tiles as vectors).
    struct Aligned(Vec<std::arch::wasm32::v128>);

    impl Aligned {
        fn new(values: &[f32]) -> Self {
            let vectors = values.chunks(4).map(|c| {
                let mut lanes = [0.0f32; 4];
                lanes[..c.len()].copy_from_slice(c);
                unsafe { std::mem::transmute::<[f32; 4], std::arch::wasm32::v128>(lanes) }
            });
            Aligned(vectors.collect())
        }

        fn as_slice(&self) -> &[f32] {
            unsafe { std::slice::from_raw_parts(self.0.as_ptr() as *const f32, self.0.len() * 4) }
        }

        fn as_ptr(&self) -> *const f32 {
            self.0.as_ptr() as *const f32
        }
    }

    /// The operands of one tile, laid out for the whole tile (Quire's kernel) and for each column half
    /// (tract's 8 × 8 kernel).
    struct Operands {
        /// Packed A: K steps of 8 rows.
        a: Aligned,
        /// Packed B: K steps of 16 columns, and each half's K steps of 8.
        b: Aligned,
        b_halves: [Aligned; 2],
        rows: Aligned,
        columns: Aligned,
        /// An 8 × 16 matrix, row-major: added element-wise, and (as contiguous tiles) loaded.
        matrix: Aligned,
        matrix_halves: [Aligned; 2],
    }

    impl Operands {
        fn new() -> Self {
            let (b, matrix) = (values(K * COLUMNS, 2), values(ROWS * COLUMNS, 5));
            let half_of = |m: &[f32], width: usize, h: usize| -> Aligned {
                Aligned::new(
                    &m.chunks(width).flat_map(|row| row[h * HALF..(h + 1) * HALF].to_vec()).collect::<Vec<_>>(),
                )
            };
            Operands {
                a: Aligned::new(&values(K * ROWS, 1)),
                b_halves: [half_of(&b, COLUMNS, 0), half_of(&b, COLUMNS, 1)],
                b: Aligned::new(&b),
                rows: Aligned::new(&values(ROWS, 3)),
                columns: Aligned::new(&values(COLUMNS, 4)),
                matrix_halves: [half_of(&matrix, COLUMNS, 0), half_of(&matrix, COLUMNS, 1)],
                matrix: Aligned::new(&matrix),
            }
        }
    }

    #[derive(Clone, Copy, Debug)]
    enum Step {
        Clear,
        LoadTile,
        MatMul,
        Scalar(fn(f32) -> FusedKerSpec<f32>),
        PerRow(fn(*const f32) -> FusedKerSpec<f32>),
        PerColumn(fn(*const f32) -> FusedKerSpec<f32>),
        AddUnicast,
        AddRowColProducts,
    }

    /// `steps` as tract's fused operations for the whole tile (`half` None) or one column half, storing
    /// into `output` (an 8 × 16 row-major buffer).
    fn specs(steps: &[Step], operands: &Operands, half: Option<usize>, output: &mut [f32]) -> Vec<FusedKerSpec<f32>> {
        let offset = half.map_or(0, |h| h * HALF);
        let tile = |ptr: *mut u8| OutputStoreKer {
            ptr,
            row_byte_stride: (COLUMNS * 4) as isize,
            col_byte_stride: 4,
            item_size: 4,
        };
        let b = half.map_or(&operands.b, |h| &operands.b_halves[h]);
        let loaded = half.map_or(&operands.matrix, |h| &operands.matrix_halves[h]);
        let mut specs: Vec<FusedKerSpec<f32>> = steps
            .iter()
            .map(|step| match *step {
                Step::Clear => FusedKerSpec::Clear,
                Step::LoadTile => FusedKerSpec::LoadTile(std::ptr::null(), loaded.as_ptr()),
                Step::MatMul => FusedKerSpec::AddMatMul {
                    k: K,
                    pa: operands.a.as_ptr() as *const u8,
                    pb: b.as_ptr() as *const u8,
                    packing: 0,
                },
                Step::Scalar(make) => make(0.75),
                Step::PerRow(make) => make(operands.rows.as_ptr()),
                Step::PerColumn(make) => make(operands.columns.as_slice()[offset..].as_ptr()),
                Step::AddUnicast => {
                    FusedKerSpec::AddUnicast(tile(operands.matrix.as_slice()[offset..].as_ptr() as *mut u8))
                }
                Step::AddRowColProducts => FusedKerSpec::AddRowColProducts(
                    operands.rows.as_ptr(),
                    operands.columns.as_slice()[offset..].as_ptr(),
                ),
            })
            .collect();
        specs.push(FusedKerSpec::Store(tile(output[offset..].as_mut_ptr() as *mut u8)));
        specs.push(FusedKerSpec::Done);
        specs
    }

    fn quire_tile(steps: &[Step], operands: &Operands) -> Vec<f32> {
        let mut output = vec![f32::NAN; ROWS * COLUMNS];
        let specs = specs(steps, operands, None, &mut output);
        unsafe { (wasm_kernel::kernel().kernel)(&specs) };
        output
    }

    fn tract_tile(steps: &[Step], operands: &Operands) -> Vec<f32> {
        let mut output = vec![f32::NAN; ROWS * COLUMNS];
        for half in 0..2 {
            let specs = specs(steps, operands, Some(half), &mut output);
            unsafe { (tract_linalg::wasm::wasm_f32_8x8.kernel)(&specs) };
        }
        output
    }

    #[wasm_bindgen_test]
    fn every_fused_operation_matches_tracts_own_kernel() {
        use FusedKerSpec as F;
        let operands = Operands::new();
        let programs: Vec<(&str, Vec<Step>)> = vec![
            ("product", vec![Step::Clear, Step::MatMul]),
            ("product onto a loaded tile", vec![Step::LoadTile, Step::MatMul]),
            (
                "bias and ReLU",
                vec![Step::Clear, Step::MatMul, Step::PerRow(F::PerRowAdd), Step::Scalar(|_| F::ScalarMax(0.0))],
            ),
            (
                "scalars",
                vec![
                    Step::Clear,
                    Step::MatMul,
                    Step::Scalar(F::ScalarMin),
                    Step::Scalar(F::ScalarAdd),
                    Step::Scalar(F::ScalarMul),
                    Step::Scalar(F::ScalarSub),
                    Step::Scalar(F::ScalarSubF),
                    Step::Scalar(F::LeakyRelu),
                    Step::Scalar(|_| F::QScale(2, RoundingPolicy::Even, 1 << 30)),
                    Step::Scalar(|_| F::RoundingShiftRight(1, RoundingPolicy::Even)),
                    Step::Scalar(|_| F::ShiftLeft(2)),
                ],
            ),
            (
                "per row",
                vec![
                    Step::LoadTile,
                    Step::PerRow(F::PerRowMin),
                    Step::PerRow(F::PerRowMax),
                    Step::PerRow(F::PerRowMul),
                    Step::PerRow(F::PerRowSub),
                    Step::PerRow(F::PerRowSubF),
                ],
            ),
            (
                "per column",
                vec![
                    Step::LoadTile,
                    Step::PerColumn(F::PerColMin),
                    Step::PerColumn(F::PerColMax),
                    Step::PerColumn(F::PerColAdd),
                    Step::PerColumn(F::PerColMul),
                    Step::PerColumn(F::PerColSub),
                    Step::PerColumn(F::PerColSubF),
                ],
            ),
            (
                "residual and rank-one update",
                vec![Step::Clear, Step::MatMul, Step::AddUnicast, Step::AddRowColProducts],
            ),
        ];
        for (name, steps) in programs {
            let ours = quire_tile(&steps, &operands);
            let theirs = tract_tile(&steps, &operands);
            assert!(ours.iter().all(|x| x.is_finite()), "{name}: {ours:?}");
            let differing: Vec<usize> = (0..ours.len()).filter(|&i| ours[i].to_bits() != theirs[i].to_bits()).collect();
            assert!(differing.is_empty(), "{name}: elements {differing:?} differ: {ours:?} vs {theirs:?}");
        }
        // The product is a product: one element checked by hand.
        let product = quire_tile(&[Step::Clear, Step::MatMul], &operands);
        let (a, b) = (operands.a.as_slice(), operands.b.as_slice());
        let expected: f32 = (0..K).map(|step| a[step * ROWS + 3] * b[step * COLUMNS + 11]).sum();
        assert!((product[3 * COLUMNS + 11] - expected).abs() < 1e-4, "{} vs {expected}", product[3 * COLUMNS + 11]);
    }

    #[wasm_bindgen_test]
    fn the_embedder_runs_quires_kernel_and_agrees_with_native() {
        let model = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/models/model.onnx"));
        let tokenizer = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/models/tokenizer.json"));
        let embedder = Embedder::from_bytes(EmbeddingModel::MiniLm, model, tokenizer).expect("the pinned model loads");
        // The tile counter exists in debug builds only (the test command's); a release run checks agreement.
        #[cfg(debug_assertions)]
        let before = wasm_kernel::tiles_computed();
        let vectors = embedder.embed(&super::TEXTS).expect("embeds");
        #[cfg(debug_assertions)]
        assert!(wasm_kernel::tiles_computed() > before, "tract did not choose {}", wasm_kernel::NAME);
        let agreement = super::agreement(&vectors);
        assert!(agreement >= 0.9999, "lowest cosine with the native embeddings: {agreement}");
    }
}
