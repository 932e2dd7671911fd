//! The effects of each hook event (DESIGN.md "Hook events") and the text it prints.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::event::HookEvent;
use super::wire::WireHookInput;
use crate::app::snapshot::{GitSource, load};
use crate::config::{self, Config};
use crate::env::Env;
use crate::model::Snapshot;
use crate::model::handoff::Drift;
use crate::model::state::{Attention, CompactionRecord, EventLine, LastSession, PreCompactState};
use crate::store::{self, Paths, files, handoffs};

/// The most stdin forge reads (1 MiB); a longer payload is cut and fails to parse.
pub const MAX_STDIN: u64 = 1024 * 1024;
/// SessionStart output stays under Claude Code's 10,000-character cap. Counted in
/// UTF-16 code units (a JavaScript string's length, which is what the client
/// measures), never fewer than the characters: every part counts, the whole output
/// is cut to this at the end whatever the files hold.
pub const SESSION_START_BUDGET: usize = 9_500;
/// No line forge composes for SessionStart (last session, Signals, questions, drift
/// notes) is longer than this many characters: a 100 KB branch name or question is
/// cut (with `…`), never allowed to crowd out the rest.
const LINE_MAX: usize = 400;
/// The same for lines of a resumed handoff's text, which may hold a long request
/// written as one paragraph (and front matter a repository may have planted).
const BODY_LINE_MAX: usize = 2_000;
/// How long SessionStart waits for the pending-resume lock. Only racing session
/// starts of one project hold it, each for a read and two unlinks.
const RESUME_LOCK_WAIT: std::time::Duration = std::time::Duration::from_millis(200);
/// Of that, at most this much for the last-session line, learn notice and re-read list.
const HEAD_BUDGET: usize = 1_500;
/// And at most this much for blocked Signals, so a resumed handoff always has room.
const BLOCKED_BUDGET: usize = 2_500;
/// Per-session files untouched for this long are removed when a new session starts.
const SESSION_RETENTION: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);
/// How many changed names go into the pre-compact state and the re-read list.
const RECENT_FILES: usize = 20;

