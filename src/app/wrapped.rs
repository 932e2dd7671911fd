//! Composition mode (`forge statusline --wrap '<cmd>'`), the process half: the
//! person's own status-line command (ccstatusline, ccusage, CCometixLine…) run the
//! way Claude Code would run it — `sh -c`, the same statusline JSON on stdin, the
//! same environment and folder — but under a deadline, with its output capped.
//!
//! The command comes only from the settings file that runs `forge statusline
//! --wrap`: the file Claude Code already ran that very command from, so forge runs
//! nothing that file could not run on its own (docs/security.md). It is never read
//! from `.forge/config.toml`.
//!
//! It runs through [`crate::proc`], like every child of forge: [`Wrapped::start`]
//! begins it ([`Cmd::begin`]) before forge does its own tick, so the two overlap;
//! [`Wrapped::finish`] then collects its output until it exits or the deadline
//! passes ([`Pending::finish_within`]: no thread, one `poll` on its pipes and a
//! pidfd). At the deadline the command's whole process group is killed (it runs in
//! one of its own; no SIGTERM first: a late status line is worth nothing), and a
//! signal that ends forge (Claude Code aborting this run) ends it too. What of its
//! tree left the group (`setsid`) is killed when it ends as well
//! ([`Cmd::whole_tree`]): it never outlives forge.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
#[cfg(test)]
use std::time::Instant;

use crate::env::Env;
use crate::proc::{Cmd, End, Input, Output, Pending};

/// How long the other command may take. Claude Code has no timeout of its own for
/// a status line (a new run aborts the running one), and tools like ccusage read
/// every transcript; past this the line shows forge's segments alone.
pub(crate) const DEADLINE: Duration = Duration::from_secs(2);

/// At most this much of its stdout is kept (the rest is read and dropped, so the
/// command never blocks on a full pipe).
pub(crate) const OUTPUT_CAP: usize = 64 * 1024;

/// A flag that SIGTERM, SIGHUP and SIGINT set instead of ending forge: Claude Code
/// ends a status-line run it no longer wants, and the command forge runs must not
/// outlive it then ([`Wrapped::finish`] kills its group and returns). A second
/// signal of the same kind ends forge as usual.
pub(crate) fn stop_on_signals() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
        signal_hook::consts::SIGINT,
    ] {
        let _ = signal_hook::flag::register_conditional_default(sig, Arc::clone(&stop));
        let _ = signal_hook::flag::register(sig, Arc::clone(&stop));
    }
    stop
}

/// The other command, running.
pub(crate) struct Wrapped {
    /// The command, begun (dropped unfinished, its group is killed).
    child: Pending,
    /// The flag that stops the wait (also given to the run).
    stop: Arc<AtomicBool>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ended {
    /// It exited 0: its stdout (at most [`OUTPUT_CAP`] bytes).
    Printed(Vec<u8>),
    /// It exited otherwise (Claude Code shows nothing then either).
    Failed(Option<i32>),
    /// Still running at the deadline (or its output still held open by a process
    /// it left): its process group was killed.
    TimedOut,
    /// forge was asked to stop (a signal): its process group was killed.
    Stopped,
}

impl Wrapped {
    /// Starts `command` with `sh -c` (sh from an absolute folder of `PATH`, and
    /// `PATH` without its relative folders, as every command forge runs), `input`
    /// on its stdin, stderr dropped, in a process group of its own. When `stop` is
    /// set (by a signal: see [`stop_on_signals`]) the wait ends and the command's
    /// group is killed. `Err` says why it could not start.
    pub(crate) fn start(
        env: &Env,
        command: &str,
        input: &[u8],
        stop: Arc<AtomicBool>,
    ) -> Result<Self, String> {
        let mut cmd = Cmd::shell(env, command).map_err(|e| e.to_string())?;
        let child = cmd
            .stdin(Input::Bytes(input.to_vec()))
            .stdout(Output::Capture(OUTPUT_CAP))
            .stderr(Output::Null)
            .grace(Duration::ZERO)
            .stop_on(Arc::clone(&stop))
            .whole_tree()
            .begin()
            .map_err(|e| format!("could not start sh: {e}"))?;
        Ok(Self { child, stop })
    }

    /// Waits for the command until it exits or [`DEADLINE`] after its start, and
    /// says how it ended.
    pub(crate) fn finish(self) -> Ended {
        let Self { child, stop } = self;
        Self::ended(child.finish_within(DEADLINE), &stop)
    }

    /// [`Self::finish`] with a deadline of the caller's.
    #[cfg(test)]
    pub(crate) fn finish_by(self, deadline: Instant) -> Ended {
        let Self { child, stop } = self;
        Self::ended(child.finish_by(deadline), &stop)
    }

