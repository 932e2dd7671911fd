//! `forge status` as text for people: one project's snapshot (`render_text`), its
//! `forge run` chains (`render_chains`) and, for `--all`, the fleet (`fleet_text`).
//! Pure: the report is gathered in `app::status`; values from files stay on their
//! lines ([`single_line`]) and the command's `print_out` cleans the whole text.

use std::fmt::Write as _;
use std::path::Path;

use chrono::{DateTime, Utc};

use crate::model::agents::fleet::{Registry, SessionRow as FleetSession, tilde};
use crate::model::handoff::entry::Drift;
use crate::model::session::state::{Attention, SessionBridge};
use crate::model::snapshot::Snapshot;
use crate::model::text::redact::redact;
use crate::model::text::sanitize::single_line;
use crate::model::time::age;

/// The fleet as a table for people. Every value from the registry (names, branches,
/// roots, event names) is kept on its line with [`single_line`]; `print_out` cleans
/// the whole text for the terminal.
pub(crate) fn fleet_text(
    reg: &Registry,
    file: &Path,
    now: DateTime<Utc>,
    home: Option<&Path>,
) -> String {
    let rows = reg.rows(now);
    let projects = reg.current(now).count();
    let live = rows.iter().filter(|r| r.session.is_some()).count();
    let waiting = rows
        .iter()
        .filter(|r| r.session.is_some_and(FleetSession::is_waiting))
        .count();
    let mut out = String::new();
    if projects == 0 {
        let _ = writeln!(
            out,
            "No project registered yet: forge's hooks add a project the first time they run \
             in it.\nRegistry: {}",
            file.display()
        );
        return out;
    }
    let _ = writeln!(
        out,
        "Fleet: {} · {} · {} waiting for you",
        crate::model::text::count(projects, "project", "projects"),
        crate::model::text::count(live, "live session", "live sessions"),
        waiting
    );
    let _ = writeln!(
        out,
        "  {:<10}  {:<16}  {:<16}  {:<8}  {:<7}  {:<8}  {:<22}  ROOT",
        "ATTENTION", "PROJECT", "BRANCH", "CONTEXT", "BLOCKED", "SESSION", "LAST EVENT"
    );
    for r in &rows {
        let s = r.session;
        let context = match s {
            None => "-".to_owned(),
            Some(s) => match (s.context_pct, s.level.as_deref()) {
                (Some(p), Some(l)) => format!("{p}% {l}"),
                (Some(p), None) => format!("{p}%"),
                _ => "?".to_owned(),
            },
        };
        let blocked = match r.project.blocked {
            0 => "-".to_owned(),
            n => format!("⚑{n}"),
        };
        let event = s
            .and_then(|s| s.last_event.as_deref())
            .map(|e| format!(" {}", single_line(e)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<10}  {:<16}  {:<16}  {:<8}  {:<7}  {:<8}  {:<22}  {}",
            r.attention_word(),
            crate::model::text::sanitize::cut_chars(&single_line(&r.project.name), 16),
            crate::model::text::sanitize::cut_chars(
                &single_line(r.project.branch.as_deref().unwrap_or("-")),
                16
            ),
            context,
            blocked,
            &s.map_or_else(|| "-".to_owned(), |s| short(&s.id)),
            crate::model::text::sanitize::cut_chars(
                &format!("{}{event}", age(now, r.last_heard())),
                22
            ),
            single_line(&tilde(&r.project.root, home)),
        );
    }
    let _ = writeln!(out, "Registry: {}", file.display());
    out
}

/// A session's context in the words `forge status` and `forge sessions` use: the
/// one figure ([`SessionBridge::context_pct`]), its level and the compactions forge
/// recorded, e.g. `74% · L1 · 1 compaction (session 3f0c2a9e)`.
pub(crate) fn context_words(
    snap: &Snapshot,
    s: &SessionBridge,
    thresholds: &crate::model::session::level::Thresholds,
) -> String {
    let pct = s.context_pct();
    let level = pct.map_or_else(
        || "no reading yet".to_owned(),
        |p| {
            crate::model::session::level::Level::from_pct(p, thresholds)
                .as_str()
                .to_owned()
        },
    );
    let n = snap.compactions_of(&s.session_id);
    format!(
        "{} · {level} · {n} compaction{} (session {})",
        pct.map_or_else(|| "unknown".to_owned(), |p| format!("{p:.0}%")),
        if n == 1 { "" } else { "s" },
        short(&s.session_id)
    )
}

/// Text from a file or a session as a line of `forge status`: redacted while its
/// lines are still lines (a key block), then folded onto one.
fn redacted_line(text: &str) -> String {
    single_line(&redact(text)).into_owned()
}

