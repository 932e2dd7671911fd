//! The entry of every hook call, readable top to bottom: parse the payload, find the
//! project, check its folders, read the config once (`super::call::Call`), then for the event
//! gather → decide → apply ([`run`]: one arm per event), tell the `[notify]`
//! command and the fleet registry, and record the call in `events.jsonl`.
//!
//! Every step reports what it did as [`Outcome`] values, recorded in the call;
//! the dispatcher writes them into the call's one event line, at the end of the
//! call, so the line says what happened and not only that the hook ran. Writing it
//! last also means a reader that waits for a `Stop` line finds Stop's files already
//! written. A call that fails or panics still leaves its line, with an `error`
//! outcome; only a process killed from outside (the client's hook timeout) leaves
//! none.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::apply::{Applied, apply};
use super::call::Call;
use super::event::HookEvent;
use super::wire::WireHookInput;
use super::{alert, fleet, gather, notify, session_start};
use crate::env::Env;
use crate::model::hook::{attention, compaction, tool, turn};
use crate::model::outcome::Outcome;
use crate::model::session::state::EventLine;
use crate::store::{self, Paths, files};

/// The most stdin forge reads (1 MiB); a longer payload is cut and fails to parse.
pub(crate) const MAX_STDIN: u64 = 1024 * 1024;

/// What one hook call did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Handled {
    /// What to print on stdout (often nothing).
    pub(crate) stdout: String,
    /// What the call did, in order, as written to its `events.jsonl` line (empty
    /// when no line could be written: not a project, a refused or unwritable
    /// `.forge/`).
    pub(crate) outcomes: Vec<Outcome>,
}

/// Handles one hook call: `event_arg` from the command line (may be absent), `input`
/// the raw stdin bytes. Returns what to print on stdout (often nothing).
///
/// Errors are logged, never returned: the caller always exits 0.
pub fn handle_input(event_arg: Option<&str>, input: &[u8], env: &Env) -> String {
    handle(event_arg, input, env).stdout
}

/// [`handle_input`], with the outcomes: what tests assert on.
pub(crate) fn handle(event_arg: Option<&str>, input: &[u8], env: &Env) -> Handled {
    let (parsed, wire) = read_payload(input);
    let Some(cwd) = call_cwd(&wire, env) else {
        return Handled::default();
    };
    let paths = Paths::new(store::resolve_root(env.claude_project_dir.as_deref(), &cwd));
    let name = event_arg
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .or_else(|| wire.hook_event_name.clone());
    // PostToolUse runs forge only in `forge run`'s sessions, after every tool call:
    // it does nothing (and writes nothing) unless the relay asked this session to
    // stop — one stat of the stop file — and never for a subagent's calls.
    if name
        .as_deref()
        .is_some_and(|n| n.eq_ignore_ascii_case("PostToolUse"))
        && !relay_stop_asked(env, &wire)
    {
        return Handled::default();
    }
    // StrictModes: a `.forge/` (or logs/, handoffs/, sessions/) that is a link, is not
    // the user's, or is writable by others is never read or written. Said once per
    // session, in errors.log when that folder is itself sound (`forge doctor` says it
    // too).
    if let Err(refusal) = paths.check() {
        if name.as_deref() == Some("SessionStart") {
            store::log_error(&paths, "hook SessionStart", &refusal.to_string());
        }
        return Handled::default();
    }
    let problem = match (&parsed, &name) {
        (Err(e), _) => Some(e.clone()),
        (Ok(v), _) if !v.is_object() => Some("payload is not a JSON object".to_owned()),
        (Ok(_), None) => Some("no event name (argument or hook_event_name)".to_owned()),
        _ => None,
    };
    if let Some(problem) = problem {
        return bad_input(&paths, env, name.as_deref(), &wire, problem);
    }
    let name = name.unwrap_or_default();
    let event = HookEvent::from_wire(&name, &wire);
    if !paths.may_create_state(env.home.as_deref()) {
        // `/` or the home folder itself: not a project, and no place for state.
        return Handled::default();
    }
    if paths.ensure_dirs().is_err() {
        // Read-only or otherwise unwritable: nothing can be recorded. Stay silent.
        return Handled::default();
    }
    let call = Call::new(paths, env, &wire, event.name());
    let stdout = run_guarded(&call, &event);
    let outcomes = call.take_outcomes();
    let mut line = event_line(&event, &wire, env.now);
    line.outcomes.clone_from(&outcomes);
    let _ = files::append_event(&call.paths, &line);
    Handled { stdout, outcomes }
}

