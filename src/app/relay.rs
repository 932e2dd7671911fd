//! `forge run`: runs `claude -p` with stream-json output, relays what it prints,
//! tracks the context and where the main chain stands (see
//! [`crate::model::agents::relay::Tracker`]), and at the threshold asks the session to stop
//! after the tool calls of its current reply: each session gets a `PostToolUse` hook
//! (`forge hook PostToolUse`, added with `--settings`) that answers
//! `{"continue": false}` once forge has created the session's stop file (named by
//! `FORGE_RELAY_STOP`). The client then ends on its own with every tool call run and
//! answered: nothing is interrupted, so no `[Request interrupted …]` enters the
//! transcript. forge writes a handoff, fires `[[on_threshold]]` and starts the next
//! session with a continuation prompt. The chain is recorded in
//! `.forge/logs/chains/<first-session-id>.json` at every change.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

use chrono::SecondsFormat;

use crate::app::session_handoff::{self, GitInput, Request};
use crate::config::Config;
use crate::env::Env;
use crate::model::agents::relay::{
    self, Chain, ChainSession, Decision, SessionEnd, StreamEvent, Tracker,
};
use crate::model::handoff::handoff_doc::Trigger;
use crate::model::outcome::Outcome;
use crate::model::session::state::EventLine;
use crate::model::setup::settings::shell_quote_always;
use crate::proc::{self, Cmd, Running, Signal};
use crate::store::{self, Paths, chains, files};

/// The event name of `forge run`'s lines in `events.jsonl`.
pub(crate) const EVENT: &str = "forge run";

/// How `forge run` runs a chain.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// The context % that hands over.
    pub(crate) threshold: f64,
    /// The most continuations.
    pub(crate) max_handoffs: u32,
    /// SIGINT, then SIGTERM after this long.
    pub(crate) grace: Duration,
    /// Pass the stream through as it is (else: readable text).
    pub(crate) json: bool,
    /// The agent the sessions run as (`FORGE_AGENT`).
    pub(crate) agent: Option<String>,
    /// The `--settings` each session gets: the command's own, with forge's stop hook
    /// (see [`relay::settings_with_stop_hook`]).
    pub(crate) settings: String,
}

/// Where the output goes (stdout for the stream, stderr for forge's own notes).
pub(crate) trait Output {
    /// A line of the session's output (readable text, or a stream-json line).
    fn out(&mut self, text: &str);
    /// One of forge's notes (`forge: …`).
    fn note(&mut self, text: &str);
}

