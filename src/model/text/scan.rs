//! Scanning a file for secrets as its bytes stream in, for the ladder's WIP commit:
//! every byte of every file it would commit goes through [`crate::model::text::redact`]'s
//! rules, however long the file (up to the caller's cap), in windows that overlap
//! so a secret across a window's edge is whole in one of them.
//!
//! Text is decoded first: UTF-8 (a byte-order mark dropped, invalid bytes replaced),
//! or UTF-16 when the file starts with a UTF-16 byte-order mark (little- or
//! big-endian), so a key in a file saved as UTF-16 reads as the key it is. A file
//! with a NUL byte anywhere (without a UTF-16 mark) is binary: its text cannot be
//! scanned honestly, so the caller does not commit it.
//!
//! Pure: the caller reads the file (see `app::ladder`) and feeds the bytes.

use crate::model::text::redact::{Rule, first_secret};

/// How much of the text before a window is scanned again with it: a secret up to
/// this long (a 16,384-bit RSA key in PEM is about 12.7 KB) is whole in one window.
pub(crate) const OVERLAP: usize = 16 * 1024;

/// A window is scanned once this much new text has come in.
pub(crate) const WINDOW: usize = 1024 * 1024;

/// What a scan found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing that looks like a secret.
    Clean,
    /// Something that looks like a secret, of this rule.
    Secret(&'static Rule),
    /// A NUL byte in a file that is not UTF-16: binary, not scannable.
    Binary,
}

/// The text encoding, known once the first bytes are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16Le,
    Utf16Be,
}

/// Decodes a stream of bytes into text, chunk by chunk: a character split between
/// two chunks is held until the rest of it arrives.
#[derive(Debug, Default)]
struct Decoder {
    encoding: Option<Encoding>,
    pending: Vec<u8>,
    /// A UTF-16 high surrogate waiting for its low half.
    high: Option<u16>,
}

impl Decoder {
    /// The text of `bytes` (with what was held back), or `Err(())` for binary.
    fn feed(&mut self, bytes: &[u8], last: bool) -> Result<String, ()> {
        self.pending.extend_from_slice(bytes);
        let encoding = match self.encoding {
            Some(e) => e,
            None => {
                if self.pending.len() < 3 && !last {
                    return Ok(String::new());
                }
                let (e, skip) = match self.pending.as_slice() {
                    [0xEF, 0xBB, 0xBF, ..] => (Encoding::Utf8, 3),
                    [0xFF, 0xFE, ..] => (Encoding::Utf16Le, 2),
                    [0xFE, 0xFF, ..] => (Encoding::Utf16Be, 2),
                    _ => (Encoding::Utf8, 0),
                };
                self.pending.drain(..skip);
                self.encoding = Some(e);
                e
            }
        };
        let text = match encoding {
            Encoding::Utf8 => self.utf8(last)?,
            Encoding::Utf16Le | Encoding::Utf16Be => self.utf16(encoding, last),
        };
        // A NUL in decoded UTF-16 (UTF-32, or binary behind a mark) is binary too.
        if text.contains('\0') {
            return Err(());
        }
        Ok(text)
    }

    fn utf8(&mut self, last: bool) -> Result<String, ()> {
        if memchr::memchr(0, &self.pending).is_some() {
            return Err(());
        }
        let mut out = String::with_capacity(self.pending.len());
        let mut rest: &[u8] = &self.pending;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(s);
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    out.push_str(std::str::from_utf8(good).unwrap_or_default());
                    match e.error_len() {
                        Some(n) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            rest = bad.get(n..).unwrap_or_default();
                        }
                        // Cut inside a character: the rest comes with the next chunk.
                        None if !last => {
                            rest = bad;
                            break;
                        }
                        None => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            rest = &[];
                            break;
                        }
                    }
                }
            }
        }
        let keep = rest.len();
        let from = self.pending.len() - keep;
        self.pending.drain(..from);
        Ok(out)
    }

    fn utf16(&mut self, encoding: Encoding, last: bool) -> String {
        let whole = self.pending.len() / 2 * 2;
        let mut units: Vec<u16> = self
            .pending
            .get(..whole)
            .unwrap_or_default()
            .chunks_exact(2)
            .map(|p| match (encoding, p) {
                (Encoding::Utf16Be, [a, b]) => u16::from_be_bytes([*a, *b]),
                (_, [a, b]) => u16::from_le_bytes([*a, *b]),
                _ => 0xFFFD,
            })
            .collect();
        self.pending.drain(..whole);
        if let Some(h) = self.high.take() {
            units.insert(0, h);
        }
        if !last && units.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
            self.high = units.pop();
        }
        let mut out: String = char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        if last && !self.pending.is_empty() {
            self.pending.clear();
            out.push(char::REPLACEMENT_CHARACTER);
        }
        out
    }
}

/// A scan in progress: feed it the file's bytes in order, then [`StreamScan::finish`].
#[derive(Debug, Default)]
pub(crate) struct StreamScan {
    decoder: Decoder,
    /// Text not scanned yet, after the overlap kept from the last window.
    window: String,
    /// Where the new (not yet scanned) text starts in `window`.
    fresh: usize,
    verdict: Option<Verdict>,
}

