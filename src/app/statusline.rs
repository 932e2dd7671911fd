//! One status-line tick, for `forge statusline` (`cli/statusline.rs` parses its
//! arguments and prints): gather what the line shows from the payload and a few
//! small state files, render it (`statusline`), and record the tick's effects (the
//! session bridge, the threshold handoff, the ladder's levels, `[[on_threshold]]`
//! hooks). It stays cheap: no subprocess (except the detached children it starts,
//! and with `--wrap` the person's own status-line command: [`crate::app::wrapped`]),
//! no directory walk of the repository, no git library, no full transcript read,
//! no threads.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::config::{self, Config};
use crate::env::Env;
use crate::model::agents::ladder::LadderAction;
use crate::model::segment::Segment;
use crate::model::session::level::Level;
use crate::model::session::state::{Reading, SessionBridge};
use crate::statusline::{
    ContextInfo, Payload, SessionState, Term, render_statusline, resolve_context,
};
use crate::store::guard::Crossing;
use crate::store::{self, Paths, files, handoffs, transcript};

/// How a tick runs: `forge statusline`'s `--plain` and `--dry-run`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Options {
    /// Render without colours (as NO_COLOR does).
    pub(crate) plain: bool,
    /// Print the line only: write no session state, start no handoff, log nothing.
    pub(crate) dry_run: bool,
}

/// Renders the line for `input` and carries out the tick's effects (bridge update,
/// threshold handoff).
pub(crate) fn tick(args: &Options, env: &Env, input: &[u8]) -> String {
    let t = Tick::prepare(args, env, input, false);
    let line = t.render(env, &t.cfg, env.columns);
    if !args.dry_run {
        t.record(env);
    }
    line
}

/// [`tick`] in composition mode: `command` (the person's own status line) starts
/// first and runs while forge does its own work (the threshold handoff fires
/// whatever it does); then its output, cleaned, is printed with forge's
/// `[statusline] wrap_segments` where `wrap_position` says.
pub(crate) fn tick_wrapped(args: &Options, env: &Env, input: &[u8], command: &str) -> String {
    use crate::app::wrapped::{Ended, Wrapped, stop_on_signals};
    use crate::statusline::compose;
    let running = Wrapped::start(env, command, input, stop_on_signals());
    let t = Tick::prepare(args, env, input, true);
    if !args.dry_run {
        t.record(env);
    }
    let ended = running.map(Wrapped::finish);
    if !args.dry_run && t.trusted {
        note_wrapped(&t.paths, env, command, &ended, t.payload.session_id.clone());
    }
    let other = match ended {
        Ok(Ended::Printed(out)) => compose::clean_output(&out),
        _ => Vec::new(),
    };
    let mut cfg = t.cfg.clone();
    cfg.statusline.segments = cfg.statusline.wrap_segments.clone();
    compose::compose(
        &other,
        &|width| t.render(env, &cfg, width),
        cfg.statusline.wrap_position,
        env.columns,
        !(env.no_color || args.plain),
    )
}

/// Logs a wrapped status line that failed or timed out — its exit status or the
/// deadline — once per change (`logs/wrap-failed.txt` holds the last one said; the
/// next tick it prints again clears it), in the event log (`forge log`). Claude
/// Code blanks a failing status line without a word; forge shows its own segments
/// and says why the other part is missing.
fn note_wrapped(
    paths: &Paths,
    env: &Env,
    command: &str,
    ended: &Result<crate::app::wrapped::Ended, String>,
    session: Option<String>,
) {
    use crate::app::wrapped::{DEADLINE, Ended};
    let marker = paths.logs().join("wrap-failed.txt");
    let why = match ended {
        Ok(Ended::Printed(_) | Ended::Stopped) => None,
        Ok(Ended::Failed(Some(code))) => Some(format!("exited with status {code}")),
        Ok(Ended::Failed(None)) => Some("was ended by a signal".to_owned()),
        Ok(Ended::TimedOut) => Some(format!(
            "did not finish within its {} s deadline (its process group was stopped)",
            DEADLINE.as_secs()
        )),
        Err(e) => Some(format!("could not start: {e}")),
    };
    let Some(why) = why else {
        if store::safe::is_regular(&marker) {
            let _ = std::fs::remove_file(&marker);
        }
        return;
    };
    let line = format!(
        "your wrapped status line `{}` {why}: forge showed only its own segments",
        crate::model::text::sanitize::cut_chars(
            &crate::model::text::sanitize::single_line(command),
            120
        )
    );
    if store::read_text(&marker).as_deref() == Some(line.as_str()) || !paths.logs().is_dir() {
        return;
    }
    let _ = store::write_atomic(&marker, line.as_bytes());
    let _ = files::append_event(
        paths,
        &crate::model::session::state::EventLine {
            time: crate::model::time::iso(env.now),
            event: "statusline".to_owned(),
            session,
            facts: serde_json::Map::new(),
            outcomes: vec![crate::model::outcome::Outcome::Error {
                what: "statusline --wrap".to_owned(),
                message: line,
            }],
        },
    );
}

