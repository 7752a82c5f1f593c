//! A matrix-product kernel for tract in wasm32 whose accumulators fit the machine's vector registers.
//!
//! Four fifths of an embedding's time in the browser is one function, tract-linalg's wasm f32 GEMM kernel
//! (docs/BENCHMARKS.md, "Where the browser embedder's time goes"). That kernel computes an 8 × 8 tile: 16
//! vector accumulators, plus the two vectors of B and the broadcasts of A in every step of its inner loop.
//! The engines compile wasm's vectors to the host's SSE/NEON registers, and x86-64 has 16 of them, so the
//! tile alone fills them and every step spills to the stack. A 4 × 8 block keeps 8 accumulators, 2 B vectors
//! and one broadcast in registers; in Chromium it runs the same product about 1.4 times as fast (42 against
//! 30–31 GFLOP/s for a 1536 × 384 by 384 × 128 product: `node tests/browser/bench-tiles.mjs`,
//! docs/BENCHMARKS.md), and the embedder about 1.4 times as fast with it.
//!
//! The kernel presents itself to tract as an 8 × 16 tile and computes it as four 4 × 8 quadrants, one after
//! the other, each over the whole depth of the product with its accumulators in registers; between
//! quadrants the tile lives in memory. The outer shape is what makes tract choose it: the browser keeps one
//! plan whose sequence length stays symbolic, and for such a product tract picks among kernels sharing the
//! A panel layout the one with the widest tile, so 8 rows (tract's own 8 × 8 layout) and 16 columns. Where
//! the shape is known, a dispatch tier above tract's own wasm tier names it for every f32 matrix product;
//! matrix-vector products stay with tract's kernels either way.
//!
//! tract chooses kernels through registries that other crates may add to (`inventory`); this file adds the
//! kernel and the tier. Hand-written because it is exactly the piece no crate offers; written against
//! tract-linalg's public kernel interface, so it can go upstream unchanged. Each fused operation does what
//! tract's own 8 × 8 kernel does, on twice as many columns.

use std::arch::wasm32::*;
use std::sync::OnceLock;
#[cfg(debug_assertions)]
use std::sync::atomic::{AtomicUsize, Ordering};

use tract_linalg::Scaler;
use tract_linalg::isa::{Arch, IsaSet};
use tract_linalg::mmm::{DynKernel, FusedKerSpec, OutputStoreKer, Query, Suitable};
use tract_linalg::mmm_routines::MmmRoutine;
use tract_linalg::mmm_tiers::MmmTier;
use tract_linalg::pack::Packing;
use tract_onnx::prelude::DatumType;

/// The tile as tract sees it (MR × NR); its columns are four vectors of four lanes.
const ROWS: usize = 8;
const COLUMNS: usize = 16;
const VECTORS: usize = COLUMNS / 4;
/// The block computed with its accumulators in registers: 4 rows by 2 vectors.
const BLOCK_ROWS: usize = 4;
const BLOCK_VECTORS: usize = 2;
pub const NAME: &str = "quire_wasm_f32_8x16";

/// The tile: per row, its four vectors of columns.
type Tile = [[v128; VECTORS]; ROWS];
const ZERO: Tile = [[f32x4(0.0, 0.0, 0.0, 0.0); VECTORS]; ROWS];

/// The kernel as tract registers it.
pub fn kernel() -> &'static DynKernel<ROWS, COLUMNS, f32> {
    static KERNEL: OnceLock<DynKernel<ROWS, COLUMNS, f32>> = OnceLock::new();
    KERNEL.get_or_init(|| {
        let mut kernel = DynKernel::new(NAME, run, f32::packing(ROWS), f32::packing(COLUMNS));
        kernel.arch = Some(Arch::Wasm32Simd128);
        kernel
    })
}

/// Above tract's own wasm tier (precedence 1): this kernel for every f32 product with more than one
/// column (or a symbolic number); matrix-vector products are left to tract's tiers.
fn preferred(_: &IsaSet, accumulator: DatumType, query: &Query, _: &[Suitable]) -> Option<&'static str> {
    (accumulator == DatumType::F32 && query.n != Some(1)).then_some(NAME)
}

