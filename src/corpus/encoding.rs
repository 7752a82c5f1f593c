//! Text in whatever encoding it was saved in: a byte order mark decides (UTF-8, UTF-16LE/BE); UTF-16 without
//! one is recognised by its zero bytes; valid UTF-8 is taken as it is; anything else is decoded as the
//! encoding `chardetng` (Firefox's detector) finds most likely, through `encoding_rs`. A file that is not
//! UTF-8 says which encoding was assumed, so a wrong guess can be noticed.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE};

use super::IngestFailure;

/// A file's text, and the encoding it was read in when that was not UTF-8, said as the file's report says it.
#[derive(Debug, PartialEq)]
pub struct Decoded<'a> {
    pub text: Cow<'a, str>,
    pub assumed: Option<String>,
}

/// Bytes examined for zero bytes: enough to tell UTF-16 from binary, cheap for large files.
const SAMPLE: usize = 8192;

pub fn decode<'a>(bytes: &'a [u8], format: &'static str) -> Result<Decoded<'a>, IngestFailure> {
    if let Some((encoding, bom)) = Encoding::for_bom(bytes) {
        let text = encoding.decode_without_bom_handling(&bytes[bom..]).0;
        let assumed =
            (encoding != encoding_rs::UTF_8).then(|| format!("read as {} (byte order mark)", encoding.name()));
        return Ok(Decoded { text, assumed });
    }
    let sample = &bytes[..bytes.len().min(SAMPLE)];
    if sample.contains(&0) {
        let Some(encoding) = utf16_without_bom(sample) else {
            return Err(IngestFailure::Binary { format: format.into() });
        };
        let text = encoding.decode_without_bom_handling(bytes).0;
        return Ok(Decoded { text, assumed: Some(format!("read as {} (no byte order mark)", encoding.name())) });
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Ok(Decoded { text: Cow::Borrowed(text), assumed: None });
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    let encoding = detector.guess(None, true);
    let (text, _, malformed) = encoding.decode(bytes);
    let note = if malformed { ", some bytes replaced" } else { "" };
    Ok(Decoded { text, assumed: Some(format!("not UTF-8: read as {} (detected{note})", encoding.name())) })
}

/// UTF-16 text in a Latin script has a zero in every other byte: the odd ones for little-endian.
fn utf16_without_bom(sample: &[u8]) -> Option<&'static Encoding> {
    let pairs = sample.len() / 2;
    if pairs < 2 {
        return None;
    }
    let zeros_at = |parity: usize| sample.iter().skip(parity).step_by(2).filter(|&&b| b == 0).count();
    let (even, odd) = (zeros_at(0), zeros_at(1));
    let mostly = |count: usize| count * 10 >= pairs * 4;
    let rarely = |count: usize| count * 20 <= pairs;
    match (mostly(odd) && rarely(even), mostly(even) && rarely(odd)) {
        (true, _) => Some(UTF_16LE),
        (_, true) => Some(UTF_16BE),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_and_windows_1252_are_detected() {
        let latin1 = "Le café de la gare, où l'on sert du thé à côté de la fenêtre, était fermé.";
        let (bytes, ..) = encoding_rs::WINDOWS_1252.encode(latin1);
        let decoded = decode(&bytes, "plain").unwrap();
        assert_eq!(decoded.text, latin1);
        assert_eq!(decoded.assumed.as_deref(), Some("not UTF-8: read as windows-1252 (detected)"));
    }

    #[test]
    fn utf16_is_read_with_and_without_a_byte_order_mark() {
        let text = "Größe, naïve café";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let with_bom = [vec![0xFF, 0xFE], le.clone()].concat();
        assert_eq!(decode(&with_bom, "plain").unwrap().text, text);
        assert_eq!(decode(&with_bom, "plain").unwrap().assumed.as_deref(), Some("read as UTF-16LE (byte order mark)"));
        assert_eq!(decode(&le, "plain").unwrap().text, text);
        assert_eq!(decode(&be, "plain").unwrap().assumed.as_deref(), Some("read as UTF-16BE (no byte order mark)"));
    }

    #[test]
    fn utf8_is_borrowed_and_binary_is_refused() {
        let decoded = decode("plain ✓".as_bytes(), "plain").unwrap();
        assert!(matches!(decoded.text, Cow::Borrowed("plain ✓")) && decoded.assumed.is_none());
        let with_bom = decode(b"\xEF\xBB\xBFhello", "plain").unwrap();
        assert_eq!((with_bom.text.as_ref(), with_bom.assumed), ("hello", None));
        let png = [0x89, b'P', b'N', b'G', 0, 0, 1, 2, 0, 0, 0, 13];
        assert_eq!(decode(&png, "Markdown"), Err(IngestFailure::Binary { format: "Markdown".into() }));
    }
}
