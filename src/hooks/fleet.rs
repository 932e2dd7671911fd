//! Registering the project in the fleet registry (`crate::store::registry`) after a
//! hook call, so `forge status --all`, `forge tui --all` and the status line's
//! `elsewhere` segment see this project's live sessions without walking it.
//!
//! Cheap and never in the way: the entry is built from what the call just recorded
//! (the session's bridge, as the call wrote it), the project's branch and its blocked-Signal count (both
//! from small caches), and compared with the stored one; the file is written only
//! when the project is new or what the fleet shows changed, else at most once a
//! minute (`model::agents::fleet::needs_write`). The lock is waited for a few tens of
//! milliseconds at most; past that the registration is kept aside for the next
//! writer (see `crate::store::registry`), so none is lost. A failure is recorded as an `error` outcome of the call
//! (and in `errors.log`); the call goes on and exits 0 as always.

use std::time::Duration;

use super::call::Call;
use super::event::HookEvent;
use crate::model::agents::fleet::{Pending, ProjectEntry, ProjectFacts, SessionRow, needs_write};
use crate::model::outcome::Outcome;
use crate::store::{files, handoffs, registry};

/// How long a hook waits for the registry's lock.
const LOCK_WAIT: Duration = Duration::from_millis(40);

/// Whether this call has news for the registry: every event that records a
/// session's state does; a PreToolUse only when it changed the attention state
/// (it runs on every tool call, and otherwise records nothing in the bridge).
pub(super) fn registers(call: &Call, event: &HookEvent) -> bool {
    call.session_id().is_some()
        && match event {
            HookEvent::PreToolUse => call
                .last_recorded(|o| matches!(o, Outcome::AttentionSet { .. }).then_some(()))
                .is_some(),
            HookEvent::Other(_) => false,
            _ => true,
        }
}

/// Puts this project, and this session's state, in the fleet registry when that
/// is news (see the module doc). `bridge` is the session's bridge as this call
/// left it; `git` the git facts the call gathered, if it asked git.
pub(super) fn register(
    call: &Call,
    bridge: Option<&crate::model::session::state::SessionBridge>,
    git: Option<&Option<crate::model::session::state::GitCache>>,
) {
    let Some(sid) = call.session_id() else { return };
    let Some(file) = registry::path(call.env) else {
        return;
    };
    let Some(root) = registry::root_key(&call.paths.root) else {
        return;
    };
    let cfg = &call.config;
    let branch = crate::git::branch_from_head_file(&call.paths.root).or_else(|| match git {
        Some(known) => known.as_ref().and_then(|c| c.branch.clone()),
        None => files::read_git_cache(&call.paths).and_then(|c| c.branch),
    });
    let blocked = handoffs::count_blocked(&call.paths, std::time::SystemTime::from(call.env.now));
    let Some(facts) = ProjectFacts::new(
        &root,
        branch.as_deref(),
        blocked,
        cfg.attention.stale_after(),
    ) else {
        return;
    };
    // A linked work tree says which repository's inbox it shares.
    let repository =
        crate::store::inbox::repository_root(&call.paths).and_then(|r| registry::root_key(&r));
    let facts = facts.in_repository(repository.as_deref());
    let mut row = SessionRow::of(
        &crate::store::sanitize_id(sid),
        bridge,
        &cfg.context.thresholds(),
    );
    // Who runs it, and where to find it: as its SessionStart recorded them in the
    // bridge, else from the hook's environment; no process, no tmux question.
    row.agent = bridge
        .and_then(|b| b.agent.clone())
        .or_else(|| call.env.forge_agent.clone());
    (row.tmux_pane, row.tmux_socket) = call.env.tmux_place();
    if row.tmux_pane.is_none()
        && let Some(b) = bridge
    {
        row.tmux_pane.clone_from(&b.tmux_pane);
        row.tmux_socket.clone_from(&b.tmux_socket);
    }
    let now = call.env.now;
    let stored = match registry::read(&file) {
        Ok(r) => r,
        Err(e) => {
            call.fail("fleet registry", &e.to_string());
            return;
        }
    };
    let candidate = ProjectEntry::build(stored.entry(&root), facts.clone(), row.clone(), now);
    if !needs_write(stored.entry(&root), &candidate, now) {
        return;
    }
    // Built again from the file as it is under the lock (another session of this
    // project may have written its own row meanwhile), or kept aside for the next
    // writer when the lock stays busy: never lost.
    let result = registry::register(
        &file,
        LOCK_WAIT,
        Pending {
            facts,
            row,
            at: crate::model::time::iso(now),
        },
    );
    if let Err(e) = result {
        call.fail("fleet registry", &format!("{}: {e}", file.display()));
    }
}