inventory::submit! { MmmRoutine { make: || kernel().mmm() } }
inventory::submit! {
    MmmTier { arch: Some(Arch::Wasm32Simd128), precedence: 2, name: "quire-wasm-8x16", applies: |_| true, preferred }
}

/// How many tiles this kernel has computed since the module started: how a test sees that tract chose it.
/// Counted in debug builds only (tests build so), so the shipped kernel does no bookkeeping per tile.
#[cfg(debug_assertions)]
pub fn tiles_computed() -> usize {
    TILES.load(Ordering::Relaxed)
}

#[cfg(debug_assertions)]
static TILES: AtomicUsize = AtomicUsize::new(0);

/// Keeps this file's registrations in the link: wasm-ld leaves out an object nothing refers to, and the
/// registrations are only referred to by the registries' constructors. The embedder calls it once.
pub fn keep_registered() {
    std::hint::black_box(run as unsafe fn(&[FusedKerSpec<f32>]) -> isize);
}

/// Runs tract's fused operations on one tile. `specs` ends with `Done`, as tract always passes it.
///
/// # Safety
/// Every pointer in `specs` must be valid as tract's kernel contract states: packed panels of `k` steps of
/// 8 A values and 16 B values, per-row operands of 8 values, per-column operands of 16, tiles of 8 × 16 f32.
unsafe fn run(specs: &[FusedKerSpec<f32>]) -> isize {
    #[cfg(debug_assertions)]
    TILES.fetch_add(1, Ordering::Relaxed);
    let mut tile: Tile = ZERO;
    for spec in specs {
        // SAFETY: the caller (tract) passes pointers valid for this kernel's shape.
        unsafe {
            match *spec {
                FusedKerSpec::Done => break,
                FusedKerSpec::Clear => tile = ZERO,
                FusedKerSpec::LoadTile(_, rows) => load(&mut tile, rows),
                FusedKerSpec::ScalarMin(x) => scalar(&mut tile, x, min),
                FusedKerSpec::ScalarMax(x) => scalar(&mut tile, x, max),
                FusedKerSpec::ScalarAdd(x) => scalar(&mut tile, x, add),
                FusedKerSpec::ScalarMul(x) => scalar(&mut tile, x, mul),
                FusedKerSpec::ScalarSub(x) => scalar(&mut tile, x, sub),
                FusedKerSpec::ScalarSubF(x) => scalar(&mut tile, x, sub_flipped),
                FusedKerSpec::LeakyRelu(alpha) => leaky_relu(&mut tile, alpha),
                FusedKerSpec::PerRowMin(row) => per_row(&mut tile, row, min),
                FusedKerSpec::PerRowMax(row) => per_row(&mut tile, row, max),
                FusedKerSpec::PerRowAdd(row) => per_row(&mut tile, row, add),
                FusedKerSpec::PerRowMul(row) => per_row(&mut tile, row, mul),
                FusedKerSpec::PerRowSub(row) => per_row(&mut tile, row, sub),
                FusedKerSpec::PerRowSubF(row) => per_row(&mut tile, row, sub_flipped),
                FusedKerSpec::PerColMin(cols) => per_column(&mut tile, cols, min),
                FusedKerSpec::PerColMax(cols) => per_column(&mut tile, cols, max),
                FusedKerSpec::PerColAdd(cols) => per_column(&mut tile, cols, add),
                FusedKerSpec::PerColMul(cols) => per_column(&mut tile, cols, mul),
                FusedKerSpec::PerColSub(cols) => per_column(&mut tile, cols, sub),
                FusedKerSpec::PerColSubF(cols) => per_column(&mut tile, cols, sub_flipped),
                FusedKerSpec::QScale(shift, policy, multiplier) => {
                    scalar(&mut tile, Scaler::from_fuse_params(shift, policy, multiplier).scale, mul)
                }
                FusedKerSpec::RoundingShiftRight(shift, _) => scalar(&mut tile, 2f32.powi(-(shift as i32)), mul),
                FusedKerSpec::ShiftLeft(shift) => scalar(&mut tile, 2f32.powi(shift as i32), mul),
                FusedKerSpec::AddUnicast(other) => add_unicast(&mut tile, other),
                FusedKerSpec::AddRowColProducts(rows, cols) => add_row_col_products(&mut tile, rows, cols),
                FusedKerSpec::Store(output) => store(&tile, output),
                FusedKerSpec::AddMatMul { k, pa, pb, .. } => {
                    add_mat_mul(&mut tile, k, pa as *const f32, pb as *const v128)
                }
            }
        }
    }
    0
}

