//! SessionStart, decided: orient the new (or compacted, or resumed) session in a
//! few lines within Claude Code's budget.
//!
//! `crate::hooks::session_start` runs it in named steps, because two things in the
//! middle only I/O can do: taking the pending resume (exactly once however many
//! sessions start at once) and running the user's own commands (whose payload says
//! whose work the session continues, and whose output keeps its room). The pure
//! parts are here: [`tidy`] (what a new session clears up, what a compacted one
//! records), [`blocked`] (the Signals to surface), [`resume`] and [`lineage`] (what
//! the taken handoff means), [`user_hooks_text`], and [`compose`] (the text, the
//! outcomes and the bridge's change).

use std::fmt::Write as _;
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::bridge::{BridgeEdit, Touch};
use super::text::{BODY_LINE_MAX, LINE_MAX, clip_line, clip_lines, cut_lines, units};
use super::wire::WireHookInput;
use super::{Effect, LearnFlag, Plan, Session, Settings};
use crate::model::handoff::entry::{Drift, HandoffEntry};
use crate::model::outcome::Outcome;
use crate::model::session::state::{
    Attention, GitCache, LastSession, PreCompactState, ResumeAuto, ResumeDecision, ResumeOrigin,
    SessionBridge, resume_decision,
};
use crate::model::text::redact::redact;
use crate::model::text::sanitize::single_line;

/// SessionStart output stays under Claude Code's 10,000-character cap. Counted in
/// UTF-16 code units (a JavaScript string's length, which is what the client
/// measures), never fewer than the characters: every part counts, the whole output
/// is cut to this at the end whatever the files hold.
pub(crate) const SESSION_START_BUDGET: usize = 9_500;
/// Of that, at most this much for the last-session line, learn notice and re-read list.
const HEAD_BUDGET: usize = 1_500;
/// And at most this much for blocked Signals, so a resumed handoff always has room.
const BLOCKED_BUDGET: usize = 2_500;
/// And at most this much for what the user's `[[on_session_start]]` commands print.
const USER_HOOKS_BUDGET: usize = 2_000;
/// Per-session files untouched for this long are removed when a new session starts.
pub(crate) const SESSION_RETENTION: std::time::Duration =
    std::time::Duration::from_secs(7 * 24 * 3600);

/// Why a session start did not take a pending resume another one was taking.
pub(crate) const TAKEN_BY_ANOTHER: &str = "another session starting at the same moment took it";
/// Why a session of `forge run` leaves the pending resume alone.
pub(crate) const LEFT_FOR_INTERACTIVE: &str = "this session is one of `forge run`'s, whose prompt carries its task: \
     left pending for your next interactive session";
/// Why a session that goes on leaves another session's handoff pending.
pub(crate) const LEFT_FOR_NEW: &str = "it was written for another session, and this one goes on \
     (resumed or compacted): left pending for a new session";

/// What a SessionStart knows, gathered once (before the pending resume is taken).
#[derive(Debug, Clone, Default)]
pub(crate) struct StartFacts {
    /// The session and its bridge.
    pub(crate) session: Session,
    /// The config's say.
    pub(crate) settings: Settings,
    /// The payload's `source`: startup, resume, clear, compact.
    pub(crate) source: Option<String>,
    /// `logs/last-session.json`.
    pub(crate) last: Option<LastSession>,
    /// The bridge of the session `last` records, when that is another session's and
    /// not final (a session whose client process is gone already marked ended).
    pub(crate) last_bridge: Option<SessionBridge>,
    /// `logs/pre-compact-state.json` (a compacted session only).
    pub(crate) pre_compact: Option<PreCompactState>,
    /// The handoff inbox, newest first.
    pub(crate) handoffs: Vec<HandoffEntry>,
    /// The learn flag (a new session only).
    pub(crate) learn: LearnFlag,
    /// A compacted session: the files of its transcript to re-read (edited, then
    /// read, newest first; those that exist, relative inside the project).
    pub(crate) transcript_files: Vec<String>,
    /// `forge run`'s chain, when this session is one of its.
    pub(crate) relay: Option<Relay>,
}

impl StartFacts {
    /// The session goes on after a compaction (not a new session).
    pub(crate) fn compacted(&self) -> bool {
        self.source.as_deref() == Some("compact")
    }
}

/// Whose work a session of `forge run` continues, from its chain's variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Relay {
    /// The session before it in the chain.
    pub(crate) previous_session_id: Option<String>,
    /// The handoffs the chain has written so far.
    pub(crate) handoff_count: usize,
}

/// A session that goes on (compact, resume) takes only its own handoff, never
/// another session's.
pub(crate) fn own_only(source: Option<&str>) -> bool {
    matches!(source, Some("compact" | "resume"))
}

/// What became of the pending resume.
#[derive(Debug, Clone)]
pub(crate) enum Take {
    /// This session took it (the markers are gone).
    Taken {
        /// The handoff.
        target: PathBuf,
        /// Who had made it pending.
        origin: ResumeOrigin,
        /// It, and its text, read once (`None`: it could not be read).
        handoff: Option<(HandoffEntry, String)>,
    },
    /// It stays pending, or went to another session, for this reason.
    Left {
        /// The handoff.
        target: PathBuf,
        /// Why.
        why: &'static str,
    },
    /// It stays pending: an automatic handoff of another session (or agent), which
    /// this session is not handed, only told of ([`owned_elsewhere`]).
    Offered {
        /// The handoff.
        target: PathBuf,
        /// Whose it is, in words (`session 3f0c2a9e (alice), still live`).
        whose: String,
    },
}

