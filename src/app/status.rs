//! The one status report: what `forge status` (text, `--json`, `--all`), `forge
//! sessions` and the MCP server's `status` tool show, gathered once from the
//! snapshot, the config and the `forge run` chains, and — for the fleet — the
//! registry. The faces render it: the commands as text (`ui/report.rs`,
//! `ui/lists.rs`), and every face the same JSON from here, so `forge status
//! --json` and the `status` tool cannot drift apart.

use std::path::{Path, PathBuf};

use anyhow::bail;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::app::project::Paths;
use crate::app::snapshot::{GitSource, load, load_state};
use crate::env::Env;
use crate::model::agents::fleet::{Registry, SessionRow as FleetSession};
use crate::model::agents::relay::Chain;
use crate::model::session::level::Thresholds;
use crate::model::session::state::{Attention, SessionBridge};
use crate::model::snapshot::{Snapshot, last_heard};
use crate::model::time::iso;
use crate::store::{chains, registry};

/// One project's status: its snapshot (git read live), whether forge is set up
/// there, the config's `stale_after` and context thresholds (the built-in defaults
/// when the config does not load), the line saying the project's config waits for
/// trust, and the `forge run` chains.
pub(crate) struct Report {
    /// The project's state, taken now.
    pub(crate) snapshot: Snapshot,
    /// Whether forge is set up in the project ([`crate::app::project::is_set_up`]).
    pub(crate) set_up: bool,
    /// How long a silent session stays live (`[attention] stale_after`).
    pub(crate) stale_after: chrono::Duration,
    /// The context levels' thresholds (`[context]`).
    pub(crate) thresholds: Thresholds,
    /// The line saying the project's config file waits for `forge trust`, while it does.
    pub(crate) untrusted: Option<String>,
    /// The `forge run` chains, newest first.
    pub(crate) chains: Vec<Chain>,
    /// What to run instead, when forge is not set up in the project.
    pub(crate) hint: Option<String>,
}

impl Report {
    /// Gathers the report of the project at `paths`. `warn` hears about a config
    /// that does not load (the defaults are used).
    pub(crate) fn load(
        paths: &Paths,
        env: &Env,
        set_up: bool,
        warn: impl FnOnce(&dyn std::fmt::Display),
    ) -> Self {
        let snapshot = load(paths, env.now, GitSource::Live);
        let (cfg, untrusted) = config_or_default(paths, env, warn);
        Self {
            snapshot,
            set_up,
            stale_after: cfg.attention.stale_after(),
            thresholds: cfg.context.thresholds(),
            untrusted,
            chains: chains::list(paths),
            hint: (!set_up).then(|| crate::app::project::not_set_up_message(paths)),
        }
    }

    /// What `forge status --json` prints for one project (the `status` tool of
    /// `forge mcp` answers the same): the snapshot, `set_up`, the `forge run`
    /// chains, and a hint when the project is not set up.
    pub(crate) fn to_json(&self) -> Value {
        let mut v = to_json(&self.snapshot, self.stale_after, &self.thresholds);
        if let Some(obj) = v.as_object_mut() {
            obj.insert("set_up".into(), json!(self.set_up));
            obj.insert("chains".into(), json!(self.chains));
            obj.insert("untrusted_config".into(), json!(self.untrusted));
            if let Some(hint) = &self.hint {
                obj.insert("hint".into(), json!(hint));
            }
        }
        v
    }
}

/// The project's config, or the built-in defaults when it does not load (`warn` is
/// told why); with the line saying that the project file waits for trust, while it
/// does ([`crate::config::Loaded::untrusted_line`]).
fn config_or_default(
    paths: &Paths,
    env: &Env,
    warn: impl FnOnce(&dyn std::fmt::Display),
) -> (crate::config::Config, Option<String>) {
    match crate::config::load(paths, env) {
        Ok(l) => {
            let line = l.untrusted_line();
            (l.config, line)
        }
        Err(e) => {
            warn(&e);
            (crate::config::Config::default(), None)
        }
    }
}

/// Where the fleet registry of this environment is ([`registry::path`]), or why
/// it cannot be found.
pub(crate) fn registry_path(env: &Env) -> anyhow::Result<PathBuf> {
    let Some(file) = registry::path(env) else {
        bail!(
            "cannot find the fleet registry: neither XDG_STATE_HOME nor HOME is an absolute \
             folder"
        );
    };
    Ok(file)
}