// The operations fused after a product, as plain functions (the intrinsics are `target_feature` functions,
// which do not coerce to closures); `op(operand, accumulator)` is tract's order.
fn min(x: v128, acc: v128) -> v128 {
    f32x4_min(x, acc)
}
fn max(x: v128, acc: v128) -> v128 {
    f32x4_max(x, acc)
}
fn add(x: v128, acc: v128) -> v128 {
    f32x4_add(x, acc)
}
fn mul(x: v128, acc: v128) -> v128 {
    f32x4_mul(x, acc)
}
fn sub(x: v128, acc: v128) -> v128 {
    f32x4_sub(x, acc)
}
fn sub_flipped(x: v128, acc: v128) -> v128 {
    f32x4_sub(acc, x)
}

/// `acc ← op(splat(x), acc)` on every accumulator.
#[inline(always)]
fn scalar(tile: &mut Tile, x: f32, op: impl Fn(v128, v128) -> v128) {
    let s = f32x4_splat(x);
    for acc in tile.iter_mut().flatten() {
        *acc = op(s, *acc);
    }
}

#[inline(always)]
fn leaky_relu(tile: &mut Tile, alpha: f32) {
    let (alpha, zero) = (f32x4_splat(alpha), f32x4_splat(0.0));
    for acc in tile.iter_mut().flatten() {
        *acc = v128_bitselect(*acc, f32x4_mul(alpha, *acc), f32x4_gt(*acc, zero));
    }
}

/// `acc ← op(splat(row value), acc)`, one value per row.
#[inline(always)]
unsafe fn per_row(tile: &mut Tile, values: *const f32, op: impl Fn(v128, v128) -> v128) {
    for (r, row) in tile.iter_mut().enumerate() {
        let s = f32x4_splat(unsafe { *values.add(r) });
        for acc in row {
            *acc = op(s, *acc);
        }
    }
}

/// The sixteen values of a per-column operand as vectors.
#[inline(always)]
unsafe fn column_vectors(values: *const f32) -> [v128; VECTORS] {
    let values = values as *const v128;
    std::array::from_fn(|v| unsafe { v128_load(values.add(v)) })
}

/// `acc ← op(column values, acc)`, sixteen values across every row.
#[inline(always)]
unsafe fn per_column(tile: &mut Tile, values: *const f32, op: impl Fn(v128, v128) -> v128) {
    let columns = unsafe { column_vectors(values) };
    for row in tile.iter_mut() {
        for (acc, column) in row.iter_mut().zip(columns) {
            *acc = op(column, *acc);
        }
    }
}

/// The accumulators from a contiguous copy, row by row.
#[inline(always)]
unsafe fn load(tile: &mut Tile, from: *const f32) {
    let from = from as *const v128;
    for (i, acc) in tile.iter_mut().flatten().enumerate() {
        *acc = unsafe { v128_load(from.add(i)) };
    }
}

/// The sixteen f32 of one row of a strided tile, as vectors.
#[inline(always)]
unsafe fn read_row(at: *const u8, column_stride: isize) -> [v128; VECTORS] {
    let value = |c: usize| unsafe { *(at.offset(column_stride * c as isize) as *const f32) };
    std::array::from_fn(|v| f32x4(value(4 * v), value(4 * v + 1), value(4 * v + 2), value(4 * v + 3)))
}

