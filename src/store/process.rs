//! Whether a Claude Code process is still there: `/proc/<pid>/stat`, its state and
//! its start time (clock ticks since boot), so a pid the kernel gave to another
//! process since is not taken for the client (the start times differ).
//!
//! The hooks record the client's pid (`$CLAUDE_PID`, which every hook gets) and its
//! start time in the session bridge; the views ask here whether it still runs. On a
//! system without `/proc` nothing is claimed either way.

use std::path::Path;

use super::safe;

/// What `/proc` says of a recorded client process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Liveness {
    /// It runs (the same process: same pid, same start time).
    Alive,
    /// It is gone: no such process, a zombie, or another process with its pid.
    Gone,
    /// Nothing can be said (no `/proc`).
    Unknown,
}

/// The state letter and the start time of `/proc/<pid>/stat`'s text: the fields
/// after the command name (which is in parentheses and may hold spaces or `)`).
pub(crate) fn parse_stat(text: &str) -> Option<(char, u64)> {
    let (_, rest) = text.rsplit_once(')')?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    // Field 3 is the state; field 22 is the start time.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

fn stat(pid: u32) -> Option<String> {
    let bytes = safe::read_capped(
        Path::new(&format!("/proc/{pid}/stat")),
        4096,
        safe::Follow::No,
    )
    .ok()?;
    String::from_utf8(bytes).ok()
}

/// The start time of process `pid` (for recording), when it runs.
pub(crate) fn start_time(pid: u32) -> Option<u64> {
    stat(pid).and_then(|t| parse_stat(&t)).map(|(_, s)| s)
}

/// Whether the process recorded as `pid`, started at `started`, still runs.
pub(crate) fn liveness(pid: u32, started: u64) -> Liveness {
    match stat(pid).and_then(|t| parse_stat(&t)) {
        Some((state, start)) if start == started && state != 'Z' && state != 'X' => Liveness::Alive,
        Some(_) => Liveness::Gone,
        None if Path::new("/proc/self/stat").exists() => Liveness::Gone,
        None => Liveness::Unknown,
    }
}

/// [`liveness`] as the views use it: gone for sure.
pub(crate) fn is_gone(pid: u32, started: u64) -> bool {
    liveness(pid, started) == Liveness::Gone
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stat_line_is_read_past_a_command_name_with_spaces_and_parentheses() {
        let line = "4743 (claude (x) y) S 4705 4743 4705 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 \
                    12 0 987654 123 45 18446744073709551615";
        assert_eq!(parse_stat(line), Some(('S', 987_654)));
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) R 0"), None);
    }

    #[test]
    fn this_process_runs_and_a_wrong_start_time_or_a_dead_child_does_not() {
        let me = std::process::id();
        let Some(start) = start_time(me) else {
            // No /proc here: nothing is claimed.
            assert_eq!(liveness(me, 0), Liveness::Unknown);
            return;
        };
        assert_eq!(liveness(me, start), Liveness::Alive);
        assert!(!is_gone(me, start));
        // The same pid with another start time is another process.
        assert_eq!(liveness(me, start + 1), Liveness::Gone);
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(is_gone(pid, start));
    }
}
