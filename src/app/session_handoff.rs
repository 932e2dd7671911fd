//! Gathering the inputs of a session handoff and writing it: used by `forge handoff`
//! (manual or `--auto` from the statusline) and by PreCompact's safety net.
//!
//! Bounded work: the session bridge, the last [`store::transcript::FACTS_CAP`] bytes
//! of the transcript, `git2` status and the last commits, `state.json` and the
//! handoff inbox. The composition itself is `crate::model::handoff::handoff_doc::compose`.

use std::io;
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::env::Env;
use crate::model::handoff::entry::HandoffKind;
use crate::model::handoff::handoff_doc::{self, AgentNotes, HandoffInputs, OpenSignal, Trigger};
use crate::model::handoff::signal::SignalParse;
use crate::model::outcome::Outcome;
use crate::model::session::level::Level;
use crate::model::session::state::{ResumeOrigin, SessionBridge};
use crate::model::session::transcript::{
    TailScan, TranscriptFacts, infer_window, pct_of, round_pct,
};
use crate::store::{self, Paths, files, transcript};

/// How many commit subjects a handoff lists.
const COMMITS: usize = 5;
/// How many `-N` suffixes are tried for handoffs written in the same second.
const MAX_SAME_SECOND: u32 = 100;

/// What to write.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'a> {
    /// Why.
    pub(crate) trigger: Trigger,
    /// The session; `None` takes the most recently updated session bridge, and
    /// `Some("")` means no session at all (a transcript given by a path that names
    /// none).
    pub(crate) session_id: Option<&'a str>,
    /// A transcript path known to the caller (a hook payload); else the bridge's.
    pub(crate) transcript_path: Option<&'a str>,
    /// Git facts: computed here, or already tried by the caller.
    pub(crate) git: GitInput<'a>,
    /// The task the session was given, when the caller knows it better than the
    /// transcript's last request (`forge run`'s chain task).
    pub(crate) task: Option<&'a str>,
    /// Make it the pending resume (every handoff but the relay's own, which the next
    /// session of its chain gets in its prompt).
    pub(crate) pending: bool,
}

/// Where a handoff's git facts come from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum GitInput<'a> {
    /// Compute them (within the git deadline).
    Compute,
    /// The caller already asked git (PreCompact did): use its answer, which is `None`
    /// when git took too long — never a second try with a second deadline.
    Known(Option<&'a crate::git::GitFacts>),
}

/// Blocked and partial agent Signals that are still their task's state (no newer
/// Signal of the task supersedes them), newest first.
pub(crate) fn open_signals(paths: &Paths) -> Vec<OpenSignal> {
    crate::store::handoffs::repository(paths)
        .into_iter()
        .filter(|h| h.kind == HandoffKind::Agent && !h.is_superseded())
        .filter_map(|h| {
            let status = h.status_word().to_owned();
            if status != "blocked" && status != "partial" {
                return None;
            }
            let questions = h
                .signal
                .as_ref()
                .and_then(SignalParse::signal)
                .map(|s| s.open_questions.clone())
                .unwrap_or_default();
            let here = h.path.parent() == Some(paths.handoffs().as_path());
            Some(OpenSignal {
                task: h.task().map(str::to_owned),
                route: h.route(),
                file_name: if here {
                    h.file_name
                } else {
                    h.path.display().to_string()
                },
                status,
                questions,
            })
        })
        .collect()
}

/// Keeps only the files of `list` that are inside the project (the root as given
/// or its canonical form) and are not folders (Grep and Glob record the folder they
/// searched), as absolute paths under `root`. A file read outside the project (say
/// `~/.ssh/id_rsa`) must not appear in a handoff at all.
fn project_files(root: &Path, canonical: Option<&Path>, list: Vec<String>) -> Vec<String> {
    list.into_iter()
        .filter_map(|p| {
            let path = Path::new(&p);
            let rel = if path.is_absolute() {
                path.strip_prefix(root)
                    .ok()
                    .or_else(|| canonical.and_then(|c| path.strip_prefix(c).ok()))?
            } else {
                path
            };
            // The pure rule (inside, not the root, no `..` or `~`) first, then the disk.
            handoff_doc::project_path(root, &rel.to_string_lossy())?;
            let full = root.join(rel);
            (!full.is_dir()).then(|| full.to_string_lossy().into_owned())
        })
        .collect()
}