/// Handles one hook call: `event_arg` from the command line (may be absent), `input`
/// the raw stdin bytes. Returns what to print on stdout (often nothing).
///
/// Errors are logged, never returned: the caller always exits 0.
pub fn handle_input(event_arg: Option<&str>, input: &[u8], env: &Env) -> String {
    let mut parsed: Result<Value, String> = if input.iter().all(u8::is_ascii_whitespace) {
        Err("empty input".to_owned())
    } else {
        serde_json::from_slice(input).map_err(|e| format!("invalid JSON: {e}"))
    };
    let mut wire = parsed
        .as_ref()
        .map(WireHookInput::from_value)
        .unwrap_or_default();
    // A payload cut at the cap (a multi-megabyte Write) still names its session and
    // tool in the part that was read: enough to consume a compaction marker.
    if parsed.is_err()
        && input.len() as u64 >= MAX_STDIN
        && let Some(w) = WireHookInput::from_truncated(input)
    {
        wire = w;
        parsed = Ok(Value::Object(serde_json::Map::new()));
    }
    // The payload's cwd wins over the process cwd. A cwd that names no folder here
    // means the payload is not about this machine (or its project was deleted while
    // the client ran, and the client then starts hooks in its temp folder): without
    // an existing CLAUDE_PROJECT_DIR there is no safe place to write, so the call is
    // a no-op.
    let cwd = match wire.cwd.as_deref().map(PathBuf::from) {
        Some(p) if p.is_absolute() && p.is_dir() => p,
        Some(_) if !env.claude_project_dir.as_deref().is_some_and(Path::is_dir) => {
            return String::new();
        }
        _ => env.cwd.clone(),
    };
    let paths = Paths::new(store::resolve_root(env.claude_project_dir.as_deref(), &cwd));
    let name = event_arg
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .or_else(|| wire.hook_event_name.clone());
    // StrictModes: a `.forge/` (or logs/, handoffs/, sessions/) that is a link, is not
    // the user's, or is writable by others is never read or written. Said once per
    // session, in errors.log when that folder is itself sound (`forge doctor` says it
    // too).
    if let Err(refusal) = paths.check() {
        if name.as_deref() == Some("SessionStart") {
            store::log_error(&paths, "hook SessionStart", &refusal.to_string());
        }
        return String::new();
    }

    let problem = match (&parsed, &name) {
        (Err(e), _) => Some(e.clone()),
        (Ok(v), _) if !v.is_object() => Some("payload is not a JSON object".to_owned()),
        (Ok(_), None) => Some("no event name (argument or hook_event_name)".to_owned()),
        _ => None,
    };
    if let Some(problem) = problem {
        // A logged no-op: only where forge's state folder already exists.
        if paths.logs().is_dir() {
            let event = name.clone().unwrap_or_else(|| "unknown".to_owned());
            store::log_error(&paths, &format!("hook {event}"), &problem);
            let mut facts = serde_json::Map::new();
            facts.insert("error".into(), Value::String(problem));
            let _ = files::append_event(
                &paths,
                &EventLine {
                    time: files::iso(env.now),
                    event,
                    session: wire.session_id.clone(),
                    facts,
                },
            );
        }
        return String::new();
    }
    let name = name.unwrap_or_default();
    let event = HookEvent::from_wire(&name, &wire);
    let ctx = Ctx {
        paths,
        env,
        wire: &wire,
    };
    if !ctx.paths.may_create_state(env.home.as_deref()) {
        // `/` or the home folder itself: not a project, and no place for state.
        return String::new();
    }
    if ctx.paths.ensure_dirs().is_err() {
        // Read-only or otherwise unwritable: nothing can be recorded. Stay silent.
        return String::new();
    }
    let _ = files::append_event(&ctx.paths, &event_line(&event, &wire, env.now));
    match ctx.dispatch(&event) {
        Ok(out) => out,
        Err(e) => {
            store::log_error(
                &ctx.paths,
                &format!("hook {}", event.name()),
                &e.to_string(),
            );
            String::new()
        }
    }
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
        time: files::iso(now),
        event: event.name().to_owned(),
        session: w.session_id.clone(),
        facts,
    }
}

struct Ctx<'a> {
    paths: Paths,
    env: &'a Env,
    wire: &'a WireHookInput,
}

type HookResult = std::io::Result<String>;

