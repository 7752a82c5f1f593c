//! A site's files precompressed (`.gz`, `.br`) for servers that serve those as they are, and their sizes.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::shared::{CliResult, named};

/// Brotli's quality: 9 compresses the 30 MB module in seconds; 11 takes minutes for 2 % less.
const BROTLI_QUALITY: u32 = 9;

/// `output` with `.{suffix}` added to its name.
pub(super) fn sibling(output: &Path, suffix: &str) -> PathBuf {
    let mut name = output.file_name().unwrap_or(output.as_os_str()).to_os_string();
    name.push(format!(".{suffix}"));
    output.with_file_name(name)
}

/// How hard a `.gz` copy is squeezed.
#[derive(Clone, Copy)]
pub(super) enum Gzip {
    /// flate2's best: for the many files of a site.
    Best,
    /// Zopfli's: for the few every visitor fetches first, a hundred times slower.
    Smallest,
}

/// `path.gz` and `path.br` for `bytes`, each only where it is smaller.
pub(super) fn precompress(path: &Path, bytes: &[u8], squeeze: Gzip) -> CliResult {
    let gzip = match squeeze {
        Gzip::Best => {
            let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gzip.write_all(bytes).with_context(named(path))?;
            gzip.finish().with_context(named(path))?
        }
        Gzip::Smallest => {
            let mut gzip = Vec::new();
            zopfli::compress(zopfli::Options::default(), zopfli::Format::Gzip, bytes, &mut gzip)
                .with_context(named(path))?;
            gzip
        }
    };
    let mut brotli = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut brotli, 1 << 16, BROTLI_QUALITY, 22);
        writer.write_all(bytes).with_context(named(path))?;
    }
    for (compressed, extension) in [(gzip, "gz"), (brotli, "br")] {
        if compressed.len() < bytes.len() {
            let copy = sibling(path, extension);
            std::fs::write(&copy, compressed).with_context(named(&copy))?;
        }
    }
    Ok(())
}

/// The size in MB of `name` inside `output`, and of its .gz and .br copies (itself where there is none).
pub(super) fn compressed_sizes(output: &Path, name: &str) -> [f64; 3] {
    let size = |name: &str| std::fs::metadata(output.join(name)).map(|m| m.len()).ok();
    let whole = size(name).unwrap_or(0);
    [whole, size(&format!("{name}.gz")).unwrap_or(whole), size(&format!("{name}.br")).unwrap_or(whole)]
        .map(|bytes| bytes as f64 / 1e6)
}