/// [`project_files`] over the touched and read lists of `facts`.
fn keep_project_files(root: &Path, mut facts: TranscriptFacts) -> TranscriptFacts {
    let canonical = std::fs::canonicalize(root).ok();
    let canonical = canonical.as_deref().filter(|c| *c != root);
    facts.touched = project_files(root, canonical, std::mem::take(&mut facts.touched));
    facts.read = project_files(root, canonical, std::mem::take(&mut facts.read));
    let since = std::mem::take(&mut facts.story.since.files);
    facts.story.since.files = project_files(root, canonical, since);
    facts
}

/// Whether `path` is where Claude Code keeps transcripts: a `.jsonl` file under
/// `<claude dir>/projects/`, with no `..` in the path.
pub(crate) fn is_claude_transcript(env: &Env, path: &Path) -> bool {
    use std::path::Component;
    let Some(projects) = env.claude_dir().map(|d| d.join("projects")) else {
        return false;
    };
    path.extension().is_some_and(|e| e == "jsonl")
        && !path.components().any(|c| c == Component::ParentDir)
        && (path.starts_with(&projects)
            || std::fs::canonicalize(&projects).is_ok_and(|real| path.starts_with(real)))
}

/// Writes `text` as a new `handoff-<stamp>[-N].md`, never replacing an existing one.
pub(crate) fn write_unique(
    paths: &Paths,
    created_at: chrono::DateTime<chrono::Utc>,
    text: &str,
) -> io::Result<PathBuf> {
    let mut last_err = None;
    for n in 1..=MAX_SAME_SECOND {
        let path = paths.handoffs().join(handoff_doc::file_name(created_at, n));
        match store::write_new_atomic(&path, text.as_bytes()) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_err = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last_err.unwrap_or_else(|| io::Error::other("no free handoff file name")))
}

/// What [`write_detailed`] did, for a caller that reports each part truthfully.
#[derive(Debug)]
pub(crate) struct Written {
    /// The handoff document (absolute path). It exists whatever `markers` says.
    pub(crate) path: PathBuf,
    /// The session it was written for.
    pub(crate) session_id: Option<String>,
    /// Making it the pending resume: the markers written (with a global marker that
    /// could not be), or why the project's marker could not be written.
    pub(crate) markers: io::Result<files::Markers>,
}

impl Written {
    /// What writing it did, for the event log: the handoff (pending or not), and an
    /// error for each marker that could not be written.
    pub(crate) fn outcomes(&self, trigger: Trigger) -> Vec<Outcome> {
        let mut out = vec![Outcome::HandoffWritten {
            path: self.path.display().to_string(),
            trigger: trigger.as_str().to_owned(),
            pending: self.markers.as_ref().is_ok_and(|m| !m.written.is_empty()),
        }];
        match &self.markers {
            Ok(m) => out.extend(m.global_error.as_ref().map(|(g, e)| Outcome::Error {
                what: "pending-resume".to_owned(),
                message: format!("could not write {}: {e}", g.display()),
            })),
            Err(e) => out.push(Outcome::Error {
                what: "pending-resume".to_owned(),
                message: format!(
                    "the handoff is not pending: writing .forge/pending-resume failed: {e}"
                ),
            }),
        }
        out
    }
}

/// [`write_detailed`] for callers that only log: `Err` when the handoff or the
/// project's marker could not be written (the message says which, and that the
/// handoff exists when it does); a global marker that could not be written is
/// logged to `errors.log`, not an error (the project's marker resumes).
#[cfg(test)]
pub(crate) fn write(
    paths: &Paths,
    env: &Env,
    cfg: &Config,
    req: &Request<'_>,
) -> io::Result<PathBuf> {
    let w = write_detailed(paths, env, cfg, req)?;
    match w.markers {
        Ok(m) => {
            if let Some((global, e)) = m.global_error {
                store::log_error(
                    paths,
                    "handoff",
                    &format!("could not write {}: {e}", global.display()),
                );
            }
            Ok(w.path)
        }
        Err(e) => Err(io::Error::new(
            e.kind(),
            format!(
                "the handoff was written to {}, but it is not pending: writing {} failed: {e}",
                w.path.display(),
                paths.pending_resume().display()
            ),
        )),
    }
}