impl Ctx<'_> {
    fn dispatch(&self, event: &HookEvent) -> HookResult {
        match event {
            HookEvent::SessionStart { source } => self.session_start(source.as_deref()),
            HookEvent::Stop { stop_hook_active } => self.stop(*stop_hook_active),
            HookEvent::SessionEnd { reason } => self.session_end(reason.as_deref()),
            HookEvent::PreCompact { trigger } => self.pre_compact(trigger.as_deref()),
            HookEvent::PreToolUse => self.pre_tool_use(),
            HookEvent::Notification { kind, message } => {
                let attention = match kind.as_deref() {
                    Some("permission_prompt" | "worker_permission_prompt") => {
                        Some(Attention::WaitingPermission)
                    }
                    Some(
                        "idle_prompt"
                        | "agent_needs_input"
                        | "elicitation_dialog"
                        | "elicitation_url_dialog",
                    ) => Some(Attention::WaitingInput),
                    _ => None,
                };
                // The permission_prompt notification says only "Claude needs your
                // permission" (reference §11.1 #4): keep the PermissionRequest's
                // message, which names the tool.
                let message = if attention == Some(Attention::WaitingPermission) {
                    self.session_id()
                        .and_then(|sid| files::read_bridge(&self.paths, sid))
                        .filter(|b| b.attention == Some(Attention::WaitingPermission))
                        .and_then(|b| b.attention_message)
                        .or_else(|| message.clone())
                } else {
                    message.clone()
                };
                // The message can quote a command line (and its password): redacted
                // before it is stored where the dashboard and `status --json` show it.
                let message = message.as_deref().map(crate::model::redact::redact);
                self.touch_bridge(event.name(), attention, message);
                Ok(String::new())
            }
            HookEvent::PermissionRequest { tool_name } => {
                let msg = tool_name.as_ref().map(|t| format!("permission to use {t}"));
                self.touch_bridge(event.name(), Some(Attention::WaitingPermission), msg);
                Ok(String::new())
            }
            HookEvent::UserPromptSubmit => {
                self.touch_bridge(event.name(), Some(Attention::Busy), None);
                Ok(String::new())
            }
            HookEvent::Other(_) => Ok(String::new()),
        }
    }

    fn config(&self) -> Config {
        config::load_or_default(&self.paths, self.env)
    }

    fn session_id(&self) -> Option<&str> {
        self.wire.session_id.as_deref()
    }

    /// Records the last event (and attention state) in the session's bridge file.
    fn touch_bridge(&self, event: &str, attention: Option<Attention>, message: Option<String>) {
        self.touch_bridge_and(event, attention, message, |_| {});
    }

    /// [`Ctx::touch_bridge`], and `also` on the same bridge under the same lock.
    fn touch_bridge_and(
        &self,
        event: &str,
        attention: Option<Attention>,
        message: Option<String>,
        also: impl FnOnce(&mut crate::model::state::SessionBridge),
    ) {
        let Some(sid) = self.session_id() else { return };
        let transcript = self.wire.transcript_path.clone();
        let cwd = self.wire.cwd.clone();
        let now = files::iso(self.env.now);
        let result = files::update_bridge(&self.paths, sid, self.env.now, |b| {
            b.last_event = Some(event.to_owned());
            b.last_event_at = Some(now);
            if let Some(a) = attention {
                b.attention = Some(a);
                b.attention_message = message;
            }
            if transcript.is_some() {
                b.transcript_path = transcript;
            }
            if cwd.is_some() {
                b.cwd = cwd;
            }
            also(b);
            true
        });
        if let Err(e) = result {
            store::log_error(&self.paths, event, &format!("bridge: {e}"));
        }
    }

    // ----- SessionStart ---------------------------------------------------------

    fn session_start(&self, source: Option<&str>) -> HookResult {
        let snap = load(&self.paths, self.env.now, GitSource::Live);
        let compacted = source == Some("compact");
        let mut head = String::new();

        // After a compaction the session goes on: it is not a new session, so the
        // "last session" is itself and the learn flag waits for a real start.
        if !compacted {
            if let Some(last) = &snap.last_session {
                let _ = writeln!(head, "{}", last_session_line(last));
                if let Some(line) = ended_dirty_line(last) {
                    head.push_str(&line);
                }
                if last.forge_phase.is_some() || last.forge_task.is_some() {
                    let _ = writeln!(
                        head,
                        "Workflow: phase {} · task {}",
                        last.forge_phase.as_deref().unwrap_or("-"),
                        last.forge_task.as_deref().unwrap_or("-")
                    );
                }
            }
            // A new session: forget sessions nobody has touched for a week.
            let _ = files::prune_sessions(&self.paths, SESSION_RETENTION, self.session_id());
            // And the temp files a killed write of the global marker left behind.
            if let Some(dir) = self.env.claude_dir() {
                let _ = files::prune_temp_files(&dir);
            }
            if snap.flags.learn_pending {
                head.push_str(
                    "Learn: the last session ended without extracting what it learned. \
                     Run /forge-learn to save reusable patterns (never credentials or file contents).\n",
                );
                let _ = store::remove_if_exists(&self.paths.learn_pending());
            }
        }
        match source {
            // The session goes on with less context: its next crossing is a new one.
            Some("compact") => {
                if let Some(sid) = self.session_id() {
                    let _ = files::rearm_threshold(
                        &self.paths,
                        sid,
                        self.env.now,
                        std::time::Duration::from_millis(100),
                    );
                }
            }
            Some("resume") => {}
            _ => files::clear_threshold_flag(&self.paths),
        }
        if compacted {
            let files_to_read = self.record_compaction(&snap).unwrap_or_else(|e| {
                store::log_error(&self.paths, "SessionStart compaction", &e.to_string());
                reread_files(&self.paths, self.session_id(), None, None)
            });
            let _ = writeln!(
                head,
                "Context was compacted. Re-read before continuing: {}.",
                files_to_read.join(", ")
            );
        }
        let head = cut_lines(&clip_lines(&head, LINE_MAX), HEAD_BUDGET, "");

        let blocked: String = snap
            .unseen_blocked()
            .iter()
            .map(|h| blocked_lines(h))
            .collect();
        let blocked = cut_lines(
            &clip_lines(&blocked, LINE_MAX),
            BLOCKED_BUDGET,
            "… more blocked Signals: run `forge status` to see them all.\n",
        );

        let mut out = head;
        out.push_str(&blocked);
        // A new session takes whatever is pending; a session that goes on (compact,
        // resume) only its own handoff, never another session's.
        let own_only = matches!(source, Some("compact" | "resume"));
        if let Some(target) = self.take_pending_resume(own_only) {
            let room = SESSION_START_BUDGET.saturating_sub(units(&out));
            out.push_str(&resume_text(&target, &snap, self.env.now, room));
        }
        // Whatever the parts hold, the whole stays within the budget.
        let out = cut_lines(
            &clip_lines(&out, BODY_LINE_MAX),
            SESSION_START_BUDGET,
            "[forge: cut to fit Claude Code's limit]\n",
        );

        let attention = if compacted {
            Attention::Busy
        } else {
            Attention::WaitingInput
        };
        self.touch_bridge("SessionStart", Some(attention), None);
        Ok(out)
    }

    /// Consumes the pending resume, exactly once however many sessions start at
    /// once: the project marker first; the global one only when it names a handoff
    /// of this project. Either is honoured only when it names a regular
    /// `handoff-*.md`/`agent-*.md` file in this project's `.forge/handoffs/`
    /// (`files::resume_target`): nothing outside the project enters the context.
    /// Markers naming the same handoff are removed together. With `own_only`, a
    /// handoff written for another session is left pending.
    ///
    /// All of it happens under one short lock (`logs/.resume.lock`): without it, a
    /// session could take the global marker while another was between removing the
    /// project marker and the global one, and both would resume the same handoff. A
    /// session that cannot get the lock in time resumes nothing: the holder does.
    fn take_pending_resume(&self, own_only: bool) -> Option<PathBuf> {
        let lock = self.paths.logs().join(".resume.lock");
        let _lock = store::FileLock::acquire(&lock, RESUME_LOCK_WAIT)?;
        let (marker, target) = files::pending_resume(&self.paths, self.env)?;
        if own_only {
            let owner =
                handoffs::load_one(&target).and_then(|h| h.front.get("session_id").cloned());
            if owner.is_some_and(|o| !o.is_empty() && Some(o.as_str()) != self.session_id()) {
                return None;
            }
        }
        if !store::remove_if_exists(&marker).unwrap_or(false) {
            return None;
        }
        let others = std::iter::once(self.paths.pending_resume())
            .chain(self.env.global_pending_resume())
            .filter(|m| *m != marker);
        for other in others {
            let same = files::read_marker(&other)
                .and_then(|m| files::resume_target(&self.paths, &m))
                .is_some_and(|t| t == target);
            if same {
                let _ = store::remove_if_exists(&other);
            }
        }
        Some(target)
    }

    // ----- Stop / SessionEnd ----------------------------------------------------

    fn record_end(
        &self,
        is_final: bool,
        reason: Option<&str>,
    ) -> Option<crate::model::state::GitCache> {
        // SessionEnd shares a 1.5 s budget with every other SessionEnd hook: git gets
        // 1 s there (then the cache Stop left is used); elsewhere GIT_DEADLINE.
        let deadline = if is_final {
            std::time::Duration::from_secs(1)
        } else {
            crate::git::GIT_DEADLINE
        };
        let git = crate::git::refresh_cache_within(&self.paths, self.env.now, deadline);
        let workflow = files::read_workflow(&self.paths);
        let bridge = self
            .session_id()
            .and_then(|s| files::read_bridge(&self.paths, s));
        let last = LastSession {
            ended_at: files::iso(self.env.now),
            branch: git.as_ref().and_then(|g| g.branch.clone()),
            uncommitted_changes: git.as_ref().map_or(0, |g| g.uncommitted_changes),
            forge_phase: workflow.phase,
            forge_task: workflow.task,
            session_id: self.wire.session_id.clone(),
            transcript_path: self.wire.transcript_path.clone(),
            reason: reason.map(str::to_owned),
            is_final,
            // Print mode never runs the status line (reference §11.1 #11): without
            // its reading, the transcript says how full the context is.
            context_used_pct: bridge
                .as_ref()
                .and_then(|b| b.used_percentage)
                .or_else(|| self.transcript_pct(bridge.as_ref())),
        };
        if let Err(e) = files::write_last_session(&self.paths, &last) {
            store::log_error(&self.paths, "last-session", &e.to_string());
        }
        let _ = store::touch_flag(&self.paths.learn_pending());
        git
    }

    /// The context % of this session from the end of its transcript (window from the
    /// bridge, else the model).
    fn transcript_pct(&self, bridge: Option<&crate::model::state::SessionBridge>) -> Option<f64> {
        let path = self
            .wire
            .transcript_path
            .as_deref()
            .or_else(|| bridge.and_then(|b| b.transcript_path.as_deref()))?;
        let scan = store::transcript::tail_context(Path::new(path));
        let tokens = scan.tokens().filter(|t| *t > 0)?;
        let model = match &scan {
            crate::model::transcript::TailScan::Usage { model, .. } => model.clone(),
            _ => None,
        };
        let window = crate::model::transcript::infer_window(
            bridge.and_then(|b| b.context_window_size),
            model.as_deref().or(self.wire.model.as_deref()),
            Some(tokens),
        );
        Some(crate::model::transcript::pct_of(tokens, window))
    }

    fn stop(&self, stop_hook_active: bool) -> HookResult {
        let git = self.record_end(false, None);
        let dirty = git.as_ref().map_or(0, |g| g.uncommitted_changes);
        // The warning is for the person (a Stop hook's plain stdout reaches no screen:
        // reference §11.1 #8), and only when the count changed since the last one.
        let mut warn = dirty > 0 && self.session_id().is_none();
        self.touch_bridge_and("Stop", Some(Attention::WaitingInput), None, |b| {
            warn = dirty > 0 && b.dirty_warned != Some(dirty);
            b.dirty_warned = Some(dirty);
        });
        let mut out = serde_json::Map::new();
        // Failsafe: a compaction happened and no tool ran since, so PreToolUse never
        // got to ask for the re-read. Block the stop once (never when already
        // continuing because of a Stop hook, nor when the session is re-reading).
        if !stop_hook_active
            && !self.reread_started()
            && let Some(files_to_read) = self.consume_compaction_marker()
        {
            out.insert("decision".into(), json!("block"));
            out.insert("reason".into(), json!(stop_reason(&files_to_read)));
        }
        if warn && let Some(text) = dirty_warning(git.as_ref()) {
            out.insert("systemMessage".into(), json!(text));
        }
        if out.is_empty() {
            return Ok(String::new());
        }
        Ok(format!("{}\n", Value::Object(out)))
    }

    /// SessionEnd only records: the client discards its output (reference §11.1
    /// #8), so the next SessionStart tells the dirty tree instead.
    fn session_end(&self, reason: Option<&str>) -> HookResult {
        self.record_end(true, reason);
        self.touch_bridge("SessionEnd", Some(Attention::Ended), None);
        Ok(String::new())
    }

    // ----- PreCompact / PreToolUse ---------------------------------------------

    fn pre_compact(&self, trigger: Option<&str>) -> HookResult {
        let cfg = self.config();
        let git = crate::git::facts_within(&self.paths.root, crate::git::GIT_DEADLINE);
        let state = PreCompactState {
            captured_at: files::iso(self.env.now),
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
        // reference §11.1 #2), so this only captures state while it still can; what
        // claims a compaction happened waits for SessionStart(compact).
        store::write_json_synced(&self.paths.pre_compact_state(), &state)?;
        if cfg.hooks.handoff_on_precompact {
            self.precompact_handoff(&cfg, git.as_ref());
        }
        self.touch_bridge("PreCompact", None, None);
        Ok(String::new())
    }

    /// A proven compaction (SessionStart `compact`): counts it in `compactions.jsonl`
    /// and arms the session's one-shot re-read marker. Returns the files to re-read.
    fn record_compaction(&self, snap: &Snapshot) -> std::io::Result<Vec<String>> {
        let cfg = self.config();
        let sid = self.session_id();
        let transcript = self.wire.transcript_path.as_deref().map(Path::new);
        let pre = snap
            .pre_compact
            .as_ref()
            .filter(|p| p.session_id.as_deref() == sid);
        let files_to_read = reread_files(&self.paths, sid, transcript, pre);
        let record = CompactionRecord {
            compacted_at: files::iso(self.env.now),
            session_id: sid.map(str::to_owned),
            trigger: pre.and_then(|p| p.trigger.clone()),
            captured_at: pre.map(|p| p.captured_at.clone()),
        };
        let line = serde_json::to_string(&record).map_err(std::io::Error::other)?;
        store::append_line_capped(&self.paths.compactions(), &line, store::COMPACTIONS_CAP)?;
        if cfg.hooks.compaction_reread
            && let Some(sid) = sid
        {
            let _ = store::remove_if_exists(&self.paths.reread_started(sid));
            store::write_json(
                &self.paths.compaction_marker(sid),
                &json!({"armed_at": record.compacted_at, "reread": files_to_read}),
            )?;
        }
        Ok(files_to_read)
    }

    /// The safety net: a handoff (trigger `pre-compact`) when this session wrote none
    /// since it crossed the threshold (or none at all). Inline and bounded; failures
    /// are logged, never surfaced.
    fn precompact_handoff(&self, cfg: &Config, git: Option<&crate::git::GitFacts>) {
        let Some(sid) = self.session_id() else { return };
        let bridge = files::read_bridge(&self.paths, sid);
        if !needs_safety_net(bridge.as_ref()) {
            return;
        }
        let req = crate::app::session_handoff::Request {
            trigger: crate::model::handoff_doc::Trigger::PreCompact,
            session_id: Some(sid),
            transcript_path: self.wire.transcript_path.as_deref(),
            git: crate::app::session_handoff::GitInput::Known(git),
        };
        if let Err(e) = crate::app::session_handoff::write(&self.paths, self.env, cfg, &req) {
            store::log_error(&self.paths, "PreCompact handoff", &e.to_string());
        }
    }

    /// Whether a read-only tool ran since this session's compaction.
    fn reread_started(&self) -> bool {
        self.session_id()
            .is_some_and(|sid| self.paths.reread_started(sid).exists())
    }

    /// Removes this session's compaction marker; `Some(files to re-read)` for the one
    /// caller that removed it (parallel tool calls race; exactly one wins).
    fn consume_compaction_marker(&self) -> Option<Vec<String>> {
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
            .unwrap_or_else(|| reread_files(&self.paths, Some(sid), None, None));
        Some(list)
    }

    fn pre_tool_use(&self) -> HookResult {
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
            let out = json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": deny_reason(&files_to_read),
                }
            });
            return Ok(format!("{out}\n"));
        }
        // A tool is running, so the session is busy again (after a permission prompt).
        if let Some(sid) = self.session_id() {
            let waiting = files::read_bridge(&self.paths, sid)
                .and_then(|b| b.attention)
                .is_some_and(|a| a != Attention::Busy);
            if waiting {
                self.touch_bridge("PreToolUse", Some(Attention::Busy), None);
            }
        }
        Ok(String::new())
    }
}