/// The session that wrote an automatic handoff, as SessionStart finds it: its id,
/// the agent its bridge recorded, and whether it is live now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Writer {
    /// Its session id (the handoff's `session_id`).
    pub(crate) session: String,
    /// The agent it runs as (its bridge's), when known.
    pub(crate) agent: Option<String>,
    /// It is live (not ended, heard from within `stale_after`, its client process
    /// there).
    pub(crate) live: bool,
}

/// Whether an automatic handoff (the threshold's, PreCompact's) written by `writer`
/// belongs to another than this session (`session`, running as `agent`): it is for
/// the session that wrote it and its agent. Another agent's session is not handed
/// it, nor is any session while its writer is live; then it is offered, named
/// (`Some` says whose it is). A handoff that names no session, or this one, or
/// whose writer is gone and ran as this agent (or as none that is known), is this
/// session's to take. A person's explicit choice (`forge resume`) is not asked
/// about: it is taken whatever.
pub(crate) fn owned_elsewhere(
    writer: Option<&Writer>,
    session: Option<&str>,
    agent: Option<&str>,
) -> Option<String> {
    let w = writer.filter(|w| !w.session.trim().is_empty())?;
    if Some(w.session.as_str()) == session {
        return None;
    }
    let short = crate::model::text::sanitize::short_id(&w.session);
    let named = match &w.agent {
        Some(a) => format!("session {short} ({})", single_line(a)),
        None => format!("session {short}"),
    };
    let other_agent = w
        .agent
        .as_deref()
        .is_some_and(|a| agent.is_none_or(|me| !me.trim().eq_ignore_ascii_case(a.trim())));
    match (w.live, other_agent) {
        (true, _) => Some(format!("{named}, still live")),
        (false, true) => Some(format!(
            "{named}, and this session runs as {}",
            agent.map_or_else(|| "no agent".to_owned(), |a| single_line(a).into_owned())
        )),
        (false, false) => None,
    }
}

/// The line naming an automatic handoff this session is not handed: whose it is,
/// and how to resume it anyway.
fn offered_line(target: &std::path::Path, whose: &str) -> String {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = single_line(&name);
    format!(
        "A pending handoff is not loaded: {name} belongs to {whose}. \
         `forge resume {name}` makes the next session resume from it anyway.\n"
    )
}

/// The unresolved blocked Signals as SessionStart lists them: every one, newest
/// first, each with its open questions, as many as fit in the budget, then a line
/// with how many more there are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Blocked {
    /// The lines.
    pub(crate) text: String,
    /// The tasks listed.
    pub(crate) tasks: Vec<String>,
}

/// The taken handoff and what the resume policy says of it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Resume {
    /// The handoff.
    pub(crate) target: PathBuf,
    /// How old it is.
    pub(crate) age: Option<chrono::Duration>,
    /// Inject it, or name it.
    pub(crate) decision: ResumeDecision,
    /// The session it names (its `session_id`).
    pub(crate) owner: Option<String>,
}

/// Whose work a starting session continues, as herdctl's payload says it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Lineage {
    /// It continues earlier work.
    pub(crate) is_continuation: bool,
    /// The session before it.
    pub(crate) previous_session_id: Option<String>,
    /// The handoffs of that line of sessions.
    pub(crate) handoff_count: usize,
}

/// What a new session clears up and a compacted one records, before the pending
/// resume is taken (a handoff pending then is never pruned), with the blocked
/// Signals it surfaces.
pub(crate) fn tidy(f: &StartFacts, blocked: &Blocked, now: DateTime<Utc>) -> Plan {
    let mut plan = Plan::default();
    let sid = f.session.id();
    // After a compaction the session goes on: it is not a new session, so nothing is
    // pruned and the learn flag waits for a real start.
    if !f.compacted() {
        // A new session: forget sessions nobody has touched for a week.
        plan.then(Effect::PruneSessions {
            keep: sid.map(str::to_owned),
        });
        // Handoff retention, when the config asks for it.
        if let Some((older_than, keep)) = f.settings.auto_prune {
            plan.then(Effect::PruneHandoffs { older_than, keep });
        }
        // And the temp files a killed write of the global marker left behind.
        plan.then(Effect::PruneClaudeTemp);
        // The flag lasts until learning is done (`forge learn done`, or a
        // learned-*.md newer than it); the notice is shown while it lasts.
        if f.learn.set && f.learn.learned_after {
            plan.then(Effect::ClearLearnFlag {
                why: "a learned-*.md was written after it was set".to_owned(),
                report: false,
            });
        }
    }
    match f.source.as_deref() {
        // The session goes on with less context: its next crossing is a new one.
        Some("compact") => {
            if let Some(sid) = sid {
                plan.then(Effect::RearmThreshold {
                    session: sid.to_owned(),
                });
            }
        }
        Some("resume") => {}
        _ => plan.then(Effect::ClearThresholdFlag {
            why: "a new session starts below the threshold".to_owned(),
        }),
    }
    if f.compacted() {
        let reread = super::compaction::reread_list(&f.handoffs, sid, f.transcript_files.clone());
        plan.then(super::compaction::record_compaction(
            &f.settings,
            sid,
            f.pre_compact.as_ref(),
            reread,
            now,
        ));
    }
    if !blocked.tasks.is_empty() {
        plan.record(Outcome::SignalsSurfaced {
            tasks: blocked.tasks.clone(),
        });
    }
    plan
}

