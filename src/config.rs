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

/// The statusline segments shown by default, in their default order.
pub const DEFAULT_SEGMENTS: [&str; 7] = [
    "model", "project", "git", "context", "task", "signals", "learn",
];

/// Every statusline segment forge knows: the defaults, then the optional ones read
/// from the payload (`cost`, `duration`, `limits`, `lines`) and from the fleet
/// registry (`elsewhere`), which a user adds to `[statusline] segments`.
pub const SEGMENTS: [&str; 12] = [
    "model",
    "project",
    "git",
    "context",
    "task",
    "signals",
    "learn",
    "cost",
    "duration",
    "limits",
    "lines",
    "elsewhere",
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
            segments: DEFAULT_SEGMENTS.iter().map(|s| (*s).to_owned()).collect(),
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
    /// After a proven compaction, the first tool call that is not read-only is denied
    /// once with what to re-read (and Stop blocks once when no tool ran).
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

/// Learning reminders and `MEMORY.md` housekeeping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LearnConfig {
    /// SessionStart reminds the session to run /forge-learn while `learn-pending` is
    /// set (the flag is still kept, for `status` and the dashboard).
    pub nudge: bool,
    /// `forge learn archive` keeps `MEMORY.md` at or under this many lines.
    pub memory_max_lines: usize,
}

impl Default for LearnConfig {
    fn default() -> Self {
        Self {
            nudge: true,
            memory_max_lines: crate::model::memory::MEMORY_MAX_LINES,
        }
    }
}

/// Which pending handoffs SessionStart injects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResumeConfig {
    /// Automatic handoffs (threshold, pre-compact): `recent` (injected while younger
    /// than `max_age`), `always`, or `never` (only named). A handoff the user chose
    /// is always injected.
    pub auto: String,
    /// The age limit of `auto = "recent"`: `30m`, `12h`, `2d`…
    pub max_age: String,
}

impl Default for ResumeConfig {
    fn default() -> Self {
        Self {
            auto: "recent".into(),
            max_age: "12h".into(),
        }
    }
}

impl ResumeConfig {
    /// `max_age` as a duration (validated at load; 12 h if it somehow is not).
    pub fn max_age(&self) -> chrono::Duration {
        crate::model::time::parse_duration(&self.max_age)
            .unwrap_or_else(|| chrono::Duration::hours(12))
    }
}

/// Who is shown as needing attention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AttentionConfig {
    /// A live session silent for longer than this leaves "needs attention".
    pub stale_after: String,
}

impl Default for AttentionConfig {
    fn default() -> Self {
        Self {
            stale_after: "30m".into(),
        }
    }
}

impl AttentionConfig {
    /// `stale_after` as a duration (validated at load; 30 min if it somehow is not).
    pub fn stale_after(&self) -> chrono::Duration {
        crate::model::time::parse_duration(&self.stale_after)
            .unwrap_or_else(|| chrono::Duration::minutes(30))
    }
}

/// Handoff retention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HandoffsConfig {
    /// SessionEnd prunes handoffs as `forge handoff prune --older-than OLDER_THAN
    /// --keep KEEP` would.
    pub auto_prune: bool,
    /// Handoffs older than this may be pruned.
    pub older_than: String,
    /// The newest this many handoffs are always kept.
    pub keep: usize,
}

impl Default for HandoffsConfig {
    fn default() -> Self {
        Self {
            auto_prune: false,
            older_than: "30d".into(),
            keep: 50,
        }
    }
}

impl HandoffsConfig {
    /// `older_than` as a duration (validated at load; 30 days if it somehow is not).
    pub fn older_than(&self) -> chrono::Duration {
        crate::model::time::parse_duration(&self.older_than)
            .unwrap_or_else(|| chrono::Duration::days(30))
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
    /// `[learn]`.
    pub learn: LearnConfig,
    /// `[resume]`.
    pub resume: ResumeConfig,
    /// `[attention]`.
    pub attention: AttentionConfig,
    /// `[handoffs]`.
    pub handoffs: HandoffsConfig,
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

impl ConfigError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            Self::Invalid { path, .. } | Self::Read { path, .. } => path,
        }
    }
}

/// Every section and its keys, in the order of the config structs (checked against
/// [`Config::default`] by a test, so the two cannot drift).
pub const KEYS: [(&str, &[&str]); 8] = [
    (
        "context",
        &["warn", "critical", "emergency", "handoff_threshold"],
    ),
    ("statusline", &["segments", "bar_width"]),
    ("git", &["cache_ttl_secs"]),
    ("hooks", &["handoff_on_precompact", "compaction_reread"]),
    ("learn", &["nudge", "memory_max_lines"]),
    ("resume", &["auto", "max_age"]),
    ("attention", &["stale_after"]),
    ("handoffs", &["auto_prune", "older_than", "keep"]),
];