/// What one tick read: the payload, the project, its config and state.
struct Tick {
    payload: Payload,
    paths: Paths,
    trusted: bool,
    cfg: Config,
    state: SessionState,
    /// The session's bridge, read once for the line (its handoff mark) and the
    /// tick's record.
    bridge: Option<SessionBridge>,
    /// The blocked-Signal count shown is the cache's last one and its folders
    /// changed since: the tick's record starts a detached recount.
    signals_stale: bool,
    color: bool,
}

impl Tick {
    /// Reads the payload, the config and the small state files. `wrapped`: the
    /// segments shown are `wrap_segments`.
    fn prepare(args: &Options, env: &Env, input: &[u8], wrapped: bool) -> Self {
        let payload = Payload::parse(input);
        let cwd = payload
            .cwd
            .as_deref()
            .map(PathBuf::from)
            .filter(|p| p.is_absolute() && p.is_dir())
            .unwrap_or_else(|| env.cwd.clone());
        let paths = Paths::new(store::resolve_root(env.claude_project_dir.as_deref(), &cwd));
        // A refused `.forge/` (a link, someone else's, writable by others: see
        // `Paths::check`) is neither read nor written: the line shows what the payload
        // and `.git/HEAD` say, and nothing fires. `forge doctor` says why.
        let trusted = paths.check().is_ok();
        // Most projects have no config file: skip the layered merge then (two `stat`s).
        let has_config =
            paths.config().exists() || config::user_path(env).is_some_and(|p| p.exists());
        let cfg = if has_config && trusted && paths.logs().is_dir() {
            let (cfg, notice) = config::load_noting(&paths, env);
            // An untrusted project file's acting keys were left out: said once per
            // content of the file, in the event log (`forge log`).
            if let Some(notice) = notice.filter(|_| !args.dry_run) {
                let _ = files::append_event(
                    &paths,
                    &crate::model::session::state::EventLine {
                        time: crate::model::time::iso(env.now),
                        event: "statusline".to_owned(),
                        session: payload.session_id.clone(),
                        facts: serde_json::Map::new(),
                        outcomes: vec![notice],
                    },
                );
            }
            cfg
        } else if has_config && trusted {
            config::load_or_default(&paths, env)
        } else {
            Config::default()
        };
        let (mut state, bridge, signals_stale) = if trusted {
            gather(&paths, &payload, env.now)
        } else {
            let state = SessionState {
                project: project_name(&paths),
                branch: crate::git::branch_from_head_file(&paths.root),
                ..SessionState::default()
            };
            (state, None, false)
        };
        let shown = if wrapped {
            &cfg.statusline.wrap_segments
        } else {
            &cfg.statusline.segments
        };
        if shown.contains(&Segment::Elsewhere) {
            state.waiting_elsewhere = waiting_elsewhere(env, &paths);
        }
        Self {
            payload,
            paths,
            trusted,
            cfg,
            state,
            bridge,
            signals_stale,
            color: !(env.no_color || args.plain),
        }
    }

    /// The line for `width` columns, with `cfg`'s segments.
    fn render(&self, env: &Env, cfg: &Config, width: Option<u16>) -> String {
        let term = Term {
            color: self.color,
            width,
        };
        render_statusline(&self.payload, &self.state, cfg, &term, env.now)
    }

    /// The tick's effects: the session bridge, the threshold handoff, the ladder.
    fn record(&self, env: &Env) {
        let (paths, payload) = (&self.paths, &self.payload);
        if !self.trusted {
            return;
        }
        if self.signals_stale {
            start_recount(paths);
        }
        // When neither the payload's folders nor CLAUDE_PROJECT_DIR exist (the project
        // was deleted under a running client, which then runs this elsewhere), there
        // is no safe place to record anything.
        let exists = |d: Option<&str>| d.is_some_and(|d| Path::new(d).is_dir());
        let lost = payload.cwd.is_some()
            && !exists(payload.cwd.as_deref())
            && !exists(payload.project_dir.as_deref())
            && !env.claude_project_dir.as_deref().is_some_and(Path::is_dir);
        if let Some(sid) = payload.session_id.as_deref().filter(|_| !lost) {
            let ctx = resolve_context(payload, self.state.tail.as_ref());
            // A busy bridge lock is not an error: the next tick writes.
            let tick = Record {
                cfg: &self.cfg,
                payload,
                ctx: &ctx,
                current: self.bridge.as_ref(),
            };
            if let Err(e) = record(paths, env, &tick, sid)
                && e.kind() != std::io::ErrorKind::WouldBlock
                && paths.logs().is_dir()
            {
                store::log_error(paths, "statusline", &e.to_string());
            }
        }
    }
}

