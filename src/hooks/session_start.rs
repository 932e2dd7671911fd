//! SessionStart: orient the new (or compacted, or resumed) session in a few lines
//! within Claude Code's budget, and consume the pending resume exactly once.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::compaction::reread_files;
use super::dispatch::{Ctx, HookResult};
use super::text::{BODY_LINE_MAX, LINE_MAX, clip_line, clip_lines, cut_lines, units};
use crate::app::snapshot::load_for_session_start;
use crate::model::handoff::entry::Drift;
use crate::model::outcome::Outcome;
use crate::model::session::state::{
    Attention, LastSession, ResumeDecision, ResumeOrigin, resume_decision,
};
use crate::model::snapshot::Snapshot;
use crate::model::text::redact::redact;
use crate::model::text::sanitize::single_line;
use crate::store::{self, files, handoffs};

/// SessionStart output stays under Claude Code's 10,000-character cap. Counted in
/// UTF-16 code units (a JavaScript string's length, which is what the client
/// measures), never fewer than the characters: every part counts, the whole output
/// is cut to this at the end whatever the files hold.
pub const SESSION_START_BUDGET: usize = 9_500;
/// How long SessionStart waits for the pending-resume lock. Only racing session
/// starts of one project hold it, each for a read and two unlinks.
const RESUME_LOCK_WAIT: std::time::Duration = std::time::Duration::from_millis(200);
/// Of that, at most this much for the last-session line, learn notice and re-read list.
const HEAD_BUDGET: usize = 1_500;
/// And at most this much for blocked Signals, so a resumed handoff always has room.
const BLOCKED_BUDGET: usize = 2_500;
/// And at most this much for what the user's `[[on_session_start]]` commands print.
const USER_HOOKS_BUDGET: usize = 2_000;
/// Per-session files untouched for this long are removed when a new session starts.
const SESSION_RETENTION: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

