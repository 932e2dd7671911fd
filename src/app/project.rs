//! The project a command works on, found one way for every command: `--project DIR`
//! or the current folder, resolved to the project root, checked (StrictModes on
//! `.forge/`), and — for the commands that write on their own — refused outside a
//! project. Also whether forge is set up there, which `forge status` and `forge tui`
//! ask before they show anything.
//!
//! The commands' one door to a project (after jj's `cli_util`): a command asks here
//! for its [`Paths`] and hands them to the rest of `app`, so no command names
//! `store` or imports another command for it (`src/layers.rs` checks both).

use std::path::PathBuf;

use anyhow::{Context, bail};
use serde_json::Value;

use crate::env::Env;
use crate::model::setup::settings;
use crate::store::resolve_root;

/// The project's paths under `.forge/`, as the commands hold them.
pub(crate) use crate::store::Paths;

/// Resolves `--project DIR` (which must exist) or finds the project from the cwd,
/// and refuses a project whose `.forge/` fails the StrictModes check
/// ([`Paths::check`]) with the reason and what to do.
///
/// `DIR` is canonicalized (symlinks and `..` resolved, like the cwd), then treated
/// like a cwd: a subfolder of a project means that project (the nearest folder up
/// to the git work-tree root holding `.forge/`, else that root), so `--project src`
/// works the way running from `src` does. A folder outside git is the project
/// itself.
pub(crate) fn project_paths(project: Option<&PathBuf>, env: &Env) -> anyhow::Result<Paths> {
    let paths = locate_project(project, env)?;
    paths.check()?;
    Ok(paths)
}

/// [`project_paths`] for commands that write into the project on their own
/// (`forge handoff`, `forge signal`): outside a project (no `.forge/` and no git
/// root, or `/`, or the home folder) they stop and say how to start one, rather than
/// write an empty handoff or take over `~/.claude/pending-resume`.
pub(crate) fn project_for_writing(project: Option<&PathBuf>, env: &Env) -> anyhow::Result<Paths> {
    let paths = project_paths(project, env)?;
    if let Err(why) = paths.is_project(env.home.as_deref()) {
        bail!("{}", why.explain(&paths.root));
    }
    Ok(paths)
}

/// [`project_paths`] without the check: for `forge doctor`, which reports it.
pub(crate) fn locate_project(project: Option<&PathBuf>, env: &Env) -> anyhow::Result<Paths> {
    let canonical = |p: PathBuf| std::fs::canonicalize(&p).unwrap_or(p);
    match project {
        Some(dir) => {
            if !dir.is_dir() {
                bail!("--project {}: no such folder", dir.display());
            }
            let dir = std::fs::canonicalize(dir)
                .with_context(|| format!("resolving --project {}", dir.display()))?;
            Ok(Paths::new(resolve_root(None, &dir)))
        }
        None => Ok(Paths::new(canonical(resolve_root(
            env.claude_project_dir.as_deref(),
            &env.cwd,
        )))),
    }
}

/// The settings files Claude Code reads for a project, highest precedence first
/// (`.claude/settings.local.json`, `.claude/settings.json`, the user's settings),
/// each with how forge reads it: the project's own never through a link (a cloned
/// repository could point one anywhere), the user's through one (a dotfiles
/// manager's).
pub(crate) fn claude_settings_files(
    paths: &Paths,
    env: &Env,
) -> Vec<(PathBuf, crate::store::safe::Follow)> {
    use crate::store::safe::Follow;
    let mut files = vec![
        (paths.root.join(".claude/settings.local.json"), Follow::No),
        (paths.root.join(".claude/settings.json"), Follow::No),
    ];
    files.extend(
        env.claude_dir()
            .map(|d| (d.join("settings.json"), Follow::Yes)),
    );
    files
}

/// The most of a settings file forge reads (it is parsed whole, never cut).
pub(crate) const SETTINGS_CAP: u64 = 16 * 1024 * 1024;

/// A settings file's text as [`claude_settings_files`] says to read it; `None` when
/// it is missing, unreadable, not a regular file or over [`SETTINGS_CAP`].
pub(crate) fn read_settings(
    path: &std::path::Path,
    follow: crate::store::safe::Follow,
) -> Option<String> {
    crate::store::safe::read_to_string_whole(path, SETTINGS_CAP, follow).ok()
}

/// Whether forge is set up for the project: it has `.forge/`, or some settings file
/// Claude Code reads for it (`.claude/settings.local.json`, `.claude/settings.json`,
/// the user's settings) runs `forge hook`.
pub(crate) fn is_set_up(paths: &Paths, env: &Env) -> bool {
    if paths.forge_dir().is_dir() {
        return true;
    }
    claude_settings_files(paths, env).iter().any(|(f, follow)| {
        read_settings(f, *follow)
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|v| {
                settings::command_hooks(&v)
                    .iter()
                    .any(|h| settings::forge_role(&h.words) == Some("hook"))
            })
    })
}

/// What `forge tui` and `forge status` say in a project forge is not set up in.
pub(crate) fn not_set_up_message(paths: &Paths) -> String {
    format!(
        "this project ({}) is not set up for forge yet: run `forge init` there (`forge init --dry-run` shows what it would change first), or `forge tui --demo` to see a sample project",
        paths.root.display()
    )
}
