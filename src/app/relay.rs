//! `forge run`: runs `claude -p` with stream-json output, relays what it prints,
//! tracks the context from each complete assistant message, and at the threshold
//! ends the session cleanly, writes a handoff, fires `[[on_threshold]]` and starts
//! the next session with a continuation prompt. The chain is recorded in
//! `.forge/logs/chains/<first-session-id>.json` at every change.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};

use crate::app::session_handoff::{self, GitInput, Request};
use crate::config::Config;
use crate::env::Env;
use crate::model::handoff_doc::Trigger;
use crate::model::outcome::Outcome;
use crate::model::relay::{self, Chain, ChainSession, Decision, SessionEnd, StreamEvent, Tracker};
use crate::model::state::EventLine;
use crate::store::{self, Paths, chains, files};

/// The event name of `forge run`'s lines in `events.jsonl`.
pub const EVENT: &str = "forge run";

/// How `forge run` runs a chain.
#[derive(Debug, Clone)]
pub struct Options {
    /// The context % that hands over.
    pub threshold: f64,
    /// The most continuations.
    pub max_handoffs: u32,
    /// SIGINT, then SIGTERM after this long.
    pub grace: Duration,
    /// Pass the stream through as it is (else: readable text).
    pub json: bool,
    /// The agent the sessions run as (`FORGE_AGENT`).
    pub agent: Option<String>,
}

/// Where the output goes (stdout for the stream, stderr for forge's own notes).
pub trait Output {
    /// A line of the session's output (readable text, or a stream-json line).
    fn out(&mut self, text: &str);
    /// One of forge's notes (`forge: …`).
    fn note(&mut self, text: &str);
}

