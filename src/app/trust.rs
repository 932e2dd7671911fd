//! `forge trust`'s work: the project file read once with its acting keys, judged
//! against the trust record in the person's state folder, checked as if trusted,
//! and the record kept or revoked (`store::trust`); with the words that show each
//! acting key and the `--status` report. The command asks and prints.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, anyhow};
use serde_json::{Value, json};

use crate::config::{self, Side};
use crate::env::Env;
use crate::model::setup::trust::{Record, Trust, VERSION, content_hash};
use crate::store::{self, Paths};

/// What the project file holds, as `forge trust` reads it once.
pub(crate) struct FileFacts {
    /// Its text, `None` when there is no file.
    pub(crate) text: Option<String>,
    /// The SHA-256 of its content.
    pub(crate) sha256: Option<String>,
    /// Its acting keys (and the gating ones), sorted, with their values.
    pub(crate) acting: Vec<(String, toml::Value)>,
}

/// The repository key the trust record of the project at `paths` is kept under,
/// or why there is none (a path that is not UTF-8, no state folder to keep it in).
pub(crate) fn key(paths: &Paths, env: &Env) -> anyhow::Result<String> {
    let root = crate::git::trust_key(&paths.root)
        .ok_or_else(|| anyhow!("the project path {} is not UTF-8", paths.root.display()))?;
    if store::trust::dir(env).is_none() {
        return Err(anyhow!(
            "no state folder to keep trust in: set HOME (or XDG_STATE_HOME) to an absolute path"
        ));
    }
    Ok(root)
}

/// Forgets the trust of the repository `root`: whether there was one.
pub(crate) fn revoke(env: &Env, root: &str) -> anyhow::Result<bool> {
    store::trust::revoke(env, root).context("revoking")
}

/// Reads the project file once (never through a link; at most 1 MiB), lists its
/// acting keys and judges them against the trust record of `root`.
pub(crate) fn look(paths: &Paths, env: &Env, root: &str) -> anyhow::Result<(FileFacts, Trust)> {
    let facts = read_file(paths)?;
    let record = store::trust::read(env, root);
    let trust = match (&facts.text, &facts.sha256) {
        (None, _) | (_, None) => Trust::Absent,
        (Some(_), Some(_)) if facts.acting.is_empty() => Trust::Inert,
        (Some(_), Some(sha)) => Trust::judge(sha, record.as_ref()),
    };
    Ok((facts, trust))
}

/// Reads the project file once (never through a link; at most 1 MiB) and lists its
/// acting keys.
fn read_file(paths: &Paths) -> anyhow::Result<FileFacts> {
    let path = paths.config();
    let text =
        match store::safe::read_to_string_whole(&path, config::CONFIG_MAX, store::safe::Follow::No)
        {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(FileFacts {
                    text: None,
                    sha256: None,
                    acting: Vec::new(),
                });
            }
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
    let mut table: toml::Table =
        toml::from_str(&text).map_err(|e| anyhow!("{}: not valid TOML: {e}", path.display()))?;
    let mut acting = config::take_acting(&mut table);
    acting.extend(config::gating(&table));
    acting.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(FileFacts {
        sha256: Some(content_hash(text.as_bytes())),
        text: Some(text),
        acting,
    })
}

/// Whether `forge trust` would take an untrusted file: every value checked as if
/// trusted; the error when it would not.
pub(crate) fn refused(
    paths: &Paths,
    env: &Env,
    facts: &FileFacts,
    trust: &Trust,
) -> Option<String> {
    match (trust, &facts.sha256) {
        (Trust::Untrusted { .. }, Some(sha)) => config::load_trusting(paths, env, sha)
            .err()
            .map(|e| e.to_string()),
        _ => None,
    }
}

/// Every value checked as if trusted, before it is: a file that would break the
/// hooks once trusted is not trusted, nor one that changed while forge read it.
pub(crate) fn check(paths: &Paths, env: &Env, sha: &str) -> anyhow::Result<()> {
    let loaded = config::load_trusting(paths, env, sha).map_err(|e| {
        anyhow!("not trusted, the file has an error: {e}\nFix it, then run `forge trust` again.")
    })?;
    if !matches!(&loaded.trust, Trust::Trusted { sha256, .. } if sha256 == sha) {
        return Err(anyhow!(
            "{} changed while forge read it: run `forge trust` again",
            paths.config().display()
        ));
    }
    Ok(())
}

