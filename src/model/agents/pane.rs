//! Answering a session from the dashboard: what its tmux pane must show before a
//! key is sent to it. The pane is read first (`tmux capture-pane`); a key goes
//! only when the pane shows the very prompt it answers — the pinned client's
//! permission dialog ("Do you want to proceed?", its options numbered, `❯` on the
//! selected one), or its empty input prompt for a new prompt. Anything else is
//! refused, in words, and nothing is sent.

/// The question of the client's permission dialog (2.1.330, as the e2e suite
/// sees it).
pub(crate) const PERMISSION_QUESTION: &str = "Do you want to proceed?";

/// What the person answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// "1. Yes": run the tool.
    Approve,
    /// Esc: "No" (the client asks what to do instead).
    Deny,
}

impl Answer {
    /// `approve` or `deny`.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Deny => "deny",
        }
    }
}

/// The tmux keys that give `answer` to the permission dialog the pane shows, or
/// why nothing is sent: the pane shows no permission dialog, or (to approve) its
/// selection is not on "1. Yes" — Enter would pick another option.
pub(crate) fn permission_keys(
    screen: &str,
    answer: Answer,
) -> Result<&'static [&'static str], String> {
    if !screen.contains(PERMISSION_QUESTION) {
        return Err("its pane does not show a permission prompt: nothing was sent".to_owned());
    }
    match answer {
        Answer::Deny => Ok(&["Escape"]),
        Answer::Approve => {
            let on_yes = screen.lines().any(|l| {
                l.trim_start()
                    .strip_prefix('❯')
                    .is_some_and(|r| r.trim_start().starts_with("1. Yes"))
            });
            if on_yes {
                Ok(&["Enter"])
            } else {
                Err(
                    "its permission prompt's selection is not on \"1. Yes\": answer in its pane"
                        .to_owned(),
                )
            }
        }
    }
}

/// Whether the pane shows the client's input prompt with nothing typed and no
/// dialog open: then a prompt typed into it is the session's next prompt.
pub(crate) fn waits_for_a_prompt(screen: &str) -> Result<(), String> {
    if screen.contains(PERMISSION_QUESTION) {
        return Err("its pane shows a permission prompt: answer that first (y or n)".to_owned());
    }
    let empty_prompt = screen.lines().any(|l| {
        let t = l.trim_start_matches(['│', ' ']);
        t.strip_prefix('❯').is_some_and(|r| {
            let r = r.trim_matches(|c: char| c.is_whitespace() || c == '│');
            r.is_empty()
        })
    });
    if empty_prompt {
        Ok(())
    } else {
        Err("its pane does not show an empty prompt: nothing was sent".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIALOG: &str = " Bash command\n\n   echo hi > made.txt\n   Make a file\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and don't ask again for echo commands in /tmp/x\n   3. No, and tell Claude what to do differently (esc)\n";

    #[test]
    fn a_key_goes_only_to_the_prompt_it_answers() {
        assert_eq!(permission_keys(DIALOG, Answer::Approve), Ok(&["Enter"][..]));
        assert_eq!(permission_keys(DIALOG, Answer::Deny), Ok(&["Escape"][..]));
        let moved = DIALOG
            .replace(" ❯ 1. Yes", "   1. Yes")
            .replace("   3. No", " ❯ 3. No");
        assert!(
            permission_keys(&moved, Answer::Approve)
                .unwrap_err()
                .contains("not on \"1. Yes\"")
        );
        assert!(permission_keys(&moved, Answer::Deny).is_ok());
        let idle = "╭──────╮\n│ ❯    │\n╰──────╯\n";
        assert!(
            permission_keys(idle, Answer::Approve)
                .unwrap_err()
                .contains("does not show a permission prompt")
        );
        assert_eq!(waits_for_a_prompt(idle), Ok(()));
        assert!(waits_for_a_prompt("│ ❯ half typed │").is_err());
        assert!(
            waits_for_a_prompt(DIALOG)
                .unwrap_err()
                .contains("answer that first")
        );
        assert!(waits_for_a_prompt("✻ Working… (esc to interrupt)").is_err());
    }
}