#[inline(always)]
unsafe fn add_unicast(tile: &mut Tile, other: OutputStoreKer) {
    let mut at = other.ptr as *const u8;
    for row in tile.iter_mut() {
        let values = unsafe { read_row(at, other.col_byte_stride) };
        for (acc, value) in row.iter_mut().zip(values) {
            *acc = f32x4_add(*acc, value);
        }
        at = unsafe { at.offset(other.row_byte_stride) };
    }
}

/// `a · b + acc`: one fused multiply-add in a module built with relaxed SIMD (the engine rounds once or
/// twice, as the host allows), a multiply then an add otherwise. The shipped module is plain SIMD: the
/// relaxed one was no faster in Chromium (docs/BENCHMARKS.md, "Relaxed SIMD in Quire's own kernel").
#[inline(always)]
fn multiply_add(a: v128, b: v128, acc: v128) -> v128 {
    #[cfg(target_feature = "relaxed-simd")]
    return f32x4_relaxed_madd(a, b, acc);
    #[cfg(not(target_feature = "relaxed-simd"))]
    f32x4_add(acc, f32x4_mul(a, b))
}

/// `acc[r][c] += rows[r] · cols[c]`, multiply then add as in the matrix product below.
#[inline(always)]
unsafe fn add_row_col_products(tile: &mut Tile, rows: *const f32, cols: *const f32) {
    let columns = unsafe { column_vectors(cols) };
    for (r, row) in tile.iter_mut().enumerate() {
        let s = f32x4_splat(unsafe { *rows.add(r) });
        for (acc, column) in row.iter_mut().zip(columns) {
            *acc = multiply_add(s, column, *acc);
        }
    }
}

#[inline(always)]
unsafe fn store(tile: &Tile, output: OutputStoreKer) {
    let mut at = output.ptr;
    let stride = output.col_byte_stride;
    for row in tile {
        let lanes: [f32; COLUMNS] = unsafe { std::mem::transmute(*row) };
        for (c, value) in lanes.into_iter().enumerate() {
            unsafe { *(at.offset(stride * c as isize) as *mut f32) = value };
        }
        at = unsafe { at.offset(output.row_byte_stride) };
    }
}

/// The packed product over `k` steps (A: 8 values a step, B: 16), one 4 × 8 quadrant of the tile at a time.
#[inline(always)]
unsafe fn add_mat_mul(tile: &mut Tile, k: usize, a: *const f32, b: *const v128) {
    for first_row in (0..ROWS).step_by(BLOCK_ROWS) {
        for first_vector in (0..VECTORS).step_by(BLOCK_VECTORS) {
            unsafe { add_block(tile, k, a.add(first_row), b.add(first_vector), first_row, first_vector) };
        }
    }
}

/// One quadrant: its 8 accumulators stay in registers for all `k` steps, each step broadcasting 4 A values
/// with one load each (`v128.load32_splat`) and reading 8 B values as two vectors.
#[inline(never)]
unsafe fn add_block(tile: &mut Tile, k: usize, a: *const f32, b: *const v128, first_row: usize, first_vector: usize) {
    let mut block: [[v128; BLOCK_VECTORS]; BLOCK_ROWS] =
        std::array::from_fn(|r| std::array::from_fn(|v| tile[first_row + r][first_vector + v]));
    for step in 0..k {
        let (a, b) = unsafe { (a.add(ROWS * step), b.add(VECTORS * step)) };
        let columns: [v128; BLOCK_VECTORS] = std::array::from_fn(|v| unsafe { v128_load(b.add(v)) });
        for (r, row) in block.iter_mut().enumerate() {
            let s = unsafe { v128_load32_splat(a.add(r) as *const u32) };
            for (acc, column) in row.iter_mut().zip(columns) {
                *acc = multiply_add(s, column, *acc);
            }
        }
    }
    for (r, row) in block.into_iter().enumerate() {
        tile[first_row + r][first_vector..first_vector + BLOCK_VECTORS].copy_from_slice(&row);
    }
}
