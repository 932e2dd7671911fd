//! Compaction: PreCompact captures state (and writes the safety-net handoff),
//! SessionStart(`compact`) records a proven compaction and arms the session's
//! one-shot re-read marker, PreToolUse (or Stop) consumes it.

use std::path::Path;

use serde_json::{Value, json};

use super::dispatch::{Ctx, HookResult};
use crate::config::Config;
use crate::model::handoff::handoff_doc::Trigger;
use crate::model::outcome::Outcome;
use crate::model::session::state::{Attention, CompactionRecord, PreCompactState};
use crate::model::snapshot::Snapshot;
use crate::store::{self, Paths, files, handoffs};

/// How many changed names go into the pre-compact state and the re-read list.
const RECENT_FILES: usize = 20;

impl Ctx<'_> {
    pub(super) fn pre_compact(&self, trigger: Option<&str>) -> HookResult {
        let cfg = self.config();
        let git = crate::git::start_facts(&self.paths.root, crate::git::GIT_DEADLINE)
            .wait_checked()
            .unwrap_or_else(|why| {
                self.fail("git", &why.to_string());
                None
            });
        let state = PreCompactState {
            captured_at: crate::model::time::iso(self.env.now),
            branch: git.as_ref().map(|g| g.branch.clone()),
            uncommitted_changes: git.as_ref().map_or(0, |g| g.uncommitted),
            recent_files: git
                .as_ref()
                .map(|g| g.changed.iter().take(RECENT_FILES).cloned().collect())
                .unwrap_or_default(),
            trigger: trigger.map(str::to_owned),
            session_id: self.wire.session_id.clone(),
        };
        // A compaction *may* follow (it can be cancelled, or abandoned and retried:
        // docs/client-reference.md §9.1 #2), so this only captures state while it still can; what
        // claims a compaction happened waits for SessionStart(compact).
        store::write_json_synced(&self.paths.pre_compact_state(), &state)?;
        self.record(Outcome::StateCaptured {
            branch: state.branch.clone(),
            uncommitted: state.uncommitted_changes,
        });
        if cfg.hooks.handoff_on_precompact {
            self.precompact_handoff(cfg, git.as_ref());
        } else {
            self.record(Outcome::HandoffSkipped {
                trigger: Trigger::PreCompact.as_str().to_owned(),
                why: "[hooks] handoff_on_precompact is off".to_owned(),
            });
        }
        self.touch_bridge("PreCompact", None, None);
        Ok(String::new())
    }

    /// A proven compaction (SessionStart `compact`): counts it in `compactions.jsonl`
    /// and arms the session's one-shot re-read marker — when there is something to
    /// re-read. Returns the files to re-read (none: nothing is armed).
    pub(super) fn record_compaction(&self, snap: &Snapshot) -> std::io::Result<Vec<String>> {
        let cfg = self.config();
        let sid = self.session_id();
        let transcript = self.wire.transcript_path.as_deref().map(Path::new);
        let pre = snap
            .pre_compact
            .as_ref()
            .filter(|p| p.session_id.as_deref() == sid);
        let files_to_read = reread_files(&self.paths, sid, transcript);
        let record = CompactionRecord {
            compacted_at: crate::model::time::iso(self.env.now),
            session_id: sid.map(str::to_owned),
            trigger: pre.and_then(|p| p.trigger.clone()),
            captured_at: pre.map(|p| p.captured_at.clone()),
        };
        let line = serde_json::to_string(&record).map_err(std::io::Error::other)?;
        store::append_line_capped(&self.paths.compactions(), &line, store::COMPACTIONS_CAP)?;
        // A session with no handoff and no file in its transcript has nothing to
        // re-read: holding a call back would only say "re-read something".
        let armed = cfg.hooks.compaction_reread && sid.is_some() && !files_to_read.is_empty();
        if armed && let Some(sid) = sid {
            let _ = store::remove_if_exists(&self.paths.reread_started(sid));
            store::write_json(
                &self.paths.compaction_marker(sid),
                &json!({"armed_at": record.compacted_at, "reread": files_to_read}),
            )?;
        }
        self.record(Outcome::CompactionRecorded {
            reread: files_to_read.clone(),
            armed,
        });
        Ok(files_to_read)
    }

    /// The safety net: a handoff (trigger `pre-compact`) when this session wrote none
    /// since it crossed the threshold (or none at all). Inline and bounded; failures
    /// are logged and recorded, never surfaced.
    fn precompact_handoff(&self, cfg: &Config, git: Option<&crate::git::GitFacts>) {
        let skipped = |why: &str| Outcome::HandoffSkipped {
            trigger: Trigger::PreCompact.as_str().to_owned(),
            why: why.to_owned(),
        };
        let Some(sid) = self.session_id() else {
            self.record(skipped("the payload names no session"));
            return;
        };
        let bridge = files::read_bridge(&self.paths, sid);
        if !needs_safety_net(bridge.as_ref()) {
            self.record(skipped(
                "this session wrote one since it crossed the threshold",
            ));
            return;
        }
        let req = crate::app::session_handoff::Request {
            trigger: Trigger::PreCompact,
            session_id: Some(sid),
            transcript_path: self.wire.transcript_path.as_deref(),
            git: crate::app::session_handoff::GitInput::Known(git),
            task: None,
            pending: true,
        };
        match crate::app::session_handoff::write_detailed(&self.paths, self.env, cfg, &req) {
            Ok(w) => {
                for o in w.outcomes(Trigger::PreCompact) {
                    match o {
                        Outcome::Error { what, message } => self.fail(&what, &message),
                        o => self.record(o),
                    }
                }
            }
            Err(e) => self.fail("PreCompact handoff", &e.to_string()),
        }
    }

    /// Whether a read-only tool ran since this session's compaction.
    pub(super) fn reread_started(&self) -> bool {
        self.session_id()
            .is_some_and(|sid| self.paths.reread_started(sid).exists())
    }

    /// Removes this session's compaction marker; `Some(files to re-read)` for the one
    /// caller that removed it (parallel tool calls race; exactly one wins).
    pub(super) fn consume_compaction_marker(&self) -> Option<Vec<String>> {
        let sid = self.session_id()?;
        let marker = self.paths.compaction_marker(sid);
        if !marker.exists() {
            return None;
        }
        let recorded: Option<Value> = store::read_json(&marker);
        if !store::remove_if_exists(&marker).unwrap_or(false) {
            return None;
        }
        let _ = store::remove_if_exists(&self.paths.reread_started(sid));
        let list = recorded
            .as_ref()
            .and_then(|v| v.get("reread"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_else(|| reread_files(&self.paths, Some(sid), None));
        Some(if list.is_empty() {
            vec!["the files you were working on".to_owned()]
        } else {
            list
        })
    }

    pub(super) fn pre_tool_use(&self) -> HookResult {
        self.note_edit();
        self.note_command();
        // A subagent's tool call carries the parent's session id, but the compaction
        // was the main thread's: leave the marker for the main thread.
        if self.wire.agent_id.is_some() {
            return Ok(String::new());
        }
        if is_read_only(self.wire.tool_name.as_deref()) {
            // Re-reading is what a compacted session should do: never held back. It
            // tells Stop that the session is re-reading.
            if let Some(sid) = self.session_id()
                && self.paths.compaction_marker(sid).exists()
            {
                let _ = store::touch_flag(&self.paths.reread_started(sid));
            }
        } else if let Some(files_to_read) = self.consume_compaction_marker() {
            let reason = deny_reason(&files_to_read);
            let out = json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            });
            self.record(Outcome::Denied {
                tool: self
                    .wire
                    .tool_name
                    .clone()
                    .unwrap_or_else(|| "?".to_owned()),
                reason,
            });
            return Ok(format!("{out}\n"));
        }
        // A tool is running, so the session is busy again (after a permission prompt).
        if let Some(sid) = self.session_id() {
            let waiting = files::read_bridge(&self.paths, sid)
                .and_then(|b| b.attention)
                .is_some_and(|a| a != Attention::Busy);
            if waiting {
                self.set_attention("PreToolUse", Some(Attention::Busy), None);
            }
        }
        Ok(String::new())
    }
}

