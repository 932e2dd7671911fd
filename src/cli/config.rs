//! `forge config show|validate|path`: the layered configuration and where each value
//! comes from.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use serde_json::json;

use crate::app::project::Paths;
use crate::app::project::project_paths;
use crate::config::{self, Loaded, Source};
use crate::env::Env;
use crate::model::segment::Segment;

/// Show, check or locate forge's configuration
///
/// Settings come from .forge/config.toml over ~/.config/forge/config.toml
/// ($XDG_CONFIG_HOME respected) over built-in defaults, merged key by key. An
/// [agents.<name>.<section>] table in either file wins for that agent, named by
/// $FORGE_AGENT, else the tmux session's name (see assets/examples/config.toml).
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge config show\n",
        "  forge config show --json\n",
        "  forge config show --agent builder\n",
        "  forge config validate && echo fine\n",
        "  forge config path"
    )
)]
pub(crate) struct ConfigArgs {
    /// What to do.
    #[command(subcommand)]
    pub(crate) action: ConfigAction,
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) project: Option<PathBuf>,
}

/// `forge config` actions.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum ConfigAction {
    /// Print every effective value and where it came from (default, user, project
    /// or an [agents.<name>] table).
    Show {
        /// Print as JSON.
        #[arg(long)]
        json: bool,
        /// Show the values as this agent gets them (default: $FORGE_AGENT, else the
        /// tmux session's name).
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
    },
    /// Check the config files; exit 1 with the error (naming key and file) when wrong.
    Validate,
    /// Print the user and project config file paths and whether each exists.
    Path {
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `forge config`.
pub(crate) fn run(args: &ConfigArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = project_paths(args.project.as_ref(), env)?;
    match &args.action {
        ConfigAction::Show { json, agent } => show(&paths, env, *json, agent.as_deref()),
        ConfigAction::Validate => validate(&paths, env),
        ConfigAction::Path { json } => path(&paths, env, *json),
    }
}

/// `forge config show`. A broken file does not hide the rest: the defaults and the
/// layers that load are shown, then what is wrong (stderr), and the exit is 1.
fn show(paths: &Paths, env: &Env, json: bool, agent: Option<&str>) -> anyhow::Result<ExitCode> {
    let loaded = match agent {
        Some(a) => config::load_as(paths, env, a),
        None => config::load(paths, env),
    };
    let (loaded, errors) = match loaded {
        Ok(l) => (l, Vec::new()),
        Err(_) => config::load_lenient(paths, env),
    };
    if let Some(a) = agent
        && errors.is_empty()
        && !loaded.agents.iter().any(|d| d == a)
    {
        super::print_err(&format!(
            "forge: warning: no config file has an [agents.{a}] table ({}); showing the values without one\n",
            if loaded.agents.is_empty() {
                "none defines an agent".to_owned()
            } else {
                format!("agents defined: {}", loaded.agents.join(", "))
            }
        ));
    }
    if json {
        let mut v = show_json(&loaded)?;
        if let Some(obj) = v.as_object_mut() {
            obj.insert(
                "errors".into(),
                json!(errors.iter().map(ToString::to_string).collect::<Vec<_>>()),
            );
        }
        super::print_json(&v)?;
    } else {
        let mut t = String::new();
        for e in &errors {
            let _ = writeln!(
                t,
                "# left out (it has an error, see below): {}",
                e.path().display()
            );
        }
        t.push_str(&show_text(&loaded)?);
        super::print_out(&t);
    }
    if errors.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for e in &errors {
        super::print_err(&format!("forge: config is invalid: {e}\n"));
    }
    super::print_err(&format!("{}\n", config::fix_hint()));
    Ok(ExitCode::from(1))
}

/// `forge config validate`: the files that loaded, and what forge leaves out.
fn validate(paths: &Paths, env: &Env) -> anyhow::Result<ExitCode> {
    let loaded = load(paths, env)?;
    let found: Vec<String> = loaded
        .files
        .iter()
        .filter(|(_, e)| *e)
        .map(|(s, _)| s.to_string())
        .collect();
    let mut text = if found.is_empty() {
        "Config OK (no config files; built-in defaults)\n".to_owned()
    } else {
        format!("Config OK: {}\n", found.join(", "))
    };
    // Not an error: the file is fine, forge only does not act on it yet.
    if let Some(note) = loaded.ignored_summary(&paths.root) {
        let _ = writeln!(text, "Note: {note}");
    }
    super::print_out(&text);
    Ok(ExitCode::SUCCESS)
}

/// `forge config path`: each layer's file and whether it exists.
fn path(paths: &Paths, env: &Env, json: bool) -> anyhow::Result<ExitCode> {
    let files = file_paths(paths, env);
    if json {
        let v: Vec<_> = files
            .iter()
            .map(|(layer, p)| {
                json!({"layer": layer, "path": p, "exists": p.as_ref().is_some_and(|p| p.exists())})
            })
            .collect();
        super::print_json(&v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for (layer, p) in &files {
        match p {
            Some(p) => {
                let _ = writeln!(
                    out,
                    "{layer:<8} {} ({})",
                    p.display(),
                    if p.exists() { "exists" } else { "not found" }
                );
            }
            None => {
                let _ = writeln!(out, "{layer:<8} (none: set HOME or XDG_CONFIG_HOME)");
            }
        }
    }
    super::print_out(&out);
    Ok(ExitCode::SUCCESS)
}

fn load(paths: &Paths, env: &Env) -> anyhow::Result<Loaded> {
    config::load(paths, env).map_err(|e| anyhow!("config is invalid: {e}\n{}", config::fix_hint()))
}

/// The user and project config paths, in precedence order (lowest first).
fn file_paths(paths: &Paths, env: &Env) -> Vec<(&'static str, Option<PathBuf>)> {
    vec![
        ("user", config::user_path(env)),
        ("project", Some(paths.config())),
    ]
}

/// Every leaf `section.key` with its value, in the order of the config struct.
fn leaves(loaded: &Loaded) -> anyhow::Result<Vec<(String, toml::Value)>> {
    let value = toml::Value::try_from(&loaded.config).context("encoding the config")?;
    let mut out = Vec::new();
    if let toml::Value::Table(sections) = value {
        for (section, v) in sections {
            match v {
                toml::Value::Table(keys) => {
                    for (k, v) in keys {
                        out.push((format!("{section}.{k}"), v));
                    }
                }
                other => out.push((section, other)),
            }
        }
    }
    Ok(out)
}

fn source_of<'a>(loaded: &'a Loaded, key: &str) -> &'a Source {
    loaded.sources.get(key).unwrap_or(&Source::Default)
}

fn show_text(loaded: &Loaded) -> anyhow::Result<String> {
    let rows = leaves(loaded)?;
    // Align the `#` column, but let a long value (the segment list) run past it.
    let width = rows
        .iter()
        .map(|(k, v)| k.len() + v.to_string().len() + 3)
        .filter(|w| *w <= 40)
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    if let Some(a) = &loaded.agent {
        let _ = writeln!(
            out,
            "# as agent {a}{}",
            if loaded.agents.contains(a) {
                ""
            } else {
                " (no [agents] table for it)"
            }
        );
    }
    for (key, value) in rows {
        let assignment = format!("{key} = {value}");
        let _ = writeln!(out, "{assignment:<width$}  # {}", source_of(loaded, &key));
        if key == SEGMENTS_KEY {
            out.push_str(&segments_note(&loaded.config.statusline.segments));
        }
    }
    if !loaded.ignored.is_empty() {
        let file = project_file(loaded).map_or_else(
            || ".forge/config.toml".to_owned(),
            |p| p.display().to_string(),
        );
        let _ = writeln!(
            out,
            "# ignored from {file}, because {}; `forge trust` shows what they do and trusts the file:",
            loaded.trust.why_ignored()
        );
        for i in &loaded.ignored {
            let shown = if i.shown {
                "   (shown: above; when your steps run waits for trust)"
            } else {
                ""
            };
            let _ = writeln!(out, "#   {} = {}{shown}", i.key, i.value);
        }
    }
    Ok(out)
}

/// The project file the config was looked for in.
fn project_file(loaded: &Loaded) -> Option<&PathBuf> {
    loaded.files.iter().find_map(|(s, _)| match s {
        Source::Project(p) => Some(p),
        _ => None,
    })
}

/// The key whose possible values `config show` lists.
const SEGMENTS_KEY: &str = "statusline.segments";

/// The comment under `statusline.segments`: every segment name, and the ones the
/// line does not show now, so a user can find `cost`, `limits` and the rest.
fn segments_note(shown: &[Segment]) -> String {
    let hidden: Vec<&str> = Segment::ALL
        .iter()
        .filter(|s| !shown.contains(s))
        .map(|s| s.name())
        .collect();
    let mut note = format!("#   available: {}\n", segment_names().join(", "));
    if !hidden.is_empty() {
        let _ = writeln!(note, "#   not shown now: {}", hidden.join(", "));
    }
    note
}

/// Every segment's name, in the order they are declared.
fn segment_names() -> Vec<&'static str> {
    Segment::ALL.iter().map(|s| s.name()).collect()
}