/// Reads what the line shows from the small state files (and `.git/HEAD`), with the
/// session's bridge (its handoff mark; the tick's record compares against it) and
/// whether the blocked-Signal count is a stale one ([`handoffs::count_for_tick`]).
pub(crate) fn gather(
    paths: &Paths,
    payload: &Payload,
    now: DateTime<Utc>,
) -> (SessionState, Option<SessionBridge>, bool) {
    let cache = files::read_git_cache(paths);
    let branch = crate::git::branch_from_head_file(&paths.root)
        .or_else(|| cache.as_ref().and_then(|c| c.branch.clone()));
    let tail = if payload.needs_transcript() {
        payload
            .transcript_path
            .as_deref()
            .map(|p| transcript::tail_context(Path::new(p)))
    } else {
        None
    };
    let bridge = payload
        .session_id
        .as_deref()
        .and_then(|sid| files::read_bridge(paths, sid));
    let signals = handoffs::count_for_tick(paths, std::time::SystemTime::from(now));
    let state = SessionState {
        project: project_name(paths),
        branch,
        dirty: cache.as_ref().map(|c| c.uncommitted_changes),
        git_cached_at: cache
            .as_ref()
            .and_then(|c| crate::model::time::parse_iso(&c.updated_at)),
        workflow: files::read_workflow(paths),
        blocked_signals: signals.blocked,
        learn_pending: store::safe::is_regular(&paths.learn_pending()),
        tail,
        waiting_elsewhere: 0,
        handoff_mark: bridge.as_ref().is_some_and(|b| b.handoff_mark.is_some()),
        quota_5h: bridge
            .as_ref()
            .map(|b| b.quota_5h.clone())
            .unwrap_or_default(),
        quota_7d: bridge
            .as_ref()
            .map(|b| b.quota_7d.clone())
            .unwrap_or_default(),
    };
    (state, bridge, signals.stale)
}

/// Starts `forge statusline --recount-signals --project=DIR` detached, unless one
/// runs already: a large inbox's count is rebuilt off the tick, which shows the
/// last count meanwhile.
fn start_recount(paths: &Paths) {
    if !handoffs::recount_running(paths) {
        let _ = spawn_child(paths, &["statusline", "--recount-signals"]);
    }
}

/// How many times a recount rebuilds at most while the folders keep changing.
const RECOUNT_ROUNDS: usize = 5;

/// `forge statusline --recount-signals --project=DIR` (started by a tick, detached):
/// rebuilds the blocked-Signal count's cache at once (ticks show its count from
/// then on), then again once the folders' last change is
/// [`handoffs::SIGNAL_RACY`] old, so the cache answers alone from the next tick.
/// One runs at a time (`handoffs::recount_lock`); a refused `.forge/` is left alone.
pub(crate) fn recount_signals(project: &Path) {
    let paths = Paths::new(project);
    if paths.check().is_err() {
        return;
    }
    let Some(_running) = handoffs::recount_lock(&paths) else {
        return;
    };
    let now = || std::time::SystemTime::from(crate::env::wall_clock());
    for _ in 0..RECOUNT_ROUNDS {
        let _ = handoffs::count_blocked(&paths, now());
        match handoffs::racy_wait(&paths, now()) {
            None => return,
            Some(wait) => std::thread::sleep(wait + std::time::Duration::from_millis(50)),
        }
    }
}

/// The live sessions of other projects that wait for a person, from the fleet
/// registry: one small file read, no project walked. A registry that cannot be read
/// (missing, a link, a FIFO) counts none; the line never waits for it.
fn waiting_elsewhere(env: &Env, paths: &Paths) -> usize {
    let Some(file) = store::registry::path(env) else {
        return 0;
    };
    let Ok(registry) = store::registry::read(&file) else {
        return 0;
    };
    let root = store::registry::root_key(&paths.root).unwrap_or_default();
    // A session whose client was killed waits for nobody: one /proc read for each
    // session that would count, none otherwise.
    registry.waiting_elsewhere_alive(&root, env.now, store::process::is_gone)
}