    /// What a run's end means for the status line: its output only when it exited
    /// 0 with its stdout closed before the deadline.
    fn ended(run: Result<crate::proc::Finished, crate::proc::Error>, stop: &AtomicBool) -> Ended {
        let Ok(run) = run else {
            return Ended::Failed(None);
        };
        match run.end {
            End::Stopped => Ended::Stopped,
            End::TimedOut => Ended::TimedOut,
            // It exited, but a process it left kept its stdout open until the
            // deadline (or the stop): its group was killed, as for a slow one.
            End::Exited(_) if run.lingered => {
                if stop.load(Ordering::Relaxed) {
                    Ended::Stopped
                } else {
                    Ended::TimedOut
                }
            }
            End::Exited(status) if status.success() => Ended::Printed(run.stdout.bytes),
            End::Exited(status) => Ended::Failed(status.code()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flag() -> Arc<AtomicBool> {
        Arc::new(AtomicBool::new(false))
    }

    #[test]
    fn a_stop_ends_the_wait_and_the_command() {
        let stop = flag();
        let run = Wrapped::start(&env(), "sleep 5", b"", Arc::clone(&stop)).unwrap();
        let pid = run.child.id();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            stop.store(true, Ordering::Relaxed);
        });
        let t = Instant::now();
        assert_eq!(run.finish(), Ended::Stopped);
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
        setter.join().unwrap();
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    }

    fn env() -> Env {
        let dir = std::env::temp_dir();
        let mut e = Env::for_test(&dir, &dir);
        e.path = Some("/usr/bin:/bin".into());
        e
    }

    #[test]
    fn it_gets_the_payload_and_its_output_is_kept() {
        let run =
            Wrapped::start(&env(), "tr a-z A-Z; echo; exit 0", b"{\"x\":1}\n", flag()).unwrap();
        assert_eq!(run.finish(), Ended::Printed(b"{\"X\":1}\n\n".to_vec()));
        let run = Wrapped::start(&env(), "echo no; exit 3", b"", flag()).unwrap();
        assert_eq!(run.finish(), Ended::Failed(Some(3)));
    }

    #[test]
    fn a_payload_larger_than_the_pipe_still_arrives_whole() {
        let big = vec![b'a'; 300 * 1024];
        let run = Wrapped::start(&env(), "wc -c", &big, flag()).unwrap();
        let Ended::Printed(out) = run.finish() else {
            panic!("not printed");
        };
        assert_eq!(String::from_utf8_lossy(&out).trim(), "307200");
    }

    #[test]
    fn a_slow_command_and_its_children_are_killed_at_the_deadline() {
        let marker = tempfile::tempdir().unwrap();
        let file = marker.path().join("late");
        let cmd = format!(
            "(sleep 1; touch '{}') & echo started; sleep 5",
            file.display()
        );
        let run = Wrapped::start(&env(), &cmd, b"", flag()).unwrap();
        let t = Instant::now();
        assert_eq!(
            run.finish_by(Instant::now() + Duration::from_millis(300)),
            Ended::TimedOut
        );
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
        // Its background child went with its process group.
        std::thread::sleep(Duration::from_millis(1200));
        assert!(!file.exists());
    }

    #[test]
    fn endless_output_is_capped_and_a_command_that_reads_nothing_does_not_block() {
        let run = Wrapped::start(&env(), "yes | head -c 1000000", b"", flag()).unwrap();
        let Ended::Printed(out) = run.finish() else {
            panic!("not printed");
        };
        assert_eq!(out.len(), OUTPUT_CAP);
        let big = vec![b'a'; 300 * 1024];
        let run = Wrapped::start(&env(), "echo ignored-stdin", &big, flag()).unwrap();
        assert_eq!(run.finish(), Ended::Printed(b"ignored-stdin\n".to_vec()));
    }

    #[test]
    fn output_held_open_by_a_process_it_left_is_a_timeout_and_the_process_goes() {
        let marker = tempfile::tempdir().unwrap();
        let pid_file = marker.path().join("pid");
        // sh exits 0 at once; the sleep it leaves holds its stdout.
        let cmd = format!("sleep 30 & echo $! > '{}'; echo early", pid_file.display());
        let run = Wrapped::start(&env(), &cmd, b"", flag()).unwrap();
        let t = Instant::now();
        assert_eq!(
            run.finish_by(Instant::now() + Duration::from_millis(300)),
            Ended::TimedOut
        );
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let gone = || {
            std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
                .map_or(true, |s| s.contains(") Z "))
        };
        let until = Instant::now() + Duration::from_secs(5);
        while !gone() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(gone(), "the process it left outlived the deadline");
    }
}
