//! Why the embedder builds a plan per input shape (src/embed/plans.rs): one tract plan with the batch and
//! sequence dimensions left symbolic, against plans built for concrete shapes, on the same inputs.
//!
//!     cargo run --example plan_shapes      # dependencies are optimised in every profile (Cargo.toml)

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use tract_onnx::prelude::*;

type Plan = Arc<TypedSimplePlan>;

fn plan(model: &TypedModel, shape: Option<(usize, usize)>) -> TractResult<Plan> {
    let mut values = HashMap::new();
    if let Some((batch, length)) = shape {
        let dims = model.input_fact(0)?.shape.to_tvec();
        for (dim, value) in dims.iter().zip([batch, length]) {
            if let TDim::Sym(symbol) = dim {
                values.insert(symbol.clone(), TDim::Val(value as i64));
            }
        }
    }
    model.set_symbols(&values)?.into_optimized()?.into_runnable()
}

fn inputs(batch: usize, length: usize) -> TVec<TValue> {
    let ids =
        tract_ndarray::Array2::from_shape_fn((batch, length), |(row, i)| (1000 + (row * 31 + i * 7) % 20000) as i64);
    let ones = tract_ndarray::Array2::from_elem((batch, length), 1i64);
    let zeros = tract_ndarray::Array2::from_elem((batch, length), 0i64);
    tvec!(Tensor::from(ids).into(), Tensor::from(ones).into(), Tensor::from(zeros).into())
}

/// Milliseconds per sequence over `runs` calls, after one to warm up.
fn time(plan: &Plan, batch: usize, length: usize, runs: usize) -> TractResult<f64> {
    plan.run(inputs(batch, length))?;
    let started = Instant::now();
    for _ in 0..runs {
        plan.run(inputs(batch, length))?;
    }
    Ok(started.elapsed().as_secs_f64() * 1000.0 / (runs * batch) as f64)
}

fn main() -> TractResult<()> {
    let bytes = std::fs::read("models/model.onnx")?;
    let model =
        tract_onnx::onnx().model_for_read(&mut std::io::Cursor::new(&bytes))?.into_typed()?.into_decluttered()?;
    let symbolic = plan(&model, None)?;
    println!("| shape | symbolic plan, ms/seq | plan for the shape, ms/seq | building that plan, ms |");
    println!("|---|---|---|---|");
    for (batch, length, runs) in [(1, 128, 16), (16, 128, 2), (1, 32, 32), (16, 64, 4)] {
        let started = Instant::now();
        let fixed = plan(&model, Some((batch, length)))?;
        let build = started.elapsed().as_secs_f64() * 1000.0;
        let (loose, tight) = (time(&symbolic, batch, length, runs)?, time(&fixed, batch, length, runs)?);
        println!("| {batch} × {length} | {loose:.1} | {tight:.1} | {build:.0} |");
    }
    Ok(())
}