/// The project's folder name.
fn project_name(paths: &Paths) -> Option<String> {
    paths
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
}

/// Applies this tick's values to a bridge; returns whether anything changed. `shown`:
/// the handoff mark this tick's line showed, which goes (a newer one stays for the
/// next tick).
fn apply(
    b: &mut SessionBridge,
    p: &Payload,
    ctx: &ContextInfo,
    now: DateTime<Utc>,
    shown: Option<&str>,
) -> bool {
    let mut changed = false;
    if shown.is_some() && b.handoff_mark.as_deref() == shown {
        b.handoff_mark = None;
        changed = true;
    }
    let set = |changed: &mut bool, field: &mut Option<String>, v: Option<&String>| {
        if let Some(v) = v
            && field.as_ref() != Some(v)
        {
            *field = Some(v.clone());
            *changed = true;
        }
    };
    set(
        &mut changed,
        &mut b.model,
        p.model_name.as_ref().or(p.model_id.as_ref()),
    );
    set(
        &mut changed,
        &mut b.transcript_path,
        p.transcript_path.as_ref(),
    );
    set(&mut changed, &mut b.cwd, p.cwd.as_ref());
    // The rate limits' readings, for the pace (`model::session::pace`).
    for (window, kept) in [
        (p.limits.five_hour, &mut b.quota_5h),
        (p.limits.seven_day, &mut b.quota_7d),
    ] {
        if let Some(w) = window {
            let reading = crate::model::session::pace::QuotaReading {
                at: now.timestamp(),
                pct: w.used_pct,
                resets_at: w.resets_at,
            };
            changed |= crate::model::session::pace::push(kept, reading);
        }
    }
    if let Some(w) = ctx.window.filter(|w| b.context_window_size != Some(*w)) {
        b.context_window_size = Some(w);
        changed = true;
    }
    // A reading of no tokens is never a real one (docs/client-reference.md §9.1 #1).
    if let Some(pct) = ctx.pct.filter(|_| ctx.tokens != Some(0)) {
        // The first reading since the compaction that is not the one before it.
        if b.compacted_from.is_some() && !b.is_from_before_compaction(pct, ctx.tokens) {
            b.compacted_from = None;
            changed = true;
        }
        let pct_changed = b.used_percentage.is_none_or(|old| (old - pct).abs() > 1e-9);
        if pct_changed || b.tokens != ctx.tokens {
            b.used_percentage = Some(pct);
            b.tokens = ctx.tokens;
            b.push_reading(Reading {
                at: crate::model::time::iso(now),
                tokens: ctx.tokens,
                pct,
            });
            changed = true;
        }
    }
    changed
}

/// What one tick records: the config, the payload, its context figure and the
/// bridge as the tick read it.
struct Record<'a> {
    cfg: &'a Config,
    payload: &'a Payload,
    ctx: &'a ContextInfo,
    current: Option<&'a SessionBridge>,
}