fn show_json(loaded: &Loaded) -> anyhow::Result<serde_json::Value> {
    let rows = leaves(loaded)?;
    let mut out = Vec::new();
    for (key, value) in rows {
        let source = source_of(loaded, &key);
        let (layer, path) = match source {
            Source::Default => ("default", None),
            Source::User(p) => ("user", Some(p.clone())),
            Source::Project(p) => ("project", Some(p.clone())),
            Source::Agent(_, p) => ("agent", Some(p.clone())),
        };
        let value = serde_json::to_value(&value).context("encoding a value")?;
        let mut row = json!({"key": key, "value": value, "source": layer, "path": path});
        if key == SEGMENTS_KEY
            && let Some(obj) = row.as_object_mut()
        {
            obj.insert("available".into(), json!(segment_names()));
        }
        out.push(row);
    }
    let ignored: Vec<_> = loaded
        .ignored
        .iter()
        .map(|i| {
            Ok(json!({
                "key": i.key,
                "value": serde_json::to_value(&i.value).context("encoding a value")?,
                "path": project_file(loaded),
                "why": loaded.trust.why_ignored(),
                "shown": i.shown,
            }))
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(json!({
        "values": out,
        "agent": loaded.agent,
        "agents": loaded.agents,
        "trust": loaded.trust,
        "ignored": ignored,
    }))
}
