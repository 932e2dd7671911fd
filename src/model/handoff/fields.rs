//! How a handoff shows one piece of a session: a file name relative to the project
//! (or not at all), a field redacted and on one line. Pure.

use std::path::{Component, Path};

use crate::model::text::redact::redact;
use crate::model::text::sanitize::{cut_chars, single_line_trimmed};

/// A file path as the document shows it: relative to the root, on one line and
/// redacted. `None` for anything that is not a file inside the project: a path
/// outside the root (`~/.ssh/id_rsa`, `/etc/hosts`, `../x`), the root itself, or a
/// relative path that leaves it or starts at `~`. (Folders are dropped by the caller,
/// which can look at the disk.)
pub(crate) fn project_path(root: &Path, p: &str) -> Option<String> {
    let path = Path::new(p);
    let rel = if path.is_absolute() {
        path.strip_prefix(root).ok()?
    } else {
        path
    };
    let mut parts = rel.components().filter(|c| *c != Component::CurDir);
    let first = parts.next()?;
    let inside = matches!(first, Component::Normal(n) if !n.to_string_lossy().starts_with('~'))
        && parts.all(|c| matches!(c, Component::Normal(_)));
    if !inside {
        return None;
    }
    let shown = redacted_field(&rel.display().to_string(), 400);
    (!shown.is_empty()).then_some(shown)
}

/// Redacted, then on one line (control characters folded, see [`single_line`]) and
/// cut to `max` characters.
pub(crate) fn redacted_field(text: &str, max: usize) -> String {
    // Redacted while its lines are still lines (a key block, a continued string),
    // then folded onto one.
    let red = redact(text);
    cut_chars(&single_line_trimmed(&red), max)
}
