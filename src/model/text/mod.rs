//! Text on its way out of forge: the one sanitiser for anything printed to a terminal
//! or kept as a one-line field ([`sanitize`]), the table of secret shapes every exit
//! redacts with ([`redact`]), the detector `forge doctor` runs over learned-pattern
//! files ([`secrets`]), and the streaming scan of the files a WIP commit would take
//! ([`scan`]).
//!
//! The rule of this wing: outside text is printed only through [`sanitize`], and
//! stored or sent only through [`redact`]; a new secret shape is one row of
//! [`redact::RULES`] and nothing else. `scan` lives here, not with the ladder that
//! uses it, because it is the redaction rules run over bytes. This wing uses no other
//! wing, so every other one can use it.

pub mod redact;
pub mod sanitize;
pub mod scan;
pub(crate) mod secrets;

/// `n` with the singular or plural noun: `count(1, "line", "lines")` is "1 line".
pub(crate) fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_agree_with_their_number() {
        assert_eq!(count(1, "line", "lines"), "1 line");
        assert_eq!(count(2, "line", "lines"), "2 lines");
        assert_eq!(count(0, "line", "lines"), "0 lines");
    }
}
