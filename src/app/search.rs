//! The dashboard's `/` filter over the handoffs' text: read on demand, never kept
//! (an inbox may hold thousands of handoffs; the list keeps only what it shows).

use std::collections::HashSet;
use std::path::PathBuf;

#[cfg(test)]
use crate::model::handoff::entry::HandoffEntry;
use crate::store;

/// How much of each handoff is searched.
pub(crate) const BODY_CAP: u64 = 256 * 1024;

/// The handoffs whose text (the first [`BODY_CAP`] bytes, read as [`store::read_capped`]
/// reads: no link, no special file) holds `needle`, compared without case. `needle`
/// must be lowercase.
#[cfg(test)]
pub(crate) fn bodies(handoffs: &[HandoffEntry], needle: &str) -> HashSet<PathBuf> {
    let paths: Vec<PathBuf> = handoffs.iter().map(|h| h.path.clone()).collect();
    bodies_of(&paths, needle, || false).unwrap_or_default()
}

/// [`bodies`] over file paths, giving up (`None`) as soon as `cancelled` says a newer
/// search has started: the dashboard searches on a thread of its own, and every key
/// typed starts a new one.
pub(crate) fn bodies_of(
    paths: &[PathBuf],
    needle: &str,
    cancelled: impl Fn() -> bool,
) -> Option<HashSet<PathBuf>> {
    let mut hits = HashSet::new();
    if needle.is_empty() {
        return Some(hits);
    }
    for p in paths {
        if cancelled() {
            return None;
        }
        if store::read_capped(p, BODY_CAP)
            .is_some_and(|b| String::from_utf8_lossy(&b).to_lowercase().contains(needle))
        {
            hits.insert(p.clone());
        }
    }
    Some(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_searched_without_case_and_links_are_not_read() {
        let t = tempfile::tempdir().unwrap();
        let a = t.path().join("handoff-20261121-094500.md");
        std::fs::write(&a, "# Session handoff\nMove src/routes/Orders.rs\n").unwrap();
        let b = t.path().join("handoff-20261121-100000.md");
        std::fs::write(&b, "# Session handoff\nnothing here\n").unwrap();
        let secret = t.path().join("secret.txt");
        std::fs::write(&secret, "orders.rs").unwrap();
        let link = t.path().join("handoff-20261121-110000.md");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let list: Vec<HandoffEntry> = [&a, &b, &link]
            .iter()
            .map(|p| HandoffEntry::parse((*p).clone(), "# Session handoff\n", None).unwrap())
            .collect();
        let hits = bodies(&list, "orders.rs");
        assert_eq!(hits, HashSet::from([a.clone()]));
        assert!(bodies(&list, "").is_empty());
        // A newer search stops this one.
        assert_eq!(bodies_of(&[a], "orders.rs", || true), None);
    }
}
