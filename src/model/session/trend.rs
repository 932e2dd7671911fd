//! Context trend: growth per turn and turns until the next level, from a session's
//! recent readings. Pure arithmetic, shared by the dashboard (and anyone else).

use super::level::{Level, Thresholds};
use super::state::Reading;

/// How many of the most recent steps the growth average looks at.
const WINDOW: usize = 10;

/// Average growth in percentage points per reading (one reading per turn that
/// changed the context), over the last few readings since the last drop.
///
/// A drop (compaction, `/clear`) starts a new run: growth before it says nothing
/// about growth after it. `None` with fewer than two readings in the current run.
pub(crate) fn growth_per_turn(readings: &[Reading]) -> Option<f64> {
    let run = &readings[readings.len() - since_drop(readings).unwrap_or(readings.len())..];
    let run = &run[run.len().saturating_sub(WINDOW + 1)..];
    let (first, last) = (run.first()?, run.last()?);
    let steps = run.len() - 1;
    if steps == 0 {
        return None;
    }
    Some((last.pct - first.pct) / steps as f64)
}

/// How many readings there are since the last drop (a compaction, `/clear`), counting
/// the first one after it; `None` when the context never dropped.
pub(crate) fn since_drop(readings: &[Reading]) -> Option<usize> {
    readings
        .windows(2)
        .rposition(|w| w[1].pct < w[0].pct)
        .map(|i| readings.len() - (i + 1))
}

/// The next level above `pct` and how many turns at `growth` points per turn until it
/// is reached. `None` at L3 or when the context is not growing.
pub(crate) fn turns_to_next(pct: f64, growth: f64, t: &Thresholds) -> Option<(Level, u64)> {
    let (next, at) = Level::from_pct(pct, t).next(t)?;
    if growth <= f64::EPSILON || !growth.is_finite() {
        return None;
    }
    let turns = ((at - pct) / growth).ceil().max(1.0);
    Some((next, turns as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(pcts: &[f64]) -> Vec<Reading> {
        pcts.iter()
            .map(|p| Reading {
                at: String::new(),
                tokens: None,
                pct: *p,
            })
            .collect()
    }

    #[test]
    fn growth_averages_the_current_run() {
        assert_eq!(growth_per_turn(&r(&[])), None);
        assert_eq!(growth_per_turn(&r(&[40.0])), None);
        assert_eq!(growth_per_turn(&r(&[40.0, 44.0, 50.0])), Some(5.0));
        // A compaction drop starts a new run.
        assert_eq!(growth_per_turn(&r(&[80.0, 90.0, 20.0, 23.0])), Some(3.0));
        assert_eq!(growth_per_turn(&r(&[80.0, 20.0])), None);
        // Only the last WINDOW steps count.
        let mut long: Vec<f64> = (0..20).map(|i| f64::from(i) * 10.0).collect();
        long.extend([
            191.0, 192.0, 193.0, 194.0, 195.0, 196.0, 197.0, 198.0, 199.0, 200.0,
        ]);
        assert_eq!(growth_per_turn(&r(&long)), Some(1.0));
    }

    #[test]
    fn readings_since_the_last_drop() {
        assert_eq!(since_drop(&r(&[])), None);
        assert_eq!(since_drop(&r(&[40.0, 44.0])), None);
        assert_eq!(since_drop(&r(&[80.0, 90.0, 20.0])), Some(1));
        assert_eq!(since_drop(&r(&[80.0, 90.0, 20.0, 23.0, 25.0])), Some(3));
        // Two readings after the drop are enough for a growth figure.
        assert_eq!(growth_per_turn(&r(&[80.0, 90.0, 20.0, 23.0])), Some(3.0));
    }

    #[test]
    fn turns_until_next_level() {
        let t = Thresholds::default();
        assert_eq!(turns_to_next(60.0, 4.0, &t), Some((Level::L1, 3)));
        assert_eq!(turns_to_next(69.5, 4.0, &t), Some((Level::L1, 1)));
        assert_eq!(turns_to_next(74.0, 2.0, &t), Some((Level::L2, 6)));
        assert_eq!(turns_to_next(96.0, 2.0, &t), None);
        assert_eq!(turns_to_next(60.0, 0.0, &t), None);
        assert_eq!(turns_to_next(60.0, -3.0, &t), None);
    }
}
