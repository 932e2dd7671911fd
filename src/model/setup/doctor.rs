//! The pure decisions of `forge doctor`'s checks (`app::doctor`): what is wrong with
//! a `model:` value in a command's or agent's front matter, and which program a
//! `sh -c` command starts with.

use super::settings;

/// The model aliases Claude Code accepts in command and agent front matter (full
/// model ids such as `claude-sonnet-4-6` are accepted too, see [`model_problem`]).
pub(crate) const MODEL_ALIASES: [&str; 4] = ["opus", "sonnet", "haiku", "inherit"];

/// What is wrong with a `model:` value, or `None` when Claude Code accepts it: one of
/// [`MODEL_ALIASES`], or a full model id `claude-…` (lower-case letters, digits, `.`
/// and `-`), either optionally with the 1M-context suffix `[1m]` (docs/client-reference.md §7.2).
pub(crate) fn model_problem(value: &str) -> Option<String> {
    fn accepted(v: &str) -> bool {
        let base = v
            .strip_suffix("[1m]")
            .or_else(|| v.strip_suffix("[1M]"))
            .unwrap_or(v);
        if MODEL_ALIASES.contains(&base) {
            return base == v || base == "opus" || base == "sonnet";
        }
        base.strip_prefix("claude-").is_some_and(|rest| {
            !rest.is_empty()
                && rest.chars().any(|c| c.is_ascii_alphabetic())
                && rest
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-')
        })
    }
    if accepted(value) {
        return None;
    }
    let lower = value.to_ascii_lowercase();
    if lower != value && accepted(&lower) {
        let what = if lower.starts_with("claude-") {
            "model ids"
        } else {
            "aliases"
        };
        return Some(format!("{what} are lower-case: {lower}"));
    }
    Some(format!(
        "use {} or a full model id such as claude-sonnet-4-6",
        MODEL_ALIASES.join(", ")
    ))
}

/// Shell words that are not programs on PATH: builtins and keywords (a command that
/// starts with one cannot be checked by its first word, and needs no file).
const SHELL_BUILTINS: [&str; 33] = [
    ".", ":", "[", "alias", "break", "case", "cd", "command", "continue", "echo", "eval", "exec",
    "exit", "export", "false", "for", "if", "kill", "printf", "pwd", "read", "readonly", "return",
    "set", "shift", "test", "times", "trap", "true", "umask", "unset", "wait", "while",
];

/// The program a `sh -c` command starts with: its first word after `NAME=value`
/// assignments (and after `exec`/`command`), `None` when that is a builtin or
/// keyword, a subshell or anything but a plain word (`$TOOL`, `(`, `{`).
pub(crate) fn sh_program(command: &str) -> Option<String> {
    let words = settings::split_words(command);
    let mut it = words.iter().skip_while(|w| {
        w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty()
                && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !k.as_bytes()[0].is_ascii_digit()
        })
    });
    let mut first = it.next()?.as_str();
    if first == "exec" || first == "command" {
        first = it.next()?.as_str();
    }
    let first = first.trim_end_matches(';');
    let plain = !first.is_empty()
        && !first.contains([
            '$', '`', '(', ')', '{', '}', '|', '&', '<', '>', ';', '*', '?',
        ]);
    (plain && !SHELL_BUILTINS.contains(&first)).then(|| first.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sh_command_is_checked_by_its_first_program() {
        assert_eq!(
            sh_program("openclaw brief --json").as_deref(),
            Some("openclaw")
        );
        assert_eq!(
            sh_program("FOO=1 BAR=x /opt/bin/orch wake").as_deref(),
            Some("/opt/bin/orch")
        );
        assert_eq!(sh_program("exec my-orch --x").as_deref(), Some("my-orch"));
        assert_eq!(
            sh_program("cat >> '/tmp/log'; echo").as_deref(),
            Some("cat")
        );
        assert_eq!(sh_program("echo hi"), None);
        assert_eq!(sh_program("cd /x && make"), None);
        assert_eq!(sh_program("$ORCH wake"), None);
        assert_eq!(sh_program("(cd /x; make)"), None);
        assert_eq!(sh_program(""), None);
    }

    #[test]
    fn model_values_aliases_and_full_ids() {
        for ok in [
            "opus",
            "sonnet",
            "haiku",
            "inherit",
            "claude-sonnet-4-6",
            "claude-opus-4-6[1m]",
            "claude-haiku-4-5-20251001",
            "claude-3.5-sonnet",
            "sonnet[1m]",
        ] {
            assert_eq!(model_problem(ok), None, "{ok}");
        }
        assert_eq!(
            model_problem("Opus").as_deref(),
            Some("aliases are lower-case: opus")
        );
        assert_eq!(
            model_problem("Claude-Sonnet-4-6").as_deref(),
            Some("model ids are lower-case: claude-sonnet-4-6")
        );
        for bad in [
            "gpt-4",
            "gpt-4o",
            "claude-",
            "claude",
            "opus-4",
            "claude-4 6",
            "inherit[1m]",
        ] {
            let p = model_problem(bad).unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(p.contains("opus, sonnet, haiku, inherit"), "{bad}: {p}");
        }
    }
}
