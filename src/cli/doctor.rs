//! `forge doctor`: checks that forge is wired up and the project's forge-related files
//! are sound, and says what to do about each problem.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use color_eyre::eyre::WrapErr;
use serde::Serialize;
use serde_json::Value;

use super::status::locate_project;
use crate::env::Env;
use crate::model::handoff::split_front_matter;
use crate::model::memory::MEMORY_MAX_LINES;
use crate::model::secrets::find_secrets;
use crate::model::settings::{self, Expand, FORGE_EVENTS};
use crate::model::{HandoffKind, SignalParse};
use crate::store::{Paths, handoffs};

/// The model aliases Claude Code accepts in command and agent front matter (full
/// model ids such as `claude-sonnet-4-6` are accepted too, see [`model_problem`]).
pub const MODEL_ALIASES: [&str; 4] = ["opus", "sonnet", "haiku", "inherit"];

/// What is wrong with a `model:` value, or `None` when Claude Code accepts it: one of
/// [`MODEL_ALIASES`], or a full model id `claude-…` (lower-case letters, digits, `.`
/// and `-`), either optionally with the 1M-context suffix `[1m]` (reference §6.3).
pub fn model_problem(value: &str) -> Option<String> {
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

/// Check forge's setup and explain what to fix
///
/// Checks: forge wired into the settings (pointing at a binary that exists), the
/// statusLine, `.forge/` git-ignored, hook commands whose script is missing,
/// `model:` in .claude/commands and .claude/agents (opus, sonnet, haiku, inherit or
/// a full model id such as claude-sonnet-4-6), every agent Signal in
/// .forge/handoffs, learned-*.md memory files free of secret-looking text,
/// MEMORY.md size, and the config files. Exits 1 when a check fails.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge doctor\n",
        "  forge doctor --json | jq '.checks[] | select(.status != \"ok\")'"
    )
)]
pub struct DoctorArgs {
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Print the checks as JSON.
    #[arg(long)]
    pub json: bool,
}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Fine.
    Ok,
    /// Worth a look; not a failure.
    Warn,
    /// Something is wrong.
    Fail,
}

/// One check: what was checked, how it went, and what to do.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// Short name.
    pub name: &'static str,
    /// ok / warn / fail.
    pub status: Status,
    /// One line: the finding and what to do.
    pub summary: String,
    /// Specific items (files, entries).
    pub details: Vec<String>,
}

impl Check {
    fn new(name: &'static str, status: Status, summary: impl Into<String>) -> Self {
        Self {
            name,
            status,
            summary: summary.into(),
            details: Vec::new(),
        }
    }
    fn with(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }
}

/// A settings file that was read (or failed to parse).
struct SettingsFile {
    path: PathBuf,
    value: Result<Value, String>,
}