/// Gathers everything, writes the handoff, records `handoff_written_at` in the
/// session's bridge and makes it the pending resume (project and global markers).
/// `Err` only when the handoff itself could not be written; what happened to the
/// markers is in [`Written::markers`].
pub(crate) fn write_detailed(
    paths: &Paths,
    env: &Env,
    cfg: &Config,
    req: &Request<'_>,
) -> io::Result<Written> {
    write_with_notes(paths, env, cfg, req, &AgentNotes::default())
}

/// [`write_detailed`] with the session agent's own decisions, next steps and notes
/// added to forge's facts (the `handoff` tool of `forge mcp`).
pub(crate) fn write_with_notes(
    paths: &Paths,
    env: &Env,
    cfg: &Config,
    req: &Request<'_>,
    notes: &AgentNotes,
) -> io::Result<Written> {
    write_inner(paths, env, cfg, req, notes, Bridge::Read)
}

/// [`write_detailed`] for a hook that has read the session's bridge already
/// (`bridge`, for `req.session_id`) and writes it once itself: the bridge is not
/// read again, and `handoff_written_at` is left for the caller to record (now,
/// when this returns `Ok`).
pub(crate) fn write_with_bridge(
    paths: &Paths,
    env: &Env,
    cfg: &Config,
    req: &Request<'_>,
    bridge: Option<&SessionBridge>,
) -> io::Result<Written> {
    write_inner(
        paths,
        env,
        cfg,
        req,
        &AgentNotes::default(),
        Bridge::Known(bridge),
    )
}

/// Where the session's bridge comes from, and who records the handoff in it.
enum Bridge<'a> {
    /// Read here, and `handoff_written_at` written here.
    Read,
    /// The caller's, which records `handoff_written_at` itself.
    Known(Option<&'a SessionBridge>),
}

/// Gathers (the bridge, the transcript, git, the inbox), composes, writes the
/// handoff, then records it in the bridge and makes it pending as `req` and `source`
/// say.
fn write_inner(
    paths: &Paths,
    env: &Env,
    cfg: &Config,
    req: &Request<'_>,
    notes: &AgentNotes,
    source: Bridge<'_>,
) -> io::Result<Written> {
    if let Err(why) = paths.is_project(env.home.as_deref()) {
        return Err(io::Error::other(why.explain(&paths.root)));
    }
    paths.ensure_dirs()?;
    let now = env.now;
    let records = matches!(source, Bridge::Read);
    let bridge = session_bridge(paths, source, req.session_id);
    let session_id = req
        .session_id
        .map(str::to_owned)
        .or_else(|| bridge.as_ref().map(|b| b.session_id.clone()))
        .filter(|s| !s.is_empty());
    let transcript_path = transcript_path(env, req, bridge.as_ref());
    let (mut facts, cut, problem) = transcript_facts(paths, transcript_path.as_deref());
    if let (Some(f), Some(sid)) = (facts.as_mut(), session_id.as_deref()) {
        offer_post_compact_summary(paths, sid, f);
    }
    let context = Context::of(bridge.as_ref(), transcript_path.as_deref());
    let git = git_facts(paths, req.git);
    let inputs = HandoffInputs {
        root: &paths.root,
        created_at: now,
        session_id: session_id.clone(),
        trigger: req.trigger,
        context_pct: context.pct,
        level: context
            .pct
            .map(|p| Level::from_pct(p, &cfg.context.thresholds())),
        tokens: context.tokens,
        window: context.window,
        threshold: cfg.context.handoff_threshold,
        transcript_path,
        transcript: facts,
        transcript_cut: cut,
        transcript_problem: problem,
        branch: git.as_ref().map(|g| g.branch.clone()),
        uncommitted: git.as_ref().map(|g| g.uncommitted),
        changed_files: git.as_ref().map(|g| g.changed.clone()).unwrap_or_default(),
        recent_commits: crate::git::recent_commits(&paths.root, COMMITS),
        workflow: files::read_workflow(paths),
        signals: open_signals(paths),
        has_claude_md: paths.root.join("CLAUDE.md").is_file(),
        // Not a link planted in .forge/: the Reload section tells Claude to read it.
        has_state_json: store::safe::is_regular(&paths.state_json()),
        notes: notes.clone(),
        task: req.task.map(str::to_owned),
        budget: cfg.handoffs.max_bytes,
    };
    let text = handoff_doc::compose(&inputs);
    let path = write_unique(paths, now, &text)?;
    let path = std::path::absolute(&path).unwrap_or(path);
    if let Some(sid) = session_id.as_ref().filter(|_| records) {
        // The status line marks a threshold handoff (its own) once: `✎ handoff`.
        let mark = (req.trigger == Trigger::ContextThreshold)
            .then(|| path.file_name().map(|n| n.to_string_lossy().into_owned()))
            .flatten();
        record_in_bridge(paths, sid, now, mark);
    }
    let markers = if req.pending {
        make_pending(paths, env, &path, req.trigger)
    } else {
        Ok(files::Markers {
            written: Vec::new(),
            global_error: None,
        })
    };
    Ok(Written {
        path,
        session_id,
        markers,
    })
}

