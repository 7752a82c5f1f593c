//! Where a model's load goes: reading its bytes, typing, decluttering, optimising, planning, and the
//! tokenizer, natively (the page runs the same steps in wasm). Also what an NNEF copy of the decluttered
//! model would save.
//!
//!     cargo run --release --example load_stages -- models/model.onnx models/tokenizer.json

use std::time::Instant;

use tract_onnx::prelude::*;

fn main() -> TractResult<()> {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1])?;
    let tok = std::fs::read(&args[2])?;
    let t = Instant::now();
    let _ = quire::embed::blake3_hex(&bytes);
    println!("blake3        {:7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let _ = tokenizers::Tokenizer::from_bytes(&tok).unwrap();
    println!("tokenizer     {:7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let typed = quire::embed::read_model(&bytes, true)?;
    println!("read+typed    {:7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let decl = typed.clone().into_decluttered()?;
    println!("declutter     {:7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let opt = decl.clone().into_optimized()?;
    println!("optimise      {:7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let _plan = opt.into_runnable()?;
    println!("runnable      {:7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let _ = typed.into_optimized()?;
    println!("typed->opt    {:7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    use tract_onnx::WithOnnx;
    let nnef = tract_nnef::nnef().with_onnx();
    let mut buf = vec![];
    let t = Instant::now();
    nnef.write_to_tar(&decl, &mut buf)?;
    println!("nnef write    {:7.1} ms  {} bytes", t.elapsed().as_secs_f64() * 1e3, buf.len());
    let t = Instant::now();
    let back = nnef.model_for_read(&mut std::io::Cursor::new(&buf))?;
    println!("nnef read     {:7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let _ = back.into_optimized()?.into_runnable()?;
    println!("nnef->plan    {:7.1} ms", t.elapsed().as_secs_f64() * 1e3);
    Ok(())
}
