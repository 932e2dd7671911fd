//! Layered configuration: `.forge/config.toml` over `~/.config/forge/config.toml`
//! (`$XDG_CONFIG_HOME` respected) over built-in defaults, merged field by field.
//!
//! Unknown keys and wrong types are errors that name the key and the file. The hooks
//! and the statusline must never fail on a bad config: they call [`load_or_default`],
//! which logs the error and falls back to the defaults.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::model::level::Thresholds;
use crate::store::Paths;

/// Context levels and the handoff threshold, in percent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ContextConfig {
    /// Start of L1 (default 70).
    pub warn: f64,
    /// Start of L2 (default 85).
    pub critical: f64,
    /// Start of L3 (default 95).
    pub emergency: f64,
    /// The statusline shows `⚠ CTX` and fires the automatic handoff from here (default 70).
    pub handoff_threshold: f64,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self {
            warn: 70.0,
            critical: 85.0,
            emergency: 95.0,
            handoff_threshold: 70.0,
        }
    }
}

impl ContextConfig {
    /// The level boundaries.
    pub fn thresholds(&self) -> Thresholds {
        Thresholds {
            warn: self.warn,
            critical: self.critical,
            emergency: self.emergency,
        }
    }
}

/// The statusline segments forge knows, in their default order.
pub const SEGMENTS: [&str; 7] = [
    "model", "project", "git", "context", "task", "signals", "learn",
];

/// What the statusline shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatuslineConfig {
    /// Segments in order; any of [`SEGMENTS`].
    pub segments: Vec<String>,
    /// Width of the context bar in cells (default 10).
    pub bar_width: u16,
}

impl Default for StatuslineConfig {
    fn default() -> Self {
        Self {
            segments: SEGMENTS.iter().map(|s| (*s).to_owned()).collect(),
            bar_width: 10,
        }
    }
}

/// Git facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GitConfig {
    /// How long the hooks' git cache is trusted by the statusline, in seconds.
    pub cache_ttl_secs: u64,
}

impl Default for GitConfig {
    fn default() -> Self {
        Self { cache_ttl_secs: 30 }
    }
}

/// Hook behaviour switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HooksConfig {
    /// PreCompact writes a safety-net handoff when the session has none yet.
    pub handoff_on_precompact: bool,
    /// After a compaction, the first tool call is denied once with what to re-read.
    pub compaction_reread: bool,
}

impl Default for HooksConfig {
    fn default() -> Self {
        Self {
            handoff_on_precompact: true,
            compaction_reread: true,
        }
    }
}

/// The effective configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `[context]`.
    pub context: ContextConfig,
    /// `[statusline]`.
    pub statusline: StatuslineConfig,
    /// `[git]`.
    pub git: GitConfig,
    /// `[hooks]`.
    pub hooks: HooksConfig,
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "lowercase")]
pub enum Source {
    /// Built in.
    Default,
    /// `~/.config/forge/config.toml`.
    User(PathBuf),
    /// `.forge/config.toml`.
    Project(PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::User(p) => write!(f, "user ({})", p.display()),
            Self::Project(p) => write!(f, "project ({})", p.display()),
        }
    }
}

/// A config error that names the file and, where it can, the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file is not valid TOML, or a key is unknown or has the wrong type.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong (names the key).
        message: String,
    },
    /// The file exists but cannot be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// The effective config, with where each value came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The merged values.
    pub config: Config,
    /// `section.key` → source, for every leaf.
    pub sources: BTreeMap<String, Source>,
    /// The files that were looked for, in order (user, project), and whether each exists.
    pub files: Vec<(Source, bool)>,
}

/// The user config file: `$XDG_CONFIG_HOME/forge/config.toml` or `~/.config/forge/config.toml`.
pub fn user_path(env: &Env) -> Option<PathBuf> {
    env.user_config_dir().map(|d| d.join("config.toml"))
}

