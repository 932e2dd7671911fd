//! Session ids as people type them: a unique prefix is enough, like git's short
//! hashes (`forge log --session 3f0c`). Pure: the candidates come from the caller
//! (`crate::store::sessions::resolve` gathers the ones forge knows).

use std::fmt;

/// Why a prefix names no single session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PrefixError {
    /// Nothing was given.
    Empty,
    /// No known session starts with it.
    NoMatch {
        /// What was given.
        prefix: String,
    },
    /// Several sessions start with it.
    Ambiguous {
        /// What was given.
        prefix: String,
        /// The sessions it matches, sorted.
        matches: Vec<String>,
    },
}

impl fmt::Display for PrefixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "--session needs a session id (or the start of one)"),
            Self::NoMatch { prefix } => write!(
                f,
                "no session starting with {prefix:?} is known here: `forge status` lists sessions"
            ),
            Self::Ambiguous { prefix, matches } => {
                let shown: Vec<String> = matches
                    .iter()
                    .take(10)
                    .map(|m| crate::model::text::sanitize::single_line(m).into_owned())
                    .collect();
                let more = matches.len().saturating_sub(shown.len());
                write!(
                    f,
                    "{prefix:?} matches {} sessions: {}{}; give more characters",
                    matches.len(),
                    shown.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                )
            }
        }
    }
}

impl std::error::Error for PrefixError {}

/// The one session among `candidates` that `prefix` names: the session whose id is
/// `prefix` exactly, else the only one that starts with it (letters compared without
/// case). Duplicates in `candidates` count once.
pub(crate) fn resolve<'a>(
    prefix: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Result<String, PrefixError> {
    let prefix = prefix.trim();
    if prefix.is_empty() {
        return Err(PrefixError::Empty);
    }
    let want = prefix.to_lowercase();
    let mut matches: Vec<&str> = Vec::new();
    for c in candidates {
        if c == prefix {
            return Ok(c.to_owned());
        }
        if c.to_lowercase().starts_with(&want) && !matches.contains(&c) {
            matches.push(c);
        }
    }
    matches.sort_unstable();
    match matches.as_slice() {
        [one] => Ok((*one).to_owned()),
        [] => Err(PrefixError::NoMatch {
            prefix: prefix.to_owned(),
        }),
        many => Err(PrefixError::Ambiguous {
            prefix: prefix.to_owned(),
            matches: many.iter().map(|s| (*s).to_owned()).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDS: [&str; 4] = [
        "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21",
        "3f0d0000-0000-4000-8000-000000000001",
        "a1b2c3d4-0000-4000-8000-000000000002",
        "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21",
    ];

    #[test]
    fn a_unique_prefix_names_its_session() {
        assert_eq!(resolve("a1", IDS).unwrap(), IDS[2]);
        assert_eq!(
            resolve("3f0c", IDS).unwrap(),
            IDS[0],
            "a duplicate counts once"
        );
        assert_eq!(resolve("3F0D", IDS).unwrap(), IDS[1]);
        assert_eq!(resolve(IDS[1], IDS).unwrap(), IDS[1]);
        // An exact id wins even when it starts another one.
        assert_eq!(resolve("ab", ["abc", "ab"]).unwrap(), "ab");
    }

    #[test]
    fn ambiguous_and_unknown_prefixes_say_so() {
        let err = resolve("3f0", IDS).unwrap_err();
        assert_eq!(
            err,
            PrefixError::Ambiguous {
                prefix: "3f0".into(),
                matches: vec![IDS[0].into(), IDS[1].into()]
            }
        );
        let text = err.to_string();
        assert!(
            text.contains("matches 2 sessions") && text.contains(IDS[1]),
            "{text}"
        );
        assert_eq!(
            resolve("ff", IDS).unwrap_err(),
            PrefixError::NoMatch {
                prefix: "ff".into()
            }
        );
        assert_eq!(resolve("  ", IDS).unwrap_err(), PrefixError::Empty);
    }
}
