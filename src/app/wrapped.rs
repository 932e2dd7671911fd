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
//! [`Wrapped::start`] spawns it before forge does its own tick, so the two overlap;
//! [`Wrapped::finish`] then collects its output until it exits or the deadline
//! passes. No thread: the pipes are non-blocking and one `poll` waits on both. At
//! the deadline the command's whole process group is killed (it runs in one of its
//! own), and a signal that ends forge (Claude Code aborting this run) ends it too.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, poll};

use crate::env::Env;

/// How long the other command may take. Claude Code has no timeout of its own for
/// a status line (a new run aborts the running one), and tools like ccusage read
/// every transcript; past this the line shows forge's segments alone.
pub const DEADLINE: Duration = Duration::from_secs(2);

/// The longest single wait before the stop flag is looked at again.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// At most this much of its stdout is kept (the rest is read and dropped, so the
/// command never blocks on a full pipe).
pub const OUTPUT_CAP: usize = 64 * 1024;

/// A flag that SIGTERM, SIGHUP and SIGINT set instead of ending forge: Claude Code
/// ends a status-line run it no longer wants, and the command forge runs must not
/// outlive it then ([`Wrapped::finish`] kills its group and returns). A second
/// signal of the same kind ends forge as usual.
pub fn stop_on_signals() -> Arc<AtomicBool> {
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
pub struct Wrapped {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    input: Vec<u8>,
    written: usize,
    output: Vec<u8>,
    started: Instant,
    stop: Arc<AtomicBool>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// It exited 0: its stdout (at most [`OUTPUT_CAP`] bytes).
    Printed(Vec<u8>),
    /// It exited otherwise (Claude Code shows nothing then either).
    Failed(Option<i32>),
    /// Still running at the deadline: its process group was killed.
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
    pub fn start(
        env: &Env,
        command: &str,
        input: &[u8],
        stop: Arc<AtomicBool>,
    ) -> Result<Self, String> {
        let sh = env.resolve_program("sh")?;
        let mut cmd = Command::new(sh);
        if let Some(path) = env.absolute_path_var() {
            cmd.env("PATH", path);
        }
        cmd.arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("could not start sh: {e}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let nonblocking = |fd: std::os::fd::BorrowedFd<'_>| {
            let flags = rustix::fs::fcntl_getfl(fd)?;
            rustix::fs::fcntl_setfl(fd, flags | rustix::fs::OFlags::NONBLOCK)
        };
        for fd in [
            stdin.as_ref().map(AsFd::as_fd),
            stdout.as_ref().map(AsFd::as_fd),
        ]
        .into_iter()
        .flatten()
        {
            nonblocking(fd).map_err(|e| format!("could not set up its pipes: {e}"))?;
        }
        let mut run = Self {
            child,
            stdin,
            stdout,
            input: input.to_vec(),
            written: 0,
            output: Vec::new(),
            started: Instant::now(),
            stop,
        };
        // A payload of a few KiB fits the pipe at once: then stdin is closed now.
        run.feed();
        Ok(run)
    }

    /// Writes what the pipe takes of the rest of the input; closes stdin when all
    /// is written or the command no longer reads.
    fn feed(&mut self) {
        let Some(pipe) = self.stdin.as_mut() else {
            return;
        };
        while self.written < self.input.len() {
            match pipe.write(self.input.get(self.written..).unwrap_or_default()) {
                Ok(0) => break,
                Ok(n) => self.written += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        self.stdin = None;
    }

    /// Reads what is there of its stdout; `true` at the end of it.
    fn drain(&mut self) -> bool {
        let Some(pipe) = self.stdout.as_mut() else {
            return true;
        };
        let mut buf = [0u8; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => {
                    self.stdout = None;
                    return true;
                }
                Ok(n) => {
                    let room = OUTPUT_CAP.saturating_sub(self.output.len());
                    self.output
                        .extend_from_slice(buf.get(..n.min(room)).unwrap_or_default());
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.stdout = None;
                    return true;
                }
            }
        }
    }

    /// Kills the command's process group and reaps it.
    fn kill(&mut self) {
        if let Ok(pid) = i32::try_from(self.child.id())
            && let Some(pid) = rustix::process::Pid::from_raw(pid)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        let _ = self.child.wait();
    }

    /// Waits for the command until it exits or [`DEADLINE`] after its start, and
    /// says how it ended.
    pub fn finish(self) -> Ended {
        let deadline = self.started + DEADLINE;
        self.finish_by(deadline)
    }

    /// [`Self::finish`] with a deadline of the caller's.
    pub fn finish_by(mut self, deadline: Instant) -> Ended {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                self.kill();
                return Ended::Stopped;
            }
            let done = self.drain();
            self.feed();
            if done {
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                self.kill();
                return Ended::TimedOut;
            }
            let mut fds = Vec::with_capacity(2);
            if let Some(out) = self.stdout.as_ref() {
                fds.push(PollFd::new(out, PollFlags::IN));
            }
            if let Some(inp) = self.stdin.as_ref() {
                fds.push(PollFd::new(inp, PollFlags::OUT));
            }
            // A signal ends the poll early (EINTR) and the loop sees `stop`; the
            // slice bounds the wait for a flag set any other way.
            let _ = poll(&mut fds, Some(&timespec(left.min(STOP_CHECK))));
        }
        // Its stdout is closed: it has exited, or is about to (a process closes its
        // files a moment before it can be reaped), or left a process behind that
        // holds no pipe of ours. Wait for it until the deadline: on a pidfd, which
        // `poll` reports the moment it exits (a sleep would round up to the timer
        // slack); where there is none (Linux before 5.3), looking again after 20 µs,
        // then twice as long each time up to a millisecond.
        self.stdin = None;
        let pidfd = i32::try_from(self.child.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
            .and_then(|pid| {
                rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
            });
        let mut nap = Duration::from_micros(20);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return if status.success() {
                        Ended::Printed(std::mem::take(&mut self.output))
                    } else {
                        Ended::Failed(status.code())
                    };
                }
                Ok(None) if Instant::now() < deadline && !self.stop.load(Ordering::Relaxed) => {
                    match pidfd.as_ref() {
                        Some(fd) => {
                            let left = deadline.saturating_duration_since(Instant::now());
                            let timeout = timespec(left.min(STOP_CHECK));
                            let _ = poll(&mut [PollFd::new(fd, PollFlags::IN)], Some(&timeout));
                        }
                        None => {
                            std::thread::sleep(nap);
                            nap = (nap * 2).min(Duration::from_millis(1));
                        }
                    }
                }
                Ok(None) => {
                    let stopped = self.stop.load(Ordering::Relaxed);
                    self.kill();
                    return if stopped {
                        Ended::Stopped
                    } else {
                        Ended::TimedOut
                    };
                }
                Err(_) => return Ended::Failed(None),
            }
        }
    }
}

/// `d` as `poll`'s timeout.
fn timespec(d: Duration) -> rustix::event::Timespec {
    rustix::event::Timespec {
        tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        tv_nsec: i64::from(d.subsec_nanos()),
    }
}

impl Drop for Wrapped {
    /// A run dropped before it ended (forge panicked on the way) takes the command
    /// with it; one that ended was reaped, and is left alone.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.kill();
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
}