impl Ctx<'_> {
    pub(super) fn session_start(&self, source: Option<&str>) -> HookResult {
        let (mut snap, git) = load_for_session_start(&self.paths, self.env.now);
        let compacted = source == Some("compact");
        let mut head = String::new();

        // After a compaction the session goes on: it is not a new session, so the
        // "last session" is itself and the learn flag waits for a real start.
        if !compacted {
            if let Some(last) = &snap.last_session {
                // The record may be of a turn of another session still running here
                // (two terminals): then it is live, not "the last session".
                if self.other_session_live(last) {
                    let _ = writeln!(head, "{}", live_session_line(last));
                    if last.uncommitted_changes > 0 {
                        head.push_str(
                            "Its uncommitted changes may be work in progress: \
                             leave them to it unless asked.\n",
                        );
                    }
                } else {
                    let _ = writeln!(head, "{}", last_session_line(last));
                    if let Some(line) = ended_dirty_line(last) {
                        head.push_str(&line);
                    }
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
            let count = files::prune_sessions(&self.paths, SESSION_RETENTION, self.session_id());
            if count > 0 {
                self.record(Outcome::Pruned { count });
            }
            // Handoff retention, when the config asks for it.
            let cfg = self.config();
            if cfg.handoffs.auto_prune {
                let r = crate::app::prune::prune(
                    &self.paths,
                    self.env,
                    cfg.handoffs.older_than(),
                    cfg.handoffs.keep,
                    false,
                );
                if !r.removed.is_empty() {
                    self.record(Outcome::HandoffsPruned {
                        count: r.removed.len(),
                    });
                }
                for (path, e) in r.errors {
                    self.fail("handoff prune", &format!("{}: {e}", path.display()));
                }
            }
            // And the temp files a killed write of the global marker left behind.
            if let Some(dir) = self.env.claude_dir() {
                let _ = files::prune_temp_files(&dir);
            }
            // The flag lasts until learning is done (`forge learn done`, or a
            // learned-*.md newer than it); the notice is shown while it lasts.
            let mut learn_pending = snap.flags.learn_pending;
            if learn_pending && crate::app::learn::learned_after_flag(&self.paths, self.env) {
                learn_pending = false;
                if store::remove_if_exists(&self.paths.learn_pending()).unwrap_or(false) {
                    self.record(Outcome::FlagCleared {
                        flag: "learn-pending".to_owned(),
                        why: "a learned-*.md was written after it was set".to_owned(),
                    });
                }
            }
            if learn_pending && self.config().learn.nudge {
                head.push_str(
                    "Learn: an earlier session changed files and nothing was learned from it yet. \
                     Run /forge-learn to save reusable patterns (never credentials or file contents).\n",
                );
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
            _ => {
                if files::clear_threshold_flag(&self.paths) {
                    self.record(Outcome::FlagCleared {
                        flag: "context-threshold-triggered".to_owned(),
                        why: "a new session starts below the threshold".to_owned(),
                    });
                }
            }
        }
        if compacted {
            let files_to_read = self.record_compaction(&snap).unwrap_or_else(|e| {
                self.fail("SessionStart compaction", &e.to_string());
                reread_files(&self.paths, self.session_id(), None)
            });
            if !files_to_read.is_empty() {
                let _ = writeln!(
                    head,
                    "Context was compacted. Re-read before continuing: {}.",
                    files_to_read.join(", ")
                );
            }
        }
        // Redacted before anything is cut (a cut could leave half a key that no
        // rule knows), as every part below: the text is made of redacted parts and
        // forge's own words.
        let head = cut_lines(&clip_lines(&redact(&head), LINE_MAX), HEAD_BUDGET, "");

        let blocked = blocked_text(&snap, BLOCKED_BUDGET);
        if !blocked.tasks.is_empty() {
            self.record(Outcome::SignalsSurfaced {
                tasks: blocked.tasks,
            });
        }
        let blocked = blocked.text;

        // A new session takes whatever is pending; a session that goes on (compact,
        // resume) only its own handoff, never another session's. Taken before the
        // user's commands run, since their payload says whose work this session
        // continues.
        let own_only = matches!(source, Some("compact" | "resume"));
        let take = self.take_pending_resume(own_only);
        let cfg = self.config();
        let taken = match &take {
            Some(Take::Taken(target, origin)) => {
                let entry = handoffs::load_one(target);
                let age = entry
                    .as_ref()
                    .and_then(|h| h.created)
                    .map(|c| self.env.now - c);
                let decision = resume_decision(*origin, age, cfg.resume.auto, cfg.resume.max_age());
                let owner = entry
                    .as_ref()
                    .and_then(|h| h.front.get("session_id").map(str::to_owned))
                    .filter(|o| !o.trim().is_empty());
                Some((target.clone(), age, decision, owner))
            }
            _ => None,
        };
        // The session whose handoff this one resumes (its text is injected below).
        let resumed = taken
            .as_ref()
            .filter(|(t, _, d, _)| *d == ResumeDecision::Inject && safe_exists(t))
            .map(|(_, _, _, owner)| owner.clone());
        let lineage = self.lineage(source, resumed.as_ref());

        // The user's own commands run before the resume is read, so their output
        // keeps its room whatever the handoff holds.
        let user_text = self.run_start_hooks(source, &lineage);

        let mut out = head;
        out.push_str(&blocked);
        // Only the resumed handoff's drift and the session's baseline need git: its
        // scan ran while the rest was read.
        let refused;
        (snap.git, refused) = crate::git::finish_refresh_checked(&self.paths, self.env.now, git);
        if let Some(why) = refused {
            self.fail("git", &why.to_string());
        }
        match (take, taken) {
            (Some(Take::Taken(..)), Some((target, age, decision, _))) => {
                let room = SESSION_START_BUDGET.saturating_sub(units(&out) + units(&user_text));
                let path = target.display().to_string();
                if decision == ResumeDecision::Name {
                    // An old automatic handoff is rarely what a new session is about:
                    // one line names it, and the person decides.
                    let name = target
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let line = waiting_line(age, &name);
                    out.push_str(&clip_line(&line, LINE_MAX));
                    self.record(Outcome::ResumeSkipped {
                        path,
                        why: if cfg.resume.auto == crate::model::session::state::ResumeAuto::Never {
                            "automatic, and [resume] auto = \"never\": named, not loaded".to_owned()
                        } else {
                            format!(
                                "automatic, and older than [resume] max_age ({}): named, not loaded",
                                cfg.resume.max_age
                            )
                        },
                    });
                } else {
                    match resume_text(&target, &snap, self.env.now, room) {
                        Ok(text) => {
                            out.push_str(&text);
                            self.record(Outcome::ResumeInjected { path });
                        }
                        Err(text) => {
                            out.push_str(&text);
                            self.record(Outcome::ResumeSkipped {
                                path,
                                why: "the handoff no longer exists".to_owned(),
                            });
                        }
                    }
                }
            }
            (Some(Take::Left { target, why }), _) => self.record(Outcome::ResumeSkipped {
                path: target.display().to_string(),
                why: why.to_owned(),
            }),
            _ => {}
        }
        out.push_str(&user_text);
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
        // The uncommitted count as the session found it (a resumed session keeps its
        // own): the dirty-tree warning is about what grows past it, not about what was
        // there before (forge init's own edits).
        let dirty = snap.git.as_ref().map(|g| g.uncommitted_changes);
        self.touch_bridge_and("SessionStart", Some(attention), None, |b| {
            if b.dirty_at_start.is_none() {
                b.dirty_at_start = dirty;
            }
            b.chain_handoffs = Some(lineage.handoff_count as u64);
        });
        if !out.is_empty() {
            self.record(Outcome::ContextAdded {
                chars: out.chars().count(),
            });
        }
        Ok(out)
    }

    /// Whose work this session continues, as herdctl's payload says it: a
    /// continuation of `forge run`'s chain (its variables), of the session whose
    /// handoff it resumed (`resumed`: that handoff's session, when it names one), or
    /// of itself (compact, resume); else a fresh start. `handoff_count` is the
    /// handoffs of that line of sessions: 0 for a fresh one, one more than the
    /// resumed session's, the session's own after a compaction.
    fn lineage(&self, source: Option<&str>, resumed: Option<&Option<String>>) -> Lineage {
        let own = |sid: Option<&str>| {
            sid.and_then(|s| files::read_bridge(&self.paths, s))
                .and_then(|b| b.chain_handoffs)
                .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
        };
        if let Some(r) = &self.env.relay {
            return Lineage {
                is_continuation: true,
                previous_session_id: r.previous_session_id.clone(),
                handoff_count: r.handoff_count,
            };
        }
        if let Some(owner) = resumed {
            let previous = owner
                .clone()
                .filter(|o| Some(o.as_str()) != self.session_id());
            return Lineage {
                is_continuation: true,
                handoff_count: own(previous.as_deref()).saturating_add(1),
                previous_session_id: previous,
            };
        }
        if matches!(source, Some("compact" | "resume")) {
            return Lineage {
                is_continuation: true,
                previous_session_id: None,
                handoff_count: own(self.session_id()),
            };
        }
        Lineage {
            is_continuation: false,
            previous_session_id: None,
            handoff_count: 0,
        }
    }

    /// Runs the user's `[[on_session_start]]` commands (from their own config only)
    /// with herdctl's session_start payload, one after the other, and returns what
    /// they printed: redacted, one clean line at a time, within [`USER_HOOKS_BUDGET`].
    fn run_start_hooks(&self, source: Option<&str>, lineage: &Lineage) -> String {
        let cfg = self.config();
        if cfg.on_session_start.is_empty() {
            return String::new();
        }
        let facts = crate::model::agents::user_hooks::StartFacts {
            session_id: self.session_id().map(str::to_owned),
            agent_name: self.env.agent_name(),
            working_directory: self.paths.root.display().to_string(),
            // The project root stops at the git work tree's root (issue 6 of 11).
            worktree_path: std::fs::symlink_metadata(self.paths.root.join(".git"))
                .is_ok()
                .then(|| self.paths.root.display().to_string()),
            is_continuation: lineage.is_continuation,
            previous_session_id: lineage.previous_session_id.clone(),
            handoff_count: lineage.handoff_count,
            source: source.map(str::to_owned),
            relay_chain: self.env.relay.as_ref().map(|r| r.chain.clone()),
        };
        let payload = crate::model::agents::user_hooks::start_payload(&facts);
        let mut text = String::new();
        for hook in &cfg.on_session_start {
            let ran = crate::app::user_hooks::run(
                self.env,
                "on_session_start",
                hook,
                &payload,
                &self.paths.root,
            );
            self.record(ran.outcome);
            // Redacted whole (a key over several lines), then line by line.
            for line in redact(&ran.stdout.unwrap_or_default()).lines() {
                let _ = writeln!(text, "{}", single_line(line).trim_end());
            }
        }
        cut_lines(
            &clip_lines(&text, LINE_MAX),
            USER_HOOKS_BUDGET,
            "[forge: your on_session_start output was cut]\n",
        )
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
    ///
    /// `None` when nothing is pending.
    fn take_pending_resume(&self, own_only: bool) -> Option<Take> {
        // A session of `forge run` has its task in its prompt: a pending resume is
        // for the person's next interactive session.
        if self.env.relay_stop.is_some() {
            let (_, target) = files::pending_resume(&self.paths, self.env)?;
            return Some(Take::Left {
                target,
                why: "this session is one of `forge run`'s, whose prompt carries its task: \
                      left pending for your next interactive session",
            });
        }
        let lock = self.paths.logs().join(".resume.lock");
        let Some(_lock) = store::FileLock::acquire(&lock, RESUME_LOCK_WAIT) else {
            let (_, target) = files::pending_resume(&self.paths, self.env)?;
            return Some(Take::Left {
                target,
                why: TAKEN_BY_ANOTHER,
            });
        };
        let (marker, target) = files::pending_resume(&self.paths, self.env)?;
        if own_only {
            let owner = handoffs::load_one(&target)
                .and_then(|h| h.front.get("session_id").map(str::to_owned));
            if owner.is_some_and(|o| !o.is_empty() && Some(o.as_str()) != self.session_id()) {
                return Some(Take::Left {
                    target,
                    why: "it was written for another session, and this one goes on \
                          (resumed or compacted): left pending for a new session",
                });
            }
        }
        let origin =
            files::read_marker_with_origin(&marker).map_or(ResumeOrigin::Chosen, |(_, o)| o);
        if !store::remove_if_exists(&marker).unwrap_or(false) {
            return Some(Take::Left {
                target,
                why: TAKEN_BY_ANOTHER,
            });
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
        Some(Take::Taken(target, origin))
    }
}

/// Whose work a starting session continues (see `Ctx::lineage`).
struct Lineage {
    is_continuation: bool,
    previous_session_id: Option<String>,
    handoff_count: usize,
}

/// Whether a handoff file is still there to be injected.
fn safe_exists(path: &Path) -> bool {
    crate::store::safe::is_regular(path)
}

impl Ctx<'_> {
    /// Whether `last` records a turn of another session that is still live (its one
    /// bridge read: the summary loads no bridges). A record of this very session
    /// (resumed) is its own past, never "another session".
    fn other_session_live(&self, last: &LastSession) -> bool {
        let Some(id) = last.session_id.as_deref() else {
            return false;
        };
        if Some(id) == self.session_id() || last.is_final {
            return false;
        }
        let mut bridge = files::read_bridge(&self.paths, id);
        // A session whose client process is gone (kill -9) ran no SessionEnd: it
        // is not live, as in every other view.
        if let Some(b) = bridge.as_mut() {
            b.end_if_client_gone(crate::store::process::is_gone);
        }
        crate::model::snapshot::live_last_session(
            last,
            bridge.as_ref(),
            self.env.now,
            self.config().attention.stale_after(),
        )
        .is_some()
    }
}

/// What became of the pending resume.
enum Take {
    /// This session took it (the markers are gone), and who had made it pending.
    Taken(PathBuf, ResumeOrigin),
    /// It stays pending, or went to another session, for this reason.
    Left { target: PathBuf, why: &'static str },
}

/// Why a session start did not take a pending resume another one was taking.
const TAKEN_BY_ANOTHER: &str = "another session starting at the same moment took it";

/// `Last session: <ended_at> · branch <b> · <n> uncommitted`, the time as stored
/// (ISO 8601 UTC, docs/design.md#times); what people read says it
/// as an age and a local time ([`LastSession::ended_words`]).
fn last_session_line(last: &LastSession) -> String {
    format!(
        "Last session: {} · branch {} · {} uncommitted",
        last.ended_at,
        last.branch.as_deref().unwrap_or("(none)"),
        last.uncommitted_changes
    )
}

/// The record of another session still running in the project: `Another session is
/// live here (3f0c2a9e), its last turn ended <ended_at> · branch <b> · <n>
/// uncommitted`, the time as stored.
fn live_session_line(last: &LastSession) -> String {
    format!(
        "Another session is live in this project ({}), its last turn ended {} · branch {} · {} uncommitted",
        crate::model::text::sanitize::short_id(last.session_id.as_deref().unwrap_or("?")),
        last.ended_at,
        last.branch.as_deref().unwrap_or("(none)"),
        last.uncommitted_changes
    )
}

/// The unresolved blocked Signals as SessionStart lists them: every one, newest
/// first, each with its open questions, as many as fit in `budget`, then a line with
/// how many more there are.
struct BlockedText {
    text: String,
    /// The tasks listed.
    tasks: Vec<String>,
}

fn blocked_text(snap: &Snapshot, budget: usize) -> BlockedText {
    let all: Vec<_> = snap.blocked().collect();
    let mut out = BlockedText {
        text: String::new(),
        tasks: Vec::new(),
    };
    // Room for the "and N more" line, whatever N is.
    let more = |n: usize| {
        format!(
            "… and {n} more blocked Signal{}: run `forge status` to see them all.\n",
            if n == 1 { "" } else { "s" }
        )
    };
    let reserve = units(&more(all.len()));
    for (i, h) in all.iter().enumerate() {
        let lines = clip_lines(&redact(&blocked_lines(h)), LINE_MAX).into_owned();
        let last = i + 1 == all.len();
        let room = if last {
            budget
        } else {
            budget.saturating_sub(reserve)
        };
        if units(&out.text) + units(&lines) > room {
            if out.tasks.is_empty() {
                // Not even the first fits whole: its first lines, then the count.
                out.text = cut_lines(&lines, budget.saturating_sub(reserve), "");
                out.tasks.push(h.task().unwrap_or("?").to_owned());
                if all.len() > 1 {
                    out.text.push_str(&more(all.len() - 1));
                }
            } else {
                out.text.push_str(&more(all.len() - i));
            }
            break;
        }
        out.text.push_str(&lines);
        out.tasks.push(h.task().unwrap_or("?").to_owned());
    }
    out
}

fn blocked_lines(h: &crate::model::handoff::entry::HandoffEntry) -> String {
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
        .and_then(crate::model::handoff::signal::SignalParse::signal)
    {
        for q in &s.open_questions {
            let _ = writeln!(out, "  Open question: {q}");
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
/// saying where the rest is. `Err` holds the line that says the handoff is gone.
fn resume_text(
    target: &Path,
    snap: &Snapshot,
    now: DateTime<Utc>,
    budget: usize,
) -> Result<String, String> {
    let shown = clip_line(&target.display().to_string(), LINE_MAX / 2);
    let (Some(entry), Some(text)) = (handoffs::load_one(target), store::read_text(target)) else {
        return Err(format!(
            "Pending resume pointed at {shown}, which no longer exists; nothing to resume.\n"
        ));
    };
    let mut out = format!("Resuming from handoff {shown}:\n");
    let drift = Drift::of(&entry, snap.branch(), snap.uncommitted(), now);
    for note in drift.notes() {
        let _ = writeln!(out, "{}", clip_line(&format!("Drift: {note}"), LINE_MAX));
    }
    let note = format!("[handoff cut to fit; read the rest in {shown}]\n");
    let room = budget.saturating_sub(units(&out));
    // A handoff forge wrote is redacted already; one an agent or a person wrote
    // may not be.
    let mut body = clip_lines(&redact(&text), BODY_LINE_MAX).into_owned();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    out.push_str(&cut_lines(&body, room, &note));
    Ok(cut_lines(&out, budget, ""))
}

/// The line naming an automatic handoff that is not loaded: `An automatic handoff
/// from 2 days ago is waiting, …` (`of unknown age` when its age is not known,
/// never "from an unknown time ago").
fn waiting_line(age: Option<chrono::Duration>, name: &str) -> String {
    let when = age.map_or_else(
        || "of unknown age".to_owned(),
        |d| format!("from {} ago", age_words(d)),
    );
    format!(
        "An automatic handoff {when} is waiting, not loaded: \
         `forge resume {}` makes the next session resume from it.\n",
        single_line(name)
    )
}

/// A duration as a person says it: `45 minutes`, `14 hours`, `2 days`.
fn age_words(d: chrono::Duration) -> String {
    let (n, unit) = if d.num_days() >= 2 {
        (d.num_days(), "day")
    } else if d.num_hours() >= 1 {
        (d.num_hours(), "hour")
    } else {
        (d.num_minutes().max(1), "minute")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unloaded_handoff_is_named_with_its_age_in_words() {
        let line = |age| waiting_line(age, "handoff-20261119-094500.md");
        assert!(
            line(Some(chrono::Duration::hours(50)))
                .starts_with("An automatic handoff from 2 days ago is waiting, not loaded: `forge resume handoff-20261119-094500.md`"),
        );
        assert!(
            line(Some(chrono::Duration::seconds(5)))
                .starts_with("An automatic handoff from 1 minute ago")
        );
        // Unknown: said so, not "from an unknown time ago".
        assert!(
            line(None).starts_with("An automatic handoff of unknown age is waiting"),
            "{}",
            line(None)
        );
    }
}