/// The snapshot as a few readable lines. Values from files (branch, task, questions)
/// are kept on their line with [`single_line`], so none can forge a line of its own;
/// `print_out` then cleans the whole text for the terminal.
pub(crate) fn render_text(
    snap: &Snapshot,
    stale_after: chrono::Duration,
    thresholds: &crate::model::session::level::Thresholds,
    zone: crate::model::time::Zone,
) -> String {
    let mut out = String::new();
    project_lines(&mut out, snap);
    session_lines(&mut out, snap, stale_after, thresholds, zone);
    flags_line(&mut out, &snap.flags);
    attention_lines(&mut out, snap, stale_after);
    handoff_lines(&mut out, snap);
    out
}

/// The project, its git state and the workflow's phase and task.
fn project_lines(out: &mut String, snap: &Snapshot) {
    let _ = writeln!(out, "Project: {}", snap.root.display());
    match &snap.git {
        Some(g) => {
            let _ = writeln!(
                out,
                "Git: branch {} · {} uncommitted",
                single_line(g.branch.as_deref().unwrap_or("?")),
                g.uncommitted_changes
            );
        }
        None => out.push_str("Git: not a git repository\n"),
    }
    if snap.workflow.phase.is_some() || snap.workflow.task.is_some() {
        let _ = writeln!(
            out,
            "Workflow: phase {} · task {}",
            redacted_line(snap.workflow.phase.as_deref().unwrap_or("-")),
            redacted_line(snap.workflow.task.as_deref().unwrap_or("-"))
        );
    }
}

/// The live session's turn or the last session's end, and the context gauge.
fn session_lines(
    out: &mut String,
    snap: &Snapshot,
    stale_after: chrono::Duration,
    thresholds: &crate::model::session::level::Thresholds,
    zone: crate::model::time::Zone,
) {
    let live = snap.last_session_live(snap.taken_at, stale_after);
    match (&snap.last_session, live) {
        // The record is of a turn of a session still running: said so, never "ended".
        (Some(l), Some(b)) => {
            let _ = writeln!(
                out,
                "Live session: {} · {} · branch {} · {} uncommitted",
                short(&b.session_id),
                l.last_turn_words(snap.taken_at, zone),
                single_line(l.branch.as_deref().unwrap_or("(none)")),
                l.uncommitted_changes,
            );
        }
        // How long ago and the local time, as the dashboard says it (SessionStart
        // gives Claude the stored UTC time instead).
        (Some(l), None) => {
            let _ = writeln!(
                out,
                "Last session: {} · branch {} · {} uncommitted{}",
                l.ended_words(snap.taken_at, zone),
                single_line(l.branch.as_deref().unwrap_or("(none)")),
                l.uncommitted_changes,
                if l.is_final { " (final)" } else { "" }
            );
        }
        (None, _) => out.push_str("Last session: none recorded\n"),
    }
    if let Some(s) = snap.current_session(snap.taken_at, stale_after) {
        let _ = writeln!(out, "Context: {}", context_words(snap, s, thresholds));
    }
}

/// The flags the hooks keep (learn pending, threshold fired, pending resume,
/// compaction re-read), on one line.
fn flags_line(out: &mut String, f: &crate::model::snapshot::Flags) {
    let mut flags = Vec::new();
    if f.learn_pending {
        flags.push("learn pending".to_owned());
    }
    if f.threshold_fired {
        flags.push("threshold handoff fired".to_owned());
    }
    if let Some(p) = &f.pending_resume {
        flags.push(format!(
            "pending resume → {}",
            single_line(&p.display().to_string())
        ));
    }
    if !f.compaction_markers.is_empty() {
        flags.push(format!(
            "compaction re-read pending ({})",
            f.compaction_markers.len()
        ));
    }
    let _ = writeln!(
        out,
        "Flags: {}",
        if flags.is_empty() {
            "none".to_owned()
        } else {
            flags.join(" · ")
        }
    );
}

