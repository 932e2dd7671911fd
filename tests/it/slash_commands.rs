//! Every slash command forge's texts mention exists: a `/forge-…` name in a source
//! string, an asset or the README is a command `forge init --commands` installs.
//! (The L2 alert once told the model to run `/forge-handoff`, which did not exist.)

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The `/forge-<name>` slash commands named in `text`: a `/` that starts a word (not
/// a path's `/x/forge-old`), then `forge-` and the name.
fn slash_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("/forge-") {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || "/._-~$".contains(c)) {
            continue;
        }
        let name: String = text[i + 1..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            .collect();
        out.push(name.trim_end_matches('-').to_owned());
    }
    out
}

#[test]
fn every_slash_command_forge_mentions_is_one_init_installs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let installed: Vec<String> = forge::cli::init::COMMANDS
        .iter()
        .map(|(file, _)| file.trim_end_matches(".md").to_owned())
        .collect();
    let mut files = vec![root.join("README.md")];
    // The README's reference moved to docs/; docs/plugin.md quotes a prefix typed in
    // the client (`/forge-le`), not a command.
    files_under(&root.join("docs"), &mut files);
    files.retain(|f| !f.ends_with("docs/plugin.md"));
    files_under(&root.join("src"), &mut files);
    files_under(&root.join("assets"), &mut files);
    let mut seen = 0;
    let mut missing = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for name in slash_commands(&text) {
            seen += 1;
            if !installed.contains(&name) {
                missing.push(format!("/{name} in {}", f.display()));
            }
        }
    }
    assert!(seen > 5, "the walk found the texts ({seen} mentions)");
    assert!(
        missing.is_empty(),
        "not installed by forge init --commands: {missing:#?}"
    );
}

#[test]
fn the_walk_finds_slash_commands_and_skips_paths() {
    assert_eq!(
        slash_commands("Run /forge-learn, then `/forge-handoff`."),
        ["forge-learn", "forge-handoff"]
    );
    assert!(slash_commands("/x/forge-old hook Stop and commands/forge-learn.md").is_empty());
}