impl StreamScan {
    /// A new scan.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes of the file. `Some` once the answer is known (a secret,
    /// or binary): the rest need not be read.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Option<Verdict> {
        if self.verdict.is_none() {
            match self.decoder.feed(bytes, false) {
                Ok(text) => {
                    self.window.push_str(&text);
                    if self.window.len() - self.fresh >= WINDOW {
                        self.scan_window();
                    }
                }
                Err(()) => self.verdict = Some(Verdict::Binary),
            }
        }
        self.verdict
    }

    /// The answer, once every byte was fed.
    pub(crate) fn finish(mut self) -> Verdict {
        if self.verdict.is_none() {
            match self.decoder.feed(&[], true) {
                Ok(text) => {
                    self.window.push_str(&text);
                    if self.window.len() > self.fresh || self.fresh == 0 {
                        self.scan_window();
                    }
                }
                Err(()) => self.verdict = Some(Verdict::Binary),
            }
        }
        self.verdict.unwrap_or(Verdict::Clean)
    }

    /// Scans the window, then keeps its last [`OVERLAP`] bytes (from a character
    /// boundary) for the next one.
    fn scan_window(&mut self) {
        if let Some(rule) = first_secret(&self.window) {
            self.verdict = Some(Verdict::Secret(rule));
            return;
        }
        let mut cut = self.window.len().saturating_sub(OVERLAP);
        while cut > 0 && !self.window.is_char_boundary(cut) {
            cut -= 1;
        }
        self.window.drain(..cut);
        self.fresh = self.window.len();
    }
}

/// Scans `bytes` whole (fed in pieces of `piece` bytes): a convenience for tests and
/// small inputs.
pub fn scan_bytes(bytes: &[u8], piece: usize) -> Verdict {
    let mut s = StreamScan::new();
    for chunk in bytes.chunks(piece.max(1)) {
        if let Some(v) = s.feed(chunk) {
            return v;
        }
    }
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    const KEY: &str = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s";

    fn utf16(text: &str, big: bool) -> Vec<u8> {
        let mut out = if big {
            vec![0xFE, 0xFF]
        } else {
            vec![0xFF, 0xFE]
        };
        for u in text.encode_utf16() {
            out.extend(if big {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        out
    }

    fn found(v: Verdict) -> Option<&'static str> {
        match v {
            Verdict::Secret(r) => Some(r.id),
            _ => None,
        }
    }

    #[test]
    fn a_key_after_the_first_mebibyte_is_found() {
        // Before: only the first MiB of a file was read.
        let mut text = "fn main() {}\n".repeat(200_000);
        assert!(text.len() > 2 * 1024 * 1024);
        let _ = writeln!(text, "const T: &str = \"{KEY}\";");
        for piece in [64 * 1024, 1_000_003] {
            assert_eq!(
                found(scan_bytes(text.as_bytes(), piece)),
                Some("github-token")
            );
        }
        assert_eq!(
            scan_bytes("fn main() {}\n".repeat(200_000).as_bytes(), 65536),
            Verdict::Clean
        );
    }

    #[test]
    fn a_key_across_a_window_edge_is_whole_in_the_next_window() {
        for offset in [0, 5, 17, 30, 38] {
            let mut text = "x".repeat(WINDOW - offset);
            text.push(' ');
            text.push_str(KEY);
            text.push_str(" tail\n");
            for piece in [4096, 7919] {
                assert_eq!(
                    found(scan_bytes(text.as_bytes(), piece)),
                    Some("github-token"),
                    "offset {offset}, piece {piece}"
                );
            }
        }
        // A PEM block across the edge too.
        let mut text = "y\n".repeat(WINDOW / 2 - 20);
        text.push_str("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1b2c3d4e5f6\n-----END RSA PRIVATE KEY-----\n");
        assert_eq!(
            found(scan_bytes(text.as_bytes(), 4096)),
            Some("private-key")
        );
    }

    #[test]
    fn utf16_files_are_decoded_first() {
        let text = format!("[settings]\r\ntoken = {KEY}\r\n");
        for big in [false, true] {
            let bytes = utf16(&text, big);
            // Before: read as UTF-8, the NULs between the letters hid the key.
            assert!(!String::from_utf8_lossy(&bytes).contains(KEY));
            for piece in [1, 3, 4096] {
                assert_eq!(found(scan_bytes(&bytes, piece)), Some("github-token"));
            }
        }
        // A character outside the BMP (a surrogate pair) split between pieces.
        let bytes = utf16("emoji 😀 then nothing\n", false);
        assert_eq!(scan_bytes(&bytes, 3), Verdict::Clean);
    }

    #[test]
    fn a_key_split_over_lines_by_a_continuation_is_found() {
        let text = "export GITHUB_TOKEN=ghp_R4nd0mT0k3nV4l\\\n  u3F0rT3st1ngPurp0s3s\n";
        assert!(matches!(scan_bytes(text.as_bytes(), 8), Verdict::Secret(_)));
        let text = "key:\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDGc3BlYwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\n";
        assert_eq!(
            found(scan_bytes(text.as_bytes(), 8)),
            Some("private-key-body")
        );
    }

    #[test]
    fn binary_is_refused_and_text_with_a_bom_is_not() {
        assert_eq!(
            scan_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 4),
            Verdict::Binary
        );
        let mut late = "text\n".repeat(300_000).into_bytes();
        late.push(0);
        assert_eq!(scan_bytes(&late, 65536), Verdict::Binary);
        assert_eq!(scan_bytes(b"\xEF\xBB\xBFplain text\n", 2), Verdict::Clean);
        // UTF-32 (NULs after decoding as UTF-16) is not scanned as text.
        assert_eq!(scan_bytes(b"\xFF\xFE\0\0a\0\0\0", 4), Verdict::Binary);
        // Invalid UTF-8 is read around, not refused.
        let mut latin1 = b"caf\xe9 ".to_vec();
        latin1.extend_from_slice(KEY.as_bytes());
        assert_eq!(found(scan_bytes(&latin1, 2)), Some("github-token"));
        assert_eq!(scan_bytes(b"", 1), Verdict::Clean);
    }
}
