//! The hook events as `--help` names them, built from the one event table
//! ([`FORGE_EVENTS`], and [`RELAY_EVENT`] for `forge run`'s sessions), so a new event
//! reaches `forge init --help`, `forge hook --help` and `forge man` without a second
//! list to keep (ARCHITECTURE.md, "A new hook event").

use crate::model::agents::relay::RELAY_EVENT;

use super::settings::FORGE_EVENTS;

/// The width the long help texts' paragraphs are wrapped at (as their doc comments
/// were by hand).
pub const HELP_WIDTH: usize = 81;

/// `a, b and c`: `words` listed with commas and a last `and`.
pub fn listed(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `text`'s words filled into lines of at most `width` characters (a longer word
/// stands alone on its line).
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if line > 0 && line + 1 + len > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += len;
    }
    out
}

/// `forge hook [EVENT]`'s help for its argument.
pub fn hook_event_help() -> String {
    format!(
        "The hook event ({}; {RELAY_EVENT} in `forge run`'s sessions only); unknown names \
         are logged only",
        FORGE_EVENTS.join(", ")
    )
}

/// The paragraph of `forge init --help` that says what init writes, its events
/// from [`FORGE_EVENTS`], wrapped at [`HELP_WIDTH`].
pub fn init_wiring_paragraph() -> String {
    wrap(
        &format!(
            "Merges into .claude/settings.json (--local: .claude/settings.local.json; --user: \
             ~/.claude/settings.json) one `forge hook <Event>` entry for each of {}, plus \
             forge's statusLine. {INIT_REST}",
            listed(&FORGE_EVENTS)
        ),
        HELP_WIDTH,
    )
}

/// What follows the event list in [`init_wiring_paragraph`].
const INIT_REST: &str = "They run `forge` when `forge` on PATH is this binary (so a \
committed file works for everyone who has forge installed), else this binary by its \
absolute path, with a warning when the file is tracked by git. Only forge's entries \
change: every other key and hook is kept, and so is the file's formatting. Hook entries \
whose script no longer exists are removed and listed (in the shared \
.claude/settings.json only those inside the project, unless --prune-dead). The old file \
is kept in .forge/backups/ (git-ignored; with --user, next to it as \
settings.json.forge-bak-<time>). It also creates .forge/logs and .forge/handoffs and \
adds `.forge/` to .gitignore (with --local, nothing goes into the shared .gitignore: the \
local settings file goes into the repository's own .git/info/exclude). Every entry is \
guarded (`command -v forge … && exec forge hook <Event> || true`), so a teammate without \
forge gets no failed hook. Running it twice changes nothing the second time.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_listed_with_a_last_and() {
        assert_eq!(listed(&[]), "");
        assert_eq!(listed(&["Stop"]), "Stop");
        assert_eq!(listed(&["A", "B", "C"]), "A, B and C");
    }

    #[test]
    fn wrap_fills_lines_to_the_width_and_keeps_a_long_word_whole() {
        assert_eq!(wrap("aa bb cc", 5), "aa bb\ncc");
        assert_eq!(wrap("  aa\n bb  ", 80), "aa bb");
        assert_eq!(wrap("a verylongword b", 4), "a\nverylongword\nb");
        assert_eq!(wrap("", 10), "");
    }

    #[test]
    fn every_event_of_the_table_is_in_both_help_texts() {
        let init = init_wiring_paragraph();
        let hook = hook_event_help();
        for e in FORGE_EVENTS {
            assert!(init.contains(e), "{e} missing from forge init --help");
            assert!(hook.contains(e), "{e} missing from forge hook --help");
        }
        assert!(hook.contains(RELAY_EVENT));
        assert!(init.lines().all(|l| l.chars().count() <= HELP_WIDTH));
    }
}
