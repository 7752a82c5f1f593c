//! The shipped fusion network gives the same scores natively and in wasm32: both builds compare its scores
//! for fixed inputs with the ones recorded natively in `tests/data/fusion_scores.json` (re-record with
//! `QUIRE_BLESS=1 cargo test --test wasm_parity`). The wasm32 run: `scripts/test.sh`, under
//! wasm-bindgen-test-runner in Node.

use quire::retrieve::FusionModel;

const RECORDED: &str = include_str!("../data/fusion_scores.json");

/// Deterministic standardised scores spread over [-1, 1.33], one row per candidate, no two rows alike.
fn fixed_inputs(columns: usize) -> Vec<Vec<f32>> {
    (0..24).map(|row| (0..columns).map(|col| ((row * 37 + col * 11) % 29) as f32 / 12.0 - 1.0).collect()).collect()
}

fn shipped_scores() -> Vec<f32> {
    let model = FusionModel::shipped();
    model.score(&fixed_inputs(model.retrievers().len())).expect("inputs have the model's width")
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn shipped_model_gives_the_recorded_scores() {
    let scores = shipped_scores();
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("QUIRE_BLESS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fusion_scores.json");
        std::fs::write(path, serde_json::to_string_pretty(&scores).unwrap()).unwrap();
        return;
    }
    let recorded: Vec<f32> = serde_json::from_str(RECORDED).expect("recorded scores parse");
    assert_eq!(scores.len(), recorded.len());
    for (i, (got, want)) in scores.iter().zip(&recorded).enumerate() {
        // Same weights and inputs; only the order of float additions inside matrix products may differ.
        assert!((got - want).abs() <= 1e-5 * want.abs().max(1.0), "row {i}: {got} vs recorded {want}");
    }
    // The recorded scores are not degenerate: the fixed inputs are told apart.
    let distinct: std::collections::BTreeSet<u32> = recorded.iter().map(|s| s.to_bits()).collect();
    assert!(distinct.len() > 12, "{recorded:?}");
}
