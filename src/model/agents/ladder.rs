//! The escalation ladder (after anvil's context checkpoints): the words of an alert,
//! the WIP commit's message, and the rules that keep a WIP commit safe.

use crate::model::named::named;
use crate::model::session::level::Level;

named! {
    /// What the ladder can do at a level (`[ladder] L1`, `L2`, `L3`).
    pub(crate) enum LadderAction in lists as "action" {
        /// A handoff (at L1: the status line's threshold handoff).
        Handoff = "handoff",
        /// A note for the model's next prompt.
        Alert = "alert",
        /// A WIP commit of the tracked changes (never on a protected branch).
        WipCommit = "wip_commit",
    }
}

/// The note the model gets at its next prompt once a session reaches `level`.
pub(crate) fn alert_text(level: Level, pct: f64) -> String {
    let advice = match level {
        Level::L0 | Level::L1 => "keep the current step small and hand off soon",
        Level::L2 => "finish the current step, then hand off",
        Level::L3 => "stop and hand off now: the context is nearly full",
    };
    format!("forge: context {pct:.0}% ({level}): {advice} (run `forge handoff`).")
}

/// `[WIP] <task> - checkpoint (L2 at 86%)`.
pub(crate) fn wip_message(task: Option<&str>, level: Level, pct: f64) -> String {
    let task = task
        .map(|t| crate::model::text::sanitize::single_line(t.trim()).into_owned())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "work".to_owned());
    // Redacted before it is cut: the message goes into git history.
    let task = crate::model::text::redact::redact(&task);
    let task: String = task.chars().take(80).collect();
    format!("[WIP] {task} - checkpoint ({level} at {pct:.0}%)")
}

/// Whether `branch` matches one of `patterns` (`*` matches any run of characters).
pub(crate) fn is_protected(branch: &str, patterns: &[String]) -> bool {
    patterns.iter().any(|p| glob(p.trim(), branch))
}

fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(tail) = text.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|i| tail.is_char_boundary(*i))
                .any(|i| glob(rest, &tail[i..]))
        }
    }
}

/// Whether a file's name says it holds secrets (never committed by a WIP commit).
pub(crate) fn looks_like_secret_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    name == ".env"
        || name.starts_with(".env.")
        || name.ends_with(".pem")
        || name.ends_with(".key")
        || name.ends_with(".p12")
        || name.ends_with(".pfx")
        || name.starts_with("id_rsa")
        || name.starts_with("id_ed25519")
        || name.starts_with("id_ecdsa")
        || name.contains("credentials")
        || name.contains("secret")
        || name == ".netrc"
        || name == ".npmrc"
        || name == ".pgpass"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_rules() {
        assert_eq!(
            alert_text(Level::L2, 86.2),
            "forge: context 86% (L2): finish the current step, then hand off (run `forge handoff`)."
        );
        assert_eq!(
            wip_message(Some("T-012\nx"), Level::L2, 86.0),
            "[WIP] T-012 x - checkpoint (L2 at 86%)"
        );
        assert_eq!(
            wip_message(None, Level::L3, 96.0),
            "[WIP] work - checkpoint (L3 at 96%)"
        );
        let p: Vec<String> = ["main", "master", "release/*"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert!(is_protected("main", &p));
        assert!(is_protected("release/2.1", &p));
        assert!(!is_protected("feat/pool", &p));
        assert!(!is_protected("mainline", &p));
        assert!(is_protected("x", &["*".to_owned()]));
        for bad in [
            ".env",
            "config/.env.local",
            "deploy/server.pem",
            "id_rsa",
            "aws_credentials.json",
            "db-secret.yaml",
        ] {
            assert!(looks_like_secret_file(bad), "{bad}");
        }
        for ok in ["src/main.rs", "README.md", "envelope.rs"] {
            assert!(!looks_like_secret_file(ok), "{ok}");
        }
    }
}