/// Keeps the trust record of content `sha` of the project file `file`, under the
/// repository key `root`; where it was written.
pub(crate) fn record(env: &Env, root: String, file: &str, sha: &str) -> anyhow::Result<PathBuf> {
    store::trust::write(
        env,
        &Record {
            version: VERSION,
            project: root,
            config: file.to_owned(),
            sha256: sha.to_owned(),
            trusted_at: crate::model::time::iso(env.now),
        },
    )
    .context("keeping the trust record")
}

/// The most characters of one value shown: a value longer than that (a list of a
/// thousand branches) is cut, so every key still fits on the screen.
const VALUE_SHOWN: usize = 72;

/// One acting key, its value (on one line, cut at [`VALUE_SHOWN`] characters with how
/// long it is in all) and what it makes forge do: two lines.
pub(crate) fn describe(key: &str, value: &toml::Value) -> String {
    // `agents.builder.ladder.L1` is `ladder.L1` for one agent.
    let base = match key.strip_prefix("agents.") {
        Some(rest) => rest.split_once('.').map_or(rest, |(_, k)| k),
        None => key,
    };
    let what = config::key_side(base)
        .filter(|k| matches!(k.side, Side::Acts | Side::Gates))
        .map_or("", |k| k.what);
    let text = value.to_string();
    let one = crate::model::text::sanitize::single_line(&text);
    let shown = match one.chars().count() {
        n if n > VALUE_SHOWN => format!(
            "{} ({n} characters)",
            crate::model::text::sanitize::cut_chars(&one, VALUE_SHOWN)
        ),
        _ => one.into_owned(),
    };
    let key = crate::model::text::sanitize::cut_chars(key, 120);
    format!("  {key} = {shown}\n      {what}\n")
}

/// `forge trust --status --json`.
pub(crate) fn status_json(
    paths: &Paths,
    facts: &FileFacts,
    trust: &Trust,
    refused: Option<&str>,
) -> Value {
    let acting: Vec<_> = facts
        .acting
        .iter()
        .map(|(k, v)| {
            json!({
                "key": k,
                "value": serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                "applies": trust.applies(),
            })
        })
        .collect();
    json!({
        "project": paths.root,
        "config": paths.config(),
        "exists": facts.text.is_some(),
        "sha256": facts.sha256,
        "trust": trust,
        "acting": acting,
        "trustable": refused.is_none(),
        "error": refused,
    })
}

/// `forge trust --status`: whether the file is trusted, each acting key, and what
/// `forge trust` would do.
pub(crate) fn status_text(
    paths: &Paths,
    facts: &FileFacts,
    trust: &Trust,
    refused: Option<&str>,
) -> String {
    let file = paths.config();
    let mut out = String::new();
    match trust {
        Trust::Absent => {
            let _ = writeln!(out, "{} does not exist: nothing to trust.", file.display());
        }
        Trust::Inert => {
            let _ = writeln!(
                out,
                "Nothing in {} makes forge act: all of it applies.",
                file.display()
            );
        }
        Trust::Trusted { trusted_at, .. } => {
            let _ = writeln!(
                out,
                "{} is trusted (since {trusted_at}): its acting keys apply:",
                file.display()
            );
        }
        Trust::Untrusted { .. } => {
            let _ = writeln!(
                out,
                "{}: its acting keys are ignored, because {}:",
                file.display(),
                trust.why_ignored()
            );
        }
    }
    for (key, value) in &facts.acting {
        out.push_str(&describe(key, value));
    }
    match (trust, refused) {
        (Trust::Untrusted { .. }, Some(error)) => {
            let _ = writeln!(
                out,
                "`forge trust` would not trust it as it is, because the file has an error: {error}\n\
                 Fix it first; until then its acting keys stay ignored."
            );
        }
        (Trust::Untrusted { .. }, None) => {
            let _ = writeln!(
                out,
                "Run `forge trust` to trust this content, if it does only what you want."
            );
        }
        _ => {}
    }
    out
}
