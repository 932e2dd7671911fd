//! Layered configuration: `.forge/config.toml` over `~/.config/forge/config.toml`
//! (`$XDG_CONFIG_HOME` respected) over built-in defaults, merged field by field.
//!
//! Unknown keys, wrong types and values a key does not take are errors that name
//! the key and the file, found when the file is read: the settings are typed
//! ([`sections`]), so what uses them never parses a string or falls back on its own.
//! The hooks and the statusline must never fail on a bad config: they call
//! [`load_or_default`], which logs the error and falls back to the defaults.
//!
//! The rooms: [`sections`] (the typed settings and their defaults), [`keys`] (which
//! keys there are, read from serde's field lists, and the side each is on), `words`
//! (errors in plain words), and here the layering, the trust of a project's file and
//! the checks types alone cannot make.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::model::outcome::Outcome;
use crate::model::setup::trust::Trust;
use crate::store::Paths;

pub(crate) mod keys;
pub(crate) mod sections;
mod words;

pub(crate) use keys::{Side, gating, key_side, take_acting};
pub use sections::*;

use keys::{THRESHOLD_ONLY, commands_in, split_agents, unknown_keys};
use words::{humanize_de_error, join_lines};

/// What to do about a config error; self-contained (it does not send you to a
/// command that needs the config to load). The keys a section takes are in the
/// error itself where a key is unknown, for that section only: a list of every key
/// here would stand under errors it has nothing to do with (a wrong type, a level
/// order) and could contradict them.
pub(crate) fn fix_hint() -> String {
    "Fix that file; `forge config path` lists the config files.".to_owned()
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "lowercase")]
pub(crate) enum Source {
    /// Built in.
    Default,
    /// `~/.config/forge/config.toml`.
    User(PathBuf),
    /// `.forge/config.toml`.
    Project(PathBuf),
    /// An `[agents.<name>]` table (the name, then the file that holds it).
    Agent(String, PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::User(p) => write!(f, "user ({})", p.display()),
            Self::Project(p) => write!(f, "project ({})", p.display()),
            Self::Agent(name, p) => write!(f, "agent {name} ({})", p.display()),
        }
    }
}

/// A config error that names the file and, where it can, the key.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
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
    pub(crate) fn path(&self) -> &Path {
        match self {
            Self::Invalid { path, .. } | Self::Read { path, .. } => path,
        }
    }
}

/// The effective config, with where each value came from.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    /// The merged values.
    pub(crate) config: Config,
    /// `section.key` → source, for every leaf.
    pub(crate) sources: BTreeMap<String, Source>,
    /// The files that were looked for, in order (user, project), and whether each exists.
    pub(crate) files: Vec<(Source, bool)>,
    /// The agent whose `[agents.<name>]` tables were looked for (`None`: no agent
    /// named, or no file has agent tables).
    pub(crate) agent: Option<String>,
    /// The agent names the files define.
    pub(crate) agents: Vec<String>,
    /// Where the project file stands: absent, nothing in it acts, trusted, or not
    /// (then its acting keys are in [`Loaded::ignored`]).
    pub(crate) trust: Trust,
    /// The project file's keys that act and were left out because it is not
    /// trusted (see [`Side::Acts`]); `trust.why_ignored()` says why.
    pub(crate) ignored: Vec<Ignored>,
}

/// A key of the project file left out of what forge does because the file is not
/// trusted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Ignored {
    /// As named in messages: `ladder.L1`, `agents.builder.notify.mode`.
    pub(crate) key: String,
    /// Its value in the file.
    pub(crate) value: toml::Value,
    /// The key decides when your steps act and applies to what forge shows
    /// ([`Side::Gates`]): only the acting side waits for trust.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) shown: bool,
}

impl Loaded {
    /// The defaults alone.
    fn defaults() -> Self {
        Self {
            config: Config::default(),
            sources: BTreeMap::new(),
            files: Vec::new(),
            agent: None,
            agents: Vec::new(),
            trust: Trust::Absent,
            ignored: Vec::new(),
        }
    }