/// Whether PreCompact should write a handoff for a session: none was written yet, or
/// the last one is older than the session's threshold crossing.
pub fn needs_safety_net(bridge: Option<&crate::model::state::SessionBridge>) -> bool {
    let Some(b) = bridge else { return true };
    let Some(written) = b.handoff_written_at.as_deref().and_then(files::parse_iso) else {
        return true;
    };
    match b.threshold_crossed_at.as_deref().and_then(files::parse_iso) {
        Some(crossed) => written < crossed,
        None => false,
    }
}

/// `Last session: <ended_at> · branch <b> · <n> uncommitted`.
pub fn last_session_line(last: &LastSession) -> String {
    format!(
        "Last session: {} · branch {} · {} uncommitted",
        last.ended_at,
        last.branch.as_deref().unwrap_or("(none)"),
        last.uncommitted_changes
    )
}

fn blocked_lines(h: &crate::model::HandoffEntry) -> String {
    let mut out = String::new();
    let task = h.task().unwrap_or("?");
    let route = h.route().unwrap_or_default();
    let _ = writeln!(
        out,
        "Blocked agent signal: task {task} ({route}) in .forge/handoffs/{}",
        h.file_name
    );
    if let Some(s) = h
        .signal
        .as_ref()
        .and_then(crate::model::SignalParse::signal)
    {
        for q in &s.open_questions {
            let _ = writeln!(out, "  Open question: {}", crate::model::redact::redact(q));
        }
        if s.open_questions.is_empty() && s.open_question_count > 0 {
            let _ = writeln!(
                out,
                "  {} open question(s): see the file",
                s.open_question_count
            );
        }
    }
    out
}