/// The fleet registry of this environment, read: its path and contents. An error
/// (no home folder, a registry that is a link or a FIFO, a folder others can write
/// to) says why.
pub(crate) fn read_registry(env: &Env) -> anyhow::Result<(PathBuf, Registry)> {
    let file = registry_path(env)?;
    let reg = registry::read_for_views(&file).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((file, reg))
}

/// The fleet as JSON: `rows` in the order of the list (live sessions most urgent
/// first, then projects with no live session, whose session fields are `null`).
/// Each row says, as the fleet list shows them, the session's agent and tmux target
/// (`pane`, the server's `socket`, and the `attach` command that reaches it), and
/// its work tree (`worktree`, the project root), branch and `repository` (the main
/// work tree's project it shares its Signals with; its own root otherwise).
pub(crate) fn fleet_json(reg: &Registry, file: &Path, now: DateTime<Utc>) -> Value {
    let rows: Vec<Value> = reg
        .rows(now)
        .iter()
        .map(|r| {
            let s = r.session;
            let tmux = s.and_then(FleetSession::tmux_target).map(|(pane, socket)| {
                json!({
                    "pane": pane,
                    "socket": socket,
                    "attach": crate::model::dashboard::fleet::attach_command(pane, socket),
                })
            });
            json!({
                "project": r.project.name,
                "root": r.project.root,
                "worktree": r.project.root,
                "repository": r.project.repository.as_deref().unwrap_or(&r.project.root),
                "branch": r.project.branch,
                "blocked": r.project.blocked,
                "agent": s.and_then(|s| s.agent.as_deref()),
                "tmux": tmux,
                "session_id": s.map(|s| &s.id),
                "context_pct": s.and_then(|s| s.context_pct),
                "level": s.and_then(|s| s.level.as_deref()),
                "attention": s.and_then(|s| s.attention),
                "last_event": s.and_then(|s| s.last_event.as_deref()),
                "last_event_at": r.last_heard().map(iso),
            })
        })
        .collect();
    json!({
        "registry": file,
        "taken_at": iso(now),
        "projects": reg.current(now).count(),
        "rows": rows,
    })
}

/// How many of the recent events `status --json` prints.
const STATUS_EVENTS: usize = 20;

/// The snapshot as JSON, with the derived lists scripts want (`blocked`, `attention`).
/// `attention` lists the live sessions, most urgent first (none ended, none silent
/// for longer than `stale_after`).
pub(crate) fn to_json(
    snap: &Snapshot,
    stale_after: chrono::Duration,
    thresholds: &crate::model::session::level::Thresholds,
) -> serde_json::Value {
    let mut v = serde_json::to_value(snap).unwrap_or_else(|_| json!({}));
    if let Some(obj) = v.as_object_mut() {
        // The last 20 events, as before the dashboard kept more (`forge log --json`
        // has them all).
        if let Some(Value::Array(events)) = obj.get_mut("recent_events") {
            let extra = events.len().saturating_sub(STATUS_EVENTS);
            events.drain(..extra);
        }
        obj.insert(
            "blocked".into(),
            json!(
                snap.blocked()
                    .map(|h| h.file_name.clone())
                    .collect::<Vec<_>>()
            ),
        );
        // Whether `last_session` is of a session still live (a turn's record, not
        // an end).
        obj.insert(
            "last_session_live".into(),
            json!(snap.last_session_live(snap.taken_at, stale_after).is_some()),
        );
        obj.insert(
            "current_session".into(),
            snap.current_session(snap.taken_at, stale_after)
                .map_or(Value::Null, |s| session_context_json(snap, s, thresholds)),
        );
        obj.insert(
            "attention".into(),
            json!(
                snap.attention(snap.taken_at, stale_after)
                    .iter()
                    .map(|s| json!({
                        "session_id": s.session_id,
                        "attention": s.attention,
                        "message": s.attention_message,
                        "last_event_at": s.last_event_at,
                    }))
                    .collect::<Vec<_>>()
            ),
        );
    }
    v
}