/// The session's bridge: the caller's, the one `session_id` names, none for
/// `Some("")`, or the most recently updated one.
fn session_bridge(
    paths: &Paths,
    source: Bridge<'_>,
    session_id: Option<&str>,
) -> Option<SessionBridge> {
    match (source, session_id) {
        (Bridge::Known(b), _) => b.cloned(),
        (Bridge::Read, Some("")) => None,
        (Bridge::Read, Some(id)) => files::read_bridge(paths, id),
        (Bridge::Read, None) => store::sessions::latest_bridge(paths),
    }
}

/// The transcript to read: the caller's, else the bridge's when it is one of Claude
/// Code's own.
fn transcript_path(env: &Env, req: &Request<'_>, bridge: Option<&SessionBridge>) -> Option<String> {
    req.transcript_path
        .filter(|p| !p.trim().is_empty())
        .map(str::to_owned)
        .or_else(|| {
            // A bridge file is a file in the project folder, which a cloned repository
            // can ship: the transcript it names is read only when it is one of Claude
            // Code's own (a `.jsonl` under `<claude dir>/projects/`), so a planted
            // bridge cannot pull another file's text into a handoff.
            bridge
                .and_then(|b| b.transcript_path.clone())
                .filter(|p| is_claude_transcript(env, Path::new(p)))
        })
}

/// The transcript's facts (its files kept to the project's), where the read was cut,
/// or why there are none.
fn transcript_facts(
    paths: &Paths,
    transcript_path: Option<&str>,
) -> (Option<TranscriptFacts>, Option<u64>, Option<String>) {
    let Some(p) = transcript_path else {
        return (
            None,
            None,
            Some("no transcript path known for this session".to_owned()),
        );
    };
    match transcript::read_facts(Path::new(p)) {
        Ok((f, cut)) => (
            Some(keep_project_files(&paths.root, f)),
            cut.then_some(transcript::FACTS_CAP),
            None,
        ),
        Err(e) => (None, None, Some(format!("{p}: {e}"))),
    }
}

/// The summary PostCompact kept for the session (`logs/sessions/<id>.summary.json`),
/// offered to the story when it is of the transcript's latest compaction (received
/// after it) and newer than the transcript's own summary record.
fn offer_post_compact_summary(paths: &Paths, sid: &str, facts: &mut TranscriptFacts) {
    let Some(kept) = store::read_json::<serde_json::Value>(&paths.compact_summary(sid)) else {
        return;
    };
    let text = kept.get("summary").and_then(serde_json::Value::as_str);
    let at = kept
        .get("received_at")
        .and_then(serde_json::Value::as_str)
        .and_then(crate::model::time::parse_iso);
    let compacted = facts
        .story
        .compacted_at
        .as_deref()
        .and_then(crate::model::time::parse_iso);
    let (Some(text), Some(at), Some(compacted)) = (text, at, compacted) else {
        return;
    };
    if at + chrono::Duration::minutes(1) < compacted {
        return;
    }
    facts
        .story
        .offer_summary(crate::model::session::story::ClientSummary {
            text: text.to_owned(),
            at: Some(crate::model::time::iso(at)),
            source: "post-compact",
        });
}

/// How full the context was: the bridge's figures, else the transcript's last usage.
struct Context {
    pct: Option<f64>,
    tokens: Option<u64>,
    window: Option<u64>,
}