/// The time now: a chain runs for hours, long past [`Env::now`].
fn now_iso() -> String {
    crate::env::wall_clock().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// What one session did.
struct Ran {
    tracker: Tracker,
    /// When the process ended.
    ended_at: String,
    status: Option<ExitStatus>,
    /// Ended for the relay: stopped by its hook between replies, or (when the hook
    /// did not act) interrupted at a clean point.
    relayed: bool,
    interrupted: bool,
}

/// One session as it runs: what the tracker knows and what forge did about it.
struct Live {
    t: Tracker,
    /// The continuations the chain may still make.
    left: u32,
    /// See [`Ran::relayed`].
    relayed: bool,
    /// Ctrl-C stopped it.
    interrupted: bool,
    /// The model the client named was checked against the threshold.
    threshold_checked: bool,
    /// Being stopped: the tracker decides nothing more.
    stopping: bool,
    status: Option<ExitStatus>,
    /// The last assistant message's text (its result is not shown twice).
    last_text: String,
}

impl Live {
    fn new(left: u32) -> Self {
        Self {
            t: Tracker::default(),
            left,
            relayed: false,
            interrupted: false,
            threshold_checked: false,
            stopping: false,
            status: None,
            last_text: String::new(),
        }
    }
}

/// The `PostToolUse` hook command `forge run` gives its sessions: this very forge.
pub(crate) fn stop_hook_command(forge: &Path) -> String {
    format!(
        "{} hook PostToolUse",
        shell_quote_always(&forge.display().to_string())
    )
}

/// The command's own `--settings` (a JSON text, or a file holding one), read for
/// [`relay::settings_with_stop_hook`]. `Err` says what is wrong.
pub(crate) fn own_settings(arg: &str) -> Result<serde_json::Value, String> {
    let text = if arg.trim_start().starts_with('{') {
        arg.to_owned()
    } else {
        store::safe::read_to_string_whole(Path::new(arg), 1 << 20, store::safe::Follow::Yes)
            .map_err(|e| format!("--settings {arg}: {e}"))?
    };
    serde_json::from_str(&text).map_err(|e| format!("--settings {arg}: not JSON: {e}"))
}

/// Ends `child` cleanly: SIGINT, SIGTERM after `grace`, SIGKILL 5 s after that.
fn stop(child: &mut Running, grace: Duration) -> Option<ExitStatus> {
    child.stop(&[
        (Signal::INT, grace),
        (Signal::TERM, Duration::from_secs(5)),
        (Signal::KILL, Duration::from_secs(5)),
    ])
}

/// The transcript Claude Code writes for `session_id` when it runs in `cwd`
/// (docs/client-reference.md §6.1), when it exists.
fn transcript_for(env: &Env, cwd: &Path, session_id: &str) -> Option<PathBuf> {
    let real = cwd.canonicalize().ok()?;
    let name = crate::model::setup::memory::project_dir_name(&real.to_string_lossy());
    let p = env
        .claude_dir()?
        .join("projects")
        .join(name)
        .join(format!("{}.jsonl", store::paths::sanitize_id(session_id)));
    p.is_file().then_some(p)
}

fn record(
    paths: &Paths,
    session: Option<&str>,
    facts: serde_json::Map<String, serde_json::Value>,
    outcomes: Vec<Outcome>,
) {
    let line = EventLine {
        time: crate::model::time::iso(crate::env::wall_clock()),
        event: EVENT.to_owned(),
        session: session.map(str::to_owned),
        facts,
        outcomes,
    };
    if let Err(e) = files::append_event(paths, &line) {
        store::log_error(paths, "forge run", &format!("events.jsonl: {e}"));
    }
}

/// The runner of one chain.
pub(crate) struct Relay<'a> {
    /// The project.
    pub(crate) paths: &'a Paths,
    /// The environment (its `cwd` is where the sessions run).
    pub(crate) env: &'a Env,
    /// The effective config (user hooks come only from the user's own file).
    pub(crate) cfg: &'a Config,
    /// The options.
    pub(crate) opts: Options,
    /// Set by SIGINT/SIGTERM: stop the chain.
    pub(crate) stop: Arc<AtomicBool>,
}

