//! What each [`Event`] does to the [`Model`], and the I/O it asks the loop for.

use std::path::Path;

use super::{Action, Effect, Event, Filter, Mode, Model, Notice, Pane};
use crate::model::handoff::entry::{link_threads, sort_newest_first};

/// Applies one event; returns the I/O the loop must do. No I/O here.
pub fn update(m: &mut Model, event: Event) -> Vec<Effect> {
    match event {
        Event::Action(a) => apply(m, a),
        Event::Tick(now) => {
            m.now = now;
            if m.notice_expires().is_some_and(|t| now >= t) {
                m.notice = None;
            }
            Vec::new()
        }
        Event::Loaded(snap) => {
            let cursor = m.activity.then(|| m.selected_activity()).flatten();
            m.snapshot = *snap;
            m.keep_activity_cursor(cursor);
            m.refresh_rows();
            // The file may have changed: read the preview again.
            m.preview.path = None;
            m.preview_effect()
        }
        Event::StateLoaded(snap) => {
            let cursor = m.activity.then(|| m.selected_activity()).flatten();
            let handoffs = std::mem::take(&mut m.snapshot.handoffs);
            m.snapshot = *snap;
            m.snapshot.handoffs = handoffs;
            m.keep_activity_cursor(cursor);
            m.refresh_rows();
            m.sessions_selected = m.sessions_cursor();
            Vec::new()
        }
        Event::HandoffsChanged(changes) => {
            let mut reread_preview = false;
            for (path, entry) in changes {
                reread_preview |= m.preview.path.as_deref() == Some(path.as_path());
                m.snapshot.handoffs.retain(|h| h.path != path);
                m.snapshot.handoffs.extend(entry);
            }
            sort_newest_first(&mut m.snapshot.handoffs);
            // A new Signal may resolve an older one of its task.
            link_threads(&mut m.snapshot.handoffs);
            m.refresh_rows();
            if reread_preview {
                m.preview.path = None;
            }
            let mut fx = m.preview_effect();
            // New or changed text: the body search is stale.
            if let Some(n) = m.filter.needle() {
                fx.push(Effect::SearchBodies(n));
            }
            fx
        }
        Event::GitLoaded(git) => {
            m.snapshot.git = Some(git);
            Vec::new()
        }
        Event::PreviewLoaded { path, text } => {
            if m.preview.path.as_deref() == Some(path.as_path()) {
                let text = text.unwrap_or_else(|| "(could not read this file)".into());
                // A first guess; the screen sends the wrapped count before the next key.
                m.preview_len = text.lines().count();
                m.preview.text = Some(text);
                m.seek_match = m.filter.needle().is_some();
            }
            Vec::new()
        }
        Event::BodyHits { needle, paths } => {
            // An answer for text no longer typed is dropped.
            if m.filter.needle().as_deref() == Some(needle.as_str()) {
                m.filter.body_hits = Some((needle, paths));
                m.refresh_rows();
                m.seek_match = true;
                return m.preview_effect();
            }
            Vec::new()
        }
        Event::MatchAt(row) => {
            if m.seek_match {
                m.seek_match = false;
                if let Some(r) = row {
                    // Two lines of context above the match, never past the last page.
                    let want = r.saturating_sub(2) as isize;
                    let max = m.max_scroll();
                    m.preview.scroll = u16::try_from(want.min(max).max(0)).unwrap_or(0);
                }
            }
            Vec::new()
        }
        Event::ResumeWritten { target, result } => {
            if result.is_ok() {
                // The marker names it now; the watcher's reload will say the same.
                m.snapshot.flags.pending_resume = Some(target.clone());
            }
            let at = m.now;
            m.notice = Some(match result {
                Ok(written) => Notice {
                    at,
                    text: format!(
                        "pending resume → {} (written to {})",
                        file_name(&target),
                        written
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                    error: false,
                },
                Err(e) => Notice {
                    text: format!("could not write the pending resume: {e}"),
                    error: true,
                    at,
                },
            });
            Vec::new()
        }
        Event::SignalResolved { task, result } => {
            let at = m.now;
            m.notice = Some(match result {
                Ok(path) => Notice {
                    text: format!("resolved {task}: {}", file_name(&path)),
                    error: false,
                    at,
                },
                Err(e) => Notice {
                    text: format!("could not resolve {task}: {e}"),
                    error: true,
                    at,
                },
            });
            Vec::new()
        }
        Event::Copied(result) => {
            let at = m.now;
            m.notice = Some(match result {
                Ok(text) => Notice {
                    text: format!(
                        "copied {} (through the terminal: OSC 52 must be allowed, in tmux set-clipboard on)",
                        crate::model::text::sanitize::single_line(&text)
                    ),
                    error: false,
                    at,
                },
                Err(e) => Notice {
                    text: format!("could not copy: {e}"),
                    error: true,
                    at,
                },
            });
            Vec::new()
        }
        Event::EditorClosed(result) => {
            let at = m.now;
            m.notice = result.err().map(|e| Notice {
                text: e,
                error: true,
                at,
            });
            // The file may have been edited.
            m.preview.path = None;
            m.preview_effect()
        }
        Event::Viewport {
            shown,
            sessions_rows,
            inbox_rows,
            preview_rows,
            preview_len,
        } => {
            m.shown = Some(shown);
            m.sessions_rows = sessions_rows;
            // Focus never stays on a pane the frame does not show.
            if !m.panes().contains(&m.focus) {
                m.focus = m.panes()[0];
            }
            m.inbox_rows = inbox_rows;
            m.preview_rows = preview_rows;
            m.preview_len = preview_len;
            // A wider pane or a shorter text: stay on the last page, not past it.
            let max = m.max_scroll();
            if m.preview.scroll as isize > max {
                m.preview.scroll = u16::try_from(max).unwrap_or(0);
            }
            Vec::new()
        }
    }
}

/// The first 8 characters of a session id, as the panes show it.
fn short_id(id: &str) -> String {
    crate::model::text::sanitize::short_id(id)
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn apply(m: &mut Model, a: Action) -> Vec<Effect> {
    // A notice stays until the user does something else.
    if !matches!(a, Action::Scroll(..)) {
        m.notice = None;
    }
    if m.activity {
        match a {
            // Filters are about the handoffs: show them again.
            Action::StartFilter
            | Action::ToggleBlocked
            | Action::CycleKind
            | Action::ClearFilters => {
                m.activity = false;
                if m.focus == Pane::Activity {
                    m.focus = Pane::Inbox;
                }
            }
            // The handoff they would act on is not on screen (the keys are not bound
            // in the activity pane; a mouse-focused pane may still send them).
            Action::Resume | Action::Open | Action::StartResolve => {
                m.notice = Some(Notice {
                    text: "the activity view is shown: press a to go back to the handoffs".into(),
                    error: true,
                    at: m.now,
                });
                return Vec::new();
            }
            _ => {}
        }
    }
    // The sessions pane's own keys (the keymap binds them there only).
    if m.focus == Pane::Sessions {
        match a {
            Action::OpenConversation => {
                return match m.selected_session() {
                    Some(s) => match &s.transcript_path {
                        Some(t) => vec![Effect::OpenTranscript(t.into())],
                        None => {
                            m.notice = Some(Notice {
                                text: format!(
                                    "session {} has no transcript on record",
                                    short_id(&s.session_id)
                                ),
                                error: true,
                                at: m.now,
                            });
                            Vec::new()
                        }
                    },
                    None => Vec::new(),
                };
            }
            Action::Dismiss => {
                if let Some(s) = m.selected_session() {
                    let entry = (s.session_id.clone(), super::news_key(s));
                    let id = short_id(&s.session_id);
                    m.dismissed.push(entry);
                    let n = m.attention_rows().len();
                    m.sessions_selected = m.sessions_selected.min(n.saturating_sub(1));
                    m.notice = Some(Notice {
                        text: format!("dismissed session {id} until it has news"),
                        error: false,
                        at: m.now,
                    });
                }
                return Vec::new();
            }
            Action::CopyId => {
                return m
                    .selected_session()
                    // Never control characters into a clipboard (a paste could run them).
                    .map(|s| {
                        Effect::Copy(
                            crate::model::text::sanitize::single_line(&s.session_id).into_owned(),
                        )
                    })
                    .into_iter()
                    .collect();
            }
            _ => {}
        }
    } else if a == Action::CopyId {
        // Elsewhere y copies the selected handoff's path.
        return m
            .selected_entry()
            .map(|h| {
                Effect::Copy(
                    crate::model::text::sanitize::single_line(&h.path.display().to_string())
                        .into_owned(),
                )
            })
            .into_iter()
            .collect();
    }
    match a {
        // Esc: a filter goes first; with none, it quits.
        Action::Back if m.filter.is_active() => {
            m.filter = Filter::default();
            m.refresh_rows();
            m.preview_effect()
        }
        Action::Back | Action::Quit => {
            m.quit = true;
            vec![Effect::Quit]
        }
        Action::NextGaugeSession => {
            let live: Vec<String> = m
                .snapshot
                .live_sessions(m.now, m.stale_after)
                .iter()
                .map(|s| s.session_id.clone())
                .collect();
            let next = match m.gauge_pinned.as_ref() {
                None => live.first().cloned(),
                Some(p) => live
                    .iter()
                    .position(|id| id == p)
                    .and_then(|i| live.get(i + 1))
                    .cloned(),
            };
            let text = match &next {
                Some(id) => format!(
                    "gauge: session {} ({} live; s for the next)",
                    short_id(id),
                    live.len()
                ),
                None if live.is_empty() => {
                    "no live session to pick: the gauge shows the most recent one".to_owned()
                }
                None => "gauge: following the most recently active session".to_owned(),
            };
            m.gauge_pinned = next;
            m.notice = Some(Notice {
                text,
                error: false,
                at: m.now,
            });
            Vec::new()
        }
        Action::Up => m.move_by(-1),
        Action::Down => m.move_by(1),
        Action::Top => m.move_by(isize::MIN / 2),
        Action::Bottom => m.move_by(isize::MAX / 2),
        Action::PageUp => m.move_by(-m.page()),
        Action::PageDown => m.move_by(m.page()),
        Action::Scroll(pane, lines) => {
            // The inbox and preview are not on screen while the activity view is.
            let pane = match pane {
                Pane::Inbox | Pane::Preview if m.activity => Pane::Activity,
                p => p,
            };
            let before = m.focus;
            m.focus = pane;
            let fx = m.move_by(isize::from(lines));
            m.focus = before;
            fx
        }
        Action::NextPane => {
            m.focus = m.focus.step(true, &m.panes());
            Vec::new()
        }
        Action::PrevPane => {
            m.focus = m.focus.step(false, &m.panes());
            Vec::new()
        }
        Action::StartFilter => {
            m.mode = Mode::Filter;
            m.filter_before = m.filter.text.clone();
            m.focus = Pane::Inbox;
            Vec::new()
        }
        Action::FilterChar(c) => {
            m.filter.text.push(c);
            m.filter_changed()
        }
        Action::FilterBackspace => {
            m.filter.text.pop();
            m.filter_changed()
        }
        Action::FilterAccept => {
            m.mode = Mode::Normal;
            Vec::new()
        }
        Action::FilterCancel => {
            m.mode = Mode::Normal;
            m.filter.text = std::mem::take(&mut m.filter_before);
            m.refresh_rows();
            m.preview_effect()
        }
        Action::ToggleBlocked => {
            m.filter.blocked_only = !m.filter.blocked_only;
            m.refresh_rows();
            m.preview_effect()
        }
        Action::CycleKind => {
            m.filter.kind = m.filter.kind.next();
            m.refresh_rows();
            m.preview_effect()
        }
        Action::ClearFilters => {
            m.filter = Filter::default();
            m.refresh_rows();
            m.preview_effect()
        }
        Action::Resume => match m.selected_entry() {
            Some(h) => vec![Effect::WritePendingResume(h.path.clone())],
            None => {
                m.notice = Some(Notice {
                    text: "no handoff selected".into(),
                    error: true,
                    at: m.now,
                });
                Vec::new()
            }
        },
        // Handled above, for the sessions pane.
        Action::Dismiss | Action::CopyId | Action::OpenConversation => Vec::new(),
        Action::Open => match m.selected_entry() {
            Some(h) => vec![Effect::OpenEditor(h.path.clone())],
            None => Vec::new(),
        },
        Action::StartResolve => {
            match m.selected_entry() {
                Some(h) if h.is_blocked() => {
                    m.answer_for = Some(h.path.clone());
                    m.answer.clear();
                    m.mode = Mode::Answer;
                }
                Some(h) if h.signal_blocks() => {
                    m.notice = Some(Notice {
                        text: format!(
                            "{} is already resolved (by {})",
                            h.file_name,
                            h.superseded_by.as_deref().unwrap_or("a newer Signal")
                        ),
                        error: true,
                        at: m.now,
                    });
                }
                _ => {
                    m.notice = Some(Notice {
                        text: "select a blocked Signal to resolve (b shows only those)".into(),
                        error: true,
                        at: m.now,
                    });
                }
            }
            Vec::new()
        }
        Action::AnswerChar(c) => {
            if !c.is_control() {
                m.answer.push(c);
            }
            Vec::new()
        }
        Action::AnswerBackspace => {
            m.answer.pop();
            Vec::new()
        }
        Action::AnswerCancel => {
            m.mode = Mode::Normal;
            m.answer.clear();
            m.answer_for = None;
            Vec::new()
        }
        Action::AnswerAccept => {
            m.mode = Mode::Normal;
            let answer = std::mem::take(&mut m.answer);
            m.answer_for
                .take()
                .map(|blocked| Effect::ResolveSignal { blocked, answer })
                .into_iter()
                .collect()
        }
        Action::ToggleActivity => {
            m.activity = !m.activity;
            m.activity_selected = 0;
            m.focus = if m.activity {
                Pane::Activity
            } else {
                Pane::Inbox
            };
            Vec::new()
        }
        Action::ToggleHelp => {
            m.mode = if m.mode == Mode::Help {
                Mode::Normal
            } else {
                Mode::Help
            };
            m.help_scroll = 0;
            Vec::new()
        }
        Action::HelpScroll(lines) => {
            // The renderer stops at the last page.
            m.help_scroll = m.help_scroll.saturating_add_signed(i16::from(lines));
            Vec::new()
        }
        Action::Suspend => vec![Effect::Suspend],
        Action::Click(pane, row) => {
            m.focus = pane;
            match (pane, row) {
                (Pane::Inbox, Some(r)) => {
                    let i = m.inbox_first() + usize::from(r);
                    if i < m.rows.len() {
                        return m.select(i);
                    }
                }
                (Pane::Sessions, Some(r)) => {
                    let i = m.sessions_first() + usize::from(r);
                    if i < m.attention_rows().len() {
                        m.sessions_selected = i;
                    }
                }
                (Pane::Activity, Some(r)) => {
                    let first = m
                        .activity_selected
                        .saturating_sub(usize::from(m.inbox_rows.max(1)) - 1);
                    let i = first + usize::from(r);
                    if i < m.activity_rows().len() {
                        m.activity_selected = i;
                    }
                }
                _ => {}
            }
            Vec::new()
        }
        // Only the fleet list binds it.
        Action::OpenProject | Action::GoToPane => Vec::new(),
    }
}
