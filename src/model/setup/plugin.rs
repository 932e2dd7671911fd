//! forge as a Claude Code plugin: the hook commands the plugin's `hooks/hooks.json`
//! carries, and how an installed plugin shows in Claude Code's files. Pure.
//!
//! The repository is a plugin marketplace (`.claude-plugin/marketplace.json`) with
//! one plugin, `forge` (`plugin/`): its hooks run `forge hook <Event>`, its slash
//! commands are forge's, its MCP server is `forge mcp`. What a plugin cannot carry
//! is the status line (Claude Code reads `statusLine` only from settings files;
//! a plugin's own `settings.json` may set `agent` and `subagentStatusLine`, nothing
//! else): `forge init --plugin` adds it. docs/plugin.md has what the pinned client
//! was seen doing.
//!
//! How an install shows (seen with the client 2.1.330): the settings file of the
//! install's scope gets `enabledPlugins: {"forge@<marketplace>": true}` (the user's
//! `~/.claude/settings.json`, or the project's `.claude/settings.json` /
//! `.claude/settings.local.json`), and `~/.claude/plugins/installed_plugins.json`
//! lists the install (`scope`, `installPath` under `~/.claude/plugins/cache/`, and a
//! `projectPath` for project and local installs). A plugin's hooks run beside the
//! settings' hooks, never merged with them, even when the commands are the same:
//! a project wired both ways runs every event twice.

use std::path::{Path, PathBuf};

#[cfg(test)]
use serde_json::json;
use serde_json::{Map, Value};

#[cfg(test)]
use super::install;
use super::settings::{
    self, Emptied, FORGE_EVENTS, InstallOptions, Outcome, ShapeError, forge_role, split_words,
};

/// The plugin's name (and so the `forge@…` of its id).
pub(crate) const PLUGIN: &str = "forge";
/// The marketplace's name in `.claude-plugin/marketplace.json`.
#[cfg(test)]
pub(crate) const MARKETPLACE: &str = "forge";

/// The hook command for `event` that does nothing, silently and successfully, where
/// forge is not installed: a search of `PATH`'s absolute folders for `forge` that
/// execs `forge hook <Event>` there, else `true` ([`settings::guarded_hook`], the
/// form `forge init` writes too).
/// (A missing program would otherwise be a failing hook on every event, shown to
/// the person.) SessionStart says once that forge is missing instead (see
/// [`session_start_command`]).
#[cfg(test)]
pub(crate) fn guarded_hook_command(event: &str) -> String {
    settings::guarded_hook("forge", event)
}

/// What the person is told (Claude Code shows a hook's `systemMessage` under the
/// prompt) when the plugin runs where forge is not installed.
#[cfg(test)]
pub(crate) fn missing_for_person() -> String {
    format!(
        "forge: this session runs the forge plugin, but the forge program is not on PATH, so \
         nothing is recorded. To use it: {}, then restart Claude Code. {}",
        install::commands(),
        install::hint_off_how()
    )
}

/// What the model is told in the same case.
#[cfg(test)]
pub(crate) fn missing_for_model() -> String {
    format!(
        "forge (session handoffs and agent Signals) is not installed on this machine, so its \
         hooks record nothing and its mcp tools fail in this session. If the user asks: it \
         installs with {}.",
        install::commands()
    )
}

/// SessionStart's command: `forge hook SessionStart` where forge is installed; else
/// one line of hook JSON that tells the person ([`missing_for_person`], as a
/// `systemMessage`) and the model ([`missing_for_model`], as `additionalContext`),
/// and exits 0 ([`settings::guarded_session_start`]; `forge init`'s entry differs
/// only in what it says).
#[cfg(test)]
pub(crate) fn session_start_command() -> String {
    settings::guarded_session_start("forge", &missing_for_person(), &missing_for_model())
}

/// The shell the plugin's MCP entry starts, by its absolute path: a bare `sh` would
/// be looked up in `$PATH` too.
#[cfg(test)]
pub(crate) const MCP_SHELL: &str = "/bin/sh";

