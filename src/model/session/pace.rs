//! Quota pace: from the `rate_limits` readings the status line keeps in a session's
//! bridge (`quota_5h`, `quota_7d`), whether the current pace uses up a window
//! before it resets (docs/alerts.md#quota-pace).
//!
//! How it projects: the readings kept are those of the window that is current (the
//! same `resets_at`; a new window drops the old one's). The pace is the rise of
//! `used_percentage` from the oldest kept reading no older than the lookback (one
//! hour for the 5-hour window, a day for the 7-day one) and at least a minute old,
//! to now, over the time between them. A pace above zero that reaches 100 % before
//! `resets_at` is "out in …"; a pace of zero is steady. No reading old enough: no
//! pace, only the use and the reset. Nothing here reads the network, a transcript
//! or the clock: readings and `now` come in.

use serde::{Deserialize, Serialize};

/// One reading of a rate-limit window, as the status line saw it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QuotaReading {
    /// When (unix seconds).
    pub(crate) at: i64,
    /// `used_percentage` (0 to 100).
    pub(crate) pct: f64,
    /// `resets_at` (unix seconds), which names the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) resets_at: Option<i64>,
}

/// How many readings of a window a bridge keeps.
pub(crate) const MAX_QUOTA_READINGS: usize = 24;

/// The shortest time between two readings the pace is measured over (seconds).
const MIN_SPAN: i64 = 60;

/// Which window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Window {
    /// `rate_limits.five_hour`.
    FiveHour,
    /// `rate_limits.seven_day`.
    SevenDay,
}

impl Window {
    /// How far back the pace looks (seconds).
    pub(crate) const fn lookback(self) -> i64 {
        match self {
            Self::FiveHour => 3600,
            Self::SevenDay => 86_400,
        }
    }

    /// Its label, `5h` or `7d`.
    pub(crate) const fn label(self) -> &'static str {
        match self {
            Self::FiveHour => "5h",
            Self::SevenDay => "7d",
        }
    }
}

/// Adds `now` to `kept` when it differs from the last reading (its use or its
/// window); a reading of another window drops the old window's. Returns whether
/// `kept` changed.
pub(crate) fn push(kept: &mut Vec<QuotaReading>, now: QuotaReading) -> bool {
    if let Some(last) = kept.last() {
        if last.resets_at == now.resets_at && (last.pct - now.pct).abs() < 1e-9 {
            return false;
        }
        if last.resets_at != now.resets_at {
            kept.clear();
        }
    }
    kept.push(now);
    let excess = kept.len().saturating_sub(MAX_QUOTA_READINGS);
    kept.drain(..excess);
    true
}

/// Where a window is headed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Heading {
    /// Used up (100 %).
    Out,
    /// Rising: at this pace it runs out in this many seconds, before its reset.
    OutIn(i64),
    /// Rising, but it lasts until its reset (or its reset is unknown and the pace
    /// runs out after a full window).
    Rising,
    /// No rise over the lookback.
    Steady,
    /// No reading old enough to tell.
    Unknown,
}

/// A window's use, reset and pace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pace {
    /// Which window.
    pub(crate) window: Window,
    /// `used_percentage` now.
    pub(crate) used_pct: f64,
    /// Seconds until the reset, when it is in the future.
    pub(crate) resets_in: Option<i64>,
    /// Where it is headed.
    pub(crate) heading: Heading,
}

/// The pace of `window` now (`current`, this tick's reading) from the readings kept
/// before it.
pub(crate) fn pace(window: Window, kept: &[QuotaReading], current: QuotaReading) -> Pace {
    let now = current.at;
    let resets_in = current.resets_at.map(|t| t - now).filter(|s| *s > 0);
    let oldest = kept
        .iter()
        .filter(|r| r.resets_at == current.resets_at)
        .filter(|r| now - r.at >= MIN_SPAN && now - r.at <= window.lookback())
        .min_by_key(|r| r.at);
    let heading = if current.pct >= 100.0 - 1e-9 {
        Heading::Out
    } else {
        match oldest {
            None => Heading::Unknown,
            Some(then) => {
                let rise = current.pct - then.pct;
                if rise <= 1e-9 {
                    Heading::Steady
                } else {
                    let per_sec = rise / (now - then.at) as f64;
                    let out_in = ((100.0 - current.pct) / per_sec).ceil() as i64;
                    match resets_in {
                        Some(left) if out_in < left => Heading::OutIn(out_in),
                        _ => Heading::Rising,
                    }
                }
            }
        }
    };
    Pace {
        window,
        used_pct: current.pct,
        resets_in,
        heading,
    }
}

/// The pace as of a session's last kept reading (the dashboard's view: it has the
/// bridge, not the status line's input), with the reset measured from `now`
/// (unix seconds). `None` without readings.
pub(crate) fn from_kept(window: Window, kept: &[QuotaReading], now: i64) -> Option<Pace> {
    let (last, before) = kept.split_last()?;
    let mut p = pace(window, before, *last);
    p.resets_in = last.resets_at.map(|t| t - now).filter(|s| *s > 0);
    // A window whose reset has passed is over: its use is no longer the account's.
    if last.resets_at.is_some() && p.resets_in.is_none() {
        return None;
    }
    if let Heading::OutIn(secs) = p.heading {
        let left = secs - (now - last.at);
        p.heading = if left > 0 {
            Heading::OutIn(left)
        } else {
            Heading::Out
        };
    }
    Some(p)
}

/// `1h10`, `45m`, `3d04`: a span the pace words use (at least a minute).
pub(crate) fn short_span(secs: i64) -> String {
    let m = (secs.max(0) + 59) / 60;
    match m {
        0..60 => format!("{m}m"),
        60..1440 => format!("{}h{:02}", m / 60, m % 60),
        _ => format!("{}d{:02}", m / 1440, (m % 1440) / 60),
    }
}