/// The payload, parsed (or why not), and read leniently into its fields. A payload
/// cut at the cap (a multi-megabyte Write) still names its session and tool in the
/// part that was read: enough to consume a compaction marker.
fn read_payload(input: &[u8]) -> (Result<Value, String>, WireHookInput) {
    let parsed: Result<Value, String> = if input.iter().all(u8::is_ascii_whitespace) {
        Err("empty input".to_owned())
    } else {
        serde_json::from_slice(input).map_err(|e| format!("invalid JSON: {e}"))
    };
    if parsed.is_err()
        && input.len() as u64 >= MAX_STDIN
        && let Some(w) = WireHookInput::from_truncated(input)
    {
        return (Ok(Value::Object(serde_json::Map::new())), w);
    }
    let wire = parsed
        .as_ref()
        .map(WireHookInput::from_value)
        .unwrap_or_default();
    (parsed, wire)
}

/// The folder the call is about. The payload's cwd wins over the process cwd. A
/// cwd that names no folder here means the payload is not about this machine (or
/// its project was deleted while the client ran, and the client then starts hooks
/// in its temp folder): without an existing CLAUDE_PROJECT_DIR there is no safe
/// place to write, so the call is a no-op (`None`).
fn call_cwd(wire: &WireHookInput, env: &Env) -> Option<PathBuf> {
    match wire.cwd.as_deref().map(PathBuf::from) {
        Some(p) if p.is_absolute() && p.is_dir() => Some(p),
        Some(_) if !env.claude_project_dir.as_deref().is_some_and(Path::is_dir) => None,
        _ => Some(env.cwd.clone()),
    }
}

/// A payload that cannot be handled: a logged no-op, with its event line and an
/// `error` outcome — only where forge's state folder already exists.
fn bad_input(
    paths: &Paths,
    env: &Env,
    name: Option<&str>,
    wire: &WireHookInput,
    problem: String,
) -> Handled {
    if !paths.logs().is_dir() {
        return Handled::default();
    }
    let event = name.unwrap_or("unknown").to_owned();
    store::log_error(paths, &format!("hook {event}"), &problem);
    let mut facts = serde_json::Map::new();
    facts.insert("error".into(), Value::String(problem.clone()));
    let outcomes = vec![Outcome::Error {
        what: "input".to_owned(),
        message: problem,
    }];
    let _ = files::append_event(
        paths,
        &EventLine {
            time: crate::model::time::iso(env.now),
            event,
            session: wire.session_id.clone(),
            facts,
            outcomes: outcomes.clone(),
        },
    );
    Handled {
        stdout: String::new(),
        outcomes,
    }
}

/// [`run`], then the `[notify]` command hears of the event (not when the call
/// stopped on an error) and the fleet registry of the session's new state; returns
/// what to print. A panic in a step must not escape (the client would see a failed
/// hook), and must not lose the call's line: it becomes an error outcome.
fn run_guarded(call: &Call, event: &HookEvent) -> String {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let done = run(call, event);
        let stdout = if done.completed {
            notify::send(call, event, done.stdout, done.bridge.as_ref())
        } else {
            done.stdout
        };
        if done.completed {
            alert::after(call, event, done.bridge.as_ref());
        }
        if fleet::registers(call, event) {
            fleet::register(call, done.bridge.as_ref(), done.git.as_ref());
        }
        stdout
    }));
    result.unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        call.fail("panic", &format!("panic in hook (ignored): {message}"));
        String::new()
    })
}