fn parse_file(path: &Path) -> Result<Option<toml::Table>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let table: toml::Table =
        toml::from_str(&text).map_err(|e| invalid(one_line(&e.to_string())))?;
    // Check this file alone, so the error names this file.
    let config: Config = Config::deserialize(toml::Value::Table(table.clone()))
        .map_err(|e| invalid(describe_de_error(&e.to_string(), &table)))?;
    let _ = config;
    Ok(Some(table))
}

fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Adds the section to serde's "unknown field" messages, which name only the key.
fn describe_de_error(message: &str, table: &toml::Table) -> String {
    let msg = one_line(message);
    if let Some(rest) = msg.strip_prefix("unknown field `")
        && let Some(key) = rest.split('`').next()
    {
        if table.contains_key(key) {
            return format!("unknown key `{key}` (sections: context, statusline, git, hooks)");
        }
        for (section, value) in table {
            if value.as_table().is_some_and(|t| t.contains_key(key)) {
                return format!("unknown key `{section}.{key}` — {msg}");
            }
        }
    }
    msg
}

fn merge(
    into: &mut toml::Table,
    from: &toml::Table,
    source: &Source,
    prefix: &str,
    sources: &mut BTreeMap<String, Source>,
) {
    for (k, v) in from {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match (into.get_mut(k), v) {
            (Some(toml::Value::Table(dst)), toml::Value::Table(src)) => {
                merge(dst, src, source, &key, sources);
            }
            _ => {
                if let toml::Value::Table(t) = v {
                    let mut fresh = toml::Table::new();
                    merge(&mut fresh, t, source, &key, sources);
                    into.insert(k.clone(), toml::Value::Table(fresh));
                } else {
                    into.insert(k.clone(), v.clone());
                    sources.insert(key, source.clone());
                }
            }
        }
    }
}

fn leaves(prefix: &str, v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(&key, v, out);
            }
        }
        _ => out.push(prefix.to_owned()),
    }
}

/// Loads the layered config for a project. Errors name the file and the key.
pub fn load(paths: &Paths, env: &Env) -> Result<Loaded, ConfigError> {
    let defaults = toml::Value::try_from(Config::default()).map_err(|e| ConfigError::Invalid {
        path: PathBuf::from("<defaults>"),
        message: e.to_string(),
    })?;
    let mut sources = BTreeMap::new();
    let mut keys = Vec::new();
    leaves("", &defaults, &mut keys);
    for k in keys {
        sources.insert(k, Source::Default);
    }
    let mut merged = match defaults {
        toml::Value::Table(t) => t,
        _ => toml::Table::new(),
    };
    let mut files = Vec::new();
    let layers = [
        user_path(env).map(Source::User),
        Some(Source::Project(paths.config())),
    ];
    for source in layers.into_iter().flatten() {
        let path = match &source {
            Source::User(p) | Source::Project(p) => p.clone(),
            Source::Default => continue,
        };
        let table = parse_file(&path)?;
        files.push((source.clone(), table.is_some()));
        if let Some(table) = table {
            merge(&mut merged, &table, &source, "", &mut sources);
        }
    }
    let config =
        Config::deserialize(toml::Value::Table(merged)).map_err(|e| ConfigError::Invalid {
            path: paths.config(),
            message: one_line(&e.to_string()),
        })?;
    validate(&config).map_err(|message| {
        // Name the file that set the offending value.
        let path = message
            .0
            .iter()
            .filter_map(|k| match sources.get(*k) {
                Some(Source::User(p) | Source::Project(p)) => Some(p.clone()),
                _ => None,
            })
            .next_back()
            .unwrap_or_else(|| PathBuf::from("<defaults>"));
        ConfigError::Invalid {
            path,
            message: message.1,
        }
    })?;
    Ok(Loaded {
        config,
        sources,
        files,
    })
}