/// The blocked Signals of the repository's inbox, within their budget, each with
/// where it is and, when it came from another work tree than the project's at
/// `root`, which one.
pub(crate) fn blocked(handoffs: &[HandoffEntry], root: &std::path::Path) -> Blocked {
    blocked_text(handoffs, root, BLOCKED_BUDGET)
}

/// At most this many Signals addressed to the agent are told at its start; the rest
/// wait for its next start (its `inbox` tool lists them all).
pub(crate) const ADDRESSED_MAX: usize = 5;
/// And at most this much of the start's text.
const ADDRESSED_BUDGET: usize = 1_500;

/// The Signals addressed to `agent` it has not been told of yet (`told`: the file
/// names its earlier starts listed): each its task's state (not superseded), not
/// blocked (every session is told of those), newest first, at most
/// [`ADDRESSED_MAX`]. An answer to the agent's own question is one of them.
pub(crate) fn addressed_to<'a>(
    handoffs: &'a [HandoffEntry],
    agent: &str,
    told: &std::collections::HashSet<String>,
) -> Vec<&'a HandoffEntry> {
    let agent = agent.trim();
    handoffs
        .iter()
        .filter(|h| !h.is_superseded() && !h.is_blocked() && !told.contains(&h.file_name))
        .filter(|h| {
            h.signal
                .as_ref()
                .and_then(crate::model::handoff::signal::SignalParse::signal)
                .is_some_and(|s| s.to.trim().eq_ignore_ascii_case(agent))
        })
        .take(ADDRESSED_MAX)
        .collect()
}

/// How a session of `agent` is told of the Signals addressed to it (`items`: each
/// with its findings, where an answer is): `Signal for <agent>: task T-7 is partial,
/// from bob, in <place>`, then its first findings, within its budget.
pub(crate) fn addressed_text(
    items: &[(&HandoffEntry, Vec<String>)],
    agent: &str,
    root: &std::path::Path,
) -> Blocked {
    let mut out = Blocked::default();
    for (h, findings) in items {
        let Some(s) = h
            .signal
            .as_ref()
            .and_then(crate::model::handoff::signal::SignalParse::signal)
        else {
            continue;
        };
        let mut lines = format!(
            "Signal for {}: task {} is {}, from {}, in {}\n",
            single_line(agent.trim()),
            single_line(&s.task_id),
            h.status_word(),
            single_line(&s.from),
            h.place(root)
        );
        for f in findings.iter().take(3) {
            let _ = writeln!(lines, "  {}", single_line(f));
        }
        let lines = clip_lines(&redact(&lines), LINE_MAX).into_owned();
        if units(&out.text) + units(&lines) > ADDRESSED_BUDGET {
            break;
        }
        out.text.push_str(&lines);
        out.tasks.push(s.task_id.clone());
    }
    out
}

/// What the policy says of the handoff this session took (`None`: it took none).
pub(crate) fn resume(
    take: Option<&Take>,
    settings: &Settings,
    now: DateTime<Utc>,
) -> Option<Resume> {
    let Some(Take::Taken {
        target,
        origin,
        handoff,
    }) = take
    else {
        return None;
    };
    let entry = handoff.as_ref().map(|(e, _)| e);
    let age = entry.and_then(|h| h.created).map(|c| now - c);
    Some(Resume {
        target: target.clone(),
        age,
        decision: resume_decision(
            *origin,
            age,
            settings.resume_auto,
            settings.resume_max_age.get(),
        ),
        owner: entry
            .and_then(|h| h.front.get("session_id").map(str::to_owned))
            .filter(|o| !o.trim().is_empty()),
    })
}

/// The session whose handoff this one resumes (its text is injected): `Some(owner)`,
/// the owner being the session the handoff names, if any.
pub(crate) fn resumed(resume: Option<&Resume>, take: Option<&Take>) -> Option<Option<String>> {
    let readable = matches!(
        take,
        Some(Take::Taken {
            handoff: Some(_),
            ..
        })
    );
    resume
        .filter(|r| r.decision == ResumeDecision::Inject && readable)
        .map(|r| r.owner.clone())
}

/// The session before this one whose bridge says how many handoffs led to it: the
/// owner of the resumed handoff, unless it is this very session (and none in a
/// `forge run` chain, whose variables say it).
pub(crate) fn previous_session(f: &StartFacts, resumed: Option<&Option<String>>) -> Option<String> {
    if f.relay.is_some() {
        return None;
    }
    resumed?
        .clone()
        .filter(|o| Some(o.as_str()) != f.session.id())
}

