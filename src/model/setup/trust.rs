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

#[cfg(test)]
mod tests {
    use super::*;

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