impl Relay<'_> {
    fn write_chain(&self, chain: &Chain, out: &mut dyn Output) {
        if chain.id.is_empty() {
            return;
        }
        if let Err(e) = chains::write(self.paths, chain) {
            out.note(&format!("could not record the chain: {e}"));
            store::log_error(self.paths, "forge run", &format!("chain file: {e}"));
        }
    }

    /// Runs one session with `prompt`; `handoffs` is how many the chain has written.
    /// Reads its stream line by line: relays it to the terminal, follows the context,
    /// and acts on what the tracker decides (asks the session to stop, or ends it).
    #[allow(clippy::too_many_arguments)]
    fn session(
        &self,
        cmd: &relay::Command,
        prompt: &str,
        vars: &[(String, String)],
        stop_file: &Path,
        handoffs: u32,
        chain: &mut Chain,
        out: &mut dyn Output,
    ) -> std::io::Result<Ran> {
        let mut child = self.spawn(cmd, prompt, vars, stop_file)?;
        let rx = child.lines();
        let mut live = Live::new(self.opts.max_handoffs.saturating_sub(handoffs));
        loop {
            if !live.stopping && self.stop.load(Ordering::SeqCst) {
                live.interrupted = true;
                live.stopping = true;
                out.note("stopping the session (Ctrl-C)…");
                live.status = stop(&mut child, self.opts.grace);
            }
            let line = match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(Some(l)) => l.trim_end().to_owned(),
                Ok(None) | Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => continue,
            };
            let ev = relay::parse_line(&line);
            self.show(&line, ev.as_ref(), &mut live.last_text, out);
            let Some(ev) = ev else { continue };
            if self.on_event(cmd, &ev, stop_file, &mut live, chain, out) {
                live.status = stop(&mut child, self.opts.grace);
            }
        }
        if live.status.is_none() {
            live.status = child.wait();
        }
        let _ = store::remove_if_exists(stop_file);
        // Stopped by its hook: every tool call ran and has its result.
        if !live.interrupted && live.t.stop_asked.is_some() && live.t.stopped_between_replies() {
            live.relayed = true;
        }
        Ok(Ran {
            tracker: live.t,
            ended_at: now_iso(),
            status: live.status,
            relayed: live.relayed,
            interrupted: live.interrupted,
        })
    }

    /// Starts `claude -p` for one session, in its own process group (Ctrl-C reaches
    /// forge, which ends it cleanly), its stop file named in `FORGE_RELAY_STOP`.
    fn spawn(
        &self,
        cmd: &relay::Command,
        prompt: &str,
        vars: &[(String, String)],
        stop_file: &Path,
    ) -> std::io::Result<Running> {
        let mut c = Cmd::new(&cmd.program);
        c.args(relay::session_args(prompt, &cmd.extra, &self.opts.settings))
            .current_dir(&self.env.cwd)
            .stderr(proc::Output::Inherit)
            .env("FORGE_RELAY_STOP", stop_file)
            .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if let Some(a) = &self.opts.agent {
            c.env("FORGE_AGENT", a);
        }
        Ok(c.start()?)
    }

    /// Relays one line of the stream: as it is (`--json`), else its readable text,
    /// and the final result unless it repeats the last message's text (kept in
    /// `last_text`).
    fn show(
        &self,
        line: &str,
        ev: Option<&StreamEvent>,
        last_text: &mut String,
        out: &mut dyn Output,
    ) {
        use crate::model::text::sanitize::{clean, json_for_terminal};
        if self.opts.json {
            out.out(&if ev.is_some() {
                json_for_terminal(line)
            } else {
                clean(line)
            });
        } else if let Some(text) = ev.and_then(relay::readable) {
            out.out(&clean(&text));
        }
        if let Some(StreamEvent::Assistant(m)) = ev
            && !m.sidechain
            && !m.texts.is_empty()
        {
            *last_text = m.texts.join("\n");
        }
        if let Some(StreamEvent::Result { text: Some(r), .. }) = ev
            && !self.opts.json
            && r.trim() != last_text.trim()
        {
            out.out(&clean(&format!("{}\n", r.trim_end())));
        }
    }

    /// Follows one event of the session: the tracker's decision, a compaction, the
    /// model and the session id as they become known. Returns whether the session
    /// must be ended now.
    fn on_event(
        &self,
        cmd: &relay::Command,
        ev: &StreamEvent,
        stop_file: &Path,
        live: &mut Live,
        chain: &mut Chain,
        out: &mut dyn Output,
    ) -> bool {
        let had_id = live.t.session_id.is_some();
        let compacted = matches!(ev, StreamEvent::CompactBoundary);
        if compacted && !live.stopping && !live.t.compacted {
            out.note(
                "Claude Code compacted this session on its own: forge will not relay it on top of that",
            );
            let n = format!(
                "session {} compacted on its own; not relayed",
                chain.sessions.len()
            );
            chain.notes.push(n);
        }
        let decision = if live.stopping {
            Decision::Continue
        } else {
            live.t.feed(ev, self.opts.threshold, live.left)
        };
        if compacted {
            // The context is small again: a stop asked before is taken back.
            let _ = store::remove_if_exists(stop_file);
        }
        if !live.threshold_checked
            && let StreamEvent::Init { model: Some(m), .. } = ev
        {
            live.threshold_checked = true;
            self.check_model(cmd, m, chain, out);
        }
        if !had_id && let Some(id) = &live.t.session_id {
            if chain.id.is_empty() {
                chain.id.clone_from(id);
            }
            if let Some(s) = chain.sessions.last_mut() {
                s.session_id = Some(id.clone());
            }
            self.write_chain(chain, out);
        }
        self.act(decision, stop_file, live, chain, out)
    }

    /// The model as the client names it, when the command did not: can the
    /// threshold be reached before Claude Code compacts on its own? (Asked of the
    /// chain's first session.)
    fn check_model(
        &self,
        cmd: &relay::Command,
        model: &str,
        chain: &mut Chain,
        out: &mut dyn Output,
    ) {
        if chain.sessions.len() == 1
            && relay::model_arg(&cmd.extra).is_none()
            && let Some(why) = relay::unreachable_threshold(self.opts.threshold, model, |k| {
                self.env.compaction_var(k)
            })
        {
            out.note(&why);
            chain.notes.push(why);
        }
    }

    /// Carries out the tracker's `decision`. Returns whether the session must be
    /// ended now (it went on past its tool calls after being asked to stop).
    fn act(
        &self,
        decision: Decision,
        stop_file: &Path,
        live: &mut Live,
        chain: &mut Chain,
        out: &mut dyn Output,
    ) -> bool {
        match decision {
            Decision::Continue => false,
            Decision::LimitReached => {
                let n = format!(
                    "the chain reached --max-handoffs ({}): this session runs to its end and Claude Code's own compaction takes over",
                    self.opts.max_handoffs
                );
                out.note(&n);
                chain.notes.push(n);
                self.write_chain(chain, out);
                false
            }
            Decision::AskStop => {
                out.note(&format!(
                    "context at {}% (threshold {}%): the session stops once the tool calls \
                     of its current reply have run, and the task goes on in a fresh one",
                    live.t.pct().unwrap_or(0.0),
                    self.opts.threshold
                ));
                // One open: the hook must find it before this reply's tools end.
                match store::safe::create_new(stop_file) {
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => out.note(&format!("could not ask the session to stop: {e}")),
                }
                false
            }
            Decision::Interrupt => {
                live.relayed = true;
                live.stopping = true;
                out.note(
                    "the session went on past its tool calls (its PostToolUse hook did not \
                     stop it): ending it now, between replies",
                );
                true
            }
        }
    }

    /// Writes the handoff of `ran`'s session, with the chain's `task`; `pending`:
    /// make it the pending resume. Returns its path.
    fn handoff(
        &self,
        ran: &Ran,
        task: &str,
        pending: bool,
        out: &mut dyn Output,
    ) -> Option<PathBuf> {
        let sid = ran.tracker.session_id.as_deref()?;
        let transcript = transcript_for(self.env, &self.env.cwd, sid);
        let tp = transcript.as_ref().map(|p| p.display().to_string());
        let req = Request {
            trigger: Trigger::Relay,
            session_id: Some(sid),
            transcript_path: tp.as_deref(),
            git: GitInput::Compute,
            task: Some(task),
            pending,
        };
        match session_handoff::write_detailed(self.paths, self.env, self.cfg, &req) {
            Ok(w) => {
                record(
                    self.paths,
                    Some(sid),
                    serde_json::Map::new(),
                    w.outcomes(Trigger::Relay),
                );
                Some(w.path)
            }
            Err(e) => {
                out.note(&format!("could not write the handoff: {e}"));
                record(
                    self.paths,
                    Some(sid),
                    serde_json::Map::new(),
                    vec![Outcome::Error {
                        what: "relay handoff".to_owned(),
                        message: e.to_string(),
                    }],
                );
                None
            }
        }
    }

    /// Fires the `[[on_threshold]]` hooks whose threshold the session reached.
    fn fire_hooks(&self, t: &Tracker, handoff: Option<&Path>) -> Vec<Outcome> {
        let pct = t.pct().unwrap_or(0.0);
        let facts = crate::model::agents::user_hooks::ThresholdFacts {
            session_id: t.session_id.clone().unwrap_or_default(),
            agent_name: self.opts.agent.clone().or_else(|| self.env.agent_name()),
            working_directory: self.paths.root.display().to_string(),
            worktree_path: std::fs::symlink_metadata(self.paths.root.join(".git"))
                .is_ok()
                .then(|| self.paths.root.display().to_string()),
            transcript_path: t
                .session_id
                .as_deref()
                .and_then(|s| transcript_for(self.env, &self.env.cwd, s))
                .map(|p| p.display().to_string()),
            input_tokens: t.tokens,
            context_window: Some(t.window()),
            used_pct: t.pct(),
            model_name: t.model.clone(),
            handoff_path: handoff.map(|p| p.display().to_string()),
        };
        let payload = crate::model::agents::user_hooks::threshold_payload(&facts);
        self.cfg
            .threshold_hooks()
            .filter(|(_, _, th)| *th <= pct)
            .map(|(_, h, _)| {
                crate::app::user_hooks::run(self.env, "on_threshold", h, &payload, &self.paths.root)
                    .outcome
            })
            .collect()
    }

    /// Runs the chain; returns its exit status.
    pub(crate) fn run(&self, cmd: &relay::Command, out: &mut dyn Output) -> i32 {
        let mut chain = self.new_chain(cmd);
        self.before_start(cmd, &mut chain, out);
        // The sessions' stop files, in a private folder of this run.
        let stops = match tempfile::Builder::new().prefix("forge-run-").tempdir() {
            Ok(d) => d,
            Err(e) => {
                out.note(&format!(
                    "could not make a folder for the relay's stop files: {e}"
                ));
                return 1;
            }
        };
        let mut next = Next {
            prompt: cmd.task.clone(),
            vars: Vec::new(),
            handoffs: 0,
        };
        let code = loop {
            if let ControlFlow::Break(code) =
                self.one_session(cmd, &mut next, stops.path(), &mut chain, out)
            {
                break code;
            }
        };
        self.end_chain(&mut chain, code, next.handoffs, out);
        code
    }

    /// The chain's record before its first session.
    fn new_chain(&self, cmd: &relay::Command) -> Chain {
        Chain {
            version: 1,
            id: String::new(),
            task: cmd.task.clone(),
            started_at: now_iso(),
            ended_at: None,
            threshold: self.opts.threshold,
            max_handoffs: self.opts.max_handoffs,
            agent: self.opts.agent.clone(),
            sessions: Vec::new(),
            exit_code: None,
            notes: Vec::new(),
        }
    }

    /// What is worth saying before the chain starts: a `--model` whose compaction
    /// comes before the threshold, and a pending resume the chain leaves alone.
    fn before_start(&self, cmd: &relay::Command, chain: &mut Chain, out: &mut dyn Output) {
        if let Some(m) = relay::model_arg(&cmd.extra)
            && let Some(why) =
                relay::unreachable_threshold(self.opts.threshold, m, |k| self.env.compaction_var(k))
        {
            out.note(&why);
            chain.notes.push(why);
        }
        // A handoff the person made pending is for their next interactive session:
        // the chain's sessions take their task from the prompt and leave it alone.
        if let Some((_, target)) = files::pending_resume(self.paths, self.env) {
            out.note(&format!(
                "{} stays the pending resume for your next interactive session: the sessions \
                 of this chain take their task from the prompt",
                target.file_name().map_or_else(
                    || target.display().to_string(),
                    |n| n.to_string_lossy().into_owned()
                )
            ));
        }
    }

    /// Runs the chain's next session and records how it ended; `Continue` when it
    /// handed over (and `next` holds the next session's prompt), else `Break` with
    /// the chain's exit status.
    fn one_session(
        &self,
        cmd: &relay::Command,
        next: &mut Next,
        stops: &Path,
        chain: &mut Chain,
        out: &mut dyn Output,
    ) -> ControlFlow<i32> {
        chain.sessions.push(ChainSession {
            session_id: None,
            started_at: now_iso(),
            ended_at: None,
            context_tokens: None,
            context_pct: None,
            handoff: None,
            end: SessionEnd::Running,
            compacted: false,
            exit_code: None,
        });
        self.write_chain(chain, out);
        let stop_file = stops.join(format!("stop-{}", chain.sessions.len()));
        let ran = match self.session(
            cmd,
            &next.prompt,
            &next.vars,
            &stop_file,
            next.handoffs,
            chain,
            out,
        ) {
            Ok(r) => r,
            Err(e) => {
                out.note(&format!("could not start {}: {e}", cmd.program));
                if let Some(s) = chain.sessions.last_mut() {
                    s.end = SessionEnd::NotStarted;
                    s.ended_at = Some(now_iso());
                }
                return ControlFlow::Break(127);
            }
        };
        let code = ran
            .status
            .and_then(|s| s.code())
            .unwrap_or(if ran.interrupted { 130 } else { 1 });
        // Ctrl-C leaves the handoff as the pending resume, so `claude` picks the
        // task up — unless the person chose one themselves: theirs stays.
        let pending = ran.interrupted && !self.person_chose_resume();
        let handoff = if ran.relayed || ran.interrupted {
            self.handoff(&ran, &cmd.task, pending, out)
        } else {
            None
        };
        close_session(chain, &ran, handoff.as_deref());
        self.write_chain(chain, out);
        if ran.interrupted || self.stop.load(Ordering::SeqCst) {
            say_stopped(handoff.as_deref(), pending, out);
            return ControlFlow::Break(if code == 0 { 130 } else { code });
        }
        if !ran.relayed {
            if ran.tracker.stop_asked.is_some() {
                out.note(
                    "the session ended on its own before it could be relayed (its last \
                     reply made no tool call): the task is done as far as it knows",
                );
            }
            return ControlFlow::Break(code);
        }
        let handed_over = match handoff {
            Some(h) => self.hand_over(cmd, &ran, &h, next, chain, out),
            None => {
                out.note("no handoff could be written: the chain stops here");
                ControlFlow::Break(())
            }
        };
        handed_over.map_break(|()| if code == 0 { 1 } else { code })
    }

    /// Whether the pending resume is one the person chose (theirs stays).
    fn person_chose_resume(&self) -> bool {
        files::pending_resume(self.paths, self.env).is_some_and(|(m, _)| {
            files::read_marker_with_origin(&m)
                .is_none_or(|(_, o)| o == crate::model::session::state::ResumeOrigin::Chosen)
        })
    }

    /// Hands over from `ran`'s session through its handoff `h`: the continuation
    /// prompt and variables into `next`, the `[[on_threshold]]` hooks fired, the
    /// relay recorded. `Break` when the prompt is too long for one argument.
    fn hand_over(
        &self,
        cmd: &relay::Command,
        ran: &Ran,
        h: &Path,
        next: &mut Next,
        chain: &Chain,
        out: &mut dyn Output,
    ) -> ControlFlow<()> {
        let text = store::safe::read_to_string_whole(h, 4 << 20, store::safe::Follow::No)
            .unwrap_or_default();
        let prompt = relay::continuation_prompt(
            &cmd.task,
            &text,
            &h.display().to_string(),
            next.handoffs + 1,
        );
        if prompt.len() > relay::MAX_ARG_BYTES {
            self.prompt_too_long(ran, h, prompt.len(), out);
            return ControlFlow::Break(());
        }
        next.handoffs += 1;
        let mut outcomes = self.fire_hooks(&ran.tracker, Some(h));
        // The relay's handoff is not the pending resume: the prompt carries it.
        next.prompt = prompt;
        let prev = ran.tracker.session_id.clone().unwrap_or_default();
        next.vars = vec![
            ("FORGE_RELAY_CHAIN".to_owned(), chain.id.clone()),
            ("FORGE_RELAY_PREVIOUS".to_owned(), prev.clone()),
            ("FORGE_RELAY_HANDOFFS".to_owned(), next.handoffs.to_string()),
        ];
        outcomes.insert(
            0,
            Outcome::Relayed {
                chain: chain.id.clone(),
                handoff: h.display().to_string(),
                continuation: next.handoffs,
                context_pct: ran.tracker.pct().map(|p| p as u64),
            },
        );
        record(self.paths, Some(&prev), serde_json::Map::new(), outcomes);
        out.note(&format!(
            "handoff {}; starting continuation {} of at most {}",
            h.display(),
            next.handoffs,
            self.opts.max_handoffs
        ));
        ControlFlow::Continue(())
    }

    /// The continuation prompt (`len` bytes) would not fit one argument. Checked
    /// before the chain started; should the handoff's path make it too long after
    /// all, the handoff becomes the pending resume (unless the person chose one),
    /// and the log says so.
    fn prompt_too_long(&self, ran: &Ran, h: &Path, len: usize, out: &mut dyn Output) {
        let made = !self.person_chose_resume()
            && files::write_pending_resume(
                self.paths,
                self.env,
                h,
                crate::model::session::state::ResumeOrigin::Auto,
            )
            .is_ok();
        let why = format!(
            "the next prompt would be {len} bytes, more than one argument holds: the chain stops here, and {}",
            if made {
                format!("{} is the pending resume", h.display())
            } else {
                format!("its handoff is {}", h.display())
            }
        );
        out.note(&why);
        if made {
            record(
                self.paths,
                ran.tracker.session_id.as_deref(),
                serde_json::Map::new(),
                vec![Outcome::FlagSet {
                    flag: "pending-resume".to_owned(),
                    why,
                }],
            );
        }
    }

    /// Closes the chain's record with its exit `code`, records its end in
    /// `events.jsonl` and says where the chain is.
    fn end_chain(&self, chain: &mut Chain, code: i32, handoffs: u32, out: &mut dyn Output) {
        chain.ended_at = Some(now_iso());
        chain.exit_code = Some(code);
        self.write_chain(chain, out);
        let first = chain.sessions.first().and_then(|s| s.session_id.clone());
        let mut outcomes = vec![Outcome::ChainEnded {
            chain: chain.id.clone(),
            sessions: chain.sessions.len() as u64,
            handoffs: u64::from(handoffs),
            exit: Some(code),
        }];
        // A chain that stopped short of its task: the person hears of it.
        if code != 0 {
            let who = crate::model::agents::alert::Who {
                project: self
                    .paths
                    .root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                agent: self.env.forge_agent.clone(),
                session: first.clone(),
                pane: None,
            };
            let detail = format!(
                "exit status {code} after {} session{}",
                chain.sessions.len(),
                if chain.sessions.len() == 1 { "" } else { "s" }
            );
            outcomes.extend(super::alert::send(
                self.paths,
                self.env,
                &self.cfg.alerts,
                crate::model::agents::alert::AlertReason::RelayStopped,
                &who,
                &super::alert::Pane::default(),
                Some(&detail),
            ));
        }
        record(
            self.paths,
            first.as_deref(),
            serde_json::Map::new(),
            outcomes,
        );
        if chain.id.is_empty() {
            out.note("no session started, so no chain was recorded");
        } else {
            out.note(&format!(
                "chain {}: {} (.forge/logs/chains/{}.json)",
                chain.id,
                chain.summary(),
                store::paths::sanitize_id(&chain.id)
            ));
        }
    }
}