impl Context {
    fn of(bridge: Option<&SessionBridge>, transcript_path: Option<&str>) -> Self {
        // Rounded as the statusline rounds it (a bridge written by an older forge may
        // hold a fraction), so the figure and the level agree.
        let mut c = Self {
            pct: bridge.and_then(|b| b.used_percentage).map(round_pct),
            tokens: bridge.and_then(|b| b.tokens),
            window: bridge.and_then(|b| b.context_window_size),
        };
        if c.pct.is_some() {
            return c;
        }
        let Some(p) = transcript_path else { return c };
        let scan = transcript::tail_context(Path::new(p));
        if let Some(t) = scan.tokens() {
            let model = match &scan {
                TailScan::Usage { model, .. } => model.clone(),
                _ => None,
            };
            let w = infer_window(c.window, model.as_deref(), Some(t));
            c.pct = Some(pct_of(t, w));
            c.tokens = Some(t);
            c.window = Some(w);
        }
        c
    }
}

/// The git facts: the caller's answer, or asked now within the git deadline (a
/// failure logged, and the handoff written without them).
fn git_facts(paths: &Paths, git: GitInput<'_>) -> Option<crate::git::GitFacts> {
    match git {
        GitInput::Known(g) => g.cloned(),
        GitInput::Compute => crate::git::start_facts(&paths.root, crate::git::GIT_DEADLINE)
            .wait_checked()
            .unwrap_or_else(|why| {
                store::log_error(paths, "git", &why.to_string());
                None
            }),
    }
}

/// `handoff_written_at` in the session's bridge, and the status line's one-tick
/// `mark` for a threshold handoff. The handoff exists: a bridge that cannot be
/// updated (a busy lock, a full disk) only means PreCompact may write a second one
/// (and the line shows no mark). Logged, not fatal.
fn record_in_bridge(
    paths: &Paths,
    sid: &str,
    now: chrono::DateTime<chrono::Utc>,
    mark: Option<String>,
) {
    let at = crate::model::time::iso(now);
    if let Err(e) = files::update_bridge(paths, sid, now, |b| {
        b.handoff_written_at = Some(at);
        if mark.is_some() {
            b.handoff_mark = mark;
        }
        true
    }) {
        store::log_error(paths, "handoff", &format!("session bridge: {e}"));
    }
}

/// Makes `path` the pending resume. A handoff a person asked for is theirs to
/// resume; the automatic ones (the threshold, PreCompact) follow the [resume] policy.
fn make_pending(
    paths: &Paths,
    env: &Env,
    path: &Path,
    trigger: Trigger,
) -> io::Result<files::Markers> {
    let origin = if trigger == Trigger::Manual {
        ResumeOrigin::Chosen
    } else {
        ResumeOrigin::Auto
    };
    files::write_pending_resume(paths, env, path, origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_second_handoffs_get_suffixes() {
        let t = tempfile::tempdir().unwrap();
        let paths = Paths::new(t.path());
        let now = chrono::Utc::now();
        let a = write_unique(&paths, now, "a").unwrap();
        let b = write_unique(&paths, now, "b").unwrap();
        let c = write_unique(&paths, now, "c").unwrap();
        assert_ne!(a, b);
        assert!(b.to_string_lossy().ends_with("-2.md"), "{}", b.display());
        assert!(c.to_string_lossy().ends_with("-3.md"), "{}", c.display());
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "b");
    }

    #[test]
    fn writes_doc_bridge_and_markers_without_git_or_transcript() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        std::fs::create_dir_all(&root).unwrap();
        let env = Env::for_test(&t.path().join("home"), &root);
        let paths = Paths::new(&root);
        files::update_bridge(&paths, "s1", env.now, |b| {
            b.used_percentage = Some(74.0);
            true
        })
        .unwrap();
        let req = Request {
            git: GitInput::Compute,
            trigger: Trigger::Manual,
            session_id: None,
            transcript_path: None,
            task: None,
            pending: true,
        };
        let path = write(&paths, &env, &Config::default(), &req).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("session_id: s1\n"), "{text}");
        assert!(text.contains("context_used_pct: 74\nlevel: L1\n"), "{text}");
        assert_eq!(
            files::read_marker(&paths.pending_resume()),
            Some(path.clone())
        );
        assert_eq!(
            files::read_marker(&env.global_pending_resume().unwrap()),
            Some(path)
        );
        let b = files::read_bridge(&paths, "s1").unwrap();
        assert!(b.handoff_written_at.is_some());
    }
}