/// The script [`MCP_SHELL`] runs for the plugin's MCP server: `forge mcp` from an
/// absolute folder of `$PATH` ([`settings::guarded`]'s search: Claude Code would
/// start the first `forge` `$PATH` names, a repository's own `./forge` included,
/// given a relative entry), else one line on stderr and exit 127, as a missing
/// program does.
#[cfg(test)]
pub(crate) fn mcp_command() -> String {
    settings::guarded(
        PLUGIN,
        "mcp",
        "echo 'forge: no forge program in an absolute folder of PATH' >&2; exit 127",
    )
}

/// The plugin's `hooks/hooks.json`: one command per event forge handles, in
/// [`FORGE_EVENTS`]' order.
#[cfg(test)]
pub(crate) fn hooks_json() -> Value {
    let mut hooks = Map::new();
    for event in FORGE_EVENTS {
        let command = if event == "SessionStart" {
            session_start_command()
        } else {
            guarded_hook_command(event)
        };
        hooks.insert(
            event.to_owned(),
            json!([{"hooks": [{"type": "command", "command": command}]}]),
        );
    }
    json!({
        "description": "forge's hooks: record the session in .forge/, orient the next one, re-read after a compaction. Silent where forge is not installed.",
        "hooks": hooks,
    })
}

/// The event a forge hook command handles: `forge hook <Event>` run directly (any
/// path to forge) or through the guard of [`guarded_hook_command`] (today's search of
/// `PATH`'s absolute folders, or the `command -v forge … && exec forge hook <Event> ||
/// …` earlier versions wrote). `None` for anything else.
pub(crate) fn hook_event_of(command: &str) -> Option<String> {
    let words = split_words(command);
    let inner = settings::forge_words(&words)?;
    if forge_role(inner) == Some("hook") {
        inner.get(2).cloned()
    } else {
        None
    }
}

/// The events of [`FORGE_EVENTS`] that a `hooks.json` (a plugin's) wires to forge.
pub(crate) fn forge_events_in(hooks_json: &Value) -> Vec<&'static str> {
    let mut found = Vec::new();
    for (event, h) in settings::handlers(hooks_json) {
        let Some(known) = FORGE_EVENTS.iter().find(|e| **e == event) else {
            continue;
        };
        let wired = h
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| hook_event_of(c).as_deref() == Some(event));
        if wired && !found.contains(known) {
            found.push(*known);
        }
    }
    found
}

/// A plugin the settings enable, and which of them decides it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Enabled {
    /// `name@marketplace`.
    pub(crate) id: String,
    /// The index (into the list given) of the settings file that enables it.
    pub(crate) file: usize,
}

