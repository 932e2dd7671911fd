//! The slash commands `forge init --commands` installs (`/forge-learn`,
//! `/forge-continue`): their shipped text, rendered for the forge program the
//! entries name, and whether an installed file is forge's own rendering (which
//! `forge init` may replace or remove, and `forge doctor` reads the program of).
//! Pure: the caller reads and writes the files.

/// The slash commands `--commands` installs: (file name, text).
pub const COMMANDS: [(&str, &str); 2] = [
    (
        "forge-learn.md",
        include_str!("../../../assets/commands/forge-learn.md"),
    ),
    (
        "forge-continue.md",
        include_str!("../../../assets/commands/forge-continue.md"),
    ),
];

/// The placeholder in the shipped slash commands for the forge program.
const PROGRAM_SLOT: &str = "{{forge}}";

/// A shipped slash command with `{{forge}}` replaced by `program` (`forge`, or this
/// binary's absolute path, shell-quoted, see `crate::app::setup::Program`), so its `allowed-tools`
/// rules match the commands it asks Claude to run.
pub fn render_command(template: &str, program: &str) -> String {
    template.replace(PROGRAM_SLOT, program)
}

/// Whether `installed` is `template` rendered for *some* program path (an install
/// by this or an older forge binary, unchanged since): such a file is forge's to
/// replace or remove.
pub(crate) fn is_rendered_from(installed: &str, template: &str) -> bool {
    rendered_program(installed, template).is_some()
}

/// The program `installed` was rendered for (as written, e.g. `forge` or
/// `'/opt/my tools/forge'`), when it is `template` rendered, unchanged since.
pub(crate) fn rendered_program<'a>(installed: &'a str, template: &str) -> Option<&'a str> {
    let mut parts = template.split(PROGRAM_SLOT);
    let first = parts.next()?;
    let rest = installed.strip_prefix(first)?;
    // The program runs up to the text that follows the first slot.
    let second = parts.next()?;
    let end = rest.find(second)?;
    let program = rest.get(..end)?;
    (!program.is_empty()
        && !program.contains('\n')
        && render_command(template, program) == installed)
        .then_some(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_name_forge_by_the_given_path_everywhere() {
        for (name, template) in COMMANDS {
            let text = render_command(template, "'/opt/my tools/forge'");
            assert!(!text.contains(PROGRAM_SLOT), "{name}");
            // Every command Claude is told to run, and every allowed-tools rule,
            // uses the path; `forge` alone is left only in prose.
            for line in text.lines() {
                for bare in [
                    "`forge resume",
                    "`forge status",
                    "`forge learn",
                    "Bash(forge",
                ] {
                    assert!(!line.contains(bare), "{name}: {line}");
                }
            }
            let (fm, _) = crate::model::handoff::entry::split_front_matter(&text);
            let tools = fm.get("allowed-tools").unwrap();
            assert!(
                tools.contains("Bash('/opt/my tools/forge' "),
                "{name}: {tools}"
            );
            assert!(is_rendered_from(&text, template), "{name}");
            assert!(is_rendered_from(
                &render_command(template, "/usr/bin/forge"),
                template
            ));
            assert!(
                !is_rendered_from(&format!("{text}\nmine\n"), template),
                "{name}"
            );
        }
    }

    #[test]
    fn shipped_commands_have_front_matter_and_no_bad_model() {
        for (name, template) in COMMANDS {
            let text = &render_command(template, "forge");
            let (fm, body) = crate::model::handoff::entry::split_front_matter(text);
            assert!(fm.contains_key("description"), "{name}");
            assert!(!fm.contains_key("model"), "{name}");
            assert!(!body.trim().is_empty());
        }
        let learn = &render_command(COMMANDS[0].1, "forge");
        for word in [
            "Extracted",
            "Confidence",
            "Context",
            "Pattern",
            "When to Apply",
            "Steps",
            "Why This Works",
            "Source",
            "learned-<slug>.md",
            "forge learn archive",
            "credentials",
            "tokens",
            "connection strings",
            "file contents",
            "environment variable values",
        ] {
            assert!(learn.contains(word), "forge-learn.md lacks {word}");
        }
        let cont = &render_command(COMMANDS[1].1, "forge");
        for word in ["forge resume --print", "blocked", "open question", "Drift"] {
            assert!(cont.contains(word), "forge-continue.md lacks {word}");
        }
    }
}