/// What the chain's next session starts with.
struct Next {
    prompt: String,
    /// `FORGE_RELAY_*` for the session's environment.
    vars: Vec<(String, String)>,
    /// The handoffs the chain has made so far.
    handoffs: u32,
}

/// Fills the chain's last session from `ran`, and the chain's id when it had none.
fn close_session(chain: &mut Chain, ran: &Ran, handoff: Option<&Path>) {
    if let Some(s) = chain.sessions.last_mut() {
        s.ended_at = Some(ran.ended_at.clone());
        s.context_tokens = ran.tracker.tokens;
        s.context_pct = ran.tracker.pct();
        s.handoff = handoff.map(|p| p.display().to_string());
        s.compacted = ran.tracker.compacted;
        s.exit_code = ran.status.and_then(|s| s.code());
        s.end = if ran.interrupted {
            SessionEnd::Interrupted
        } else if ran.relayed {
            SessionEnd::Relayed
        } else {
            SessionEnd::Exited
        };
    }
    if chain.id.is_empty()
        && let Some(id) = &ran.tracker.session_id
    {
        chain.id.clone_from(id);
    }
}

/// Where the task stands after Ctrl-C: its handoff, pending or beside the one the
/// person chose.
fn say_stopped(handoff: Option<&Path>, pending: bool, out: &mut dyn Output) {
    match handoff {
        Some(h) if pending => out.note(&format!(
            "stopped; the handoff {} is the pending resume",
            h.display()
        )),
        Some(h) => out.note(&format!(
            "stopped; the handoff is {} (the pending resume you chose stays: \
             `forge resume {}` makes this one pending instead)",
            h.display(),
            h.display()
        )),
        None => {}
    }
}