/// The valid keys in one line, for error hints:
/// `[context] warn, critical, … · [statusline] segments, bar_width · …`.
pub fn valid_keys_text() -> String {
    KEYS.iter()
        .map(|(section, keys)| format!("[{section}] {}", keys.join(", ")))
        .collect::<Vec<_>>()
        .join(" · ")
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

/// The largest config file read (a larger one is an error, never cut).
const CONFIG_MAX: u64 = 1024 * 1024;

/// Reads and checks one config file. The project's (under `.forge/`) is opened
/// without following a link; the user's may be a dotfiles manager's link.
fn parse_file(
    path: &Path,
    follow: crate::store::safe::Follow,
) -> Result<Option<toml::Table>, ConfigError> {
    let text = match crate::store::safe::read_to_string_whole(path, CONFIG_MAX, follow) {
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
    // Check this file alone, so the error names this file: every unknown key at
    // once, then the first wrong type.
    let problems = unknown_keys(&table);
    if !problems.is_empty() {
        return Err(invalid(problems.join("; ")));
    }
    Config::deserialize(toml::Value::Table(table.clone()))
        .map_err(|e| invalid(humanize_de_error(&e.to_string())))?;
    Ok(Some(table))
}

/// What a TOML value is, in words.
fn kind_of(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the text \"{s}\""),
        toml::Value::Integer(i) => format!("the number {i}"),
        toml::Value::Float(f) => format!("the number {f}"),
        toml::Value::Boolean(b) => format!("{b}"),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "a list".to_owned(),
        toml::Value::Table(_) => "a table".to_owned(),
    }
}