/// Tools that only read: a compacted session re-reads with them, so they are never
/// held back.
const READ_ONLY_TOOLS: [&str; 5] = ["Read", "Grep", "Glob", "LS", "NotebookRead"];

fn is_read_only(tool: Option<&str>) -> bool {
    tool.is_some_and(|t| READ_ONLY_TOOLS.contains(&t))
}

/// The files to re-read after a compaction, each once: this session's newest handoff
/// (never another session's); from the transcript, the files the session edited,
/// then those it read (newest first; only files that exist, never a folder); the
/// workflow state. Only when the transcript names no file, git's changed names
/// (from PreCompact's capture) stand in. Names inside the project are relative.
fn reread_files(
    paths: &Paths,
    session_id: Option<&str>,
    transcript: Option<&Path>,
    pre: Option<&PreCompactState>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(sid) = session_id
        && let Some(h) = handoffs::list(paths).into_iter().find(|h| {
            h.kind == crate::model::HandoffKind::Session
                && h.front.get("session_id").map(String::as_str) == Some(sid)
        })
    {
        out.push(format!(".forge/handoffs/{}", h.file_name));
    }
    let from_transcript: Vec<String> = transcript
        .and_then(|t| store::transcript::read_facts(t).ok())
        .map(|(facts, _)| crate::model::transcript::reread_candidates(&facts))
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
    let fallback = from_transcript.is_empty();
    for f in from_transcript {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    // A regular file only: Claude reads what this list names, and a state.json that
    // is a link planted in the folder would point it at any file.
    if store::safe::is_regular(&paths.state_json()) {
        out.push(".forge/state.json".to_owned());
    }
    if fallback {
        for f in pre.map(|p| p.recent_files.as_slice()).unwrap_or_default() {
            if !f.ends_with('/') && paths.root.join(f).is_file() && !out.contains(f) {
                out.push(f.clone());
            }
        }
    }
    out.truncate(RECENT_FILES);
    if out.is_empty() {
        out.push("the files you were working on".to_owned());
    }
    out
}

/// Why PreToolUse holds a call back; the client shows it after
/// `PreToolUse:<Tool> hook error: ` (reference §11.1 #9).
fn deny_reason(files_to_read: &[String]) -> String {
    format!(
        "forge held this call back once because the context was just compacted. \
         Re-read {} first (reading is never held back), then make the call again.",
        files_to_read.join(", ")
    )
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

/// The line SessionStart adds when the last session left uncommitted changes.
fn ended_dirty_line(last: &LastSession) -> Option<String> {
    let n = last.uncommitted_changes;
    (n > 0).then(|| {
        format!(
            "The last session ended with {n} uncommitted change{} on branch {}: \
             commit them or note them in a handoff.\n",
            if n == 1 { "" } else { "s" },
            last.branch.as_deref().unwrap_or("(none)")
        )
    })
}

/// The handoff `target` (already checked by `files::resume_target`) with drift
/// notes, within `budget` (UTF-16 units): drift notes clipped to [`LINE_MAX`], the
/// handoff's lines to [`BODY_LINE_MAX`], the body cut at a line boundary with a note
/// saying where the rest is.
fn resume_text(target: &Path, snap: &Snapshot, now: DateTime<Utc>, budget: usize) -> String {
    let shown = clip_line(&target.display().to_string(), LINE_MAX / 2);
    let (Some(entry), Some(text)) = (handoffs::load_one(target), store::read_text(target)) else {
        return format!(
            "Pending resume pointed at {shown}, which no longer exists; nothing to resume.\n"
        );
    };
    let mut out = format!("Resuming from handoff {shown}:\n");
    let drift = Drift::of(&entry, snap.branch(), snap.uncommitted(), now);
    for note in drift.notes() {
        let _ = writeln!(out, "{}", clip_line(&format!("Drift: {note}"), LINE_MAX));
    }
    let note = format!("[handoff cut to fit; read the rest in {shown}]\n");
    let room = budget.saturating_sub(units(&out));
    let mut body = clip_lines(&text, BODY_LINE_MAX).into_owned();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    out.push_str(&cut_lines(&body, room, &note));
    cut_lines(&out, budget, "")
}

/// The length of `s` as Claude Code measures it: UTF-16 code units (a character
/// outside the Basic Multilingual Plane counts twice).
fn units(s: &str) -> usize {
    s.encode_utf16().count()
}

/// `line` cut to at most `max` characters, ending in `…` when cut.
fn clip_line(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_owned();
    }
    let mut out: String = line.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Every line of `text` cut to at most `max` characters (see [`clip_line`]).
pub fn clip_lines(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.lines().all(|l| l.chars().count() <= max) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().min(max * 64));
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        out.push_str(&clip_line(body, max));
        out.push_str(end);
    }
    std::borrow::Cow::Owned(out)
}

