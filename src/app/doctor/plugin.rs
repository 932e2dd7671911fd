//! forge's Claude Code plugin: the checks it changes (a project wired by the plugin
//! alone is wired) and its own `plugin` check.

use std::path::Path;

use serde_json::Value;

use super::{Check, SettingsFile, Status, shown};
use crate::app::plugin::PluginWiring;
use crate::env::Env;
use crate::model::setup::settings::{self, FORGE_EVENTS};
use crate::store::Paths;

/// forge's plugins enabled for the project (see [`crate::app::plugin::detect`]).
pub(super) fn plugins_of(files: &[SettingsFile], paths: &Paths, env: &Env) -> Vec<PluginWiring> {
    let given: Vec<(&Path, Option<&Value>)> = files
        .iter()
        .map(|f| (f.path.as_path(), f.value.as_ref().ok()))
        .collect();
    crate::app::plugin::detect(env, &paths.root, &given)
}

/// The settings files that wire forge's hooks (directly, or through the guard the
/// plugin uses), with the events each wires.
fn settings_hook_files(files: &[SettingsFile]) -> Vec<(&SettingsFile, Vec<String>)> {
    files
        .iter()
        .filter_map(|f| {
            let v = f.value.as_ref().ok()?;
            let mut events: Vec<String> = settings::command_hooks(v)
                .iter()
                .filter_map(|h| crate::model::setup::plugin::hook_event_of(&h.command))
                .filter(|e| FORGE_EVENTS.contains(&e.as_str()))
                .collect();
            events.dedup();
            (!events.is_empty()).then_some((f, events))
        })
        .collect()
}

/// The plugin's id and where it is enabled, for messages.
fn plugin_words(p: &PluginWiring, paths: &Paths) -> String {
    format!(
        "the plugin {}, enabled in {}",
        p.id,
        shown(&p.enabled_in, paths)
    )
}

/// `hooks`, counting what forge's plugin wires: a project wired by the plugin alone
/// is wired.
pub(super) fn with_plugin_hooks(
    check: Check,
    plugin: Option<&PluginWiring>,
    files: &[SettingsFile],
    paths: &Paths,
) -> Check {
    let Some(p) = plugin.filter(|p| p.wires_hooks()) else {
        return check;
    };
    if files.iter().any(|f| f.value.is_err()) {
        return check; // a settings file Claude Code ignores is still a failure
    }
    let mut covered: Vec<String> = p.events.iter().map(|e| (*e).to_owned()).collect();
    let mut sources = vec![plugin_words(p, paths)];
    for (f, events) in settings_hook_files(files) {
        covered.extend(events);
        sources.push(shown(&f.path, paths));
    }
    let missing: Vec<&str> = FORGE_EVENTS
        .iter()
        .copied()
        .filter(|e| !covered.iter().any(|c| c == e))
        .collect();
    if missing.is_empty() {
        Check::new(
            "hooks",
            Status::Ok,
            format!(
                "forge handles all {} hook events ({})",
                FORGE_EVENTS.len(),
                sources.join(" and ")
            ),
        )
    } else {
        Check::new(
            "hooks",
            Status::Fail,
            format!(
                "forge does not handle {} although {} is enabled: update it (`claude plugin update {}`), or run `forge init` to add them",
                missing.join(", "),
                p.id,
                p.id
            ),
        )
    }
}

/// `binary`, for the plugin: its hooks and MCP server run `forge` from PATH.
pub(super) fn with_plugin_binary(check: Check, plugin: Option<&PluginWiring>, env: &Env) -> Check {
    let Some(p) = plugin.filter(|p| p.wires_hooks()) else {
        return check;
    };
    match env.find_program("forge") {
        None => Check::new(
            "binary",
            Status::Fail,
            format!(
                "the plugin {}'s hooks and MCP server run `forge` from PATH, but there is no forge on PATH here, so they do nothing: install forge on PATH ({}) and start Claude Code from a shell where it is found",
                p.id,
                crate::model::setup::install::commands()
            ),
        ),
        Some(found) => {
            let line = format!(
                "the plugin {} runs `forge` from PATH: {}",
                p.id,
                found.display()
            );
            if check.status == Status::Warn && check.details.is_empty() {
                // "no forge commands in the settings to check": the plugin's are.
                Check::new("binary", Status::Ok, line)
            } else {
                let mut check = check;
                check.details.push(line);
                check
            }
        }
    }
}

