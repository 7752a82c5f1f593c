//! A snapshot written in pieces into storage its caller holds: the page's engine writes an Export straight
//! into the JavaScript buffer it hands to the page, so its memory never holds the whole file beside the index
//! (a 95 MiB export held the file twice in the tab, once in the engine's memory and once out of it).

use postcard::ser_flavors::Flavor;

/// Where an encoded snapshot goes: its whole length first, then each piece at its offset in the file, every
/// byte once; the header comes last, since it holds the payload's checksum.
pub trait SnapshotSink {
    fn allocate(&mut self, len: usize);
    fn write_at(&mut self, offset: usize, bytes: &[u8]);
}

/// The file in memory, allocated once at its exact size.
impl SnapshotSink for Vec<u8> {
    fn allocate(&mut self, len: usize) {
        self.clear();
        self.resize(len, 0);
    }

    fn write_at(&mut self, offset: usize, bytes: &[u8]) {
        self[offset..offset + bytes.len()].copy_from_slice(bytes);
    }
}

/// The most a piece holds: what the encoder keeps of the file at once.
pub const PIECE_BYTES: usize = 1 << 20;

/// postcard's output, gathered into pieces of [`PIECE_BYTES`] that go to the sink and the checksum as they
/// fill: postcard pushes a byte or a short slice at a time.
pub(super) struct Pieces<'s, S: SnapshotSink> {
    sink: &'s mut S,
    piece: Vec<u8>,
    /// Where the next piece goes in the file.
    offset: usize,
    checksum: blake3::Hasher,
}

impl<'s, S: SnapshotSink> Pieces<'s, S> {
    pub fn new(sink: &'s mut S, offset: usize) -> Self {
        Pieces { sink, piece: Vec::with_capacity(PIECE_BYTES), offset, checksum: blake3::Hasher::new() }
    }

    fn flush(&mut self) {
        self.checksum.update(&self.piece);
        self.sink.write_at(self.offset, &self.piece);
        self.offset += self.piece.len();
        self.piece.clear();
    }
}

impl<S: SnapshotSink> Flavor for Pieces<'_, S> {
    /// The payload's checksum, and where it ended in the file.
    type Output = (blake3::Hash, usize);

    fn try_extend(&mut self, mut data: &[u8]) -> postcard::Result<()> {
        while !data.is_empty() {
            let room = PIECE_BYTES - self.piece.len();
            let (now, rest) = data.split_at(room.min(data.len()));
            self.piece.extend_from_slice(now);
            if self.piece.len() == PIECE_BYTES {
                self.flush();
            }
            data = rest;
        }
        Ok(())
    }

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        self.try_extend(&[byte])
    }

    fn finalize(mut self) -> postcard::Result<Self::Output> {
        if !self.piece.is_empty() {
            self.flush();
        }
        Ok((self.checksum.finalize(), self.offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every write the encoder makes, in order.
    #[derive(Default)]
    struct Recorded {
        file: Vec<u8>,
        writes: Vec<(usize, usize)>,
    }

    impl SnapshotSink for Recorded {
        fn allocate(&mut self, len: usize) {
            self.file.allocate(len);
        }

        fn write_at(&mut self, offset: usize, bytes: &[u8]) {
            self.writes.push((offset, bytes.len()));
            self.file.write_at(offset, bytes);
        }
    }

    #[test]
    fn a_payload_of_several_pieces_is_written_once_in_order_with_its_checksum() {
        // Long runs (postcard copies a byte string's bytes in one slice) between short pushes (lengths,
        // numbers), so that pieces fill in the middle of a slice and on a single byte.
        let value: Vec<(u32, Vec<u8>)> = (0..7u32)
            .map(|i| (i * 300_007, (0..(PIECE_BYTES / 2 + i as usize * 977)).map(|b| b as u8).collect()))
            .collect();
        let expected = postcard::to_allocvec(&value).unwrap();
        let mut sink = Recorded::default();
        sink.allocate(10 + expected.len());
        let (checksum, end) = postcard::serialize_with_flavor(&value, Pieces::new(&mut sink, 10)).unwrap();
        assert_eq!(end, 10 + expected.len());
        assert_eq!(checksum, blake3::hash(&expected));
        assert_eq!(&sink.file[10..], &expected[..]);
        assert!(sink.writes.len() >= expected.len() / PIECE_BYTES, "{} writes", sink.writes.len());
        let mut at = 10;
        for &(offset, len) in &sink.writes {
            assert_eq!(offset, at, "each piece follows the last");
            assert!(len <= PIECE_BYTES);
            at += len;
        }
        assert!(
            sink.writes[..sink.writes.len() - 1].iter().all(|&(_, len)| len == PIECE_BYTES),
            "only the last is short"
        );
    }
}