/// Whose work this session continues: a continuation of `forge run`'s chain (its
/// variables), of the session whose handoff it resumed (`resumed`; `previous_chain`
/// is that session's `chain_handoffs`), or of itself (compact, resume); else a fresh
/// start. `handoff_count` is the handoffs of that line of sessions: 0 for a fresh
/// one, one more than the resumed session's, the session's own after a compaction.
pub(crate) fn lineage(
    f: &StartFacts,
    resumed: Option<&Option<String>>,
    previous_chain: Option<u64>,
) -> Lineage {
    let count = |n: Option<u64>| n.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    if let Some(r) = &f.relay {
        return Lineage {
            is_continuation: true,
            previous_session_id: r.previous_session_id.clone(),
            handoff_count: r.handoff_count,
        };
    }
    if resumed.is_some() {
        let previous = previous_session(f, resumed);
        return Lineage {
            is_continuation: true,
            handoff_count: count(previous.as_ref().and(previous_chain)).saturating_add(1),
            previous_session_id: previous,
        };
    }
    if own_only(f.source.as_deref()) {
        return Lineage {
            is_continuation: true,
            previous_session_id: None,
            handoff_count: count(f.session.bridge.as_ref().and_then(|b| b.chain_handoffs)),
        };
    }
    Lineage::default()
}

/// What the user's `[[on_session_start]]` commands printed (`outputs`, in order),
/// as the session sees it: redacted whole (a key over several lines), then one
/// clean line at a time, within its budget.
pub(crate) fn user_hooks_text(outputs: &[String]) -> String {
    let mut text = String::new();
    for out in outputs {
        for line in redact(out).lines() {
            let _ = writeln!(text, "{}", single_line(line).trim_end());
        }
    }
    cut_lines(
        &clip_lines(&text, LINE_MAX),
        USER_HOOKS_BUDGET,
        "[forge: your on_session_start output was cut]\n",
    )
}

/// What the rest of a SessionStart found: the take, whose work it continues, the
/// user's commands' text, git's answer and the files a recorded compaction asks to
/// re-read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Found {
    /// What became of the pending resume (`None`: nothing was pending).
    pub(crate) take: Option<Take>,
    /// Whose work this session continues.
    pub(crate) lineage: Lineage,
    /// What the user's commands printed, ready ([`user_hooks_text`]).
    pub(crate) user_text: String,
    /// Git's facts now, else the stored cache.
    pub(crate) git: Option<GitCache>,
    /// The facts to store in `logs/git-cache.json`.
    pub(crate) git_to_save: Option<GitCache>,
    /// Why git would not open the repository.
    pub(crate) git_refused: Option<String>,
    /// A compacted session: the files its recorded compaction asks to re-read
    /// (`None`: the record failed; then its handoff alone is named).
    pub(crate) reread: Option<Vec<String>>,
    /// One-line notices to the person that the steps before [`compose`] add (one
    /// line each, at most [`super::notice::NOTICES_MAX`] in all with the resume's):
    /// drawn on the person's screen, never given to the model (ARCHITECTURE.md, "A
    /// notice to the person at SessionStart").
    pub(crate) notices: Vec<String>,
}

/// The session's orientation — the last session, the learn notice, the re-read
/// list, the blocked Signals, the resumed handoff (or the line that names it), the
/// user's commands' output — cut to Claude Code's budget; the outcomes; and the
/// bridge's change.
pub(crate) fn compose(
    f: &StartFacts,
    blocked: &Blocked,
    found: &Found,
    payload: &WireHookInput,
    now: DateTime<Utc>,
) -> Plan {
    let mut plan = Plan::default();
    if let Some(cache) = &found.git_to_save {
        plan.then(Effect::SaveGitCache(cache.clone()));
    }
    if let Some(why) = &found.git_refused {
        plan.then(Effect::Fail {
            what: "git".to_owned(),
            message: why.clone(),
        });
    }
    let budget = start_budget(&f.settings);
    let mut notices = found.notices.clone();
    let mut out = head(f, found.reread.as_deref(), now);
    out.push_str(&blocked.text);
    let room = budget.saturating_sub(units(&out) + units(&found.user_text));
    out.push_str(&resumed_part(f, found, room, &mut plan, &mut notices, now));
    out.push_str(&found.user_text);
    // Whatever the parts hold, the whole stays within the budget.
    let out = cut_lines(
        &clip_lines(&out, BODY_LINE_MAX),
        budget,
        "[forge: cut to fit Claude Code's limit]\n",
    );
    let out = cut_bytes(out, f.settings.resume_max_bytes);
    let attention = if f.compacted() {
        Attention::Busy
    } else {
        Attention::WaitingInput
    };
    if f.session.id.is_some() {
        plan.bridge = Some(BridgeEdit {
            touch: Some(Touch::new(
                "SessionStart",
                Some(attention),
                None,
                payload,
                now,
                f.session.client_pid,
            )),
            // The uncommitted count as the session found it (a resumed session keeps
            // its own): the dirty-tree warning is about what grows past it, not about
            // what was there before (forge init's own edits).
            dirty_at_start: found.git.as_ref().map(|g| g.uncommitted_changes),
            chain_handoffs: Some(found.lineage.handoff_count as u64),
            threshold_rearmed: f.compacted(),
            ..BridgeEdit::default()
        });
    }
    if !out.is_empty() {
        plan.record(Outcome::ContextAdded {
            chars: out.chars().count(),
        });
    }
    notices.truncate(super::notice::NOTICES_MAX);
    if !notices.is_empty() {
        plan.record(Outcome::PersonNotified {
            lines: notices.clone(),
        });
    }
    plan.stdout = super::notice::output(out, &notices);
    plan
}