    /// One line for the event log, doctor and `config show`: which keys were left
    /// out, why, and what to run.
    pub(crate) fn ignored_summary(&self, project: &Path) -> Option<String> {
        if self.ignored.is_empty() {
            return None;
        }
        let keys: Vec<&str> = self.ignored.iter().map(|i| i.key.as_str()).collect();
        Some(format!(
            "ignored {} of {} ({}): {}; `forge trust --project {}` shows what they do and trusts the file",
            match (keys.len(), self.ignored.iter().all(|i| i.shown)) {
                (1, true) => "for when your steps run (what forge shows still follows it) the key",
                (_, true) =>
                    "for when your steps run (what forge shows still follows them) the keys",
                (1, false) => "the acting key",
                (_, false) => "the acting keys",
            },
            project.join(".forge/config.toml").display(),
            self.trust.why_ignored(),
            keys.join(", "),
            crate::model::setup::settings::shell_quote(&project.to_string_lossy())
        ))
    }

    /// The keys waiting for trust, as named in messages.
    fn waiting_keys(&self) -> Vec<String> {
        self.ignored.iter().map(|i| i.key.clone()).collect()
    }

    /// The line that tells the person the project file waits for their trust
    /// ([`crate::model::setup::trust::untrusted_line`]), while it does: for `forge
    /// status` and the dashboard's header.
    pub(crate) fn untrusted_line(&self) -> Option<String> {
        crate::model::setup::trust::untrusted_line(PROJECT_FILE, &self.waiting_keys(), &self.trust)
    }
}

/// The project file as the person's notices name it.
const PROJECT_FILE: &str = ".forge/config.toml";

/// The user config file: `$XDG_CONFIG_HOME/forge/config.toml` or `~/.config/forge/config.toml`.
pub(crate) fn user_path(env: &Env) -> Option<PathBuf> {
    env.user_config_dir().map(|d| d.join("config.toml"))
}

/// The largest config file read (a larger one is an error, never cut).
pub(crate) const CONFIG_MAX: u64 = 1024 * 1024;

/// Reads one config file and checks its keys (types are checked by [`check_types`],
/// once the keys that will not apply are left out). The project's (under `.forge/`)
/// is opened without following a link; the user's may be a dotfiles manager's link.
/// Returns the text (for its hash) and the table.
fn parse_file(
    path: &Path,
    follow: crate::store::safe::Follow,
) -> Result<Option<(String, toml::Table)>, ConfigError> {
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
        toml::from_str(&text).map_err(|e| invalid(join_lines(&e.to_string())))?;
    // Check this file alone, so the error names this file: every unknown key at
    // once, then the first wrong type.
    let problems = unknown_keys(&table);
    if !problems.is_empty() {
        return Err(invalid(problems.join("; ")));
    }
    Ok(Some((text, table)))
}

/// Checks the types of a file's values (its own sections and every agent table,
/// whichever agent runs); the error names the file and the key.
fn check_types(path: &Path, table: &toml::Table) -> Result<(), ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let (own, agents) = split_agents(table);
    Config::deserialize(toml::Value::Table(own))
        .map_err(|e| invalid(humanize_de_error(&e.to_string())))?;
    for (name, t) in &agents {
        Config::deserialize(toml::Value::Table(t.clone())).map_err(|e| {
            invalid(format!(
                "in [agents.{name}]: {}",
                humanize_de_error(&e.to_string())
            ))
        })?;
    }
    Ok(())
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
/// The agent is named by `$FORGE_AGENT`, else the tmux session (see
/// [`Env::agent_name`]); its `[agents.<name>]` tables win over both files.
pub(crate) fn load(paths: &Paths, env: &Env) -> Result<Loaded, ConfigError> {
    load_skipping(paths, env, &[], None)
}

/// [`load`] as agent `agent` (`forge config show --agent NAME`).
pub(crate) fn load_as(paths: &Paths, env: &Env, agent: &str) -> Result<Loaded, ConfigError> {
    load_skipping(paths, env, &[], Some(agent))
}

