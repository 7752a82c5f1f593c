//! Inner loops of f32 matrix-product tiles, as tract-linalg's packed kernels run them, timed in a browser's
//! wasm engine (tests/browser/bench-tiles.mjs): tract's 8 × 8 tile and 4 × 16 tile, a 4 × 8 tile, and the
//! 8 × 16 tile computed as four 4 × 8 quadrants that Quire registers with tract (src/embed/wasm_kernel.rs).
//! One product of M = 1536 by K = 384 by N = 128 (a MiniLM feed-forward layer over 128 word-pieces), A and
//! B packed as tract packs them (K steps of MR rows, K steps of NR columns).

use std::arch::wasm32::*;

const M: usize = 1536;
const K: usize = 384;
const N: usize = 128;

static mut A: [f32; M * K] = [0.0; M * K];
static mut B: [f32; K * N] = [0.0; K * N];
static mut C: [f32; M * N] = [0.0; M * N];

/// (MR, NR) of each tile, by the index `run` takes.
const TILES: [(usize, usize); 4] = [(8, 8), (4, 16), (4, 8), (8, 16)];

fn madd(acc: v128, a: v128, b: v128) -> v128 {
    f32x4_add(acc, f32x4_mul(a, b))
}

/// tract-linalg 0.23.9's `kernel_f32_8x8`: 16 accumulators, A read as two vectors and broadcast by shuffles.
#[inline(never)]
unsafe fn tract_8x8(a: *const f32, b: *const v128, c: *mut f32) {
    let a = a as *const v128;
    let mut acc = [f32x4_splat(0.0); 16];
    for i in 0..K {
        let (low, high) = unsafe { (v128_load(a.add(2 * i)), v128_load(a.add(2 * i + 1))) };
        let (b0, b1) = unsafe { (v128_load(b.add(2 * i)), v128_load(b.add(2 * i + 1))) };
        let s = [
            i32x4_shuffle::<0, 0, 0, 0>(low, low),
            i32x4_shuffle::<1, 1, 1, 1>(low, low),
            i32x4_shuffle::<2, 2, 2, 2>(low, low),
            i32x4_shuffle::<3, 3, 3, 3>(low, low),
            i32x4_shuffle::<0, 0, 0, 0>(high, high),
            i32x4_shuffle::<1, 1, 1, 1>(high, high),
            i32x4_shuffle::<2, 2, 2, 2>(high, high),
            i32x4_shuffle::<3, 3, 3, 3>(high, high),
        ];
        for r in 0..8 {
            acc[2 * r] = madd(acc[2 * r], s[r], b0);
            acc[2 * r + 1] = madd(acc[2 * r + 1], s[r], b1);
        }
    }
    unsafe { store::<8, 2>(c, &acc) };
}

/// `ROWS` × `4·VECTORS` accumulators in registers (when they fit), A broadcast with `v128.load32_splat`.
/// `a_stride` and `b_stride` are the packed panels' widths (a quadrant reads part of a wider panel).
#[inline(always)]
unsafe fn block<const ROWS: usize, const VECTORS: usize>(
    a: *const f32,
    a_stride: usize,
    b: *const v128,
    b_stride: usize,
) -> [[v128; VECTORS]; ROWS] {
    let mut acc = [[f32x4_splat(0.0); VECTORS]; ROWS];
    for i in 0..K {
        let columns: [v128; VECTORS] = std::array::from_fn(|v| unsafe { v128_load(b.add(b_stride * i + v)) });
        for (r, row) in acc.iter_mut().enumerate() {
            let s = unsafe { v128_load32_splat(a.add(a_stride * i + r) as *const u32) };
            for (x, column) in row.iter_mut().zip(columns) {
                *x = madd(*x, s, column);
            }
        }
    }
    acc
}

unsafe fn store<const ROWS: usize, const VECTORS: usize>(c: *mut f32, acc: &[v128]) {
    for r in 0..ROWS {
        for v in 0..VECTORS {
            unsafe { v128_store(c.add(r * N + 4 * v) as *mut v128, acc[r * VECTORS + v]) };
        }
    }
}

#[inline(never)]
unsafe fn tile_4x16(a: *const f32, b: *const v128, c: *mut f32) {
    let acc = unsafe { block::<4, 4>(a, 4, b, 4) };
    unsafe { store::<4, 4>(c, acc.as_flattened()) };
}

#[inline(never)]
unsafe fn tile_4x8(a: *const f32, b: *const v128, c: *mut f32) {
    let acc = unsafe { block::<4, 2>(a, 4, b, 2) };
    unsafe { store::<4, 2>(c, acc.as_flattened()) };
}

/// The 8 × 16 tile as four 4 × 8 quadrants, each over all of K.
#[inline(never)]
unsafe fn quadrants_8x16(a: *const f32, b: *const v128, c: *mut f32) {
    for first_row in [0, 4] {
        for first_vector in [0, 2] {
            let acc = unsafe { block::<4, 2>(a.add(first_row), 8, b.add(first_vector), 4) };
            unsafe { store::<4, 2>(c.add(first_row * N + 4 * first_vector), acc.as_flattened()) };
        }
    }
}

/// Fills A and B with fixed values.
#[unsafe(no_mangle)]
pub extern "C" fn fill() {
    let (a, b) = unsafe { (&mut *std::ptr::addr_of_mut!(A), &mut *std::ptr::addr_of_mut!(B)) };
    for (i, x) in a.iter_mut().enumerate() {
        *x = ((i * 7919) % 1000) as f32 * 0.001 - 0.5;
    }
    for (i, x) in b.iter_mut().enumerate() {
        *x = ((i * 104_729) % 1000) as f32 * 0.001 - 0.5;
    }
}

/// The whole product `repeats` times with tile `tile` (an index into [`TILES`]); returns its GFLOP count.
#[unsafe(no_mangle)]
pub extern "C" fn run(tile: usize, repeats: usize) -> f64 {
    let (rows, columns) = TILES[tile];
    let (a, b, c) =
        (std::ptr::addr_of!(A) as *const f32, std::ptr::addr_of!(B) as *const f32, std::ptr::addr_of_mut!(C) as *mut f32);
    for _ in 0..repeats {
        for n in (0..N).step_by(columns) {
            let panel_b = unsafe { b.add(n * K) } as *const v128;
            for m in (0..M).step_by(rows) {
                let (panel_a, out) = unsafe { (a.add(m * K), c.add(m * N + n)) };
                match tile {
                    0 => unsafe { tract_8x8(panel_a, panel_b, out) },
                    1 => unsafe { tile_4x16(panel_a, panel_b, out) },
                    2 => unsafe { tile_4x8(panel_a, panel_b, out) },
                    _ => unsafe { quadrants_8x16(panel_a, panel_b, out) },
                }
            }
        }
    }
    (2 * M * K * N * repeats) as f64 / 1e9
}