/// Runs `forge doctor`.
pub fn run(args: &DoctorArgs, env: &Env) -> color_eyre::Result<ExitCode> {
    let paths = locate_project(args.project.as_ref(), env)?;
    let checks = run_checks(&paths, env);
    let failed = checks.iter().any(|c| c.status == Status::Fail);
    if args.json {
        let v = serde_json::json!({
            "project": paths.root,
            "ok": !failed,
            "checks": checks,
        });
        let text = serde_json::to_string_pretty(&v).wrap_err("encoding JSON")?;
        super::print_out(&format!("{text}\n"));
    } else {
        super::print_out(&render(&paths, &checks));
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Every check, in a fixed order.
pub fn run_checks(paths: &Paths, env: &Env) -> Vec<Check> {
    let files = settings_files(paths, env);
    let expand = Expand {
        home: env.home.as_deref(),
        project: Some(&paths.root),
    };
    let refused = |name: &'static str| {
        Check::new(
            name,
            Status::Warn,
            "not checked: forge does not read this project's .forge/ (see state-folders)",
        )
    };
    let trusted = paths.check().is_ok();
    vec![
        check_state_folders(paths),
        check_hooks(&files, paths),
        check_binary(&files, paths, expand),
        check_statusline(&files, paths),
        check_gitignore(paths),
        check_dead_hooks(&files, paths, expand),
        check_models(paths, env),
        if trusted {
            check_signals(paths)
        } else {
            refused("signals")
        },
        check_learned(paths, env),
        check_memory_size(paths, env),
        if trusted {
            check_config(paths, env)
        } else {
            refused("config")
        },
    ]
}

/// The settings files Claude Code reads for this project, highest precedence first:
/// `.claude/settings.local.json`, `.claude/settings.json`, the user's settings.
fn settings_files(paths: &Paths, env: &Env) -> Vec<SettingsFile> {
    let mut candidates = vec![
        paths.root.join(".claude/settings.local.json"),
        paths.root.join(".claude/settings.json"),
    ];
    if let Some(d) = env.claude_dir() {
        candidates.push(d.join("settings.json"));
    }
    candidates
        .into_iter()
        .filter_map(|path| {
            let text = crate::store::read_text_follow(&path)?;
            let value = if text.trim().is_empty() {
                Ok(Value::Null)
            } else {
                serde_json::from_str(&text).map_err(|e| e.to_string())
            };
            Some(SettingsFile { path, value })
        })
        .collect()
}

/// The StrictModes check of `.forge/` and its folders ([`Paths::check`]).
fn check_state_folders(paths: &Paths) -> Check {
    match paths.check() {
        Ok(()) => Check::new(
            "state-folders",
            Status::Ok,
            ".forge/ and its folders are yours, real folders, and not writable by others",
        ),
        Err(refusal) => Check::new(
            "state-folders",
            Status::Fail,
            format!("forge does not read or write this project's state: {refusal}"),
        ),
    }
}

fn shown(path: &Path, paths: &Paths) -> String {
    path.strip_prefix(&paths.root)
        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

fn check_hooks(files: &[SettingsFile], paths: &Paths) -> Check {
    let mut broken = Vec::new();
    let mut covered: Vec<&str> = Vec::new();
    let mut found_in = Vec::new();
    for f in files {
        match &f.value {
            Err(e) => broken.push(format!("{}: not valid JSON ({e})", shown(&f.path, paths))),
            Ok(v) => {
                let mut here = false;
                for h in settings::command_hooks(v) {
                    if settings::forge_role(&h.words) == Some("hook") {
                        here = true;
                        if let Some(e) = FORGE_EVENTS.iter().find(|e| **e == h.event) {
                            covered.push(e);
                        }
                    }
                }
                if here {
                    found_in.push(shown(&f.path, paths));
                }
            }
        }
    }
    if !broken.is_empty() {
        return Check::new(
            "hooks",
            Status::Fail,
            "a settings file is not valid JSON: Claude Code ignores it; fix it, then run `forge init`",
        )
        .with(broken);
    }
    let missing: Vec<&str> = FORGE_EVENTS
        .iter()
        .copied()
        .filter(|e| !covered.contains(e))
        .collect();
    if missing.len() == FORGE_EVENTS.len() {
        return Check::new(
            "hooks",
            Status::Fail,
            "forge is not wired into Claude Code: run `forge init` (this project) or `forge init --user` (all projects)",
        );
    }
    if !missing.is_empty() {
        return Check::new(
            "hooks",
            Status::Fail,
            format!(
                "forge does not handle {}: run `forge init` to add them",
                missing.join(", ")
            ),
        );
    }
    Check::new(
        "hooks",
        Status::Ok,
        format!(
            "forge handles all {} hook events ({})",
            FORGE_EVENTS.len(),
            found_in.join(", ")
        ),
    )
}

fn check_binary(files: &[SettingsFile], paths: &Paths, expand: Expand<'_>) -> Check {
    let mut programs: Vec<(String, String)> = Vec::new();
    for f in files {
        let Ok(v) = &f.value else { continue };
        let mut words_list: Vec<Vec<String>> = settings::command_hooks(v)
            .into_iter()
            .map(|h| h.words)
            .collect();
        if let Some(cmd) = settings::statusline_command(v) {
            words_list.push(settings::split_words(cmd));
        }
        for words in words_list {
            if settings::forge_role(&words).is_none() {
                continue;
            }
            if let Some(program) = words.first() {
                let entry = (shown(&f.path, paths), program.clone());
                if !programs.contains(&entry) {
                    programs.push(entry);
                }
            }
        }
    }
    if programs.is_empty() {
        return Check::new(
            "binary",
            Status::Warn,
            "no forge commands in the settings to check (see `hooks`)",
        );
    }
    let mut missing = Vec::new();
    let mut on_path = Vec::new();
    for (file, program) in &programs {
        match settings::expand_path(program, expand) {
            Some(p) if p.is_file() => {}
            Some(p) => missing.push(format!("{file}: {} does not exist", p.display())),
            None => on_path.push(format!("{file}: `{program}` is looked up on PATH")),
        }
    }
    let here = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "this forge".into());
    if !missing.is_empty() {
        return Check::new(
            "binary",
            Status::Fail,
            format!(
                "forge's hooks point at a binary that does not exist: run `forge init` again to point them at {here}"
            ),
        )
        .with(missing);
    }
    if !on_path.is_empty() {
        return Check::new(
            "binary",
            Status::Warn,
            "forge's hooks run `forge` from PATH, which Claude Code's shell may not share: run `forge init` to use an absolute path",
        )
        .with(on_path);
    }
    let mut distinct: Vec<&str> = Vec::new();
    for (_, p) in &programs {
        if !distinct.contains(&p.as_str()) {
            distinct.push(p);
        }
    }
    let mut files: Vec<&str> = Vec::new();
    for (f, _) in &programs {
        if !files.contains(&f.as_str()) {
            files.push(f);
        }
    }
    Check::new(
        "binary",
        Status::Ok,
        format!(
            "forge's entries run {} ({})",
            distinct.join(", "),
            files.join(", ")
        ),
    )
}

fn check_statusline(files: &[SettingsFile], paths: &Paths) -> Check {
    let effective = files.iter().find_map(|f| {
        let v = f.value.as_ref().ok()?;
        v.get("statusLine")?;
        Some((f, settings::statusline_command(v).unwrap_or("").to_owned()))
    });
    match effective {
        None => Check::new(
            "statusline",
            Status::Fail,
            "no statusLine is set, so context use is not shown and the automatic handoff never fires: run `forge init`",
        ),
        Some((f, cmd)) if settings::is_forge_command(&cmd) => Check::new(
            "statusline",
            Status::Ok,
            format!("statusLine runs forge ({})", shown(&f.path, paths)),
        ),
        Some((f, cmd)) => Check::new(
            "statusline",
            Status::Warn,
            format!(
                "statusLine runs `{cmd}` ({}), not forge: the context gauge and the automatic handoff need forge's; run `forge init --replace-statusline`",
                shown(&f.path, paths)
            ),
        ),
    }
}

fn check_gitignore(paths: &Paths) -> Check {
    match crate::git::is_ignored(&paths.root, ".forge/handoffs/x.md") {
        None => Check::new(
            "gitignore",
            Status::Ok,
            "not a git repository: nothing to ignore",
        ),
        Some(true) => Check::new("gitignore", Status::Ok, ".forge/ is git-ignored"),
        Some(false) => Check::new(
            "gitignore",
            Status::Fail,
            ".forge/ is not git-ignored, so session state could be committed: run `forge init` or add `.forge/` to .gitignore",
        ),
    }
}

fn check_dead_hooks(files: &[SettingsFile], paths: &Paths, expand: Expand<'_>) -> Check {
    let exists = |p: &Path| p.exists();
    let mut dead = Vec::new();
    for f in files {
        let Ok(v) = &f.value else { continue };
        for h in settings::command_hooks(v) {
            if settings::forge_role(&h.words).is_some() {
                continue; // reported by `binary`
            }
            if let Some(p) = settings::dead_script(&h.words, expand, &exists) {
                dead.push(format!(
                    "{}: {}: `{}` ({} does not exist)",
                    shown(&f.path, paths),
                    h.event,
                    h.command,
                    p.display()
                ));
            }
        }
        if let Some(cmd) = settings::statusline_command(v) {
            let words = settings::split_words(cmd);
            if settings::forge_role(&words).is_none()
                && let Some(p) = settings::dead_script(&words, expand, &exists)
            {
                dead.push(format!(
                    "{}: statusLine: `{cmd}` ({} does not exist)",
                    shown(&f.path, paths),
                    p.display()
                ));
            }
        }
    }
    if dead.is_empty() {
        Check::new(
            "dead-hooks",
            Status::Ok,
            "every hook command's script exists",
        )
    } else {
        Check::new(
            "dead-hooks",
            Status::Fail,
            format!(
                "{} a script that does not exist (each fails on every event): `forge init` removes those inside the project, `forge init --user` those in your user settings; remove others from a shared project settings file by hand if nobody uses them",
                super::count(dead.len(), "hook command runs", "hook commands run")
            ),
        )
        .with(dead)
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

fn check_models(paths: &Paths, env: &Env) -> Check {
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
                super::count(files.len(), "command/agent file", "command/agent files"),
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

fn check_signals(paths: &Paths) -> Check {
    let agents: Vec<_> = handoffs::list(paths)
        .into_iter()
        .filter(|h| h.kind == HandoffKind::Agent)
        .collect();
    let bad: Vec<String> = agents
        .iter()
        .filter_map(|h| match &h.signal {
            Some(SignalParse::Malformed { reason }) => {
                Some(format!(".forge/handoffs/{}: {reason}", h.file_name))
            }
            _ => None,
        })
        .collect();
    if bad.is_empty() {
        Check::new(
            "signals",
            Status::Ok,
            format!(
                "{}, every Signal valid",
                super::count(agents.len(), "agent handoff", "agent handoffs")
            ),
        )
    } else {
        Check::new(
            "signals",
            Status::Fail,
            "an agent handoff's Signal is missing or broken, so its status is unknown: fix the fenced JSON under `### Signal` (or rewrite it with `forge signal`)",
        )
        .with(bad)
    }
}

fn check_learned(paths: &Paths, env: &Env) -> Check {
    let Some(dir) = super::learn::memory_dir(paths, env) else {
        return Check::new(
            "learned-secrets",
            Status::Warn,
            "HOME is not set: cannot find the memory folder",
        );
    };
    let files = super::learn::learned_files(&dir);
    let mut found = Vec::new();
    for f in &files {
        let Some(text) = crate::store::read_text_follow(f) else {
            continue;
        };
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (line, kind) in find_secrets(&text) {
            found.push(format!(
                "{name}:{line}: looks like {}",
                crate::model::secrets::with_article(kind)
            ));
        }
    }
    if found.is_empty() {
        Check::new(
            "learned-secrets",
            Status::Ok,
            format!(
                "{}, nothing secret-looking",
                super::count(files.len(), "learned pattern file", "learned pattern files")
            ),
        )
    } else {
        Check::new(
            "learned-secrets",
            Status::Fail,
            format!(
                "learned pattern files in {} look like they hold secrets, which Claude Code loads into sessions: remove those lines and rotate the secret if it was real",
                dir.display()
            ),
        )
        .with(found)
    }
}

fn check_memory_size(paths: &Paths, env: &Env) -> Check {
    let Some(dir) = super::learn::memory_dir(paths, env) else {
        return Check::new(
            "memory-size",
            Status::Warn,
            "HOME is not set: cannot find the memory folder",
        );
    };
    match super::learn::line_count(&dir.join("MEMORY.md")) {
        None => Check::new("memory-size", Status::Ok, "no MEMORY.md yet"),
        Some(n) if n > MEMORY_MAX_LINES => Check::new(
            "memory-size",
            Status::Warn,
            format!(
                "MEMORY.md has {} (over {MEMORY_MAX_LINES}; Claude Code loads only the first 200): run `forge learn archive`",
                super::count(n, "line", "lines")
            ),
        ),
        Some(n) => Check::new(
            "memory-size",
            Status::Ok,
            format!("MEMORY.md has {}", super::count(n, "line", "lines")),
        ),
    }
}

fn check_config(paths: &Paths, env: &Env) -> Check {
    match crate::config::load(paths, env) {
        Ok(l) => {
            let found: Vec<String> = l
                .files
                .iter()
                .filter(|(_, exists)| *exists)
                .map(|(s, _)| s.to_string())
                .collect();
            Check::new(
                "config",
                Status::Ok,
                if found.is_empty() {
                    "no config files; defaults in use".to_owned()
                } else {
                    format!("valid: {}", found.join(", "))
                },
            )
        }
        Err(e) => {
            Check::new("config", Status::Fail, e.to_string()).with(vec![super::config::fix_hint()])
        }
    }
}

/// The checks as text for people.
pub fn render(paths: &Paths, checks: &[Check]) -> String {
    let mut out = format!("forge doctor: {}\n", paths.root.display());
    for c in checks {
        let mark = match c.status {
            Status::Ok => "ok  ",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        };
        let _ = writeln!(out, "  {mark}  {:<16} {}", c.name, c.summary);
        for d in &c.details {
            let _ = writeln!(out, "          - {d}");
        }
    }
    let fails = checks.iter().filter(|c| c.status == Status::Fail).count();
    let warns = checks.iter().filter(|c| c.status == Status::Warn).count();
    let _ = writeln!(
        out,
        "{}",
        match (fails, warns) {
            (0, 0) => "Everything looks right.".to_owned(),
            (0, w) => format!("No problems; {}.", super::count(w, "warning", "warnings")),
            (f, w) => format!(
                "{}, {}.",
                super::count(f, "problem", "problems"),
                super::count(w, "warning", "warnings")
            ),
        }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