/// The config with every broken file left out (defaults and the layers that load),
/// plus the errors of the files that were left out. For `forge config show`, which
/// still shows the effective values when one file is broken.
pub(crate) fn load_lenient(paths: &Paths, env: &Env) -> (Loaded, Vec<ConfigError>) {
    let mut skip: Vec<PathBuf> = Vec::new();
    let mut errors = Vec::new();
    // At most one retry per layer (user, project), then the defaults alone.
    for _ in 0..3 {
        match load_skipping(paths, env, &skip, None) {
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
    let loaded = load_skipping(paths, env, &skip, None).unwrap_or_else(|_| Loaded::defaults());
    (loaded, errors)
}

/// [`load`], leaving out the files in `skip` (they are listed as not loaded).
fn load_skipping(
    paths: &Paths,
    env: &Env,
    skip: &[PathBuf],
    agent: Option<&str>,
) -> Result<Loaded, ConfigError> {
    load_with(paths, env, skip, agent, None)
}

/// [`load`] as if the project file's content hashing to `trust_as` were trusted (for
/// `forge trust`, which checks every value of the file before it trusts it).
pub(crate) fn load_trusting(
    paths: &Paths,
    env: &Env,
    trust_as: &str,
) -> Result<Loaded, ConfigError> {
    load_with(paths, env, &[], None, Some(trust_as))
}

/// The trust record of the project at `paths` (one small read in your state
/// folder), judged against the content hash `sha256`.
fn judge_trust(paths: &Paths, env: &Env, sha256: &str, trust_as: Option<&str>) -> Trust {
    if trust_as == Some(sha256) {
        return Trust::Trusted {
            sha256: sha256.to_owned(),
            trusted_at: String::new(),
        };
    }
    let record =
        crate::git::trust_key(&paths.root).and_then(|root| crate::store::trust::read(env, &root));
    Trust::judge(sha256, record.as_ref())
}

/// [`load_skipping`], with the content hash of a project file to take as trusted.
/// The defaults, then each file over them (user, project), then the agent's tables;
/// the result typed and checked.
fn load_with(
    paths: &Paths,
    env: &Env,
    skip: &[PathBuf],
    agent: Option<&str>,
    trust_as: Option<&str>,
) -> Result<Loaded, ConfigError> {
    let mut layers = Layers::defaults()?;
    let files = [
        user_path(env).map(Source::User),
        Some(Source::Project(paths.config())),
    ];
    for source in files.into_iter().flatten() {
        layers.add_file(paths, env, source, skip, trust_as)?;
    }
    let (agent, agents) = layers.add_agent(env, agent);
    let gate_source = layers.gates_needed().then(|| layers.gate_context.clone());
    let mut config = typed(paths, layers.merged, &layers.sources)?;
    config.gates = gate_source.and_then(|t| gates_of(t, &config.context));
    Ok(Loaded {
        config,
        sources: layers.sources,
        files: layers.files,
        agent,
        agents,
        trust: layers.trust,
        ignored: layers.ignored,
    })
}

/// The layers merged so far: the values, where each came from, and what the files
/// held.
struct Layers {
    merged: toml::Table,
    sources: BTreeMap<String, Source>,
    files: Vec<(Source, bool)>,
    trust: Trust,
    ignored: Vec<Ignored>,
    /// Each file's `[agents.<name>]` tables (merged last, over both files), and
    /// whether they may set what acts (not: a project file nobody trusted).
    agent_tables: Vec<(PathBuf, BTreeMap<String, toml::Table>, bool)>,
    /// `[context]` as merged from the files that may decide when your steps act:
    /// what [`Config::gates`] is made of when an untrusted project file set some of
    /// it.
    gate_context: toml::Table,
}

impl Layers {
    /// The built-in defaults, every leaf from [`Source::Default`].
    fn defaults() -> Result<Self, ConfigError> {
        let defaults =
            toml::Value::try_from(Config::default()).map_err(|e| ConfigError::Invalid {
                path: PathBuf::from("<defaults>"),
                message: e.to_string(),
            })?;
        let mut keys = Vec::new();
        leaves("", &defaults, &mut keys);
        let sources = keys.into_iter().map(|k| (k, Source::Default)).collect();
        let merged = match defaults {
            toml::Value::Table(t) => t,
            _ => toml::Table::new(),
        };
        let gate_context = context_of(&merged).cloned().unwrap_or_default();
        Ok(Self {
            merged,
            sources,
            files: Vec::new(),
            trust: Trust::Absent,
            ignored: Vec::new(),
            agent_tables: Vec::new(),
            gate_context,
        })
    }

    /// Merges the file of `source` (a user or project file) unless it is in `skip`;
    /// a project file's acting keys only when its content is trusted.
    fn add_file(
        &mut self,
        paths: &Paths,
        env: &Env,
        source: Source,
        skip: &[PathBuf],
        trust_as: Option<&str>,
    ) -> Result<(), ConfigError> {
        let (path, project) = match &source {
            Source::User(p) => (p.clone(), false),
            Source::Project(p) => (p.clone(), true),
            Source::Default | Source::Agent(..) => return Ok(()),
        };
        if skip.contains(&path) {
            self.files.push((source, false));
            return Ok(());
        }
        let follow = if project {
            crate::store::safe::Follow::No
        } else {
            crate::store::safe::Follow::Yes
        };
        let mut parsed = parse_file(&path, follow)?;
        if project && let Some((_, t)) = &mut parsed {
            // `[share]` is yours only and left out of any project file, trusted or
            // not (docs/share.md).
            keys::take_project_ignored(t);
            refuse_commands(env, &path, t)?;
        }
        self.files.push((source.clone(), parsed.is_some()));
        let Some((text, mut table)) = parsed else {
            return Ok(());
        };
        if project {
            table = self.keep_trusted(paths, env, &text, table, trust_as);
        }
        check_types(&path, &table)?;
        let (own, agents) = split_agents(&table);
        merge(&mut self.merged, &own, &source, "", &mut self.sources);
        let acts = !project || self.trust.applies();
        if acts {
            self.merge_gates(&own);
        }
        self.agent_tables.push((path, agents, acts));
        Ok(())
    }

    /// Merges the `[context]` of `table` into [`Layers::gate_context`].
    fn merge_gates(&mut self, table: &toml::Table) {
        if let Some(context) = context_of(table) {
            let mut unused = BTreeMap::new();
            merge(
                &mut self.gate_context,
                context,
                &Source::Default,
                "",
                &mut unused,
            );
        }
    }

    /// Whether a key of an untrusted project file applies to what forge shows but
    /// not to when it acts: then [`Config::gates`] is worked out ([`gates_of`]).
    fn gates_needed(&self) -> bool {
        self.ignored.iter().any(|i| i.shown)
    }

    /// The project file's `table` as it applies: whole when nothing in it acts or
    /// its content (`text`) is trusted, else without its acting keys (listed in
    /// `ignored`). Sets `trust`.
    fn keep_trusted(
        &mut self,
        paths: &Paths,
        env: &Env,
        text: &str,
        table: toml::Table,
        trust_as: Option<&str>,
    ) -> toml::Table {
        let mut rest = table.clone();
        let acting = take_acting(&mut rest);
        let gating = keys::gating(&rest);
        self.trust = if acting.is_empty() && gating.is_empty() {
            Trust::Inert
        } else {
            let sha256 = crate::model::setup::trust::content_hash(text.as_bytes());
            judge_trust(paths, env, &sha256, trust_as)
        };
        if self.trust.applies() {
            return table;
        }
        self.ignored = acting
            .into_iter()
            .map(|(key, value)| Ignored {
                key,
                value,
                shown: false,
            })
            .chain(gating.into_iter().map(|(key, value)| Ignored {
                key,
                value,
                shown: true,
            }))
            .collect();
        self.ignored.sort_by(|a, b| a.key.cmp(&b.key));
        rest
    }

    /// Merges the agent's tables last (agent > project > user > defaults), the user
    /// file's then the project's. The agent is only asked for when some file has
    /// agent tables. Returns the agent and the names the files define.
    fn add_agent(&mut self, env: &Env, agent: Option<&str>) -> (Option<String>, Vec<String>) {
        let mut defined: Vec<String> = self
            .agent_tables
            .iter()
            .flat_map(|(_, a, _)| a.keys().cloned())
            .collect();
        defined.sort();
        defined.dedup();
        let agent = if defined.is_empty() && agent.is_none() {
            None
        } else {
            agent.map(str::to_owned).or_else(|| env.agent_name())
        };
        if let Some(name) = &agent {
            let tables = std::mem::take(&mut self.agent_tables);
            for (path, agents, acts) in &tables {
                if let Some(t) = agents.get(name) {
                    let source = Source::Agent(name.clone(), path.clone());
                    merge(&mut self.merged, t, &source, "", &mut self.sources);
                    if *acts {
                        self.merge_gates(t);
                    }
                }
            }
            self.agent_tables = tables;
        }
        (agent, defined)
    }
}

/// [`Config::gates`] from `[context]` as merged by the files that may decide when
/// your steps act (`gate_context`): `None` when that is what forge shows anyway; the
/// defaults when those values alone do not rise (a file nobody trusted filled the
/// gap between them).
fn gates_of(gate_context: toml::Table, shown: &ContextConfig) -> Option<ContextConfig> {
    let gates = ContextConfig::deserialize(toml::Value::Table(gate_context))
        .ok()
        .filter(|c| check_levels(c).is_ok())
        .unwrap_or_default();
    (gates != *shown).then_some(gates)
}

/// The `[context]` table of a config table.
fn context_of(table: &toml::Table) -> Option<&toml::Table> {
    table.get("context").and_then(toml::Value::as_table)
}

/// A project file that sets a key which runs commands is an error: forge takes those
/// only from your own config, never from a file a repository can ship.
fn refuse_commands(env: &Env, path: &Path, table: &toml::Table) -> Result<(), ConfigError> {
    let Some(key) = commands_in(table) else {
        return Ok(());
    };
    Err(ConfigError::Invalid {
        path: path.to_path_buf(),
        message: format!(
            "`{key}` {}, so forge takes it only from your own config ({}), never from a project's .forge/config.toml, which a repository can ship: move it there",
            if key.contains("alerts.") {
                "decides what reaches your terminal and desktop"
            } else {
                "runs commands"
            },
            user_path(env).map_or_else(
                || "~/.config/forge/config.toml".to_owned(),
                |p| p.display().to_string()
            )
        ),
    })
}

/// The merged values as a [`Config`], checked; an error names the file that set the
/// offending value.
fn typed(
    paths: &Paths,
    merged: toml::Table,
    sources: &BTreeMap<String, Source>,
) -> Result<Config, ConfigError> {
    let config =
        Config::deserialize(toml::Value::Table(merged)).map_err(|e| ConfigError::Invalid {
            path: paths.config(),
            message: humanize_de_error(&e.to_string()),
        })?;
    validate(&config).map_err(|(keys, message)| {
        let path = keys
            .iter()
            .filter_map(|k| match sources.get(*k) {
                Some(Source::User(p) | Source::Project(p) | Source::Agent(_, p)) => Some(p.clone()),
                _ => None,
            })
            .next_back()
            .unwrap_or_else(|| PathBuf::from("<defaults>"));
        ConfigError::Invalid { path, message }
    })?;
    Ok(config)
}

type Invalid = (Vec<&'static str>, String);

/// `Ok` when `ok`, else the error for `key`: "`name` must be `allowed`, found
/// `found`" (`name` is the key as the message shows it, usually `key` itself).
fn require(
    ok: bool,
    key: &'static str,
    name: &str,
    allowed: &str,
    found: impl std::fmt::Display,
) -> Result<(), Invalid> {
    if ok {
        Ok(())
    } else {
        Err((
            vec![key],
            format!("`{name}` must be {allowed}, found {found}"),
        ))
    }
}

/// Checks values that types alone cannot: ordered levels, ranges, a command to run.
/// (A value that is not one of a key's names, or not a duration, is refused by its
/// type when the file is read: see [`sections`].)
fn validate(c: &Config) -> Result<(), Invalid> {
    check_levels(&c.context)?;
    check_ranges(c)?;
    for (list, hooks) in [
        ("on_threshold", &c.on_threshold),
        ("on_session_start", &c.on_session_start),
    ] {
        for h in hooks {
            check_user_hook(list, h)?;
        }
    }
    let key = "learn.memory_max_lines";
    let lines = c.learn.memory_max_lines;
    require(lines >= 10, key, key, "10 or more", lines)
}

/// The context levels: each a percentage, and rising (warn < critical < emergency).
fn check_levels(x: &ContextConfig) -> Result<(), Invalid> {
    for (key, v) in [
        ("context.warn", x.warn),
        ("context.critical", x.critical),
        ("context.emergency", x.emergency),
        ("context.handoff_threshold", x.handoff_threshold),
    ] {
        require((0.0..=100.0).contains(&v), key, key, "between 0 and 100", v)?;
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
    if broken.is_empty() {
        return Ok(());
    }
    Err((
        keys,
        format!("context levels must rise: {}", broken.join(", and ")),
    ))
}

/// The numbers with a range (`[statusline]`, `[relay]`, `[notify]`), and a notify
/// command that starts with a program.
fn check_ranges(c: &Config) -> Result<(), Invalid> {
    let key = "statusline.bar_width";
    let width = c.statusline.bar_width;
    require((1..=100).contains(&width), key, key, "1 to 100", width)?;
    let r = &c.relay;
    let key = "relay.threshold";
    require(
        (1.0..=100.0).contains(&r.threshold),
        key,
        key,
        "between 1 and 100",
        r.threshold,
    )?;
    let key = "relay.max_handoffs";
    require(r.max_handoffs <= 20, key, key, "0 to 20", r.max_handoffs)?;
    let key = "relay.grace_secs";
    require(
        (1..=120).contains(&r.grace_secs),
        key,
        key,
        "1 to 120",
        r.grace_secs,
    )?;
    let key = "handoffs.max_bytes";
    let b = c.handoffs.max_bytes;
    require((2048..=65_536).contains(&b), key, key, "2048 to 65536", b)?;
    let key = "resume.max_bytes";
    let b = c.resume.max_bytes;
    require((1024..=10_240).contains(&b), key, key, "1024 to 10240", b)?;
    let key = "share.timeout_secs";
    let t = c.share.timeout_secs;
    require((1..=600).contains(&t), key, key, "1 to 600", t)?;
    let n = &c.notify;
    let key = "notify.timeout_secs";
    require(
        (1..=600).contains(&n.timeout_secs),
        key,
        key,
        "1 to 600",
        n.timeout_secs,
    )?;
    let key = "notify.pane_capture_lines";
    require(
        n.pane_capture_lines <= 500,
        key,
        key,
        "0 to 500",
        n.pane_capture_lines,
    )?;
    if n.command.first().is_some_and(|p| p.trim().is_empty()) {
        return Err((
            vec!["notify.command"],
            "`notify.command` must start with a program".to_owned(),
        ));
    }
    Ok(())
}

/// One `[[on_threshold]]` or `[[on_session_start]]` entry (`list`): a command, a
/// timeout in range, and the threshold keys only where they belong.
fn check_user_hook(list: &'static str, h: &UserHook) -> Result<(), Invalid> {
    if h.command.trim().is_empty() {
        return Err((vec![list], format!("`{list}.command` must name a command")));
    }
    require(
        (1..=600).contains(&h.timeout_secs),
        list,
        &format!("{list}.timeout_secs"),
        "1 to 600",
        h.timeout_secs,
    )?;
    if list == "on_session_start" && (h.threshold.is_some() || h.replace_handoff) {
        return Err((
            vec![list],
            format!(
                "{} belong to [[on_threshold]], not [[on_session_start]]",
                THRESHOLD_ONLY.map(|k| format!("`{k}`")).join(" and ")
            ),
        ));
    }
    if let Some(t) = h.threshold {
        require(
            (1.0..=100.0).contains(&t),
            list,
            &format!("{list}.threshold"),
            "between 1 and 100",
            t,
        )?;
    }
    Ok(())
}

/// For hooks and the statusline: the config, or the defaults when it is broken (the
/// error is logged to `.forge/logs/errors.log`, never shown in the session).
pub(crate) fn load_or_default(paths: &Paths, env: &Env) -> Config {
    match load(paths, env) {
        Ok(l) => l.config,
        Err(e) => defaults_after(paths, &e),
    }
}

/// The defaults in place of a broken config, its error logged to
/// `.forge/logs/errors.log` (when there is one).
fn defaults_after(paths: &Paths, e: &ConfigError) -> Config {
    if paths.logs().is_dir() {
        crate::store::log_error(paths, "config", &e.to_string());
    }
    Config::default()
}

/// [`load_or_default`] for the hooks and the status line, which also say — once per
/// content of the project file, not on every call — that its acting keys were left
/// out because you have not trusted it: the outcome for the call's event line (`None`
/// when there is nothing new to say). The "said" mark is kept in your state folder
/// beside the trust records (one small read per call, and only for a project file
/// that has acting keys).
pub(crate) fn load_noting(paths: &Paths, env: &Env) -> (Config, Option<Outcome>) {
    match load(paths, env) {
        Ok(l) => {
            let notice = notice_ignored(paths, env, &l);
            (l.config, notice)
        }
        Err(e) => (defaults_after(paths, &e), None),
    }
}

/// What a SessionStart tells the person about an untrusted project file, once per
/// content: the line, and the content hash [`mark_told`] keeps once it was shown.
///
/// SessionStart adds the line to its notices to the person
/// (`crate::model::hook::start::Found::notices`) and calls [`mark_told`] once the
/// line is in its output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PersonNotice {
    /// The line ([`crate::model::setup::trust::untrusted_line`]).
    pub(crate) line: String,
    /// The content it is about.
    pub(crate) sha256: String,
    /// The repository's trust key ([`crate::git::trust_key`]).
    root: String,
}

/// [`load_noting`] for SessionStart: also the notice to the person about an
/// untrusted project file, when this content was not told yet
/// ([`crate::model::setup::trust::person_notice`]; one more small read, only for a
/// file that waits for trust). Once the line is shown, [`mark_told`] keeps it said.
pub(crate) fn load_noting_for_person(
    paths: &Paths,
    env: &Env,
) -> (Config, Option<Outcome>, Option<PersonNotice>) {
    match load(paths, env) {
        Ok(l) => {
            let notice = notice_ignored(paths, env, &l);
            let person = person_notice_of(paths, env, &l);
            (l.config, notice, person)
        }
        Err(e) => (defaults_after(paths, &e), None, None),
    }
}

/// The [`PersonNotice`] of `l`, when the person was not told of this content yet.
fn person_notice_of(paths: &Paths, env: &Env, l: &Loaded) -> Option<PersonNotice> {
    if !matches!(l.trust, Trust::Untrusted { .. }) {
        return None;
    }
    let root = crate::git::trust_key(&paths.root)?;
    let said = crate::store::trust::told(env, &root);
    let (line, sha256) = crate::model::setup::trust::person_notice(
        PROJECT_FILE,
        &l.waiting_keys(),
        &l.trust,
        said.as_deref(),
    )?;
    Some(PersonNotice { line, sha256, root })
}

/// Keeps `notice` as told (the person saw its line), so the next SessionStart does
/// not say it again for this content.
pub(crate) fn mark_told(env: &Env, notice: &PersonNotice) -> std::io::Result<()> {
    crate::store::trust::mark_told(env, &notice.root, &notice.sha256)
}

/// The [`Outcome::ConfigIgnored`] of `l`, when it is news (see [`load_noting`]).
fn notice_ignored(paths: &Paths, env: &Env, l: &Loaded) -> Option<Outcome> {
    let Trust::Untrusted { sha256, .. } = &l.trust else {
        return None;
    };
    let root = crate::git::trust_key(&paths.root)?;
    if crate::store::trust::noticed(env, &root, sha256) {
        return None;
    }
    // Said only when the mark is kept: else every status-line tick would say it.
    crate::store::trust::mark_noticed(env, &root, sha256).ok()?;
    Some(Outcome::ConfigIgnored {
        file: paths.config().display().to_string(),
        keys: l.ignored.iter().map(|i| i.key.clone()).collect(),
        why: l.trust.why_ignored().to_owned(),
    })
}

#[cfg(test)]
mod tests;
