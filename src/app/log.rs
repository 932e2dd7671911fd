//! `forge log`'s reading: the lines of `.forge/logs/events.jsonl` (and its rotated
//! `events.jsonl.1`) that a session, a chain or a time admits, and those written
//! while it follows.

use anyhow::{Context, anyhow};
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::model::session::state::EventLine;
use crate::store::{self, Paths, events, sessions};

/// The log as `forge log` reads it: its lines so far, which of them (and of those
/// still to come) are printed, and where new ones are looked for.
pub(crate) struct Log {
    /// Every parsed line, oldest first, as written and as read.
    pub(crate) lines: Vec<(Value, EventLine)>,
    /// Which lines are printed.
    pub(crate) select: Select,
    follower: events::Follower,
}

impl Log {
    /// The lines written since the last look that [`Select`] admits.
    pub(crate) fn poll(&mut self) -> Vec<(Value, EventLine)> {
        self.follower
            .poll()
            .iter()
            .filter_map(|raw| parse(raw))
            .filter(|(_, line)| self.select.admits(line))
            .collect()
    }
}

/// Reads the project's log; `session` (a whole id or a unique start of one) or
/// `chain` (its first session id, or a unique start of it) and `since` choose the
/// lines printed.
pub(crate) fn open(
    paths: &Paths,
    session: Option<&str>,
    chain: Option<&str>,
    since: Option<DateTime<Utc>>,
) -> anyhow::Result<Log> {
    let (raw, follower) = events::read_and_follow(paths);
    let lines: Vec<(Value, EventLine)> = raw.iter().filter_map(|l| parse(l)).collect();
    let session = match session {
        Some(prefix) => {
            let seen: Vec<String> = lines
                .iter()
                .filter_map(|(_, l)| l.session.clone())
                .collect();
            Some(sessions::resolve(paths, prefix, &seen).context("--session")?)
        }
        None => None,
    };
    let chain = match chain {
        Some(prefix) => Some(chain_sessions(paths, prefix)?),
        None => None,
    };
    let select = Select {
        session,
        chain,
        since,
    };
    Ok(Log {
        lines,
        select,
        follower,
    })
}

/// Which lines are printed.
pub(crate) struct Select {
    session: Option<String>,
    /// A chain's sessions.
    chain: Option<Vec<String>>,
    since: Option<DateTime<Utc>>,
}

impl Select {
    pub(crate) fn admits(&self, line: &EventLine) -> bool {
        if let Some(s) = &self.session
            && line.session.as_deref() != Some(s.as_str())
        {
            return false;
        }
        if let Some(ids) = &self.chain
            && !line.session.as_ref().is_some_and(|s| ids.contains(s))
        {
            return false;
        }
        match self.since {
            None => true,
            Some(since) => crate::model::time::parse_iso(&line.time).is_some_and(|t| t >= since),
        }
    }
}

/// A line of the log: as written (for `--json`) and as read.
fn parse(raw: &str) -> Option<(Value, EventLine)> {
    let value: Value = serde_json::from_str(raw).ok()?;
    let line = serde_json::from_value(value.clone()).ok()?;
    Some((value, line))
}

/// The session ids of the chain named by `prefix` (a whole first-session id or a
/// unique start of one).
fn chain_sessions(paths: &Paths, prefix: &str) -> anyhow::Result<Vec<String>> {
    let all = store::chains::list(paths);
    let found: Vec<_> = all.iter().filter(|c| c.id.starts_with(prefix)).collect();
    match found.as_slice() {
        [c] => Ok(c
            .sessions
            .iter()
            .filter_map(|s| s.session_id.clone())
            .collect()),
        [] => Err(anyhow!(
            "--chain {prefix:?}: no chain starts with that (forge status lists them)"
        )),
        _ => Err(anyhow!(
            "--chain {prefix:?}: {} chains start with that; give more of the id",
            found.len()
        )),
    }
}

/// What to say when nothing was printed.
pub(crate) fn nothing_message(paths: &Paths, empty: bool) -> String {
    if empty {
        format!(
            "forge: no events yet in {} (forge's hooks write them: `forge init` wires them, \
             `forge doctor` checks)\n",
            paths.events().display()
        )
    } else {
        "forge: no events match (try a longer --since, or no --session)\n".to_owned()
    }
}