impl Pace {
    /// `5h 62% ↗ out in 1h10 (resets 2h05)`; `with_reset` false leaves the reset out.
    pub(crate) fn words(&self, with_reset: bool) -> String {
        let mut s = format!("{} {}%", self.window.label(), self.used_pct.round() as u8);
        match self.heading {
            Heading::Out => s.push_str(" out"),
            Heading::OutIn(secs) => {
                s.push_str(" ↗ out in ");
                s.push_str(&short_span(secs));
            }
            Heading::Rising => s.push_str(" ↗"),
            Heading::Steady => s.push_str(" →"),
            Heading::Unknown => {}
        }
        if with_reset && let Some(left) = self.resets_in {
            s.push_str(" (resets ");
            s.push_str(&short_span(left));
            s.push(')');
        }
        s
    }

    /// Whether the pace runs the window out before its reset (or it is out).
    pub(crate) fn runs_out(&self) -> bool {
        matches!(self.heading, Heading::Out | Heading::OutIn(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_795_230_000;
    const RESET: i64 = T + 2 * 3600 + 5 * 60;

    fn r(at: i64, pct: f64) -> QuotaReading {
        QuotaReading {
            at,
            pct,
            resets_at: Some(RESET),
        }
    }

    #[test]
    fn a_rising_pace_that_runs_out_before_the_reset_says_when() {
        // 50 % → 62 % in 12 minutes: 1 % a minute, 38 % left: out in 38 minutes,
        // before the reset in 2h05.
        let kept = [r(T - 720, 50.0), r(T - 300, 57.0)];
        let p = pace(Window::FiveHour, &kept, r(T, 62.0));
        assert_eq!(p.heading, Heading::OutIn(38 * 60));
        assert_eq!(p.words(true), "5h 62% ↗ out in 38m (resets 2h05)");
        assert_eq!(p.words(false), "5h 62% ↗ out in 38m");
        assert!(p.runs_out());
        // 12 % in an hour: 38 % left takes 3h10, after the reset.
        let slow = [r(T - 3600, 50.0)];
        let p = pace(Window::FiveHour, &slow, r(T, 62.0));
        assert_eq!(p.heading, Heading::Rising);
        assert_eq!(p.words(true), "5h 62% ↗ (resets 2h05)");
        assert!(!p.runs_out());
    }

    #[test]
    fn steady_unknown_out_and_old_windows() {
        let p = pace(Window::FiveHour, &[r(T - 600, 62.0)], r(T, 62.0));
        assert_eq!(p.words(true), "5h 62% → (resets 2h05)");
        // A reading younger than a minute, or older than the lookback: no pace.
        let p = pace(
            Window::FiveHour,
            &[r(T - 30, 50.0), r(T - 7200, 1.0)],
            r(T, 62.0),
        );
        assert_eq!(p.heading, Heading::Unknown);
        assert_eq!(p.words(true), "5h 62% (resets 2h05)");
        // The 7-day window looks back a day.
        let p = pace(Window::SevenDay, &[r(T - 7200, 40.0)], r(T, 41.0));
        assert_eq!(p.heading, Heading::Rising);
        // A reading of the previous window is not this one's.
        let old = QuotaReading {
            at: T - 600,
            pct: 90.0,
            resets_at: Some(T - 1),
        };
        let p = pace(Window::FiveHour, &[old], r(T, 3.0));
        assert_eq!(p.heading, Heading::Unknown);
        // Used up.
        let p = pace(Window::FiveHour, &[], r(T, 100.0));
        assert_eq!(p.words(true), "5h 100% out (resets 2h05)");
        // A reset in the past is not shown.
        let p = pace(
            Window::FiveHour,
            &[],
            QuotaReading {
                at: T,
                pct: 5.0,
                resets_at: Some(T - 5),
            },
        );
        assert_eq!(p.words(true), "5h 5%");
    }

    #[test]
    fn push_keeps_changes_of_the_current_window_only() {
        let mut kept = Vec::new();
        assert!(push(&mut kept, r(T, 10.0)));
        assert!(
            !push(&mut kept, r(T + 5, 10.0)),
            "the same use is not kept twice"
        );
        assert!(push(&mut kept, r(T + 10, 11.0)));
        assert_eq!(kept.len(), 2);
        let next = QuotaReading {
            at: T + 20,
            pct: 0.5,
            resets_at: Some(RESET + 18_000),
        };
        assert!(push(&mut kept, next));
        assert_eq!(kept, [next], "a new window drops the old one's readings");
        for i in 0..40 {
            push(&mut kept, r(T + 100 + i, f64::from(i as u8)));
        }
        assert_eq!(kept.len(), MAX_QUOTA_READINGS);
    }

    #[test]
    fn the_dashboard_reads_the_pace_from_the_kept_readings() {
        let kept = [r(T - 720, 50.0), r(T - 300, 57.0), r(T, 62.0)];
        // Five minutes after the last reading: five minutes less to go.
        let p = from_kept(Window::FiveHour, &kept, T + 300).unwrap();
        assert_eq!(p.heading, Heading::OutIn(33 * 60));
        assert_eq!(p.resets_in, Some(RESET - T - 300));
        assert_eq!(from_kept(Window::FiveHour, &[], T), None);
        // After the reset: that window is over.
        assert_eq!(from_kept(Window::FiveHour, &kept, RESET + 1), None);
    }

    #[test]
    fn spans_read_as_hours_and_minutes() {
        assert_eq!(short_span(4200), "1h10");
        assert_eq!(short_span(7500), "2h05");
        assert_eq!(short_span(59), "1m");
        assert_eq!(short_span(3 * 86_400 + 4 * 3600), "3d04");
    }
}
