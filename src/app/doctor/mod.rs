//! `forge doctor`'s checks: that forge is wired up and the project's forge-related
//! files are sound, each check a [`Check`] that says what to do about a problem.
//! [`run_checks`] runs them in a fixed order; `cli::doctor` prints them.
//!
//! One file per family: the hooks in the settings files ([`hooks`]), the program
//! forge's entries run and the status line ([`binary`]), forge's Claude Code plugin
//! ([`plugin`]), the slash commands and the `model:` of commands and agents
//! ([`commands`]), `.forge/` and what it holds, the config and sharing ([`state`]),
//! Claude Code's memory folder ([`memory`]), and the programs your own config runs,
//! redaction and alerts ([`programs`]). The pure decisions (`model:` values, the
//! program of a `sh -c` command) are `model::setup::doctor`.

mod binary;
mod commands;
mod hooks;
mod memory;
mod plugin;
mod programs;
mod state;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::env::Env;
use crate::model::setup::settings::Expand;
use crate::store::Paths;

use binary::{check_binary, check_statusline};
use commands::{check_commands, check_models};
use hooks::{check_dead_hooks, check_hooks, check_path_search, check_teammates, check_twice};
use memory::{check_learned, check_memory_size};
use plugin::{
    check_plugin, plugins_of, with_plugin_binary, with_plugin_commands, with_plugin_hooks,
    with_plugin_statusline,
};
use programs::{check_alerts, check_own_commands, check_redaction};
use state::{check_config, check_gitignore, check_share, check_signals, check_state_folders};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// Fine.
    Ok,
    /// Worth a look; not a failure.
    Warn,
    /// Something is wrong.
    Fail,
}

/// One check: what was checked, how it went, and what to do.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check {
    /// Short name.
    pub(crate) name: &'static str,
    /// ok / warn / fail.
    pub(crate) status: Status,
    /// One line: the finding and what to do.
    pub(crate) summary: String,
    /// Specific items (files, entries).
    pub(crate) details: Vec<String>,
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

/// Every check, in a fixed order.
pub(crate) fn run_checks(paths: &Paths, env: &Env) -> Vec<Check> {
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
    let plugins = plugins_of(&files, paths, env);
    let plugin = plugins
        .iter()
        .find(|p| p.wires_hooks())
        .or_else(|| plugins.first());
    let mut checks = vec![
        check_state_folders(paths),
        with_plugin_hooks(check_hooks(&files, paths), plugin, &files, paths),
        with_plugin_binary(check_binary(&files, paths, expand, env), plugin, env),
        check_teammates(&files, paths),
        check_path_search(&files, paths),
        check_twice(&files, paths),
        check_plugin(plugin, &files, paths),
        with_plugin_commands(check_commands(paths, env, expand), plugin),
        with_plugin_statusline(check_statusline(&files, paths), plugin),
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
        if trusted {
            check_own_commands(paths, env, expand)
        } else {
            refused("own-commands")
        },
        check_share(paths, env),
        check_redaction(),
        check_alerts(paths, env),
    ];
    if let Some(home) = check_home_folder(paths, env) {
        checks.insert(0, home);
    }
    checks
}

/// In the home folder itself: a warning that it is no project (its
/// `.claude/settings.json` is the user's settings, for every project), and what
/// `forge init --user` is for; `None` elsewhere.
fn check_home_folder(paths: &Paths, env: &Env) -> Option<Check> {
    let home = env.home.as_deref()?;
    crate::store::same_file(&paths.root, home).then(|| {
        Check::new(
            "project",
            Status::Warn,
            "this is your home folder, not a project: its .claude/settings.json is your user \
             settings, which Claude Code reads for every project, so what this report says of \
             \"the project\" is of every one. Check a project from its folder; \
             `forge init --user` is the way to wire forge into every project (it edits \
             ~/.claude/settings.json only, no .forge/ or .gitignore)",
        )
    })
}

/// The settings files Claude Code reads for this project, highest precedence first:
/// `.claude/settings.local.json`, `.claude/settings.json`, the user's settings
/// ([`crate::app::project::claude_settings_files`]: the project's never through a link).
fn settings_files(paths: &Paths, env: &Env) -> Vec<SettingsFile> {
    crate::app::project::claude_settings_files(paths, env)
        .into_iter()
        .filter_map(|(path, follow)| {
            let text = crate::app::project::read_settings(&path, follow)?;
            let value = if text.trim().is_empty() {
                Ok(Value::Null)
            } else {
                serde_json::from_str(&text).map_err(|e| e.to_string())
            };
            Some(SettingsFile { path, value })
        })
        .collect()
}

/// A path relative to the project root when inside it, else as is.
fn shown(path: &Path, paths: &Paths) -> String {
    crate::model::setup::plan::shown(path, &paths.root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_projects_settings_are_never_read_through_a_link_the_users_are() {
        let t = tempfile::tempdir().unwrap();
        let (root, home) = (t.path().join("p"), t.path().join("home"));
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let elsewhere = t.path().join("elsewhere.json");
        std::fs::write(&elsewhere, r#"{"hooks": {}}"#).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join(".claude/settings.json")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, home.join(".claude/settings.json")).unwrap();
        let env = Env::for_test(&home, &root);
        let read: Vec<PathBuf> = settings_files(&Paths::new(&root), &env)
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(read, [home.join(".claude/settings.json")]);
    }
}