/// Unknown sections and keys, and sections that are not tables, each named once.
fn unknown_keys(table: &toml::Table) -> Vec<String> {
    let mut out = Vec::new();
    let sections = || {
        KEYS.iter()
            .map(|(s, _)| format!("[{s}]"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (name, value) in table {
        let Some((_, keys)) = KEYS.iter().find(|(s, _)| s == name) else {
            out.push(format!(
                "unknown key `{name}` (valid sections: {})",
                sections()
            ));
            continue;
        };
        let Some(inner) = value.as_table() else {
            out.push(format!(
                "`{name}` must be a table like [{name}], found {}",
                kind_of(value)
            ));
            continue;
        };
        for key in inner.keys() {
            if !keys.contains(&key.as_str()) {
                out.push(format!(
                    "unknown key `{name}.{key}` (valid keys in [{name}]: {})",
                    keys.join(", ")
                ));
            }
        }
    }
    out
}

/// serde's type errors in words a person uses: no Rust type names, and the key first.
/// `invalid type: string "high", expected f64 in `context.warn`` becomes
/// `` `context.warn` must be a number, found "high"``.
fn humanize_de_error(message: &str) -> String {
    let msg = one_line(message);
    let body = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "))
        .unwrap_or(&msg);
    let expected_words = |e: &str| -> String {
        let e = e.trim();
        match e {
            "f64" | "f32" => "a number".to_owned(),
            "u8" | "u16" => format!(
                "a whole number from 0 to {}",
                if e == "u8" { 255 } else { 65535 }
            ),
            "u32" | "u64" | "usize" => "a whole number (0 or more)".to_owned(),
            "i32" | "i64" | "isize" => "a whole number".to_owned(),
            "a boolean" => "true or false".to_owned(),
            "a sequence" => "a list".to_owned(),
            "a string" | "a char" => "text in quotes".to_owned(),
            _ => match e.strip_prefix("struct ") {
                Some(name) => {
                    let section = name.trim_end_matches("Config").to_ascii_lowercase();
                    format!("a table like [{section}]")
                }
                None => e.to_owned(),
            },
        }
    };
    let found_words = |f: &str| -> String {
        let f = f.trim();
        let ticked = |s: &str| s.trim().trim_matches('`').to_owned();
        if let Some(v) = f.strip_prefix("string ") {
            format!("the text {v}")
        } else if let Some(v) = f
            .strip_prefix("integer ")
            .or_else(|| f.strip_prefix("floating point "))
        {
            format!("the number {}", ticked(v))
        } else if let Some(v) = f.strip_prefix("boolean ") {
            ticked(v)
        } else if f == "sequence" {
            "a list".to_owned()
        } else if f == "map" {
            "a table".to_owned()
        } else {
            f.to_owned()
        }
    };
    if let Some((head, key)) = body.rsplit_once(" in `")
        && let Some(key) = key.strip_suffix('`')
        && let Some((found, expected)) = head.split_once(", expected ")
    {
        return format!(
            "`{key}` must be {}, found {}",
            expected_words(expected),
            found_words(found)
        );
    }
    msg
}

fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
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
    load_skipping(paths, env, &[])
}

/// The config with every broken file left out (defaults and the layers that load),
/// plus the errors of the files that were left out. For `forge config show`, which
/// still shows the effective values when one file is broken.
pub fn load_lenient(paths: &Paths, env: &Env) -> (Loaded, Vec<ConfigError>) {
    let mut skip: Vec<PathBuf> = Vec::new();
    let mut errors = Vec::new();
    // At most one retry per layer (user, project), then the defaults alone.
    for _ in 0..3 {
        match load_skipping(paths, env, &skip) {
            Ok(l) => return (l, errors),
            Err(e) => {
                let path = e.path().to_path_buf();
                errors.push(e);
                if skip.contains(&path) {
                    break;
                }
                skip.push(path);
            }
        }
    }
    let both = [user_path(env), Some(paths.config())];
    skip.extend(both.into_iter().flatten());
    let loaded = load_skipping(paths, env, &skip).unwrap_or_else(|_| Loaded {
        config: Config::default(),
        sources: BTreeMap::new(),
        files: Vec::new(),
    });
    (loaded, errors)
}

/// [`load`], leaving out the files in `skip` (they are listed as not loaded).
fn load_skipping(paths: &Paths, env: &Env, skip: &[PathBuf]) -> Result<Loaded, ConfigError> {
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
        if skip.contains(&path) {
            files.push((source.clone(), false));
            continue;
        }
        let follow = match source {
            Source::Project(_) => crate::store::safe::Follow::No,
            _ => crate::store::safe::Follow::Yes,
        };
        let table = parse_file(&path, follow)?;
        files.push((source.clone(), table.is_some()));
        if let Some(table) = table {
            merge(&mut merged, &table, &source, "", &mut sources);
        }
    }
    let config =
        Config::deserialize(toml::Value::Table(merged)).map_err(|e| ConfigError::Invalid {
            path: paths.config(),
            message: humanize_de_error(&e.to_string()),
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
    let mut broken = Vec::new();
    let mut keys = Vec::new();
    if x.warn >= x.critical {
        broken.push(format!(
            "warn ({}) must be below critical ({})",
            x.warn, x.critical
        ));
        keys.extend(["context.warn", "context.critical"]);
    }
    if x.critical >= x.emergency {
        broken.push(format!(
            "critical ({}) must be below emergency ({})",
            x.critical, x.emergency
        ));
        keys.extend(["context.critical", "context.emergency"]);
    }
    if !broken.is_empty() {
        return Err((
            keys,
            format!("context levels must rise: {}", broken.join(", and ")),
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
    for (key, text) in [
        ("resume.max_age", &c.resume.max_age),
        ("attention.stale_after", &c.attention.stale_after),
        ("handoffs.older_than", &c.handoffs.older_than),
    ] {
        if crate::model::time::parse_duration(text).is_none() {
            return Err((
                vec![key],
                format!(
                    "`{key}` must be a duration like \"30m\", \"12h\" or \"2d\", found \"{text}\""
                ),
            ));
        }
    }
    if !["recent", "always", "never"].contains(&c.resume.auto.as_str()) {
        return Err((
            vec!["resume.auto"],
            format!(
                "`resume.auto` must be \"recent\", \"always\" or \"never\", found \"{}\"",
                c.resume.auto
            ),
        ));
    }
    if c.learn.memory_max_lines < 10 {
        return Err((
            vec!["learn.memory_max_lines"],
            format!(
                "`learn.memory_max_lines` must be 10 or more, found {}",
                c.learn.memory_max_lines
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
    fn keys_table_matches_the_config_structs() {
        let v = toml::Value::try_from(Config::default()).unwrap();
        let t = v.as_table().unwrap();
        assert_eq!(t.len(), KEYS.len());
        for (section, keys) in KEYS {
            let inner = t[section].as_table().unwrap();
            let mut want: Vec<&str> = keys.to_vec();
            let mut got: Vec<&str> = inner.keys().map(String::as_str).collect();
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want, "[{section}]");
        }
    }

    fn error_for(text: &str) -> String {
        let (_t, p, env) = setup();
        std::fs::write(p.config(), text).unwrap();
        load(&p, &env).unwrap_err().to_string()
    }

    #[test]
    fn errors_speak_plainly() {
        let e = error_for("[context]\nwran = 60\n");
        assert!(
            e.ends_with(
                "unknown key `context.wran` (valid keys in [context]: warn, critical, emergency, handoff_threshold)"
            ),
            "{e}"
        );
        assert_eq!(e.matches("wran").count(), 1, "named once: {e}");
        let e = error_for("[context]\nwran = 60\ncritcal = 1\n");
        assert!(
            e.contains("context.wran") && e.contains("context.critcal"),
            "{e}"
        );
        for (text, want) in [
            (
                "[context]\nwarn = \"high\"\n",
                "`context.warn` must be a number, found the text \"high\"",
            ),
            (
                "[statusline]\nbar_width = 1.5\n",
                "`statusline.bar_width` must be a whole number from 0 to 65535, found the number 1.5",
            ),
            (
                "[statusline]\nbar_width = -1\n",
                "`statusline.bar_width` must be a whole number from 0 to 65535, found the number -1",
            ),
            (
                "[git]\ncache_ttl_secs = \"x\"\n",
                "`git.cache_ttl_secs` must be a whole number (0 or more), found the text \"x\"",
            ),
            (
                "[hooks]\ncompaction_reread = 1\n",
                "`hooks.compaction_reread` must be true or false, found the number 1",
            ),
            (
                "[statusline]\nsegments = \"git\"\n",
                "`statusline.segments` must be a list, found the text \"git\"",
            ),
            (
                "context = 5\n",
                "`context` must be a table like [context], found the number 5",
            ),
            (
                "colour = 1\n",
                "unknown key `colour` (valid sections: [context], [statusline], [git], [hooks], [learn], [resume], [attention], [handoffs])",
            ),
        ] {
            let e = error_for(text);
            assert!(e.ends_with(want), "{text}: {e}");
            for rust in ["f64", "u16", "u64", "struct", "sequence", "boolean"] {
                assert!(!e.contains(rust), "{text}: {e}");
            }
        }
        // Only the relation that is broken is stated.
        let e = error_for("[context]\nwarn = 90\n");
        assert!(
            e.ends_with("context levels must rise: warn (90) must be below critical (85)"),
            "{e}"
        );
        let e = error_for("[context]\ncritical = 99\n");
        assert!(
            e.ends_with("context levels must rise: critical (99) must be below emergency (95)"),
            "{e}"
        );
    }

    #[test]
    fn optional_segments_are_accepted_and_unknown_ones_named() {
        let (_t, p, env) = setup();
        std::fs::write(
            p.config(),
            "[statusline]\nsegments = [\"context\", \"cost\", \"duration\", \"limits\", \"lines\"]\n",
        )
        .unwrap();
        let l = load(&p, &env).unwrap();
        assert_eq!(
            l.config.statusline.segments,
            ["context", "cost", "duration", "limits", "lines"]
        );
        let e = error_for("[statusline]\nsegments = [\"context\", \"price\"]\n");
        assert!(
            e.ends_with(
                "`statusline.segments` has unknown segment \"price\" (known: model, project, git, \
                 context, task, signals, learn, cost, duration, limits, lines, elsewhere)"
            ),
            "{e}"
        );
        // The optional ones are off by default.
        for name in ["cost", "duration", "limits", "lines", "elsewhere"] {
            assert!(SEGMENTS.contains(&name) && !DEFAULT_SEGMENTS.contains(&name));
        }
    }

    #[test]
    fn lenient_load_skips_only_the_broken_file() {
        let (t, p, env) = setup();
        let user = t.path().join("xdg/forge/config.toml");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(&user, "[context]\nwarn = 60\n").unwrap();
        std::fs::write(p.config(), "[context]\nwran = 1\n").unwrap();
        let (l, errors) = load_lenient(&p, &env);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path(), p.config());
        assert_eq!(l.config.context.warn, 60.0);
        assert_eq!(l.sources["context.warn"], Source::User(user.clone()));
        assert_eq!(
            l.files,
            vec![
                (Source::User(user.clone()), true),
                (Source::Project(p.config()), false)
            ]
        );
        // A level order broken by the project file: that file is left out.
        std::fs::write(p.config(), "[context]\ncritical = 55\n").unwrap();
        let (l, errors) = load_lenient(&p, &env);
        assert_eq!(errors.len(), 1);
        assert_eq!(l.config.context.warn, 60.0);
        assert_eq!(l.config.context.critical, 85.0);
        // Both broken: the defaults alone.
        std::fs::write(&user, "nonsense").unwrap();
        let (l, errors) = load_lenient(&p, &env);
        assert_eq!(errors.len(), 2);
        assert_eq!(l.config, Config::default());
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