impl Ctx<'_> {
    /// An editing tool on a file of the project (or on a file the payload does not
    /// name) marks the session as having changed files, for the learn flag. The
    /// bridge is written once, not on every edit.
    fn note_edit(&self) {
        let Some(tool) = self.wire.tool_name.as_deref() else {
            return;
        };
        if !crate::model::session::learn::EDITING_TOOLS.contains(&tool) {
            return;
        }
        let inside = self.wire.tool_file.as_deref().is_none_or(|f| {
            let f = Path::new(f);
            f.is_relative()
                || f.starts_with(&self.paths.root)
                || std::fs::canonicalize(&self.paths.root).is_ok_and(|r| f.starts_with(r))
        });
        let Some(sid) = self.session_id() else { return };
        if !inside || files::read_bridge(&self.paths, sid).is_some_and(|b| b.files_edited) {
            return;
        }
        if let Err(e) = files::update_bridge(&self.paths, sid, self.env.now, |b| {
            let changed = !b.files_edited;
            b.files_edited = true;
            changed
        }) {
            self.fail("bridge", &e.to_string());
        }
    }
}

impl Ctx<'_> {
    /// The first command (Bash) of a turn takes the work tree's fingerprint, which the
    /// end of the turn compares with its own: a change in between is what the
    /// session's commands did ([`crate::model::session::learn`]). One git scan per turn that
    /// runs commands, at most [`COMMAND_BASELINE_DEADLINE`]; later calls of the turn
    /// and every other tool read one small file. A scan that does not finish in time
    /// leaves no baseline: then the turn's commands claim nothing.
    fn note_command(&self) {
        if self.wire.tool_name.as_deref() != Some(crate::model::session::learn::COMMAND_TOOL) {
            return;
        }
        let Some(sid) = self.session_id() else { return };
        if files::read_bridge(&self.paths, sid).is_some_and(|b| b.command_baseline.is_some()) {
            return;
        }
        let Some(facts) = crate::git::facts_within(&self.paths.root, COMMAND_BASELINE_DEADLINE)
        else {
            return;
        };
        let baseline = crate::git::cache_of(facts, self.env.now).fingerprint();
        if let Err(e) = files::update_bridge(&self.paths, sid, self.env.now, |b| {
            // Parallel calls race: the first baseline of the turn stays.
            let first = b.command_baseline.is_none();
            if first {
                b.command_baseline = Some(baseline);
            }
            first
        }) {
            self.fail("bridge", &e.to_string());
        }
    }
}

