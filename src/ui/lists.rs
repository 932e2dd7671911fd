//! The commands' lists as text for people: `forge resume`'s handoff inbox and
//! `forge sessions`' sessions. Pure: the command gathers them through `app`; values
//! from files stay on their rows ([`single_line`]) and `print_out` cleans the rest.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use crate::model::handoff::entry::{HandoffEntry, HandoffKind};
use crate::model::session::level::Thresholds;
use crate::model::session::state::SessionBridge;
use crate::model::snapshot::{Snapshot, last_heard};
use crate::model::text::sanitize::single_line;
use crate::model::time::age;

/// The numbered list in the one inbox order (blocked first, then newest), with
/// each handoff's stable ID; `→` marks the pending one (`forge resume`).
pub(crate) fn render_list(
    list: &[HandoffEntry],
    is_pending: impl Fn(&HandoffEntry) -> bool,
    now: DateTime<Utc>,
) -> String {
    if list.is_empty() {
        return "No handoffs in .forge/handoffs yet. Write one with `forge handoff` (or `forge signal` for agents).\n".into();
    }
    let mut out = String::new();
    let name_w = list
        .iter()
        .map(|h| h.file_name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let id_w = list
        .iter()
        .filter_map(|h| crate::model::handoff::entry::stamp_id(&h.file_name))
        .map(str::len)
        .max()
        .unwrap_or(2)
        .max(2);
    let _ = writeln!(
        out,
        "    #  {:<id_w$}  {:<name_w$}  {:<7}  {:>4}  {:<17}  {:<12}  TITLE",
        "ID", "FILE", "KIND", "AGE", "TRIGGER/STATUS", "BRANCH"
    );
    let order = crate::model::handoff::entry::inbox_order(list);
    for (i, h) in order.iter().map(|i| &list[*i]).enumerate() {
        let mark = if is_pending(h) { "→" } else { " " };
        // Values from the files stay on their row (`print_out` removes the rest).
        let one = crate::model::text::sanitize::single_line;
        let branch = one(h.branch().unwrap_or("-"));
        let title = match h.kind {
            HandoffKind::Agent => {
                let route = h.route().unwrap_or_default();
                format!("{} {}", h.task().unwrap_or("?"), route)
            }
            HandoffKind::Session => h.display_title().unwrap_or_default().to_owned(),
        };
        let title = one(&title);
        let _ = writeln!(
            out,
            "{mark} {:>3}  {:<id_w$}  {:<name_w$}  {:<7}  {:>4}  {:<17}  {:<12}  {title}",
            i + 1,
            one(crate::model::handoff::entry::stamp_id(&h.file_name).unwrap_or("-")),
            one(&h.file_name),
            h.kind.as_str(),
            crate::model::time::age(now, h.created),
            h.status_word(),
            branch,
        );
    }
    out.push_str(
        "\nChoose one with `forge resume ID` (or its number N, or --latest); print it with --print.\n",
    );
    out
}

/// One session as `forge sessions` lists it: its bridge, its state word (`busy`,
/// `permission`, `input`, `silent`, `ended`) and whether it is the current one.
pub(crate) struct SessionLine<'a> {
    /// The session's state file.
    pub(crate) bridge: &'a SessionBridge,
    /// Its state word.
    pub(crate) state: &'a str,
    /// Whether it is the session `forge status` and the dashboard show.
    pub(crate) current: bool,
}

/// `forge sessions`' table, newest first as `rows` come (`live_only`: the words
/// when none is live).
pub(crate) fn sessions_text(
    snap: &Snapshot,
    rows: &[SessionLine<'_>],
    thresholds: &Thresholds,
    now: DateTime<Utc>,
    live_only: bool,
) -> String {
    if rows.is_empty() {
        return if live_only {
            "No live session (none has had a hook event within [attention] stale_after). `forge sessions` lists them all.\n".to_owned()
        } else {
            "No session recorded in .forge/logs/sessions yet: they appear once Claude Code runs forge's hooks (`forge init` wires them).\n".to_owned()
        };
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  {:<8}  {:<22}  {:<8}  {:>11}  STATE",
        "ID", "LAST EVENT", "CONTEXT", "COMPACTIONS"
    );
    for r in rows {
        let b = r.bridge;
        let last = format!(
            "{} {}",
            age(now, last_heard(b)),
            // A session only the status line has reported on has no hook event yet.
            single_line(b.last_event.as_deref().unwrap_or(if b.readings.is_empty() {
                "-"
            } else {
                "status line"
            }))
        );
        let context = b.context_pct().map_or_else(
            || "-".to_owned(),
            |p| {
                format!(
                    "{p:.0}% {}",
                    crate::model::session::level::Level::from_pct(p, thresholds)
                )
            },
        );
        let state = match (&b.attention_message, r.state) {
            (Some(m), "permission" | "input") => {
                format!(
                    "{}: {}",
                    r.state,
                    crate::model::text::sanitize::cut_chars(
                        &single_line(&crate::model::text::redact::redact(m)),
                        200
                    )
                )
            }
            _ => r.state.to_owned(),
        };
        let _ = writeln!(
            out,
            "{} {:<8}  {:<22}  {:<8}  {:>11}  {state}",
            if r.current { "*" } else { " " },
            crate::model::text::sanitize::short_id(&b.session_id),
            crate::model::text::sanitize::cut_chars(&last, 22),
            context,
            snap.compactions_of(&b.session_id),
        );
    }
    out.push_str(
        "\n* the session `forge status` and the dashboard show. Any unique start of an id works as --session.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use std::path::PathBuf;

    #[test]
    fn the_age_column_reads_as_everywhere_else() {
        let now = Utc.with_ymd_and_hms(2026, 11, 21, 10, 30, 0).unwrap();
        // The stamp in the name is the creation time (UTC).
        let entry = |name: &str| {
            HandoffEntry::parse(
                PathBuf::from(format!("/p/.forge/handoffs/{name}")),
                "---\nkind: session-handoff\n---\n# T\n",
                None,
            )
            .unwrap()
        };
        let list = [
            entry("handoff-20261121-102930.md"), // 30 s: "now", not "0m"
            entry("handoff-20261120-043000.md"), // 30 h: "1d", as the dashboard says
        ];
        let text = render_list(&list, |_| false, now);
        let age_of = |name: &str| {
            let line = text.lines().find(|l| l.contains(name)).unwrap();
            line.split_whitespace().nth(4).unwrap().to_owned()
        };
        assert_eq!(age_of("handoff-20261121-102930.md"), "now", "{text}");
        assert_eq!(age_of("handoff-20261120-043000.md"), "1d", "{text}");
    }
}
