//! Context levels L0–L3 from a used percentage and the configured thresholds.

use serde::Serialize;

/// How full the context window is, in the bands of docs/design.md#levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Level {
    /// Below `warn` (default 70).
    L0,
    /// `warn`..`critical` (70–84).
    L1,
    /// `critical`..`emergency` (85–94).
    L2,
    /// `emergency` and above (95+).
    L3,
}

/// The three level boundaries, in percent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Thresholds {
    /// Start of L1.
    pub(crate) warn: f64,
    /// Start of L2.
    pub(crate) critical: f64,
    /// Start of L3.
    pub(crate) emergency: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            warn: 70.0,
            critical: 85.0,
            emergency: 95.0,
        }
    }
}

impl Level {
    /// The level of `pct` under `t`.
    pub(crate) fn from_pct(pct: f64, t: &Thresholds) -> Self {
        if pct >= t.emergency {
            Self::L3
        } else if pct >= t.critical {
            Self::L2
        } else if pct >= t.warn {
            Self::L1
        } else {
            Self::L0
        }
    }

    /// `"L0"`…`"L3"`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::L0 => "L0",
            Self::L1 => "L1",
            Self::L2 => "L2",
            Self::L3 => "L3",
        }
    }

    /// The level `as_str` spells `s` (`"L0"`…`"L3"`, exactly).
    pub(crate) fn parse(s: &str) -> Option<Self> {
        [Self::L0, Self::L1, Self::L2, Self::L3]
            .into_iter()
            .find(|l| l.as_str() == s)
    }

    /// The next level up, if any, and the percentage where it starts.
    pub(crate) fn next(self, t: &Thresholds) -> Option<(Self, f64)> {
        match self {
            Self::L0 => Some((Self::L1, t.warn)),
            Self::L1 => Some((Self::L2, t.critical)),
            Self::L2 => Some((Self::L3, t.emergency)),
            Self::L3 => None,
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_match_design_defaults() {
        let t = Thresholds::default();
        assert_eq!(Level::from_pct(0.0, &t), Level::L0);
        assert_eq!(Level::from_pct(69.9, &t), Level::L0);
        assert_eq!(Level::from_pct(70.0, &t), Level::L1);
        assert_eq!(Level::from_pct(84.0, &t), Level::L1);
        assert_eq!(Level::from_pct(85.0, &t), Level::L2);
        assert_eq!(Level::from_pct(94.9, &t), Level::L2);
        assert_eq!(Level::from_pct(95.0, &t), Level::L3);
        assert_eq!(Level::from_pct(100.0, &t), Level::L3);
    }

    #[test]
    fn levels_parse_as_they_are_spelled() {
        for l in [Level::L0, Level::L1, Level::L2, Level::L3] {
            assert_eq!(Level::parse(l.as_str()), Some(l));
        }
        for bad in ["", "l1", "L4", " L1", "L1 ", "1"] {
            assert_eq!(Level::parse(bad), None, "{bad:?}");
        }
    }
}