/// One event: gather → decide → apply. Each arm reads what its event needs
/// (`gather`), asks the event's plain function in `crate::model::hook` for a plan,
/// and carries it out (`apply`); SessionStart's steps are in `session_start`.
fn run(call: &Call, event: &HookEvent) -> Applied {
    let (payload, now) = (call.wire, call.env.now);
    match event {
        HookEvent::SessionStart { source } => session_start::run(call, source.as_deref()),
        HookEvent::Stop { stop_hook_active } => {
            let facts = gather::turn(call, Some(*stop_hook_active));
            let plan = turn::stop(&facts, payload, now);
            apply(call, plan, facts.session.bridge).knowing_git(facts.git)
        }
        HookEvent::SessionEnd { .. } => {
            let facts = gather::turn(call, None);
            let plan = turn::session_end(&facts, payload, now);
            apply(call, plan, facts.session.bridge).knowing_git(facts.git)
        }
        HookEvent::PreCompact { .. } => {
            // A handoff being written (the threshold's) lands before the compaction
            // starts; then the bridge is read, so it is known to be written.
            let writing = gather::await_handoff(call, gather::PRE_COMPACT_WAIT);
            let mut facts = gather::compact(call);
            facts.handoff_in_flight = writing.is_none();
            let plan = compaction::pre_compact(&facts, payload, now);
            apply(call, plan, facts.session.bridge)
        }
        HookEvent::PostCompact { .. } => {
            let facts = gather::post_compact(call);
            let plan = compaction::post_compact(&facts, payload, now);
            apply(call, plan, facts.session.bridge)
        }
        HookEvent::PreToolUse => {
            let facts = gather::tool(call);
            let plan = tool::pre_tool_use(&facts, payload, now);
            apply(call, plan, facts.session.bridge)
        }
        HookEvent::PostToolUse { .. } => {
            let session = gather::session(call);
            apply(call, tool::post_tool_use(payload), session.bridge)
        }
        HookEvent::Notification { .. } => {
            let session = gather::session(call);
            let plan = attention::notification(&session, payload, now);
            apply(call, plan, session.bridge)
        }
        HookEvent::PermissionRequest { .. } => {
            let session = gather::session(call);
            let plan = attention::permission_request(&session, payload, now);
            apply(call, plan, session.bridge)
        }
        HookEvent::UserPromptSubmit => {
            let session = gather::session(call);
            let alert = gather::take_alert(call);
            let plan = attention::user_prompt_submit(&session, alert.as_deref(), payload, now);
            apply(call, plan, session.bridge)
        }
        HookEvent::Other(_name) => {
            // Only unit tests reach the catch_unwind path on purpose.
            #[cfg(test)]
            if _name == super::tests::PANIC_EVENT {
                std::panic::panic_any("a test asked for it");
            }
            Applied::default()
        }
    }
}

/// Whether `forge run` asked this session to stop: its stop file exists, and the
/// call is the main chain's (a subagent's `continue: false` would end only the
/// subagent).
fn relay_stop_asked(env: &Env, wire: &WireHookInput) -> bool {
    wire.agent_id.is_none()
        && env
            .relay_stop
            .as_deref()
            .is_some_and(|p| std::fs::symlink_metadata(p).is_ok())
}

fn event_line(event: &HookEvent, w: &WireHookInput, now: DateTime<Utc>) -> EventLine {
    let mut facts = serde_json::Map::new();
    let mut put = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            facts.insert(k.to_owned(), Value::String(v.chars().take(80).collect()));
        }
    };
    put("source", &w.source);
    put("reason", &w.reason);
    put("trigger", &w.trigger);
    put("tool", &w.tool_name);
    put("notification", &w.notification_type);
    if matches!(event, HookEvent::Stop { .. }) && w.stop_hook_active {
        facts.insert("stop_hook_active".into(), Value::Bool(true));
    }
    EventLine {
        time: crate::model::time::iso(now),
        event: event.name().to_owned(),
        session: w.session_id.clone(),
        facts,
        outcomes: Vec::new(),
    }
}
