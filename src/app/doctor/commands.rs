//! The slash commands `forge init --commands` installed, and the `model:` of the
//! commands and agents in `.claude/`.

use std::path::{Path, PathBuf};

use super::binary::{ProgramFile, program_file};
use super::{Check, Status, shown};
use crate::env::Env;
use crate::model::handoff::entry::split_front_matter;
use crate::model::setup::doctor::{MODEL_ALIASES, model_problem};
use crate::model::setup::settings::{self, Expand};
use crate::model::text::count;
use crate::store::Paths;

/// The /forge-learn and /forge-continue commands `forge init --commands` installed
/// run forge by the name or path it had then: check that it is still there.
pub(super) fn check_commands(paths: &Paths, env: &Env, expand: Expand<'_>) -> Check {
    let mut places = vec![(paths.root.join(".claude/commands"), "forge init --commands")];
    if let Some(d) = env.claude_dir() {
        places.push((d.join("commands"), "forge init --user --commands"));
    }
    let mut installed = 0;
    let mut broken = Vec::new();
    let mut fixes: Vec<&str> = Vec::new();
    for (dir, fix) in &places {
        for (name, template) in crate::model::setup::commands::COMMANDS {
            let file = dir.join(name);
            let Some(text) = crate::store::read_text(&file) else {
                continue;
            };
            installed += 1;
            // A copy the user changed is theirs: nothing to say about it here.
            let Some(program) = crate::model::setup::commands::rendered_program(&text, template)
            else {
                continue;
            };
            let words = settings::split_words(program);
            let Some(program) = words.first() else {
                continue;
            };
            let problem = match program_file(program, expand, env) {
                ProgramFile::Found | ProgramFile::OnPath(_) | ProgramFile::Unknown => None,
                ProgramFile::Missing(p) => {
                    Some(format!("runs {}, which does not exist", p.display()))
                }
                ProgramFile::NotOnPath => {
                    Some(format!("runs `{program}` from PATH, which has none"))
                }
            };
            if let Some(problem) = problem {
                broken.push(format!("{}: {problem}", shown(&file, paths)));
                if !fixes.contains(fix) {
                    fixes.push(fix);
                }
            }
        }
    }
    if !broken.is_empty() {
        let fixes: Vec<String> = fixes.iter().map(|f| format!("`{f}`")).collect();
        return Check::new(
            "commands",
            Status::Warn,
            format!(
                "a forge slash command runs a forge binary that is not there, so it fails when used: run {} again to point it at this forge",
                fixes.join(" and ")
            ),
        )
        .with(broken);
    }
    if installed == 0 {
        Check::new(
            "commands",
            Status::Ok,
            "no forge slash commands installed (`forge init --commands` adds /forge-learn and /forge-continue)",
        )
    } else {
        Check::new(
            "commands",
            Status::Ok,
            format!(
                "{} installed; each runs a forge that exists",
                count(installed, "slash command", "slash commands")
            ),
        )
    }
}

/// `*.md` files under `dir`, a few levels deep, sorted.
fn markdown_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for e in read.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() && depth > 0 {
            markdown_files(&p, depth - 1, out);
        } else if p.extension().is_some_and(|x| x == "md") && p.is_file() {
            out.push(p);
        }
    }
}

pub(super) fn check_models(paths: &Paths, env: &Env) -> Check {
    let mut dirs = vec![
        paths.root.join(".claude/commands"),
        paths.root.join(".claude/agents"),
    ];
    if let Some(d) = env.claude_dir() {
        dirs.push(d.join("commands"));
        dirs.push(d.join("agents"));
    }
    let mut files = Vec::new();
    for d in &dirs {
        markdown_files(d, 3, &mut files);
    }
    files.sort();
    files.dedup();
    let mut bad = Vec::new();
    for f in &files {
        let Some(text) = crate::store::read_text_follow(f) else {
            continue;
        };
        let (fm, _) = split_front_matter(&text);
        if let Some(model) = fm.get("model")
            && !model.is_empty()
            && let Some(problem) = model_problem(model)
        {
            bad.push(format!("{}: model: {model} ({problem})", shown(f, paths)));
        }
    }
    if bad.is_empty() {
        Check::new(
            "model-aliases",
            Status::Ok,
            format!(
                "{} checked; every `model:` is an alias ({}) or a full model id",
                count(files.len(), "command/agent file", "command/agent files"),
                MODEL_ALIASES.join(", ")
            ),
        )
    } else {
        Check::new(
            "model-aliases",
            Status::Fail,
            "a command or agent asks for a model Claude Code does not know: change `model:` to opus, sonnet, haiku, inherit or a full id like claude-sonnet-4-6",
        )
        .with(bad)
    }
}
