//! When Stop warns the person about uncommitted changes (`[hooks] dirty_warning`).
//! Pure: the count now and what the session bridge remembers go in, the decision
//! and what to remember come out.
//!
//! A warning under every reply is noise: a tree that was already dirty when the
//! session started (`forge init`'s own edits, work left from yesterday) is not news,
//! and neither is a tree that stays as dirty as it was. So by default (`grew`) a
//! warning needs the count to grow past a floor: the count at SessionStart, raised to
//! each count warned about, and lowered whenever the tree gets cleaner (a commit, a
//! stash) — from there, new changes warn again.

use crate::model::named::named;

named! {
    /// `[hooks] dirty_warning`.
    pub(crate) enum DirtyWarning {
        /// Only when the count grew past the floor (the default).
        Grew = "grew",
        /// Whenever the count differs from the last one warned about (the rule before
        /// this key existed).
        Changed = "changed",
        /// Never.
        Off = "off",
    }
}

/// What Stop does about the dirty tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decision {
    /// Show the warning now.
    pub(crate) warn: bool,
    /// What the bridge's `dirty_warned` becomes: the floor the next warning must pass
    /// (`grew`), the count last warned about (`changed`).
    pub(crate) warned: Option<u64>,
}

/// Whether Stop warns about `count` uncommitted changes, given the count at the
/// session's start (`at_start`, from SessionStart) and the bridge's `dirty_warned`.
pub(crate) fn decide(
    mode: DirtyWarning,
    count: u64,
    at_start: Option<u64>,
    warned: Option<u64>,
) -> Decision {
    match mode {
        DirtyWarning::Off => Decision {
            warn: false,
            warned,
        },
        DirtyWarning::Changed => Decision {
            warn: count > 0 && warned != Some(count),
            warned: Some(count),
        },
        DirtyWarning::Grew => match warned.or(at_start) {
            // A session forge did not see start: from now on.
            None => Decision {
                warn: false,
                warned: Some(count),
            },
            // Grew past the floor: warned, and the floor rises to it.
            Some(floor) if count > floor => Decision {
                warn: true,
                warned: Some(count),
            },
            // Cleaner than the floor (a commit, a stash): the floor comes down, so
            // what the session changes next warns again. Same as the floor: nothing.
            Some(floor) => Decision {
                warn: false,
                warned: Some(count.min(floor)),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a session's turns from a start count, returning the turns that warned.
    fn warned_turns(mode: DirtyWarning, at_start: Option<u64>, counts: &[u64]) -> Vec<u64> {
        let mut warned = None;
        let mut out = Vec::new();
        for &c in counts {
            let d = decide(mode, c, at_start, warned);
            if d.warn {
                out.push(c);
            }
            warned = d.warned;
        }
        out
    }

    #[test]
    fn grew_warns_only_past_the_floor_and_a_cleaner_tree_lowers_it() {
        use DirtyWarning::Grew;
        // Dirty at the start (forge init's own edits, yesterday's work): a steady
        // tree never warns.
        assert!(warned_turns(Grew, Some(2), &[2, 2, 2]).is_empty());
        // Set: the session adds a change; the same count again does not repeat it;
        // one more does.
        assert_eq!(warned_turns(Grew, Some(2), &[2, 3, 3, 4]), [3, 4]);
        // Clear: a commit brings the count down; new changes from there warn again.
        assert_eq!(warned_turns(Grew, Some(2), &[3, 0, 0, 1]), [3, 1]);
        // Fewer than at the start, then back to the start count: that is growth past
        // the lowered floor.
        assert_eq!(warned_turns(Grew, Some(2), &[1, 2]), [2]);
        // A clean start, the first change warns.
        assert_eq!(warned_turns(Grew, Some(0), &[0, 1]), [1]);
        // A session forge did not see start: its first count is the floor.
        assert_eq!(warned_turns(Grew, None, &[3, 3, 4]), [4]);
    }

    #[test]
    fn changed_warns_at_each_new_count_and_off_never() {
        assert_eq!(
            warned_turns(DirtyWarning::Changed, Some(2), &[2, 2, 3, 1, 0, 1]),
            [2, 3, 1, 1]
        );
        assert!(warned_turns(DirtyWarning::Off, Some(0), &[1, 2, 3]).is_empty());
        assert_eq!(DirtyWarning::from_name("grew"), Some(DirtyWarning::Grew));
        assert_eq!(
            DirtyWarning::from_name("changed"),
            Some(DirtyWarning::Changed)
        );
        assert_eq!(DirtyWarning::from_name("off"), Some(DirtyWarning::Off));
        // Another value is refused when the config is read (the hooks then run on
        // the defaults, `grew` among them): there is no value to fall back from.
        assert_eq!(DirtyWarning::from_name("bogus"), None);
    }
}