type Invalid = (Vec<&'static str>, String);

/// Checks values that types alone cannot: ordered levels, ranges, known segments.
fn validate(c: &Config) -> Result<(), Invalid> {
    let x = &c.context;
    for (key, v) in [
        ("context.warn", x.warn),
        ("context.critical", x.critical),
        ("context.emergency", x.emergency),
        ("context.handoff_threshold", x.handoff_threshold),
    ] {
        if !(0.0..=100.0).contains(&v) {
            return Err((
                vec![key],
                format!("`{key}` must be between 0 and 100, found {v}"),
            ));
        }
    }
    if !(x.warn < x.critical && x.critical < x.emergency) {
        return Err((
            vec!["context.warn", "context.critical", "context.emergency"],
            format!(
                "context levels must rise: warn ({}) < critical ({}) < emergency ({})",
                x.warn, x.critical, x.emergency
            ),
        ));
    }
    if !(1..=100).contains(&c.statusline.bar_width) {
        return Err((
            vec!["statusline.bar_width"],
            format!(
                "`statusline.bar_width` must be 1 to 100, found {}",
                c.statusline.bar_width
            ),
        ));
    }
    if let Some(bad) = c
        .statusline
        .segments
        .iter()
        .find(|s| !SEGMENTS.contains(&s.as_str()))
    {
        return Err((
            vec!["statusline.segments"],
            format!(
                "`statusline.segments` has unknown segment \"{bad}\" (known: {})",
                SEGMENTS.join(", ")
            ),
        ));
    }
    Ok(())
}

/// For hooks and the statusline: the config, or the defaults when it is broken (the
/// error is logged to `.forge/logs/errors.log`, never shown in the session).
pub fn load_or_default(paths: &Paths, env: &Env) -> Config {
    match load(paths, env) {
        Ok(l) => l.config,
        Err(e) => {
            if paths.logs().is_dir() {
                crate::store::log_error(paths, "config", &e.to_string());
            }
            Config::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Paths, Env) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        std::fs::create_dir_all(root.join(".forge")).unwrap();
        let mut env = Env::for_test(&t.path().join("home"), &root);
        env.xdg_config_home = Some(t.path().join("xdg"));
        (t, Paths::new(root), env)
    }

    #[test]
    fn defaults_when_no_files() {
        let (_t, p, env) = setup();
        let l = load(&p, &env).unwrap();
        assert_eq!(l.config, Config::default());
        assert_eq!(l.sources.get("context.warn"), Some(&Source::Default));
    }

    #[test]
    fn project_over_user_over_default_per_field() {
        let (t, p, env) = setup();
        let user = t.path().join("xdg/forge/config.toml");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(&user, "[context]\nwarn = 60\ncritical = 80\n").unwrap();
        std::fs::write(p.config(), "[context]\nwarn = 65\n").unwrap();
        let l = load(&p, &env).unwrap();
        assert_eq!(l.config.context.warn, 65.0);
        assert_eq!(l.config.context.critical, 80.0);
        assert_eq!(l.config.context.emergency, 95.0);
        assert_eq!(l.sources["context.warn"], Source::Project(p.config()));
        assert_eq!(l.sources["context.critical"], Source::User(user));
        assert_eq!(l.sources["context.emergency"], Source::Default);
    }

    #[test]
    fn unknown_key_and_wrong_type_name_key_and_file() {
        let (_t, p, env) = setup();
        std::fs::write(p.config(), "[context]\nwarm = 60\n").unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(
            e.contains("config.toml") && e.contains("context.warm"),
            "{e}"
        );
        std::fs::write(p.config(), "[context]\nwarn = \"high\"\n").unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains("config.toml") && e.contains("warn"), "{e}");
        std::fs::write(p.config(), "[colour]\nx = 1\n").unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains("unknown key `colour`"), "{e}");
        std::fs::write(p.config(), "[context]\nwarn = 90\n").unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains("must rise") && e.contains("config.toml"), "{e}");
        assert_eq!(load_or_default(&p, &env), Config::default());
    }
}
