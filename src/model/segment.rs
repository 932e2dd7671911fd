//! The status line's segments: each one's name (in `[statusline] segments` and
//! `wrap_segments`), its place on the default line and beside a wrapped status
//! line, and its drop rank (which goes first when the line is too narrow). This is
//! the one list of segments: the config reads names into [`Segment`]s, the status
//! line renders by matching on them (`crate::statusline`), and the defaults and the
//! drop order below are computed from [`Segment::spec`] when the crate is compiled.
//!
//! Adding a segment: a row in `named!` below and one in [`Segment::spec`] (the
//! compiler asks for it), and an arm in the status line's `build_segment` (it asks
//! for that too).

use crate::model::named::named;

named! {
    /// A status-line segment.
    pub enum Segment in lists as "segment" {
        /// The model's display name.
        Model = "model",
        /// The project's folder name.
        Project = "project",
        /// The branch and the uncommitted-change count.
        Git = "git",
        /// The context bar, figure, warning and level (never dropped).
        Context = "context",
        /// The workflow phase and task from `state.json`.
        Task = "task",
        /// Blocked agent Signals.
        Signals = "signals",
        /// `✎ learn` while a /forge-learn is pending.
        Learn = "learn",
        /// The session's cost (payload, optional).
        Cost = "cost",
        /// The session's wall time (payload, optional).
        Duration = "duration",
        /// The account's rate limits (payload, optional).
        Limits = "limits",
        /// The rate limits' pace: used %, whether the pace runs out before the
        /// reset, the time to the reset (payload and the session's readings,
        /// optional).
        Pace = "pace",
        /// Lines added and removed (payload, optional).
        Lines = "lines",
        /// Live sessions of other projects waiting for a person (fleet, optional).
        Elsewhere = "elsewhere",
        /// The tokens in the context window over its size, `148k/200k` (payload,
        /// optional).
        Tokens = "tokens",
    }
}

/// Where a segment stands in each order: `None` where it is not in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spec {
    /// Its place on the default line (`[statusline] segments`).
    pub(crate) default: Option<u8>,
    /// Its place beside a wrapped status line by default (`wrap_segments`): what
    /// only forge knows (the model, folder and branch are the other tool's to show).
    pub(crate) wrap: Option<u8>,
    /// When the line is too narrow, segments go in this order, lowest first; `None`
    /// is never dropped. Before each drop the task is shortened instead when that is
    /// enough; before any drop the limits lose their reset times. The optional
    /// payload segments go early (nice to know, not forge's job), except the rate
    /// limits, which stop work when they run out and so outlast the model and
    /// project names.
    pub(crate) drop: Option<u8>,
}

const fn spec(default: Option<u8>, wrap: Option<u8>, drop: Option<u8>) -> Spec {
    Spec {
        default,
        wrap,
        drop,
    }
}

impl Segment {
    /// Its places: one row per segment, the table the orders below are built from.
    pub(crate) const fn spec(self) -> Spec {
        match self {
            // Self::Segment => spec(default place, wrap place, drop rank),
            Self::Model => spec(Some(0), None, Some(8)),
            Self::Project => spec(Some(1), None, Some(7)),
            Self::Git => spec(Some(2), None, Some(11)),
            Self::Context => spec(Some(3), Some(0), None),
            Self::Task => spec(Some(4), Some(1), Some(6)),
            Self::Signals => spec(Some(5), Some(2), Some(12)),
            Self::Learn => spec(Some(6), Some(3), Some(3)),
            Self::Cost => spec(None, None, Some(4)),
            Self::Duration => spec(None, None, Some(1)),
            Self::Limits => spec(None, None, Some(9)),
            // What runs out and stops work: after the plain limits.
            Self::Pace => spec(None, None, Some(10)),
            Self::Lines => spec(None, None, Some(2)),
            Self::Elsewhere => spec(None, None, Some(5)),
            // The context figure in other units: the first to go.
            Self::Tokens => spec(None, None, Some(0)),
        }
    }
}

/// One of the orders of [`Spec`].
#[derive(Clone, Copy)]
enum Order {
    Default,
    Wrap,
    Drop,
}

const fn place(s: Segment, order: Order) -> Option<u8> {
    let spec = s.spec();
    match order {
        Order::Default => spec.default,
        Order::Wrap => spec.wrap,
        Order::Drop => spec.drop,
    }
}

/// How many segments have a place in `order`.
const fn count(order: Order) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < Segment::ALL.len() {
        if place(Segment::ALL[i], order).is_some() {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The segments with a place in `order`, by place. The places must be 0, 1, 2, …
/// with no gap and no place twice: anything else stops the build here.
const fn ordered<const N: usize>(order: Order) -> [Segment; N] {
    let mut out = [Segment::Context; N];
    let mut taken = [false; N];
    let mut i = 0;
    while i < Segment::ALL.len() {
        if let Some(p) = place(Segment::ALL[i], order) {
            let p = p as usize;
            assert!(p < N, "a segment's place is past the end of its order");
            assert!(!taken[p], "two segments have the same place in an order");
            taken[p] = true;
            out[p] = Segment::ALL[i];
        }
        i += 1;
    }
    out
}

/// The default `[statusline] segments`, in order.
pub const DEFAULT_SEGMENTS: [Segment; count(Order::Default)] = ordered(Order::Default);

/// The default `[statusline] wrap_segments`, in order.
pub(crate) const DEFAULT_WRAP_SEGMENTS: [Segment; count(Order::Wrap)] = ordered(Order::Wrap);

/// The segments in the order they are dropped from a line too narrow for them.
pub(crate) const DROP_ORDER: [Segment; count(Order::Drop)] = ordered(Order::Drop);

named! {
    /// Where forge's segments go beside a wrapped status line (`[statusline]
    /// wrap_position`).
    pub(crate) enum WrapPosition {
        /// At the end of the other tool's first line (on a line of their own when
        /// they would not fit there).
        After = "after",
        /// At the start of its first line.
        Before = "before",
        /// On a line of their own, under its output.
        Line = "line",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_orders_come_from_the_table() {
        assert_eq!(
            DEFAULT_SEGMENTS.map(Segment::name),
            [
                "model", "project", "git", "context", "task", "signals", "learn"
            ]
        );
        assert_eq!(
            DEFAULT_WRAP_SEGMENTS.map(Segment::name),
            ["context", "task", "signals", "learn"]
        );
        assert_eq!(
            DROP_ORDER.map(Segment::name),
            [
                "tokens",
                "duration",
                "lines",
                "learn",
                "cost",
                "elsewhere",
                "task",
                "project",
                "model",
                "limits",
                "pace",
                "git",
                "signals"
            ]
        );
        // Every segment but the context can be dropped; the context never is.
        for s in Segment::ALL {
            assert_eq!(DROP_ORDER.contains(s), *s != Segment::Context, "{s}");
        }
        // The optional ones are off by default, and nothing is beside a wrapped
        // line by default that is not on the default line.
        for s in DEFAULT_WRAP_SEGMENTS {
            assert!(DEFAULT_SEGMENTS.contains(&s), "{s}");
        }
        for s in [
            Segment::Cost,
            Segment::Duration,
            Segment::Limits,
            Segment::Lines,
            Segment::Elsewhere,
        ] {
            assert!(!DEFAULT_SEGMENTS.contains(&s), "{s}");
        }
    }
}
