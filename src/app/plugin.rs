//! Whether forge's Claude Code plugin is installed for a project, and what it wires:
//! the settings' `enabledPlugins`, Claude Code's `plugins/installed_plugins.json`,
//! and the installed plugin's `hooks/hooks.json` (see `crate::model::setup::plugin`).
//! Used by `forge doctor` and `forge init --plugin`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::env::Env;
use crate::model::setup::plugin;

/// An enabled plugin that is forge's: named `forge@…`, or one whose hooks run
/// `forge hook`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PluginWiring {
    /// `name@marketplace`.
    pub(crate) id: String,
    /// The settings file whose `enabledPlugins` turns it on.
    pub(crate) enabled_in: PathBuf,
    /// Where Claude Code installed it (`None`: enabled, but not installed here).
    pub(crate) install_path: Option<PathBuf>,
    /// The hook events its `hooks/hooks.json` wires to forge.
    pub(crate) events: Vec<&'static str>,
}

impl PluginWiring {
    /// Whether it runs forge's hooks here.
    pub(crate) fn wires_hooks(&self) -> bool {
        !self.events.is_empty()
    }
}

/// forge's plugins among those enabled for the project at `root`, given its
/// settings files highest precedence first (`(path, parsed value)`: the project's
/// `.claude/settings.local.json`, `.claude/settings.json`, the user's settings).
pub(crate) fn detect(
    env: &Env,
    root: &Path,
    settings: &[(&Path, Option<&Value>)],
) -> Vec<PluginWiring> {
    let values: Vec<Option<&Value>> = settings.iter().map(|(_, v)| *v).collect();
    let enabled = plugin::enabled_plugins(&values);
    if enabled.is_empty() {
        return Vec::new();
    }
    let installed: Option<Value> = env
        .claude_dir()
        .map(|d| d.join("plugins").join("installed_plugins.json"))
        .and_then(|p| crate::store::read_text_follow(&p))
        .and_then(|t| serde_json::from_str(&t).ok());
    enabled
        .into_iter()
        .filter_map(|e| {
            let install_path = installed
                .as_ref()
                .and_then(|i| plugin::install_path(i, &e.id, root));
            let events = install_path
                .as_ref()
                .and_then(|p| crate::store::read_text_follow(&p.join("hooks").join("hooks.json")))
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .map(|v| plugin::forge_events_in(&v))
                .unwrap_or_default();
            let named_forge = e.id.split('@').next() == Some(plugin::PLUGIN);
            (named_forge || !events.is_empty()).then(|| PluginWiring {
                enabled_in: settings
                    .get(e.file)
                    .map(|(p, _)| p.to_path_buf())
                    .unwrap_or_default(),
                id: e.id,
                install_path,
                events,
            })
        })
        .collect()
}