/// The resumed handoff's part of the orientation (its text within `room`, or the
/// line that names it), with its outcome and its notice to the person.
fn resumed_part(
    f: &StartFacts,
    found: &Found,
    room: usize,
    plan: &mut Plan,
    notices: &mut Vec<String>,
    now: DateTime<Utc>,
) -> String {
    let mut out = String::new();
    let resume = resume(found.take.as_ref(), &f.settings, now);
    match (&found.take, resume) {
        (Some(Take::Taken { handoff, .. }), Some(r)) => {
            let path = r.target.display().to_string();
            if r.decision == ResumeDecision::Name {
                // An old automatic handoff is rarely what a new session is about:
                // one line names it, and the person decides.
                let name = r
                    .target
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.push_str(&clip_line(&waiting_line(r.age, &name), LINE_MAX));
                notices.push(super::notice::waiting(
                    r.age.map(age_words).as_deref(),
                    &name,
                ));
                plan.record(Outcome::ResumeSkipped {
                    path,
                    why: if f.settings.resume_auto == ResumeAuto::Never {
                        "automatic, and [resume] auto = \"never\": named, not loaded".to_owned()
                    } else {
                        format!(
                            "automatic, and older than [resume] max_age ({}): named, not loaded",
                            f.settings.resume_max_age
                        )
                    },
                });
            } else {
                match resume_text(&r.target, handoff.as_ref(), found.git.as_ref(), now, room) {
                    Ok(text) => {
                        out.push_str(&text);
                        plan.record(Outcome::ResumeInjected { path });
                        if let Some((entry, _)) = handoff {
                            notices.push(super::notice::resumed(entry, now, f.settings.zone));
                        }
                    }
                    Err(text) => {
                        out.push_str(&text);
                        plan.record(Outcome::ResumeSkipped {
                            path,
                            why: "the handoff no longer exists".to_owned(),
                        });
                    }
                }
            }
        }
        (Some(Take::Left { target, why }), _) => plan.record(Outcome::ResumeSkipped {
            path: target.display().to_string(),
            why: (*why).to_owned(),
        }),
        (Some(Take::Offered { target, whose }), _) => {
            // Another session's (or agent's) automatic handoff: named for the model
            // and for the person, never loaded.
            let line = offered_line(target, whose);
            out.push_str(&clip_line(&line, LINE_MAX));
            notices.push(format!("forge: {}", line.trim()));
            plan.record(Outcome::ResumeSkipped {
                path: target.display().to_string(),
                why: format!("automatic, and written by {whose}: offered, not loaded"),
            });
        }
        _ => {}
    }
    out
}

/// What SessionStart may give the model, in UTF-16 units: `[resume] max_bytes`, never
/// more than [`SESSION_START_BUDGET`] (Claude Code's own cap is 10,000 characters).
fn start_budget(settings: &Settings) -> usize {
    settings.resume_max_bytes.min(SESSION_START_BUDGET)
}

/// `text` cut at a line boundary to at most `max` bytes (`[resume] max_bytes` counts
/// bytes; the client's cap counts UTF-16 units, which a text of other scripts has
/// fewer of).
fn cut_bytes(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let note = "[forge: cut to [resume] max_bytes]\n";
    let mut out = String::with_capacity(max);
    for line in text.split_inclusive('\n') {
        if out.len() + line.len() + note.len() > max {
            break;
        }
        out.push_str(line);
    }
    out.push_str(note);
    out
}

