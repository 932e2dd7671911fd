//! Trusting a project's `.forge/config.toml` (`forge trust`), as `direnv allow` and
//! `mise trust` do: the file ships with the repository, so its keys that make forge
//! act apply only once you have trusted its exact content, and an edit revokes that.
//!
//! Pure: the content hash, the record kept per project in your state folder
//! (`crate::store::trust` reads and writes it) and the decision. Which keys act is
//! `crate::config::keys::SIDES`.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The record's format version.
pub(crate) const VERSION: u32 = 1;

/// The SHA-256 of `bytes`, in lower-case hex: what a trust record names.
pub(crate) fn content_hash(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The name of a project's records in the trust folder: the SHA-256 of its canonical
/// root, cut to 32 hex digits (a fixed-length name that any path gives, and that no
/// path can turn into `..` or a subfolder).
pub(crate) fn project_id(root_key: &str) -> String {
    let mut h = hex(&Sha256::digest(root_key.as_bytes()));
    h.truncate(32);
    h
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// What `forge trust` keeps for a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    /// [`VERSION`].
    pub(crate) version: u32,
    /// The project's canonical root (the record's key; also for a person reading the
    /// folder).
    pub(crate) project: String,
    /// The file that was trusted.
    pub(crate) config: String,
    /// Its content's [`content_hash`] when trusted.
    pub(crate) sha256: String,
    /// When (ISO 8601 UTC).
    pub(crate) trusted_at: String,
}

/// Where a project file stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum Trust {
    /// There is no project file.
    Absent,
    /// The file has no key that acts: everything in it applies.
    Inert,
    /// You trusted this very content: everything in it applies.
    Trusted {
        /// The content's hash.
        sha256: String,
        /// When you trusted it.
        trusted_at: String,
    },
    /// Not trusted: its acting keys are ignored.
    Untrusted {
        /// The content's hash now.
        sha256: String,
        /// You trusted an earlier content of the file (it was edited since).
        changed: bool,
    },
}

impl Trust {
    /// The state of a file whose content hashes to `sha256`, given the record kept
    /// for its project (if any).
    pub(crate) fn judge(sha256: &str, record: Option<&Record>) -> Self {
        match record {
            Some(r) if r.version == VERSION && r.sha256 == sha256 => Self::Trusted {
                sha256: sha256.to_owned(),
                trusted_at: r.trusted_at.clone(),
            },
            other => Self::Untrusted {
                sha256: sha256.to_owned(),
                changed: other.is_some(),
            },
        }
    }

    /// Whether the file's acting keys apply.
    pub(crate) fn applies(&self) -> bool {
        !matches!(self, Self::Untrusted { .. })
    }

    /// Why acting keys were left out, in words (for `config show`, the log, doctor).
    pub(crate) fn why_ignored(&self) -> &'static str {
        match self {
            Self::Untrusted { changed: true, .. } => {
                "the file changed since you trusted it (an edit revokes trust)"
            }
            _ => "you have not trusted this file (a repository can ship it)",
        }
    }
}

/// How many keys a notice names before it says how many more there are.
const KEYS_NAMED: usize = 3;

/// The line that tells the person a project config waits for their trust: which
/// file, why, which keys it leaves out of what forge does (the first few, then how
/// many more), and the command that shows them and asks. `None` unless `trust` is
/// [`Trust::Untrusted`] and some key waits (`keys`, as named in messages:
/// `ladder.L1`, `agents.builder.notify.mode`). `forge status` and the dashboard say
/// it while it holds; the SessionStart notice to the person says it once per content
/// ([`person_notice`]).
pub(crate) fn untrusted_line(file: &str, keys: &[String], trust: &Trust) -> Option<String> {
    let Trust::Untrusted { changed, .. } = trust else {
        return None;
    };
    if keys.is_empty() {
        return None;
    }
    let named: Vec<&str> = keys.iter().take(KEYS_NAMED).map(String::as_str).collect();
    let more = keys.len().saturating_sub(KEYS_NAMED);
    let more = match more {
        0 => String::new(),
        1 => " and 1 more".to_owned(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "⚠ {file} is not trusted{}: forge leaves out what {} would make it do ({}{more}); `forge trust` shows {} and asks",
        if *changed { " since it changed" } else { "" },
        if keys.len() == 1 {
            "its key"
        } else {
            "its keys"
        },
        named.join(", "),
        if keys.len() == 1 { "it" } else { "them" },
    ))
}