/// The most the first command of a turn waits for its baseline scan (a tool call is
/// waiting; the turn's end has three seconds for its own).
const COMMAND_BASELINE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether PreCompact should write a handoff for a session: none was written yet, or
/// the last one is older than the session's threshold crossing.
pub fn needs_safety_net(bridge: Option<&crate::model::session::state::SessionBridge>) -> bool {
    let Some(b) = bridge else { return true };
    let Some(written) = b
        .handoff_written_at
        .as_deref()
        .and_then(crate::model::time::parse_iso)
    else {
        return true;
    };
    match b
        .threshold_crossed_at
        .as_deref()
        .and_then(crate::model::time::parse_iso)
    {
        Some(crossed) => written < crossed,
        None => false,
    }
}

/// Tools that only read: a compacted session re-reads with them, so they are never
/// held back.
const READ_ONLY_TOOLS: [&str; 5] = ["Read", "Grep", "Glob", "LS", "NotebookRead"];

fn is_read_only(tool: Option<&str>) -> bool {
    tool.is_some_and(|t| READ_ONLY_TOOLS.contains(&t))
}

/// The files to re-read after a compaction, each once: this session's newest handoff
/// (never another session's; it carries the workflow's phase and task), then from
/// the transcript the files the session edited, then those it read (newest first;
/// only files that exist, never a folder). Nothing else: git's changed names are not
/// what the session used (forge's own `.gitignore` edit, another terminal's work), so
/// a session that touched no file is told of its handoff alone — or of nothing. Names
/// inside the project are relative.
pub(super) fn reread_files(
    paths: &Paths,
    session_id: Option<&str>,
    transcript: Option<&Path>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(sid) = session_id
        && let Some(h) = handoffs::list(paths).into_iter().find(|h| {
            h.kind == crate::model::handoff::entry::HandoffKind::Session
                && h.front.get("session_id") == Some(sid)
        })
    {
        out.push(format!(".forge/handoffs/{}", h.file_name));
    }
    let from_transcript: Vec<String> = transcript
        .and_then(|t| store::transcript::read_facts(t).ok())
        .map(|(facts, _)| crate::model::session::transcript::reread_candidates(&facts))
        .unwrap_or_default()
        .into_iter()
        .filter(|f| {
            let p = Path::new(f);
            let abs = if p.is_absolute() {
                p.to_path_buf()
            } else {
                paths.root.join(p)
            };
            abs.is_file()
        })
        .map(|f| match Path::new(&f).strip_prefix(&paths.root) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => f,
        })
        .collect();
    for f in from_transcript {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out.truncate(RECENT_FILES);
    out
}

/// Why PreToolUse holds a call back; the client shows it after
/// `PreToolUse:<Tool> hook error: ` (docs/client-reference.md §9.1 #9).
fn deny_reason(files_to_read: &[String]) -> String {
    format!(
        "forge held this call back once because the context was just compacted. \
         Re-read {} first (reading is never held back), then make the call again.",
        files_to_read.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::session::state::SessionBridge;

    #[test]
    fn safety_net_only_when_no_handoff_since_the_crossing() {
        assert!(needs_safety_net(None));
        let mut b = SessionBridge::default();
        assert!(needs_safety_net(Some(&b)));
        b.handoff_written_at = Some("2026-11-21T10:00:00Z".into());
        assert!(!needs_safety_net(Some(&b)), "written, never crossed");
        b.threshold_crossed_at = Some("2026-11-21T09:59:00Z".into());
        assert!(!needs_safety_net(Some(&b)), "written after the crossing");
        b.threshold_crossed_at = Some("2026-11-21T10:05:00Z".into());
        assert!(needs_safety_net(Some(&b)), "crossed again since");
        b.handoff_written_at = Some("garbage".into());
        assert!(needs_safety_net(Some(&b)));
    }
}