/// `commands`, for the plugin: it carries /forge:forge-learn and /forge:forge-continue.
pub(super) fn with_plugin_commands(check: Check, plugin: Option<&PluginWiring>) -> Check {
    match plugin.filter(|p| p.wires_hooks() && p.install_path.is_some()) {
        Some(p) if check.status == Status::Ok && check.summary.starts_with("no forge slash") => {
            Check::new(
                "commands",
                Status::Ok,
                format!(
                    "the slash commands come from the plugin {}: /forge:forge-learn and /forge:forge-continue",
                    p.id
                ),
            )
        }
        _ => check,
    }
}

/// `statusline`, for the plugin: a plugin cannot carry the status line.
pub(super) fn with_plugin_statusline(check: Check, plugin: Option<&PluginWiring>) -> Check {
    if check.status != Status::Fail || plugin.is_none_or(|p| !p.wires_hooks()) {
        return check;
    }
    Check::new(
        "statusline",
        Status::Fail,
        "no statusLine is set, and a plugin cannot carry one (Claude Code reads statusLine only from settings files), so context use is not shown and the automatic handoff never fires: run `forge init --plugin`",
    )
}

/// forge's plugin: installed and on its own, enabled but not installed, or wired
/// beside settings entries that run the same hooks (Claude Code runs a plugin's
/// hooks and the settings' separately, even identical commands, seen with the
/// client 2.1.330: every event twice).
pub(super) fn check_plugin(
    plugin: Option<&PluginWiring>,
    files: &[SettingsFile],
    paths: &Paths,
) -> Check {
    let Some(p) = plugin else {
        return Check::new(
            "plugin",
            Status::Ok,
            "forge's Claude Code plugin is not enabled for this project (the other way to wire forge: `claude plugin install forge --marketplace <forge's repository>`, then `forge init --plugin`)",
        );
    };
    if p.install_path.is_none() {
        return Check::new(
            "plugin",
            Status::Warn,
            format!(
                "{} is enabled in {} but not installed here, so it does nothing: run `claude plugin install {}` (or take it out of enabledPlugins)",
                p.id,
                shown(&p.enabled_in, paths),
                p.id
            ),
        );
    }
    let twice = settings_hook_files(files);
    if !twice.is_empty() && p.wires_hooks() {
        let details: Vec<String> = twice
            .iter()
            .map(|(f, events)| format!("{}: {}", shown(&f.path, paths), events.join(", ")))
            .collect();
        let files_words = twice
            .iter()
            .map(|(f, _)| shown(&f.path, paths))
            .collect::<Vec<_>>()
            .join(" and ");
        let shared = paths.root.join(".claude/settings.json");
        let in_shared = twice.iter().any(|(f, _)| f.path == shared);
        let fixes: Vec<String> = twice
            .iter()
            .map(|(f, _)| init_plugin_fix(&f.path, paths))
            .collect();
        let summary = if in_shared && p.enabled_in != shared {
            // The shared file is the team's: teammates without the plugin run forge
            // through it. The fix that breaks nobody turns the plugin off for you here.
            format!(
                "forge's hooks are wired twice: by {} and by `forge hook` entries in {files_words}. Claude Code runs a plugin's hooks and the settings' separately, so every event runs twice. The shared .claude/settings.json is what teammates without the plugin run forge by, so keep it: `claude plugin disable {} --scope local` turns the plugin off for you in this project only. (Only if the whole team moves to the plugin: {} takes forge's hook entries out of the files and keeps the status line, and then every teammate needs the plugin.)",
                plugin_words(p, paths),
                p.id,
                fixes.join(", "),
            )
        } else {
            format!(
                "forge's hooks are wired twice: by {} and by `forge hook` entries in {files_words}. Claude Code runs a plugin's hooks and the settings' separately, so every event runs twice. Keep the plugin: {} (takes forge's hook entries out and keeps the status line); or keep the settings: `claude plugin disable {}`",
                plugin_words(p, paths),
                fixes.join(", "),
                p.id
            )
        };
        return Check::new("plugin", Status::Warn, summary).with(details);
    }
    if !p.wires_hooks() {
        return Check::new(
            "plugin",
            Status::Warn,
            format!(
                "{} is installed, but its hooks.json runs no `forge hook`: update it (`claude plugin update {}`)",
                p.id, p.id
            ),
        );
    }
    Check::new(
        "plugin",
        Status::Ok,
        format!(
            "forge's hooks, slash commands and MCP server come from {}",
            plugin_words(p, paths)
        ),
    )
}

/// The `forge init --plugin` that takes forge's hook entries out of `file`.
fn init_plugin_fix(file: &Path, paths: &Paths) -> String {
    if file == paths.root.join(".claude/settings.local.json") {
        "`forge init --plugin --local`".to_owned()
    } else if file == paths.root.join(".claude/settings.json") {
        "`forge init --plugin`".to_owned()
    } else {
        "`forge init --plugin --user`".to_owned()
    }
}