/// Cuts `text` to at most `max` UTF-16 units (see [`units`]) at a line boundary.
/// When anything is cut, `note` is appended whole (and counted in `max`).
pub fn cut_lines(text: &str, max: usize, note: &str) -> String {
    if units(text) <= max {
        return text.to_owned();
    }
    let room = max.saturating_sub(units(note));
    let mut out = String::new();
    let mut used = 0;
    for line in text.split_inclusive('\n') {
        let n = units(line);
        if used + n > room {
            break;
        }
        out.push_str(line);
        used += n;
    }
    if units(note) <= max {
        out.push_str(note);
    }
    out
}

fn dirty_warning(git: Option<&crate::model::state::GitCache>) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_lines_keeps_whole_lines_and_the_whole_note() {
        let text = "one\ntwo\nthree\n";
        assert_eq!(cut_lines(text, 100, "[cut]\n"), text);
        assert_eq!(cut_lines(text, 13, "[cut]\n"), "one\n[cut]\n");
        assert_eq!(cut_lines(text, 3, "[cut]\n"), "");
        let long = "é".repeat(50) + "\n";
        assert_eq!(
            cut_lines(&long.repeat(3), 120, "…\n"),
            format!("{long}{long}…\n")
        );
        // Claude Code counts UTF-16 units: an emoji is two.
        let emoji = "😀".repeat(50) + "\n";
        assert_eq!(cut_lines(&emoji.repeat(3), 120, ""), emoji);
    }

    #[test]
    fn clip_lines_cuts_only_long_lines() {
        assert!(matches!(
            clip_lines("short\nlines\n", 10),
            std::borrow::Cow::Borrowed(_)
        ));
        let long = format!("branch {}\nnext\n{}", "b".repeat(100), "x".repeat(20));
        let clipped = clip_lines(&long, 10);
        assert_eq!(clipped, "branch bb…\nnext\nxxxxxxxxx…");
    }

    use crate::model::state::SessionBridge;

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