/// The same figures as JSON (`status --json`'s `current_session`, `forge sessions
/// --json`).
pub(crate) fn session_context_json(
    snap: &Snapshot,
    s: &SessionBridge,
    thresholds: &crate::model::session::level::Thresholds,
) -> Value {
    let pct = s.context_pct();
    json!({
        "session_id": s.session_id,
        "used_percentage": pct.map(|p| p as u64),
        "level": pct.map(|p| crate::model::session::level::Level::from_pct(p, thresholds).as_str()),
        "compactions": snap.compactions_of(&s.session_id),
        "last_event": s.last_event,
        "last_event_at": crate::model::snapshot::last_heard(s)
            .map(crate::model::time::iso),
        "attention": s.attention,
        "attention_message": s.attention_message,
        "transcript_path": s.transcript_path,
    })
}

/// What `forge sessions` lists: the project's sessions from its state files (git
/// from the hooks' cache), with the config's `stale_after` and thresholds.
pub(crate) struct Sessions {
    /// The project's state, taken now.
    pub(crate) snapshot: Snapshot,
    /// How long a silent session stays live (`[attention] stale_after`).
    pub(crate) stale_after: chrono::Duration,
    /// The context levels' thresholds (`[context]`).
    pub(crate) thresholds: Thresholds,
}

/// One listed session.
pub(crate) struct Row<'a> {
    pub(crate) bridge: &'a SessionBridge,
    /// `permission`, `input`, `busy`, `ended` or `silent`.
    pub(crate) state: &'static str,
    pub(crate) live: bool,
    pub(crate) current: bool,
}

impl Sessions {
    /// Gathers the sessions of the project at `paths` (the built-in defaults when
    /// the config does not load).
    pub(crate) fn load(paths: &Paths, env: &Env) -> Self {
        let cfg = crate::config::load_or_default(paths, env);
        Self {
            stale_after: cfg.attention.stale_after(),
            thresholds: cfg.context.thresholds(),
            snapshot: load_state(paths, env.now, GitSource::Cache),
        }
    }

    /// The sessions newest first (by their last hook event), each with its state;
    /// with `live_only` only the live ones.
    pub(crate) fn rows(&self, live_only: bool) -> Vec<Row<'_>> {
        rows(&self.snapshot, live_only, self.stale_after)
    }

    /// What `forge sessions --json` prints: each row's context figures
    /// ([`session_context_json`]) with its state, whether it is live and whether it
    /// is the current one.
    pub(crate) fn to_json(&self, rows: &[Row<'_>]) -> Value {
        let list: Vec<Value> = rows
            .iter()
            .map(|r| {
                let mut v = session_context_json(&self.snapshot, r.bridge, &self.thresholds);
                v["state"] = json!(r.state);
                v["live"] = json!(r.live);
                v["current"] = json!(r.current);
                v
            })
            .collect();
        Value::Array(list)
    }
}

fn rows(snap: &Snapshot, live_only: bool, stale_after: chrono::Duration) -> Vec<Row<'_>> {
    let now = snap.taken_at;
    let current = snap
        .current_session(now, stale_after)
        .map(|s| s.session_id.as_str());
    let mut list: Vec<&SessionBridge> = snap.sessions.iter().collect();
    list.sort_by(|a, b| {
        last_heard(b)
            .cmp(&last_heard(a))
            .then_with(|| b.updated_at.cmp(&a.updated_at))
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    list.into_iter()
        .map(|b| {
            let live = crate::model::snapshot::is_live(b, now, stale_after);
            let state = match b.attention {
                Some(Attention::Ended) => "ended",
                _ if !live => "silent",
                Some(Attention::WaitingPermission) => "permission",
                Some(Attention::WaitingInput) => "input",
                Some(Attention::Busy) | None => "busy",
            };
            Row {
                bridge: b,
                state,
                live: !matches!(state, "ended" | "silent"),
                current: current == Some(b.session_id.as_str()),
            }
        })
        .filter(|r| r.live || !live_only)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_the_last_twenty_events() {
        let mut snap = Snapshot::empty(PathBuf::from("/p"), chrono::Utc::now());
        for i in 0..30 {
            snap.recent_events
                .push(crate::model::session::state::EventLine {
                    event: format!("E{i}"),
                    ..Default::default()
                });
        }
        let v = to_json(&snap, chrono::Duration::minutes(30), &Default::default());
        let events = v["recent_events"].as_array().unwrap();
        assert_eq!(events.len(), 20);
        assert_eq!(events[0]["event"], "E10");
        assert_eq!(events[19]["event"], "E29");
    }
}
