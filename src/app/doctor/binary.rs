//! The program forge's entries run (on PATH, or at the path they name) and the
//! `statusLine`.

use std::path::PathBuf;

use super::{Check, SettingsFile, Status, shown};
use crate::env::Env;
use crate::model::setup::settings::{self, Expand};
use crate::store::Paths;

/// forge's entries in the settings files, for the `binary` check.
struct ForgeEntries {
    /// Each (file shown, program as written) once.
    programs: Vec<(String, String)>,
    /// Entries naming forge by a path in a file git shares with others.
    tracked: Vec<String>,
    /// Whether every forge entry is guarded (does nothing where forge is missing).
    all_guarded: bool,
}

/// Every forge hook and status line entry of the settings files, by the program it
/// runs.
fn forge_entries(files: &[SettingsFile], paths: &Paths) -> ForgeEntries {
    let mut programs: Vec<(String, String)> = Vec::new();
    let mut tracked = Vec::new();
    let mut all_guarded = true;
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
            all_guarded &= settings::is_guarded(&words);
            if let Some(program) = settings::forge_program(&words).map(str::to_owned) {
                let entry = (shown(&f.path, paths), program.clone());
                if !programs.contains(&entry) {
                    if program.contains('/') && crate::git::is_tracked(&f.path) == Some(true) {
                        tracked.push(format!("{}: runs {program} (tracked by git)", entry.0));
                    }
                    programs.push(entry);
                }
            }
        }
    }
    ForgeEntries {
        programs,
        tracked,
        all_guarded,
    }
}

/// Whether the program forge's entries run exists here (on PATH, or at the path
/// they name), and whether a path in a shared file breaks them for a teammate.
pub(super) fn check_binary(
    files: &[SettingsFile],
    paths: &Paths,
    expand: Expand<'_>,
    env: &Env,
) -> Check {
    let ForgeEntries {
        programs,
        tracked,
        all_guarded,
    } = forge_entries(files, paths);
    if programs.is_empty() {
        return Check::new(
            "binary",
            Status::Warn,
            "no forge commands in the settings to check (see `hooks`)",
        );
    }
    let mut missing = Vec::new();
    let mut not_found = Vec::new();
    let mut on_path = Vec::new();
    for (file, program) in &programs {
        match program_file(program, expand, env) {
            ProgramFile::Missing(p) => {
                missing.push(format!("{file}: {} does not exist", p.display()));
            }
            ProgramFile::NotOnPath => {
                not_found.push(format!("{file}: `{program}` is not on PATH"));
            }
            ProgramFile::OnPath(p) => {
                on_path.push(format!("`{program}` on PATH is {}", p.display()));
            }
            ProgramFile::Found | ProgramFile::Unknown => {}
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
    if !not_found.is_empty() {
        return Check::new(
            "binary",
            Status::Fail,
            format!(
                "forge's hooks run `forge` from PATH, but there is no forge on PATH here, so {}: install forge on PATH ({install}), or run `forge init` to name this binary ({here}) by its path",
                if all_guarded {
                    "they do nothing (silently: SessionStart only says forge is missing)"
                } else {
                    "every hook fails"
                },
                install = crate::model::setup::install::commands(),
            ),
        )
        .with(not_found);
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
    if !tracked.is_empty() {
        return Check::new(
            "binary",
            Status::Warn,
            format!(
                "forge's entries in a file git tracks run forge by this machine's path, so for a teammate without that file {}: install forge on PATH ({install}) and run `forge init` again to write the portable `forge hook …`",
                if all_guarded {
                    "they do nothing even where forge is installed"
                } else {
                    "every hook fails"
                },
                install = crate::model::setup::install::commands(),
            ),
        )
        .with(tracked);
    }
    on_path.dedup();
    Check::new(
        "binary",
        Status::Ok,
        format!(
            "forge's entries run {} ({})",
            distinct.join(", "),
            files.join(", ")
        ),
    )
    .with(on_path)
}

/// Where a program named in a forge command is.
pub(super) enum ProgramFile {
    /// A path that exists.
    Found,
    /// A path that does not exist.
    Missing(PathBuf),
    /// A bare name found on PATH, there.
    OnPath(PathBuf),
    /// A bare name that is not on PATH.
    NotOnPath,
    /// Something forge cannot check (`$OTHER/forge`).
    Unknown,
}

/// Finds the program a forge command runs: a path (`~` and `$HOME` expanded), or a
/// bare name looked up on PATH as the shell would.
pub(super) fn program_file(program: &str, expand: Expand<'_>, env: &Env) -> ProgramFile {
    match settings::expand_path(program, expand) {
        Some(p) if p.is_file() => ProgramFile::Found,
        Some(p) => ProgramFile::Missing(p),
        None if !program.contains('/') => match env.find_program(program) {
            Some(p) => ProgramFile::OnPath(p),
            None => ProgramFile::NotOnPath,
        },
        None => ProgramFile::Unknown,
    }
}

pub(super) fn check_statusline(files: &[SettingsFile], paths: &Paths) -> Check {
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
        Some((f, cmd)) if settings::is_forge_command(&cmd) => {
            match settings::wrapped_statusline(&cmd) {
                Some(other) => Check::new(
                    "statusline",
                    Status::Ok,
                    format!(
                        "statusLine runs forge around your own `{other}` ({}): its output with forge's segments",
                        shown(&f.path, paths)
                    ),
                ),
                None => Check::new(
                    "statusline",
                    Status::Ok,
                    format!("statusLine runs forge ({})", shown(&f.path, paths)),
                ),
            }
        }
        Some((f, cmd)) => Check::new(
            "statusline",
            Status::Warn,
            format!(
                "statusLine runs `{cmd}` ({}), not forge: the context gauge and the automatic handoff need forge's; `forge init --wrap-statusline` keeps yours and adds forge's segments, `forge init --replace-statusline` shows forge's instead",
                shown(&f.path, paths)
            ),
        ),
    }
}
