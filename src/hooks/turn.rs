//! Stop (every turn) and SessionEnd (the last one): record how the session left
//! the tree, set the learn flag, warn about a dirty tree, and block a stop once when
//! a compacted session has not re-read anything.

use std::path::Path;

use serde_json::{Value, json};

use super::dispatch::{Ctx, HookResult};
use crate::model::outcome::Outcome;
use crate::model::session::dirty;
use crate::model::session::state::{Attention, LastSession};
use crate::store::{self, files};

impl Ctx<'_> {
    fn record_end(
        &self,
        is_final: bool,
        reason: Option<&str>,
    ) -> Option<crate::model::session::state::GitCache> {
        // SessionEnd shares a 1.5 s budget with every other SessionEnd hook: git gets
        // 1 s there (then the cache Stop left is used); elsewhere GIT_DEADLINE.
        let deadline = if is_final {
            std::time::Duration::from_secs(1)
        } else {
            crate::git::GIT_DEADLINE
        };
        // git scans on its own thread while the rest is read (and the transcript's
        // figure written).
        let pending = crate::git::start_facts(&self.paths.root, deadline);
        let workflow = files::read_workflow(&self.paths);
        let bridge = self
            .session_id()
            .and_then(|s| files::read_bridge(&self.paths, s));
        // Print mode never runs the status line (docs/client-reference.md §9.1 #11): without its
        // reading, the transcript says how full the context is, and the bridge keeps
        // that figure so `status`, `context`, `sessions` and the dashboard agree.
        let transcript_pct = match bridge.as_ref() {
            Some(b) if b.readings.is_empty() => self.transcript_context(Some(b)),
            Some(_) => None,
            None => self.transcript_context(None),
        }
        .map(|c| (c.pct, c.tokens));
        if let (Some((pct, tokens)), Some(id)) = (transcript_pct, self.session_id())
            && bridge
                .as_ref()
                .is_none_or(|b| (b.used_percentage, b.tokens) != (Some(pct), Some(tokens)))
            && let Err(e) = files::update_bridge(&self.paths, id, self.env.now, |b| {
                let change = b.readings.is_empty()
                    && (b.used_percentage, b.tokens) != (Some(pct), Some(tokens));
                if change {
                    b.used_percentage = Some(pct);
                    b.tokens = Some(tokens);
                }
                change
            })
        {
            self.fail("session bridge", &e.to_string());
        }
        let (git, refused) = crate::git::finish_refresh_checked(&self.paths, self.env.now, pending);
        if let Some(why) = refused {
            self.fail("git", &why.to_string());
        }
        let last = LastSession {
            ended_at: crate::model::time::iso(self.env.now),
            branch: git.as_ref().and_then(|g| g.branch.clone()),
            uncommitted_changes: git.as_ref().map_or(0, |g| g.uncommitted_changes),
            forge_phase: workflow.phase,
            forge_task: workflow.task,
            session_id: self.wire.session_id.clone(),
            transcript_path: self.wire.transcript_path.clone(),
            reason: reason.map(str::to_owned),
            is_final,
            context_used_pct: transcript_pct
                .map(|(p, _)| p)
                .or_else(|| bridge.as_ref().and_then(|b| b.used_percentage)),
        };
        match files::write_last_session(&self.paths, &last) {
            Ok(()) => self.record(Outcome::SessionRecorded {
                branch: last.branch.clone(),
                uncommitted: last.uncommitted_changes,
                is_final,
            }),
            Err(e) => self.fail("last-session", &e.to_string()),
        }
        self.learn_flag(bridge.as_ref(), git.as_ref());
        git
    }

    /// The learn flag at the end of a turn: cleared when a `learned-*.md` is newer
    /// than it, else set when this session changed files — edited them, or ran a
    /// command that changed the tree in this turn ([`crate::model::session::learn`]).
    fn learn_flag(
        &self,
        bridge: Option<&crate::model::session::state::SessionBridge>,
        git: Option<&crate::model::session::state::GitCache>,
    ) {
        let flag = self.paths.learn_pending();
        if store::safe::is_regular(&flag) {
            if crate::app::learn::learned_after_flag(&self.paths, self.env) {
                match store::remove_if_exists(&flag) {
                    Ok(_) => self.record(Outcome::FlagCleared {
                        flag: "learn-pending".to_owned(),
                        why: "a learned-*.md was written after it was set".to_owned(),
                    }),
                    Err(e) => self.fail("learn-pending", &e.to_string()),
                }
                self.rebase_learning(git);
            }
            return;
        }
        if let Some(why) = crate::model::session::learn::changed_files_why(bridge, git) {
            match store::touch_flag(&flag) {
                Ok(()) => self.record(Outcome::FlagSet {
                    flag: "learn-pending".to_owned(),
                    why: format!("{why}: the next session is reminded to run /forge-learn"),
                }),
                Err(e) => self.fail("learn-pending", &e.to_string()),
            }
        }
    }

    /// Moves this session's learn baseline to the tree as it is now.
    pub(super) fn rebase_learning(&self, git: Option<&crate::model::session::state::GitCache>) {
        let Some(sid) = self.session_id() else { return };
        if let Err(e) = files::update_bridge(&self.paths, sid, self.env.now, |b| {
            crate::app::learn::rebase(b, git)
        }) {
            self.fail("bridge", &e.to_string());
        }
    }

    /// The context of this session from the end of its transcript (window from the
    /// bridge, else the model): the last usage, or the estimate of a compaction
    /// newer than any usage.
    pub(super) fn transcript_context(
        &self,
        bridge: Option<&crate::model::session::state::SessionBridge>,
    ) -> Option<TranscriptContext> {
        let path = self.wire.transcript_path.as_deref().or_else(|| {
            // A bridge's path only when it is a Claude Code transcript.
            bridge
                .and_then(|b| b.transcript_path.as_deref())
                .filter(|p| {
                    crate::app::session_handoff::is_claude_transcript(self.env, Path::new(p))
                })
        })?;
        let scan = store::transcript::tail_context(Path::new(path));
        let tokens = scan.tokens().filter(|t| *t > 0)?;
        let model = match &scan {
            crate::model::session::transcript::TailScan::Usage { model, .. } => model.clone(),
            _ => None,
        };
        let window = crate::model::session::transcript::infer_window(
            bridge.and_then(|b| b.context_window_size),
            model.as_deref().or(self.wire.model.as_deref()),
            Some(tokens),
        );
        Some(TranscriptContext {
            pct: crate::model::session::transcript::pct_of(tokens, window),
            tokens,
            estimate: matches!(
                scan,
                crate::model::session::transcript::TailScan::Compacted { .. }
            ),
        })
    }

    pub(super) fn stop(&self, stop_hook_active: bool) -> HookResult {
        let git = self.record_end(false, None);
        let dirty = git.as_ref().map_or(0, |g| g.uncommitted_changes);
        // The warning is for the person (a Stop hook's plain stdout reaches no screen:
        // docs/client-reference.md §9.1 #8), and only as `[hooks] dirty_warning` says: by default
        // when the count grew past what the session started with (or was last warned
        // about). Without a bridge there is nothing to compare with.
        let mode = self.config().hooks.dirty_warning;
        let mut warn = git.is_some() && dirty::decide(mode, dirty, None, None).warn;
        self.touch_bridge_and("Stop", Some(Attention::WaitingInput), None, |b| {
            if git.is_some() {
                let d = dirty::decide(mode, dirty, b.dirty_at_start, b.dirty_warned);
                warn = d.warn;
                b.dirty_warned = d.warned;
            } else {
                warn = false;
            }
            // The turn is over: the next one's first command takes a new baseline.
            b.command_baseline = None;
        });
        let mut out = serde_json::Map::new();
        // Failsafe: a compaction happened and no tool ran since, so PreToolUse never
        // got to ask for the re-read. Block the stop once (never when already
        // continuing because of a Stop hook, nor when the session is re-reading).
        if !stop_hook_active
            && !self.reread_started()
            && let Some(files_to_read) = self.consume_compaction_marker()
        {
            let reason = stop_reason(&files_to_read);
            out.insert("decision".into(), json!("block"));
            out.insert("reason".into(), json!(reason));
            self.record(Outcome::StopBlocked { reason });
        }
        if warn && let Some(text) = dirty_warning(git.as_ref()) {
            out.insert("systemMessage".into(), json!(text));
            self.record(Outcome::Warned { message: text });
        }
        if out.is_empty() {
            return Ok(String::new());
        }
        Ok(format!("{}\n", Value::Object(out)))
    }

    /// SessionEnd only records: the client discards its output (docs/client-reference.md §9.1
    /// #8), so the next SessionStart tells the dirty tree instead.
    pub(super) fn session_end(&self, reason: Option<&str>) -> HookResult {
        self.record_end(true, reason);
        self.touch_bridge_and("SessionEnd", Some(Attention::Ended), None, |b| {
            b.command_baseline = None;
        });
        Ok(String::new())
    }
}

/// Why Stop blocks; shown to the person as "Stop hook reported a problem" and sent
/// to the model as Stop hook feedback.
fn stop_reason(files_to_read: &[String]) -> String {
    format!(
        "The context was just compacted and nothing has been re-read since. \
         Re-read {}, then carry on with the task.",
        files_to_read.join(", ")
    )
}

fn dirty_warning(git: Option<&crate::model::session::state::GitCache>) -> Option<String> {
    match git {
        Some(g) if g.uncommitted_changes > 0 => Some(format!(
            "forge: {} uncommitted change{} on branch {} — commit them or note them in a handoff.",
            g.uncommitted_changes,
            if g.uncommitted_changes == 1 { "" } else { "s" },
            g.branch.as_deref().unwrap_or("(none)")
        )),
        _ => None,
    }
}

/// What the end of a transcript says of the context.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct TranscriptContext {
    /// Used, in percent of the window.
    pub(super) pct: f64,
    /// Input-side tokens.
    pub(super) tokens: u64,
    /// A compaction is newer than any usage: the figure is its estimate.
    pub(super) estimate: bool,
}