/// Writes the session bridge only when a value changed (checked before taking the
/// lock), then fires the threshold handoff once per session per crossing.
fn record(paths: &Paths, env: &Env, tick: &Record<'_>, sid: &str) -> std::io::Result<()> {
    let Record {
        cfg,
        payload,
        ctx,
        current,
    } = *tick;
    if !paths.may_create_state(env.home.as_deref()) {
        return Ok(());
    }
    let shown = current.and_then(|b| b.handoff_mark.as_deref());
    let differs = match current {
        Some(b) => apply(&mut b.clone(), payload, ctx, env.now, shown),
        None => true,
    };
    if differs {
        if !paths.forge_dir().is_dir() {
            paths.ensure_dirs()?;
        }
        // The line must not wait: a busy lock skips this tick's write (the next tick
        // finds the bridge still different and writes it).
        match files::update_bridge_within(paths, sid, env.now, BRIDGE_LOCK_WAIT, |b| {
            apply(b, payload, ctx, env.now, shown)
        }) {
            Err(e) if e.kind() != std::io::ErrorKind::WouldBlock => return Err(e),
            _ => {}
        }
    }
    // A figure equal to the reading before the session's last compaction is that old
    // reading (the client's payload, or the transcript before its compaction record
    // is written): it crosses nothing, so a compaction that re-armed the threshold
    // gets no second handoff from it.
    let ctx = &ContextInfo {
        pct: ctx.pct.filter(|p| {
            !current
                .as_ref()
                .is_some_and(|b| b.is_from_before_compaction(*p, ctx.tokens))
        }),
        ..*ctx
    };
    // Every crossing waits on the acting values: a project file you have not
    // trusted changes where the line shows ⚠ CTX, never when your steps run.
    let acting = cfg.acting_context();
    let threshold = acting.handoff_threshold;
    if ctx.pct.is_some_and(|p| p >= threshold) {
        if !paths.forge_dir().is_dir() {
            paths.ensure_dirs()?;
        }
        // The detached child claims the crossing (exactly one child wins), so a tick
        // that Claude Code aborts right here never leaves a claim without a handoff.
        if paths.guard(sid, Crossing::Threshold).is_armed() {
            spawn_crossing(paths, sid, Crossing::Threshold)?;
        }
    } else if ctx.pct.is_some_and(|p| p < threshold - REARM_BELOW)
        && current.is_some_and(|b| b.threshold_crossed_at.is_some())
    {
        // Well below the threshold again (a compaction, /clear): the next crossing is
        // a new one and gets its own handoff.
        files::rearm_threshold(paths, sid, env.now, BRIDGE_LOCK_WAIT)?;
    }
    // The other crossings with a start of their own, each once per crossing in a
    // detached child that claims it: the escalation ladder's levels (L1's handoff is
    // the threshold handoff above), then the user's [[on_threshold]] hooks (the
    // ones at the handoff threshold fire with the handoff). One lstat per guard per
    // tick, only for levels with actions and for such hooks.
    if let Some(pct) = ctx.pct {
        let t = acting.thresholds();
        let levels = [
            (Level::L1, t.warn),
            (Level::L2, t.critical),
            (Level::L3, t.emergency),
        ]
        .into_iter()
        .filter(|(level, _)| {
            cfg.ladder
                .at(*level)
                .iter()
                .any(|a| !(*level == Level::L1 && *a == LadderAction::Handoff))
        })
        .map(|(level, start)| (Crossing::Level(level), start));
        let hooks = cfg.threshold_hooks().filter_map(|(i, _, t)| {
            let with_handoff = (t - threshold).abs() < 1e-9;
            (!with_handoff).then_some((Crossing::Hook(i), t))
        });
        for (crossing, start) in levels.chain(hooks) {
            let guard = paths.guard(sid, crossing);
            let armed = guard.is_armed();
            if pct >= start && armed {
                spawn_crossing(paths, sid, crossing)?;
            } else if pct < start - REARM_BELOW && !armed {
                guard.rearm()?;
            }
        }
    }
    Ok(())
}

/// Starts the detached child that claims one crossing and runs what it fires: the
/// threshold handoff ([`spawn_handoff`]), `forge ladder --session=ID --level=L` or
/// `forge user-hook --session=ID --index=N` (each with `--project=DIR`).
fn spawn_crossing(paths: &Paths, sid: &str, crossing: Crossing) -> std::io::Result<()> {
    let session = format!("--session={sid}");
    match crossing {
        Crossing::Level(level) => spawn_child(
            paths,
            &["ladder", &session, &format!("--level={}", level.as_str())],
        ),
        Crossing::Hook(index) => {
            spawn_child(paths, &["user-hook", &session, &format!("--index={index}")])
        }
        Crossing::Threshold => spawn_handoff(paths, sid),
    }
}

/// Starts `forge ARGS --project=DIR` fully detached (its own process group, no
/// stdio, not waited for). Every value is one `--name=value` argument, so a session
/// id starting with `-` is never read as a flag.
fn spawn_child(paths: &Paths, args: &[&str]) -> std::io::Result<()> {
    let mut project = std::ffi::OsString::from("--project=");
    project.push(&paths.root);
    crate::proc::Cmd::new(std::env::current_exe()?)
        .args(args)
        .arg(project)
        .detach()?;
    Ok(())
}

/// How long a tick waits for the session-bridge lock.
const BRIDGE_LOCK_WAIT: std::time::Duration = std::time::Duration::from_millis(5);

/// How far below the threshold the context must fall before another crossing counts,
/// so a session hovering at the threshold does not write a handoff per tick.
const REARM_BELOW: f64 = 10.0;

/// Starts `forge handoff --auto --trigger context-threshold --claim-threshold` fully
/// detached ([`spawn_child`]). `--session=ID` is one argument: a session id that
/// starts with `-` must not be read as a flag (then the child exits on a usage error
/// without claiming, and every tick would start another).
fn spawn_handoff(paths: &Paths, sid: &str) -> std::io::Result<()> {
    spawn_child(
        paths,
        &[
            "handoff",
            "--auto",
            "--trigger",
            "context-threshold",
            &format!("--session={sid}"),
            "--claim-threshold",
        ],
    )
}