/// The plugins `enabledPlugins` turns on for a project, given its settings files
/// highest precedence first (`.claude/settings.local.json`, `.claude/settings.json`,
/// the user's): for each id, the first file that names it decides (`true`, or a
/// non-empty list, is on; `false` is off).
pub(crate) fn enabled_plugins(files: &[Option<&Value>]) -> Vec<Enabled> {
    let mut decided: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let Some(map) = file
            .and_then(|v| v.get("enabledPlugins"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (id, on) in map {
            if decided.contains(id) {
                continue;
            }
            decided.push(id.clone());
            let on = match on {
                Value::Bool(b) => *b,
                Value::Array(a) => !a.is_empty(),
                _ => false,
            };
            if on {
                out.push(Enabled {
                    id: id.clone(),
                    file: i,
                });
            }
        }
    }
    out
}

/// Where `installed_plugins.json` says plugin `id` is installed for the project at
/// `root`: a `user` install, or a `project`/`local` one whose `projectPath` is the
/// project (a project install of another project does not count).
pub(crate) fn install_path(installed: &Value, id: &str, root: &Path) -> Option<PathBuf> {
    let installs = installed.get("plugins")?.get(id)?.as_array()?;
    let applies = |i: &&Value| match i.get("scope").and_then(Value::as_str) {
        Some("user") => true,
        Some("project" | "local") => i
            .get("projectPath")
            .and_then(Value::as_str)
            .is_some_and(|p| Path::new(p) == root),
        _ => false,
    };
    // A project's own install is the one its sessions load when there are both.
    let mut applying: Vec<&Value> = installs.iter().filter(applies).collect();
    applying.sort_by_key(|i| i.get("scope").and_then(Value::as_str) == Some("user"));
    applying
        .first()?
        .get("installPath")?
        .as_str()
        .map(PathBuf::from)
}

/// `settings` without forge's hook entries, everything else (its statusLine
/// included) as it was, in its order; `removed` lists the entries taken out.
fn without_forge_hooks(settings: &Value, emptied: Emptied<'_>) -> Result<Outcome, ShapeError> {
    // Guarded entries (`command -v forge … && exec forge hook X || true`) are
    // forge's too: settings::uninstall takes both forms.
    let mut out = settings::uninstall(settings, emptied)?;
    // uninstall also takes forge's statusLine: put it back where it was.
    if let (Some(before), Some(after)) = (settings.as_object(), out.settings.as_object()) {
        let mut kept = Map::new();
        for (k, v) in before {
            if k == "statusLine" {
                kept.insert(k.clone(), v.clone());
            } else if let Some(now) = after.get(k) {
                kept.insert(k.clone(), now.clone());
            }
        }
        out.settings = Value::Object(kept);
        out.removed_forge.retain(|r| r.event != "statusLine");
    }
    Ok(out)
}

/// `forge init --plugin`'s transform: forge's statusLine (which a plugin cannot
/// carry) as `forge init` writes it, and none of forge's hook entries (the plugin
/// runs them; both would run every event twice). Dead hooks are handled as
/// [`settings::install`] handles them; every other key and hook is kept, and so is
/// the order of keys. A second run changes nothing.
pub(crate) fn install_for_plugin(
    settings: &Value,
    opts: &InstallOptions<'_>,
) -> Result<Outcome, ShapeError> {
    let stripped = without_forge_hooks(settings, Emptied::Remove)?;
    let installed = settings::install(&stripped.settings, opts)?;
    // install added forge's hook entries back: take them out again, keeping the
    // event lists and `hooks` object that were there, empty, before.
    let done = without_forge_hooks(&installed.settings, Emptied::KeepAsIn(&stripped.settings))?;
    Ok(Outcome {
        settings: done.settings,
        removed_dead: installed.removed_dead,
        kept_dead: installed.kept_dead,
        removed_forge: stripped.removed_forge,
        notes: installed.notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts<'a>(exists: &'a dyn Fn(&Path) -> bool) -> InstallOptions<'a> {
        InstallOptions {
            program: "forge",
            replace_statusline: false,
            wrap_statusline: false,
            expand: settings::Expand::default(),
            exists,
            remove_dead_only_inside: None,
        }
    }

    #[test]
    fn for_the_plugin_only_the_status_line_stays_and_twice_changes_nothing() {
        let yes = |_: &Path| true;
        let wired = json!({
            "model": "opus",
            "hooks": {
                "Stop": [{"hooks": [
                    {"type": "command", "command": "forge hook Stop"},
                    {"type": "command", "command": "/bin/mine.sh"}
                ]}],
                "SessionStart": [{"hooks": [{"type": "command", "command": "forge hook SessionStart"}]}],
                "PreToolUse": []
            },
            "statusLine": {"type": "command", "command": "/usr/local/bin/forge statusline", "padding": 0},
            "env": {"A": "1"}
        });
        let out = install_for_plugin(&wired, &opts(&yes)).unwrap();
        assert_eq!(
            out.settings,
            json!({
                "model": "opus",
                "hooks": {
                    "Stop": [{"hooks": [{"type": "command", "command": "/bin/mine.sh"}]}],
                    "PreToolUse": []
                },
                "statusLine": {"type": "command", "command": settings::guarded_statusline("forge"), "padding": 0, "refreshInterval": settings::REFRESH_INTERVAL_SECS},
                "env": {"A": "1"}
            })
        );
        let keys: Vec<&String> = out.settings.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "hooks", "statusLine", "env"]);
        assert_eq!(out.removed_forge.len(), 2, "{:?}", out.removed_forge);
        let again = install_for_plugin(&out.settings, &opts(&yes)).unwrap();
        assert_eq!(again.settings, out.settings);
        assert!(again.removed_forge.is_empty());
        // An empty file gets the status line and nothing else.
        let fresh = install_for_plugin(&Value::Null, &opts(&yes)).unwrap();
        assert_eq!(
            fresh.settings,
            json!({"statusLine": settings::forge_statusline("forge")})
        );
        // Another tool's status line is kept, and said so.
        let other = json!({"statusLine": {"type": "command", "command": "starship statusline"}});
        let kept = install_for_plugin(&other, &opts(&yes)).unwrap();
        assert_eq!(kept.settings, other);
        assert!(
            kept.notes[0].contains("--replace-statusline"),
            "{:?}",
            kept.notes
        );
    }

    #[test]
    fn guarded_commands_name_their_event_and_plain_ones_too() {
        assert_eq!(
            guarded_hook_command("Stop"),
            "p=$PATH:; while [ -n \"$p\" ]; do d=${p%%:*}; p=${p#*:}; case $d in /*) \
             [ -f \"$d/forge\" ] && [ -x \"$d/forge\" ] && exec \"$d/forge\" hook Stop ;; \
             esac; done; true"
        );
        for e in FORGE_EVENTS {
            assert_eq!(hook_event_of(&guarded_hook_command(e)).as_deref(), Some(e));
        }
        assert_eq!(
            hook_event_of(&session_start_command()).as_deref(),
            Some("SessionStart")
        );
        assert_eq!(hook_event_of("forge hook Stop").as_deref(), Some("Stop"));
        assert_eq!(
            hook_event_of("'/opt/my tools/forge' hook PreCompact").as_deref(),
            Some("PreCompact")
        );
        for not in [
            "forge statusline",
            "echo forge hook Stop",
            "command -v forge && exec other hook Stop",
            "",
        ] {
            assert_eq!(hook_event_of(not), None, "{not}");
        }
    }

    #[test]
    fn the_missing_forge_line_is_hook_json_that_the_shell_keeps_whole() {
        for text in [missing_for_person(), missing_for_model()] {
            assert!(
                !text.contains('\''),
                "a single quote would end the echo: {text}"
            );
        }
        let cmd = session_start_command();
        let json = cmd
            .split_once("; then { ")
            .unwrap()
            .1
            .split_once("echo '")
            .unwrap()
            .1
            .strip_suffix("'; fi")
            .unwrap();
        let v: Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["systemMessage"], missing_for_person());
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            missing_for_model()
        );
        assert!(missing_for_person().contains(&install::cargo_command()));
        assert!(missing_for_person().contains(&install::npm_command()));
    }

    #[test]
    fn the_shipped_plugin_is_what_forge_generates() {
        let shipped: Value =
            serde_json::from_str(include_str!("../../../plugin/hooks/hooks.json")).unwrap();
        assert_eq!(shipped, hooks_json(), "plugin/hooks/hooks.json is stale");
        let mut text = serde_json::to_string_pretty(&hooks_json()).unwrap();
        text.push('\n');
        assert_eq!(include_str!("../../../plugin/hooks/hooks.json"), text);
        let manifest: Value =
            serde_json::from_str(include_str!("../../../plugin/.claude-plugin/plugin.json"))
                .unwrap();
        assert_eq!(manifest["name"], PLUGIN);
        assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(
            manifest["mcpServers"]["forge"],
            json!({"command": MCP_SHELL, "args": ["-c", mcp_command()]})
        );
        let market: Value =
            serde_json::from_str(include_str!("../../../.claude-plugin/marketplace.json")).unwrap();
        assert_eq!(market["name"], MARKETPLACE);
        assert_eq!(market["plugins"][0]["name"], PLUGIN);
        assert_eq!(market["plugins"][0]["source"], "./plugin");
        for (name, shipped) in [
            (
                "forge-learn.md",
                include_str!("../../../plugin/commands/forge-learn.md"),
            ),
            (
                "forge-continue.md",
                include_str!("../../../plugin/commands/forge-continue.md"),
            ),
        ] {
            let template = crate::model::setup::commands::COMMANDS
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap()
                .1;
            assert_eq!(
                shipped,
                crate::model::setup::commands::render_command(template, "forge"),
                "plugin/commands/{name} is stale"
            );
        }
    }

    #[test]
    fn the_plugin_and_forge_init_write_the_same_guarded_commands() {
        let v = hooks_json();
        for e in FORGE_EVENTS {
            let plugin = v["hooks"][e][0]["hooks"][0]["command"].as_str().unwrap();
            let init = settings::hook_entry("forge", e);
            if e == "SessionStart" {
                // The same guard; only the line said where forge is missing differs
                // (the plugin's speaks of the plugin, init's of the project).
                let head = |c: &str| c.split_once("; done; ").unwrap().0.to_owned();
                assert_eq!(head(plugin), head(&init));
                assert_ne!(plugin, init);
            } else {
                assert_eq!(plugin, init, "{e}");
            }
        }
    }

    #[test]
    fn hooks_json_wires_every_forge_event() {
        let v = hooks_json();
        assert_eq!(forge_events_in(&v), FORGE_EVENTS);
        let mut other = v.clone();
        other["hooks"]["Stop"][0]["hooks"][0]["command"] = json!("echo hi");
        assert!(!forge_events_in(&other).contains(&"Stop"));
        assert!(forge_events_in(&json!({})).is_empty());
    }

    #[test]
    fn the_most_precise_settings_file_decides_a_plugin() {
        let user = json!({"enabledPlugins": {"forge@forge": true, "x@y": true}});
        let project = json!({"enabledPlugins": {"forge@forge": false}});
        let local = json!({"enabledPlugins": {"x@y": ["1.0"]}});
        assert_eq!(
            enabled_plugins(&[Some(&local), Some(&project), Some(&user)]),
            [Enabled {
                id: "x@y".into(),
                file: 0
            }]
        );
        assert_eq!(
            enabled_plugins(&[None, None, Some(&user)]),
            [
                Enabled {
                    id: "forge@forge".into(),
                    file: 2
                },
                Enabled {
                    id: "x@y".into(),
                    file: 2
                }
            ]
        );
        assert!(enabled_plugins(&[Some(&json!({"enabledPlugins": 3}))]).is_empty());
    }

    #[test]
    fn an_install_counts_for_every_project_or_its_own() {
        // As the client 2.1.330 wrote it.
        let installed = json!({"version": 2, "plugins": {"forge@forge": [
            {"scope": "user", "installPath": "/h/.claude/plugins/cache/forge/forge/0.1.0", "version": "0.1.0"},
            {"scope": "project", "installPath": "/h/.claude/plugins/cache/forge/forge/0.2.0", "projectPath": "/p"}
        ]}});
        assert_eq!(
            install_path(&installed, "forge@forge", Path::new("/p")),
            Some(PathBuf::from("/h/.claude/plugins/cache/forge/forge/0.2.0"))
        );
        assert_eq!(
            install_path(&installed, "forge@forge", Path::new("/q")),
            Some(PathBuf::from("/h/.claude/plugins/cache/forge/forge/0.1.0"))
        );
        let only_project = json!({"plugins": {"forge@forge": [
            {"scope": "local", "installPath": "/c", "projectPath": "/p"}
        ]}});
        assert_eq!(
            install_path(&only_project, "forge@forge", Path::new("/q")),
            None
        );
        assert_eq!(install_path(&installed, "other@x", Path::new("/p")), None);
    }
}