/// The SessionStart notice to the person about an untrusted project config, once
/// per content of the file: the line ([`untrusted_line`]) and the content hash to
/// keep as said, when `said` (the hash said last) is another content's. `None` when
/// there is nothing to say, or this very content was said already. Its end: the
/// file trusted, emptied of what waits, removed — or said once for this content; an
/// edit is a new content, said again.
pub(crate) fn person_notice(
    file: &str,
    keys: &[String],
    trust: &Trust,
    said: Option<&str>,
) -> Option<(String, String)> {
    let Trust::Untrusted { sha256, .. } = trust else {
        return None;
    };
    if said == Some(sha256.as_str()) {
        return None;
    }
    untrusted_line(file, keys, trust).map(|line| (line, sha256.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn untrusted(sha: &str, changed: bool) -> Trust {
        Trust::Untrusted {
            sha256: sha.into(),
            changed,
        }
    }

    fn keys(names: &[&str]) -> Vec<String> {
        names.iter().map(|k| (*k).to_owned()).collect()
    }

    #[test]
    fn the_untrusted_line_names_the_file_the_keys_and_forge_trust() {
        let line = untrusted_line(
            ".forge/config.toml",
            &keys(&["context.warn", "ladder.L2"]),
            &untrusted("aa", false),
        )
        .unwrap();
        assert_eq!(
            line,
            "⚠ .forge/config.toml is not trusted: forge leaves out what its keys would make it do \
             (context.warn, ladder.L2); `forge trust` shows them and asks"
        );
        let many = untrusted_line(
            ".forge/config.toml",
            &keys(&["a.a", "b.b", "c.c", "d.d", "e.e"]),
            &untrusted("aa", true),
        )
        .unwrap();
        assert!(
            many.contains("not trusted since it changed")
                && many.contains("(a.a, b.b, c.c and 2 more)"),
            "{many}"
        );
        let one =
            untrusted_line("f", &keys(&["relay.threshold"]), &untrusted("aa", false)).unwrap();
        assert!(
            one.contains("what its key would") && one.contains("shows it and asks"),
            "{one}"
        );
        // Nothing to say: trusted, inert, absent, or no key waits.
        for t in [
            Trust::Absent,
            Trust::Inert,
            Trust::Trusted {
                sha256: "aa".into(),
                trusted_at: String::new(),
            },
        ] {
            assert_eq!(untrusted_line("f", &keys(&["a.b"]), &t), None, "{t:?}");
        }
        assert_eq!(untrusted_line("f", &[], &untrusted("aa", false)), None);
    }

    #[test]
    fn the_person_is_told_once_per_content() {
        let k = keys(&["ladder.L1"]);
        let (line, sha) = person_notice("f", &k, &untrusted("aa", false), None).unwrap();
        assert!(line.contains("forge trust"));
        assert_eq!(sha, "aa");
        // Said for this content: not again.
        assert_eq!(
            person_notice("f", &k, &untrusted("aa", false), Some("aa")),
            None
        );
        // An edit is another content: said again.
        assert_eq!(
            person_notice("f", &k, &untrusted("bb", true), Some("aa")).map(|(_, s)| s),
            Some("bb".to_owned())
        );
        // Trusted: nothing, whatever was said.
        let trusted = Trust::Trusted {
            sha256: "bb".into(),
            trusted_at: String::new(),
        };
        assert_eq!(person_notice("f", &k, &trusted, Some("aa")), None);
    }

    #[test]
    fn hashes_are_sha256_and_ids_fixed_length() {
        assert_eq!(
            content_hash(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            content_hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        for root in ["/p", "/p/../../etc", "/a b/c\n"] {
            let id = project_id(root);
            assert_eq!(id.len(), 32);
            assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        }
        assert_ne!(project_id("/p/a"), project_id("/p/b"));
    }

    #[test]
    fn only_the_exact_content_is_trusted() {
        let rec = |sha: &str| Record {
            version: VERSION,
            project: "/p".into(),
            config: "/p/.forge/config.toml".into(),
            sha256: sha.into(),
            trusted_at: "2026-11-26T10:00:00Z".into(),
        };
        assert!(Trust::judge("aa", Some(&rec("aa"))).applies());
        let edited = Trust::judge("bb", Some(&rec("aa")));
        assert!(!edited.applies());
        assert!(edited.why_ignored().contains("changed"));
        let never = Trust::judge("bb", None);
        assert_eq!(
            never,
            Trust::Untrusted {
                sha256: "bb".into(),
                changed: false
            }
        );
        assert!(never.why_ignored().contains("not trusted"));
        // A record of another format version is not trusted.
        let mut old = rec("aa");
        old.version = 0;
        assert!(!Trust::judge("aa", Some(&old)).applies());
        assert!(Trust::Absent.applies() && Trust::Inert.applies());
    }
}