/// The lines before the Signals: the last session (or the other session still live
/// here), the workflow, the learn notice — or, after a compaction, what to re-read.
/// Redacted before anything is cut (a cut could leave half a key that no rule
/// knows), as every part: the text is made of redacted parts and forge's own words.
fn head(f: &StartFacts, reread: Option<&[String]>, now: DateTime<Utc>) -> String {
    let mut head = String::new();
    if f.compacted() {
        // The record failed: its handoff alone is named.
        let fallback;
        let files = match reread {
            Some(files) => files,
            None => {
                fallback = super::compaction::reread_list(&f.handoffs, f.session.id(), Vec::new());
                &fallback
            }
        };
        if !files.is_empty() {
            let _ = writeln!(
                head,
                "Context was compacted. Re-read before continuing: {}.",
                files.join(", ")
            );
        }
    } else {
        if let Some(last) = &f.last {
            // The record may be of a turn of another session still running here
            // (two terminals): then it is live, not "the last session".
            if other_session_live(f, last, now) {
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
        let learn_pending = f.learn.set && !f.learn.learned_after;
        if learn_pending && f.settings.learn_nudge {
            head.push_str(
                "Learn: an earlier session changed files and nothing was learned from it yet. \
                 Run /forge-learn to save reusable patterns (never credentials or file contents).\n",
            );
        }
    }
    cut_lines(&clip_lines(&redact(&head), LINE_MAX), HEAD_BUDGET, "")
}

/// Whether `last` records a turn of another session that is still live. A record
/// of this very session (resumed) is its own past, never "another session".
fn other_session_live(f: &StartFacts, last: &LastSession, now: DateTime<Utc>) -> bool {
    let Some(id) = last.session_id.as_deref() else {
        return false;
    };
    if Some(id) == f.session.id() || last.is_final {
        return false;
    }
    crate::model::snapshot::live_last_session(
        last,
        f.last_bridge.as_ref(),
        now,
        f.settings.stale_after,
    )
    .is_some()
}

/// Whether SessionStart reads the bridge of the session `last` records (to tell
/// whether it is still live): another session's record, not final.
pub(crate) fn asks_last_bridge(session: Option<&str>, last: &LastSession) -> Option<String> {
    let id = last.session_id.as_deref()?;
    (Some(id) != session && !last.is_final).then(|| id.to_owned())
}

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

fn blocked_text(handoffs: &[HandoffEntry], root: &std::path::Path, budget: usize) -> Blocked {
    let all: Vec<_> = handoffs.iter().filter(|h| h.is_blocked()).collect();
    let mut out = Blocked::default();
    // Room for the "and N more" line, whatever N is.
    let more = |n: usize| {
        format!(
            "… and {n} more blocked Signal{}: run `forge status` to see them all.\n",
            if n == 1 { "" } else { "s" }
        )
    };
    let reserve = units(&more(all.len()));
    for (i, h) in all.iter().enumerate() {
        let lines = clip_lines(&redact(&blocked_lines(h, root)), LINE_MAX).into_owned();
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

fn blocked_lines(h: &HandoffEntry, root: &std::path::Path) -> String {
    let mut out = String::new();
    let task = h.task().unwrap_or("?");
    let route = h.route().unwrap_or_default();
    let _ = writeln!(
        out,
        "Blocked agent signal: task {task} ({route}) in {}",
        h.place(root)
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

/// The handoff `target` (`handoff`: it and its text, as the take read them) with
/// drift notes, within `budget` (UTF-16 units): drift notes clipped to [`LINE_MAX`],
/// the handoff's lines to [`BODY_LINE_MAX`], the body cut at a line boundary with a
/// note saying where the rest is. `Err` holds the line that says the handoff is
/// gone.
fn resume_text(
    target: &std::path::Path,
    handoff: Option<&(HandoffEntry, String)>,
    git: Option<&GitCache>,
    now: DateTime<Utc>,
    budget: usize,
) -> Result<String, String> {
    let shown = clip_line(&target.display().to_string(), LINE_MAX / 2);
    let Some((entry, text)) = handoff else {
        return Err(format!(
            "Pending resume pointed at {shown}, which no longer exists; nothing to resume.\n"
        ));
    };
    let mut out = format!("Resuming from handoff {shown}:\n");
    let drift = Drift::of(
        entry,
        git.and_then(|g| g.branch.as_deref()),
        git.map(|g| g.uncommitted_changes),
        now,
    );
    for note in drift.notes() {
        let _ = writeln!(out, "{}", clip_line(&format!("Drift: {note}"), LINE_MAX));
    }
    let note = format!("[handoff cut to fit; read the rest in {shown}]\n");
    let room = budget.saturating_sub(units(&out));
    // A handoff forge wrote is redacted already; one an agent or a person wrote
    // may not be.
    let mut body = clip_lines(&redact(text), BODY_LINE_MAX).into_owned();
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

    fn now() -> DateTime<Utc> {
        crate::model::time::parse_iso("2026-11-21T12:00:00Z").unwrap()
    }

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

    fn handoff(name: &str, session: &str) -> (HandoffEntry, String) {
        let text = format!(
            "---\nkind: session-handoff\ncreated_at: 2026-11-21T10:15:02Z\nsession_id: {session}\n\
             branch: main\nuncommitted_changes: 0\n---\n# Session handoff\nCarry on.\n"
        );
        let entry = HandoffEntry::parse(
            PathBuf::from(format!("/p/.forge/handoffs/{name}")),
            &text,
            None,
        )
        .unwrap();
        (entry, text)
    }

    fn facts(source: &str) -> StartFacts {
        StartFacts {
            session: Session {
                id: Some("me".into()),
                ..Session::default()
            },
            source: Some(source.into()),
            ..StartFacts::default()
        }
    }

    #[test]
    fn a_taken_handoff_is_injected_and_its_session_is_the_previous_one() {
        let f = facts("startup");
        let take = Take::Taken {
            target: PathBuf::from("/p/.forge/handoffs/handoff-20261121-101502.md"),
            origin: ResumeOrigin::Chosen,
            handoff: Some(handoff("handoff-20261121-101502.md", "them")),
        };
        let r = resume(Some(&take), &f.settings, now());
        let who = resumed(r.as_ref(), Some(&take));
        assert_eq!(who, Some(Some("them".into())));
        assert_eq!(previous_session(&f, who.as_ref()).as_deref(), Some("them"));
        let lineage = lineage(&f, who.as_ref(), Some(2));
        assert_eq!(
            lineage,
            Lineage {
                is_continuation: true,
                previous_session_id: Some("them".into()),
                handoff_count: 3,
            }
        );
        let found = Found {
            take: Some(take),
            lineage,
            ..Found::default()
        };
        let plan = compose(
            &f,
            &Blocked::default(),
            &found,
            &WireHookInput::default(),
            now(),
        );
        // The model gets the handoff; the person, one line saying what was resumed.
        let (context, notice) = super::super::notice::split(&plan.stdout);
        assert!(
            context
                .contains("Resuming from handoff /p/.forge/handoffs/handoff-20261121-101502.md:\n"),
            "{context}"
        );
        assert!(context.contains("Carry on."));
        assert!(
            notice.starts_with("forge: resumed ") && notice.contains("handoff-20261121-101502.md"),
            "{notice}"
        );
        let outcomes: Vec<_> = plan.recorded().collect();
        assert!(matches!(
            outcomes.as_slice(),
            [
                Outcome::ResumeInjected { .. },
                Outcome::ContextAdded { .. },
                Outcome::PersonNotified { .. }
            ]
        ));
        assert_eq!(plan.bridge.unwrap().chain_handoffs, Some(3));
    }

    #[test]
    fn an_old_automatic_handoff_is_named_and_a_gone_one_said_gone() {
        let f = facts("startup");
        let auto = Take::Taken {
            target: PathBuf::from("/p/.forge/handoffs/handoff-20261119-101502.md"),
            origin: ResumeOrigin::Auto,
            handoff: Some(handoff("handoff-20261119-101502.md", "them")),
        };
        let found = Found {
            take: Some(auto),
            ..Found::default()
        };
        let plan = compose(
            &f,
            &Blocked::default(),
            &found,
            &WireHookInput::default(),
            now(),
        );
        let (context, notice) = super::super::notice::split(&plan.stdout);
        assert!(
            context.starts_with("An automatic handoff from 2 days ago"),
            "{context}"
        );
        assert!(
            notice.starts_with("forge: an automatic handoff (2 days old) is waiting"),
            "{notice}"
        );
        assert!(plan.recorded().any(|o| matches!(
            o,
            Outcome::ResumeSkipped { why, .. } if why.contains("max_age (12h)")
        )));
        let gone = Take::Taken {
            target: PathBuf::from("/p/.forge/handoffs/handoff-20261121-101502.md"),
            origin: ResumeOrigin::Chosen,
            handoff: None,
        };
        assert_eq!(
            resumed(
                resume(Some(&gone), &f.settings, now()).as_ref(),
                Some(&gone)
            ),
            None
        );
        let found = Found {
            take: Some(gone),
            ..Found::default()
        };
        let plan = compose(
            &f,
            &Blocked::default(),
            &found,
            &WireHookInput::default(),
            now(),
        );
        assert!(plan.stdout.contains("which no longer exists"));
    }

    #[test]
    fn an_automatic_handoff_is_for_its_writer_and_its_agent() {
        let w = |agent: Option<&str>, live: bool| Writer {
            session: "3f0c2a9e-8b1d".into(),
            agent: agent.map(str::to_owned),
            live,
        };
        // Its own session, or one with nothing to say against it, takes it.
        assert_eq!(owned_elsewhere(None, Some("me"), Some("carol")), None);
        assert_eq!(
            owned_elsewhere(Some(&w(Some("alice"), true)), Some("3f0c2a9e-8b1d"), None),
            None
        );
        assert_eq!(
            owned_elsewhere(Some(&w(Some("alice"), false)), Some("me"), Some("Alice")),
            None,
            "its agent's next session, once it is gone"
        );
        assert_eq!(
            owned_elsewhere(Some(&w(None, false)), Some("me"), None),
            None
        );
        // Any session while its writer is live, another agent's at any time: not.
        assert_eq!(
            owned_elsewhere(Some(&w(Some("alice"), true)), Some("me"), Some("alice")).as_deref(),
            Some("session 3f0c2a9e (alice), still live")
        );
        assert_eq!(
            owned_elsewhere(Some(&w(None, true)), Some("me"), None).as_deref(),
            Some("session 3f0c2a9e, still live")
        );
        assert_eq!(
            owned_elsewhere(Some(&w(Some("alice"), false)), Some("me"), Some("carol")).as_deref(),
            Some("session 3f0c2a9e (alice), and this session runs as carol")
        );
        assert_eq!(
            owned_elsewhere(Some(&w(Some("alice"), false)), Some("me"), None).as_deref(),
            Some("session 3f0c2a9e (alice), and this session runs as no agent")
        );
        // Offered: named in one line, nothing of it loaded.
        let f = facts("startup");
        let found = Found {
            take: Some(Take::Offered {
                target: PathBuf::from("/p/.forge/handoffs/handoff-20261121-101502.md"),
                whose: "session 3f0c2a9e (alice), still live".into(),
            }),
            ..Found::default()
        };
        let plan = compose(
            &f,
            &Blocked::default(),
            &found,
            &WireHookInput::default(),
            now(),
        );
        // The model is told in its context, the person on the screen.
        let (context, notice) = super::super::notice::split(&plan.stdout);
        assert_eq!(
            context,
            "A pending handoff is not loaded: handoff-20261121-101502.md belongs to session \
             3f0c2a9e (alice), still live. `forge resume handoff-20261121-101502.md` makes the \
             next session resume from it anyway.\n"
        );
        assert!(
            notice
                .starts_with("forge: A pending handoff is not loaded: handoff-20261121-101502.md"),
            "{notice}"
        );
        assert!(plan.recorded().any(|o| matches!(
            o,
            Outcome::ResumeSkipped { why, .. } if why.contains("offered, not loaded")
        )));
    }

    #[test]
    fn a_session_is_told_once_of_the_signals_addressed_to_its_agent() {
        let signal = |name: &str, from: &str, to: &str, task: &str, status: &str| {
            let text = format!(
                "## FORGE AGENT HANDOFF\nTask: {task}\nWorktree: /src/wt-b\nBranch: feat-b\n\
                 ### Signal\n```json\n{{\"from\":\"{from}\",\"to\":\"{to}\",\
                 \"task_id\":\"{task}\",\"status\":\"{status}\"}}\n```\n"
            );
            HandoffEntry::parse(
                PathBuf::from(format!("/src/app/.forge/handoffs/{name}")),
                &text,
                None,
            )
            .unwrap()
        };
        let mut list = vec![
            signal(
                "agent-T-7-20261121-110000.md",
                "bob",
                "alice",
                "T-7",
                "partial",
            ),
            signal(
                "agent-T-8-20261121-105000.md",
                "bob",
                "Alice",
                "T-8",
                "blocked",
            ),
            signal(
                "agent-T-9-20261121-104000.md",
                "carol",
                "dave",
                "T-9",
                "complete",
            ),
            signal(
                "agent-T-7-20261121-100000.md",
                "alice",
                "bob",
                "T-7",
                "blocked",
            ),
        ];
        crate::model::handoff::entry::link_threads(&mut list);
        let none = std::collections::HashSet::new();
        // The answer to alice's question; not the blocked one (every session hears of
        // those), not another agent's, not the superseded question.
        let names: Vec<_> = addressed_to(&list, "alice", &none)
            .iter()
            .map(|h| h.file_name.clone())
            .collect();
        assert_eq!(names, ["agent-T-7-20261121-110000.md"]);
        let told: std::collections::HashSet<String> = names.iter().cloned().collect();
        assert!(addressed_to(&list, "alice", &told).is_empty(), "told once");
        let items: Vec<_> = addressed_to(&list, "alice", &none)
            .into_iter()
            .map(|h| (h, vec!["Answer: twenty".to_owned()]))
            .collect();
        let text = addressed_text(&items, "alice", std::path::Path::new("/src/wt-a"));
        assert_eq!(
            text.text,
            "Signal for alice: task T-7 is partial, from bob, in \
             /src/app/.forge/handoffs/agent-T-7-20261121-110000.md, from worktree /src/wt-b \
             (branch feat-b)\n  Answer: twenty\n"
        );
        assert_eq!(text.tasks, ["T-7"]);
    }

    #[test]
    fn a_new_session_tidies_up_and_a_compacted_one_records() {
        let mut f = facts("startup");
        f.learn = LearnFlag {
            set: true,
            learned_after: true,
        };
        let plan = tidy(&f, &Blocked::default(), now());
        assert!(matches!(
            plan.effects.as_slice(),
            [
                Effect::PruneSessions { .. },
                Effect::PruneClaudeTemp,
                Effect::ClearLearnFlag { report: false, .. },
                Effect::ClearThresholdFlag { .. }
            ]
        ));
        let mut f = facts("compact");
        f.transcript_files = vec!["src/a.rs".into()];
        let plan = tidy(&f, &Blocked::default(), now());
        assert!(matches!(
            plan.effects.as_slice(),
            [
                Effect::RearmThreshold { .. },
                Effect::RecordCompaction { armed: true, .. }
            ]
        ));
        // The head names what the record asks to re-read.
        let found = Found {
            reread: Some(vec!["src/a.rs".into()]),
            ..Found::default()
        };
        let plan = compose(
            &f,
            &Blocked::default(),
            &found,
            &WireHookInput::default(),
            now(),
        );
        assert_eq!(
            plan.stdout,
            "Context was compacted. Re-read before continuing: src/a.rs.\n"
        );
        let edit = plan.bridge.unwrap();
        assert!(edit.threshold_rearmed);
        assert_eq!(
            edit.touch.and_then(|t| t.attention).map(|(a, _)| a),
            Some(Attention::Busy)
        );
    }

    #[test]
    fn the_user_commands_text_is_redacted_clean_and_bounded() {
        let key = format!("ghp_{}", "a".repeat(36));
        let text = user_hooks_text(&[format!("one\x1b[31m red\ntoken {key}\n"), "x".repeat(5_000)]);
        assert!(!text.contains(&key), "{text}");
        assert!(!text.contains('\x1b'));
        assert!(units(&text) <= USER_HOOKS_BUDGET);
    }
}