fn now_iso() -> String {
    Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// What one session did.
struct Ran {
    tracker: Tracker,
    /// When the process ended.
    ended_at: String,
    status: Option<ExitStatus>,
    relayed: bool,
    interrupted: bool,
}

fn send_signal(child: &Child, sig: rustix::process::Signal) {
    if let Ok(pid) = i32::try_from(child.id())
        && let Some(pid) = rustix::process::Pid::from_raw(pid)
    {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

/// Ends `child` cleanly: SIGINT, SIGTERM after `grace`, SIGKILL 5 s after that.
fn stop(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    use rustix::process::Signal;
    for (sig, wait) in [
        (Signal::INT, grace),
        (Signal::TERM, Duration::from_secs(5)),
        (Signal::KILL, Duration::from_secs(5)),
    ] {
        if let Ok(Some(st)) = child.try_wait() {
            return Some(st);
        }
        send_signal(child, sig);
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline {
            if let Ok(Some(st)) = child.try_wait() {
                return Some(st);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    child.wait().ok()
}

/// The lines of `child`'s stdout on a channel (`None` at the end).
fn read_lines(child: &mut Child) -> Receiver<Option<String>> {
    let (tx, rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut r = BufReader::new(out);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim_end().to_owned();
                        if tx.send(Some(line)).is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = tx.send(None);
        });
    } else {
        let _ = tx.send(None);
    }
    rx
}

/// The transcript Claude Code writes for `session_id` when it runs in `cwd`
/// (reference §5.1), when it exists.
fn transcript_for(env: &Env, cwd: &Path, session_id: &str) -> Option<PathBuf> {
    let real = cwd.canonicalize().ok()?;
    let name = crate::model::memory::project_dir_name(&real.to_string_lossy());
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
        time: files::iso(Utc::now()),
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
pub struct Relay<'a> {
    /// The project.
    pub paths: &'a Paths,
    /// The environment (its `cwd` is where the sessions run).
    pub env: &'a Env,
    /// The effective config (user hooks come only from the user's own file).
    pub cfg: &'a Config,
    /// The options.
    pub opts: Options,
    /// Set by SIGINT/SIGTERM: stop the chain.
    pub stop: Arc<AtomicBool>,
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
    fn session(
        &self,
        cmd: &relay::Command,
        prompt: &str,
        vars: &[(String, String)],
        handoffs: u32,
        chain: &mut Chain,
        out: &mut dyn Output,
    ) -> std::io::Result<Ran> {
        let mut c = Command::new(&cmd.program);
        c.args(relay::session_args(prompt, &cmd.extra))
            .current_dir(&self.env.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .envs(vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        if let Some(a) = &self.opts.agent {
            c.env("FORGE_AGENT", a);
        }
        #[cfg(unix)]
        {
            // Its own process group: Ctrl-C reaches forge, which ends it cleanly.
            use std::os::unix::process::CommandExt;
            c.process_group(0);
        }
        let mut child = c.spawn()?;
        let rx = read_lines(&mut child);
        let mut t = Tracker::default();
        let left = self.opts.max_handoffs.saturating_sub(handoffs);
        let mut relayed = false;
        let mut interrupted = false;
        let mut stopping = false;
        let mut status = None;
        let mut last_text = String::new();
        loop {
            if !stopping && self.stop.load(Ordering::SeqCst) {
                interrupted = true;
                stopping = true;
                out.note("stopping the session (Ctrl-C)…");
                status = stop(&mut child, self.opts.grace);
            }
            let line = match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(Some(l)) => l,
                Ok(None) | Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => continue,
            };
            let ev = relay::parse_line(&line);
            if self.opts.json {
                if ev.is_some() {
                    out.out(&crate::model::text::json_for_terminal(&line));
                } else {
                    out.out(&crate::model::text::clean(&line));
                }
            } else if let Some(text) = ev.as_ref().and_then(relay::readable) {
                out.out(&crate::model::text::clean(&text));
            }
            let Some(ev) = ev else { continue };
            // The final text, unless it is the last message's text just shown.
            if let StreamEvent::Assistant(m) = &ev
                && !m.sidechain
                && !m.texts.is_empty()
            {
                last_text = m.texts.join("\n");
            }
            if let StreamEvent::Result { text: Some(r), .. } = &ev
                && !self.opts.json
                && r.trim() != last_text.trim()
            {
                out.out(&crate::model::text::clean(&format!("{}\n", r.trim_end())));
            }
            let had_id = t.session_id.is_some();
            if matches!(ev, StreamEvent::CompactBoundary) && !stopping && !t.compacted {
                out.note(
                    "Claude Code compacted this session on its own: forge will not relay it on top of that",
                );
                let n = format!(
                    "session {} compacted on its own; not relayed",
                    chain.sessions.len()
                );
                chain.notes.push(n);
            }
            let decision = if stopping {
                Decision::Continue
            } else {
                t.feed(&ev, self.opts.threshold, left)
            };
            if !had_id && let Some(id) = &t.session_id {
                if chain.id.is_empty() {
                    chain.id.clone_from(id);
                }
                if let Some(s) = chain.sessions.last_mut() {
                    s.session_id = Some(id.clone());
                }
                self.write_chain(chain, out);
            }
            match decision {
                Decision::Continue => {}
                Decision::LimitReached => {
                    let n = format!(
                        "the chain reached --max-handoffs ({}): this session runs to its end and Claude Code's own compaction takes over",
                        self.opts.max_handoffs
                    );
                    out.note(&n);
                    chain.notes.push(n);
                    self.write_chain(chain, out);
                }
                Decision::Relay => {
                    relayed = true;
                    stopping = true;
                    out.note(&format!(
                        "context at {}% (threshold {}%): ending this session to carry the task on",
                        t.pct().unwrap_or(0.0),
                        self.opts.threshold
                    ));
                    status = stop(&mut child, self.opts.grace);
                }
            }
        }
        if status.is_none() {
            status = child.wait().ok();
        }
        Ok(Ran {
            tracker: t,
            ended_at: now_iso(),
            status,
            relayed,
            interrupted,
        })
    }

    /// Writes the handoff of `ran`'s session; returns its path.
    fn handoff(&self, ran: &Ran, out: &mut dyn Output) -> Option<PathBuf> {
        let sid = ran.tracker.session_id.as_deref()?;
        let transcript = transcript_for(self.env, &self.env.cwd, sid);
        let tp = transcript.as_ref().map(|p| p.display().to_string());
        let req = Request {
            trigger: Trigger::Relay,
            session_id: Some(sid),
            transcript_path: tp.as_deref(),
            git: GitInput::Compute,
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
        let facts = crate::model::user_hooks::ThresholdFacts {
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
        let payload = crate::model::user_hooks::threshold_payload(&facts);
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
    pub fn run(&self, cmd: &relay::Command, out: &mut dyn Output) -> i32 {
        let mut chain = Chain {
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
        };
        let mut prompt = cmd.task.clone();
        let mut vars: Vec<(String, String)> = Vec::new();
        let mut handoffs: u32 = 0;
        let code = loop {
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
            self.write_chain(&chain, out);
            let ran = match self.session(cmd, &prompt, &vars, handoffs, &mut chain, out) {
                Ok(r) => r,
                Err(e) => {
                    out.note(&format!("could not start {}: {e}", cmd.program));
                    if let Some(s) = chain.sessions.last_mut() {
                        s.end = SessionEnd::NotStarted;
                        s.ended_at = Some(now_iso());
                    }
                    break 127;
                }
            };
            let code = ran
                .status
                .and_then(|s| s.code())
                .unwrap_or(if ran.interrupted { 130 } else { 1 });
            let handoff = if ran.relayed || ran.interrupted {
                self.handoff(&ran, out)
            } else {
                None
            };
            if let Some(s) = chain.sessions.last_mut() {
                s.ended_at = Some(ran.ended_at.clone());
                s.context_tokens = ran.tracker.tokens;
                s.context_pct = ran.tracker.pct();
                s.handoff = handoff.as_ref().map(|p| p.display().to_string());
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
            self.write_chain(&chain, out);
            if ran.interrupted || self.stop.load(Ordering::SeqCst) {
                if let Some(h) = &handoff {
                    out.note(&format!(
                        "stopped; the handoff {} is the pending resume",
                        h.display()
                    ));
                }
                break if code == 0 { 130 } else { code };
            }
            if !ran.relayed {
                break code;
            }
            // Hand over.
            let Some(h) = handoff else {
                out.note("no handoff could be written: the chain stops here");
                break if code == 0 { 1 } else { code };
            };
            let text = store::safe::read_to_string_whole(&h, 4 << 20, store::safe::Follow::No)
                .unwrap_or_default();
            let next = relay::continuation_prompt(
                &cmd.task,
                &text,
                &h.display().to_string(),
                handoffs + 1,
            );
            if next.len() > relay::MAX_ARG_BYTES {
                // Checked before the chain started; should the handoff's path make it
                // too long after all, the handoff stays the pending resume.
                out.note(&format!(
                    "the next prompt would be {} bytes, more than one argument holds: the chain stops here, and {} is the pending resume",
                    next.len(),
                    h.display()
                ));
                break if code == 0 { 1 } else { code };
            }
            handoffs += 1;
            let mut outcomes = self.fire_hooks(&ran.tracker, Some(&h));
            // The continuation prompt carries the handoff: it is not also resumed by
            // SessionStart.
            let _ = files::clear_pending_resume(self.paths, self.env);
            prompt = next;
            let prev = ran.tracker.session_id.clone().unwrap_or_default();
            vars = vec![
                ("FORGE_RELAY_CHAIN".to_owned(), chain.id.clone()),
                ("FORGE_RELAY_PREVIOUS".to_owned(), prev.clone()),
                ("FORGE_RELAY_HANDOFFS".to_owned(), handoffs.to_string()),
            ];
            outcomes.insert(
                0,
                Outcome::Relayed {
                    chain: chain.id.clone(),
                    handoff: h.display().to_string(),
                    continuation: handoffs,
                    context_pct: ran.tracker.pct().map(|p| p as u64),
                },
            );
            record(self.paths, Some(&prev), serde_json::Map::new(), outcomes);
            out.note(&format!(
                "handoff {}; starting continuation {handoffs} of at most {}",
                h.display(),
                self.opts.max_handoffs
            ));
        };
        chain.ended_at = Some(now_iso());
        chain.exit_code = Some(code);
        self.write_chain(&chain, out);
        let first = chain.sessions.first().and_then(|s| s.session_id.clone());
        record(
            self.paths,
            first.as_deref(),
            serde_json::Map::new(),
            vec![Outcome::ChainEnded {
                chain: chain.id.clone(),
                sessions: chain.sessions.len() as u64,
                handoffs: u64::from(handoffs),
                exit: Some(code),
            }],
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
        code
    }
}