/// Live sessions waiting for a person, most urgent first (the dashboard's order;
/// ended and long-silent sessions are history).
fn attention_lines(out: &mut String, snap: &Snapshot, stale_after: chrono::Duration) {
    for s in snap.waiting(snap.taken_at, stale_after).into_iter().take(5) {
        let words = match s.attention {
            Some(Attention::WaitingPermission) => "is waiting for permission",
            _ => "is waiting for input",
        };
        let msg = s
            .attention_message
            .as_deref()
            .map(|m| format!(": {}", redacted_line(m)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "Attention: session {} {words}{msg}",
            short(&s.session_id)
        );
    }
}

/// The handoff count, then every unresolved blocked Signal (with its open
/// questions) and the newest of the rest, up to ten lines in all.
fn handoff_lines(out: &mut String, snap: &Snapshot) {
    let blocked: Vec<_> = snap.blocked().collect();
    let _ = writeln!(
        out,
        "Handoffs: {} ({} blocked)",
        snap.handoffs.len(),
        blocked.len()
    );
    // Blocked Signals first (as on the dashboard), then newest first.
    let order: Vec<&crate::model::handoff::entry::HandoffEntry> =
        crate::model::handoff::entry::inbox_order(&snap.handoffs)
            .into_iter()
            .map(|i| &snap.handoffs[i])
            .collect();
    // Every unresolved blocked Signal (SessionStart points here for the ones it had
    // no room for), and the newest of the rest up to ten lines in all.
    let shown = blocked.len().max(10);
    for h in order.iter().take(shown) {
        let drift = Drift::of(h, snap.branch(), snap.uncommitted(), snap.taken_at);
        let _ = writeln!(
            out,
            "  {:<8} {:<17} {:<12} {}{}",
            h.kind.as_str(),
            h.status_word(),
            crate::model::text::sanitize::cut_chars(&redacted_line(h.task().unwrap_or("-")), 12),
            shown_place(h, &snap.root),
            if drift.any() { "  (drift)" } else { "" }
        );
        if let Some(crate::model::handoff::signal::SignalParse::Malformed { reason }) = &h.signal {
            let _ = writeln!(out, "    ⚠ {}", single_line(reason));
        }
        if let Some(sig) = h
            .signal
            .as_ref()
            .and_then(crate::model::handoff::signal::SignalParse::signal)
            && h.is_blocked()
        {
            for q in &sig.open_questions {
                let _ = writeln!(out, "    ? {}", redacted_line(q));
            }
        }
    }
    if snap.handoffs.len() > shown {
        let _ = writeln!(
            out,
            "  … and {} more (forge resume lists them all)",
            snap.handoffs.len() - shown
        );
    }
}

/// A handoff as `forge status` lists it: its file name when it is in the project's
/// own folder and came from its own work tree, else where it is and where it came
/// from ([`crate::model::handoff::entry::HandoffEntry::place`]).
fn shown_place(h: &crate::model::handoff::entry::HandoffEntry, root: &Path) -> String {
    let place = h.place(root);
    match place.strip_prefix(".forge/handoffs/") {
        Some(rest) => rest.to_owned(),
        None => place,
    }
}

/// The `forge run` chains, newest first (at most five): each with its sessions in
/// order and the handoff each left. Empty when there are none.
pub(crate) fn render_chains(chains: &[crate::model::agents::relay::Chain]) -> String {
    let mut out = String::new();
    if chains.is_empty() {
        return out;
    }
    let _ = writeln!(out, "Chains (forge run): {}", chains.len());
    for c in chains.iter().take(5) {
        let _ = writeln!(out, "  {} {}", short(&c.id), single_line(&c.summary()));
        for (i, s) in c.sessions.iter().enumerate() {
            let pct = s
                .context_pct
                .map(|p| format!(" at {p}%"))
                .unwrap_or_default();
            let end = match s.end {
                crate::model::agents::relay::SessionEnd::Running => "running".to_owned(),
                crate::model::agents::relay::SessionEnd::Relayed => format!("relayed{pct}"),
                crate::model::agents::relay::SessionEnd::Exited => format!(
                    "exited {}{}",
                    s.exit_code
                        .map_or_else(|| "(signal)".to_owned(), |c| c.to_string()),
                    if s.compacted { " (compacted)" } else { "" }
                ),
                crate::model::agents::relay::SessionEnd::Interrupted => format!("interrupted{pct}"),
                crate::model::agents::relay::SessionEnd::NotStarted => "did not start".to_owned(),
            };
            let handoff = s
                .handoff
                .as_deref()
                .map(|h| format!(" → {}", h.rsplit('/').next().unwrap_or(h)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "    {}. {} {end}{}",
                i + 1,
                s.session_id
                    .as_deref()
                    .map_or_else(|| "?".to_owned(), short),
                single_line(&handoff)
            );
        }
    }
    if chains.len() > 5 {
        let _ = writeln!(
            out,
            "  … and {} more in .forge/logs/chains/",
            chains.len() - 5
        );
    }
    out
}

fn short(id: &str) -> String {
    crate::model::text::sanitize::short_id(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::status::to_json;
    use serde_json::json;
    use std::path::PathBuf;

    #[test]
    fn the_last_session_reads_as_an_age_and_a_local_time() {
        use chrono::TimeZone;
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 11, 21, 10, 26, 0)
            .unwrap();
        let mut snap = Snapshot::empty(PathBuf::from("/p"), now);
        snap.last_session = Some(crate::model::session::state::LastSession {
            ended_at: "2026-11-21T10:12:00Z".into(),
            branch: Some("main".into()),
            uncommitted_changes: 2,
            is_final: true,
            ..Default::default()
        });
        let cet = crate::model::time::Zone::Fixed(chrono::FixedOffset::east_opt(3600).unwrap());
        let render = |snap: &Snapshot| {
            render_text(
                snap,
                chrono::Duration::minutes(30),
                &Default::default(),
                cet,
            )
        };
        let text = render(&snap);
        assert!(
            text.contains(
                "Last session: ended 14m ago, 11-21 11:12 · branch main · 2 uncommitted (final)\n"
            ),
            "{text}"
        );
        // Just ended: never "now ago"; a time that does not parse is shown as written.
        snap.last_session.as_mut().unwrap().ended_at = "2026-11-21T10:25:50Z".into();
        let text = render(&snap);
        assert!(
            text.contains("Last session: ended just now, 11-21 11:25 ·"),
            "{text}"
        );
        snap.last_session.as_mut().unwrap().ended_at = "yesterday".into();
        let text = render(&snap);
        assert!(
            text.contains("Last session: ended at yesterday ·"),
            "{text}"
        );
        // The record of a turn of a session that is still live: it is live, with when
        // its last turn ended — never "ended just now · not final".
        let last = snap.last_session.as_mut().unwrap();
        last.ended_at = "2026-11-21T10:24:00Z".into();
        last.is_final = false;
        last.session_id = Some("3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21".into());
        let bridge: crate::model::session::state::SessionBridge = serde_json::from_value(json!({
            "session_id": "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21",
            "last_event_at": "2026-11-21T10:24:00Z",
            "attention": "waiting:input",
        }))
        .unwrap();
        snap.sessions = vec![bridge.clone()];
        let text = render(&snap);
        assert!(
            text.contains(
                "Live session: 3f0c2a9e · last turn 2m ago, 11-21 11:24 · branch main · 2 uncommitted\n"
            ),
            "{text}"
        );
        assert!(!text.contains("Last session"), "{text}");
        assert_eq!(
            to_json(&snap, chrono::Duration::minutes(30), &Default::default())["last_session_live"],
            true
        );
        // It ended (SessionEnd), went silent past stale_after, or it was another
        // session: the record is of an ended session again.
        let mut ended = bridge.clone();
        ended.attention = Some(crate::model::session::state::Attention::Ended);
        let mut silent = bridge.clone();
        silent.last_event_at = Some("2026-11-21T09:00:00Z".into());
        let mut other = bridge;
        other.session_id = "5c2e9f10".into();
        for b in [ended, silent, other] {
            snap.sessions = vec![b];
            let text = render(&snap);
            assert!(text.contains("Last session: ended "), "{text}");
            assert_eq!(
                to_json(&snap, chrono::Duration::minutes(30), &Default::default())["last_session_live"],
                false
            );
        }
    }

    #[test]
    fn the_fleet_table_keeps_each_row_on_its_line_and_writes_home_as_a_tilde() {
        use crate::model::agents::fleet::{ProjectEntry, SessionRow};
        use crate::model::session::state::Attention;
        assert_eq!(
            tilde("/home/me/src/x", Some(Path::new("/home/me"))),
            "~/src/x"
        );
        assert_eq!(
            tilde("/home/meow/x", Some(Path::new("/home/me"))),
            "/home/meow/x"
        );
        assert_eq!(tilde("/srv/x", None), "/srv/x");
        let now = chrono::Utc::now();
        let at = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let reg = Registry {
            projects: vec![ProjectEntry {
                root: "/home/me/a\nb".into(),
                name: "two\nlines".into(),
                branch: Some("main".into()),
                repository: None,
                blocked: 2,
                seen_at: at.clone(),
                stale_after_secs: 1800,
                sessions: vec![SessionRow {
                    id: "3f0c2a9e-8b1d".into(),
                    context_pct: Some(74),
                    level: Some("L1".into()),
                    attention: Some(Attention::WaitingPermission),
                    last_event: Some("PermissionRequest".into()),
                    last_event_at: Some(at),
                    ..SessionRow::default()
                }],
            }],
            ..Registry::default()
        };
        let text = fleet_text(
            &reg,
            Path::new("/r/projects.json"),
            now,
            Some(Path::new("/home/me")),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert_eq!(
            lines[2],
            "  permission  two lines         main              74% L1    ⚑2       3f0c2a9e  \
             now PermissionRequest   ~/a b"
        );
    }
}
