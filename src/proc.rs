//! The one way forge runs a child process. On the ground floor beside `env`: it
//! names nothing of the crate but `env` (to find a program through the absolute
//! folders of `$PATH` only, and for the clock's deadlines), and every spawn in
//! `src/` goes through it (clippy.toml bans `std::process::Command::new` elsewhere;
//! `src/layers.rs` checks the text).
//!
//! A [`Cmd`] is built like `std::process::Command`, except that nothing is
//! inherited by default: stdin, stdout and stderr start as `/dev/null` and are set
//! explicitly. It runs one of four ways:
//!
//! - [`Cmd::run_for`] / [`Cmd::run_until`] (or [`Cmd::begin`] now and
//!   [`Pending::finish_by`] / [`Pending::finish_within`] later, so forge's own work
//!   overlaps the child's: `forge statusline --wrap`'s other command): in a
//!   process group of its own, waited for until a deadline. No thread: its pipes are
//!   non-blocking and one `poll` waits on them and on the child's exit (a pidfd), so
//!   stdout and stderr are read as they come (each kept up to its cap, the rest read
//!   and dropped: a chatty child never blocks on a full pipe) and stdin is written
//!   as the child reads it, then closed. At the deadline (or when a stop flag given
//!   with [`Cmd::stop_on`] is set) the whole group gets SIGTERM, and SIGKILL after a
//!   grace (at once with a grace of zero); so does a group whose leader exited while a process it left still holds
//!   its output. [`Finished`] says how it ended (exit status, timed out or stopped,
//!   each stream's bytes and whether they were cut).
//! - [`Cmd::start`]: a long-running child of its own process group whose stdout is
//!   read line by line as it comes ([`Running::lines`]), stopped with a ladder of
//!   signals ([`Running::stop`]): `forge run`'s Claude Code client.
//! - [`Cmd::detach`]: fire and forget: its own process group, none of forge's
//!   streams, not waited for (the status line's threshold handoff and ladder, a wake
//!   message sent async).
//! - [`Cmd::interactive`]: the terminal handed over and waited for, in forge's own
//!   process group (the dashboard's editor and pager).
//!
//! Modelled on starship's `exec_timeout` (`src/utils.rs`): one helper that spawns
//! with the streams set, waits with a time limit and terminates at the limit, so no
//! caller writes its own wait loop.

use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};

use crate::env::{Env, deadline_after, time_left};

pub(crate) use rustix::process::Signal;

/// How long a group has between SIGTERM and SIGKILL at its deadline (unless
/// [`Cmd::grace`] says otherwise).
pub(crate) const DEFAULT_GRACE: Duration = Duration::from_millis(200);

/// What a child reads on stdin.
#[derive(Debug, Default)]
pub(crate) enum Input {
    /// `/dev/null`.
    #[default]
    Null,
    /// These bytes, written as the child reads them, then stdin is closed (a child
    /// that reads nothing never blocks forge).
    Bytes(Vec<u8>),
    /// This file, from its current offset.
    File(std::fs::File),
}

/// Where a child's stdout or stderr goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Output {
    /// `/dev/null`.
    #[default]
    Null,
    /// Read by forge, at most this many bytes kept (the rest read and dropped).
    Capture(usize),
    /// forge's own (only for a child whose output the person should see).
    Inherit,
}

/// Why a child did not run (or could not be waited for).
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// No such program: not in an absolute folder of `$PATH`, a bare name given
    /// where a path was needed, or no file at the path.
    #[error("{why}")]
    NotFound {
        /// The program as named.
        program: String,
        /// Why, in words.
        why: String,
    },
    /// It could not be started (not executable, no memory, its pipes not set up,
    /// …).
    #[error("{source}")]
    Start {
        /// The program as named.
        program: String,
        /// The system's error.
        source: io::Error,
    },
    /// Waiting for it failed.
    #[error("waiting for it: {source}")]
    Wait {
        /// The program as named.
        program: String,
        /// The system's error.
        source: io::Error,
    },
}

impl From<Error> for io::Error {
    fn from(e: Error) -> Self {
        let kind = match &e {
            Error::NotFound { .. } => io::ErrorKind::NotFound,
            Error::Start { source, .. } | Error::Wait { source, .. } => source.kind(),
        };
        Self::new(kind, e.to_string())
    }
}

/// What forge kept of one output stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Captured {
    /// The first bytes, at most the cap.
    pub(crate) bytes: Vec<u8>,
    /// More came than the cap (it was read and dropped).
    pub(crate) cut: bool,
}

impl Captured {
    /// The bytes as text (lossy UTF-8).
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// How a child run to a deadline ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// It exited (or a signal ended it) before the deadline.
    Exited(ExitStatus),
    /// It was still running at the deadline: its group was stopped.
    TimedOut,
    /// It was still running when the stop flag ([`Cmd::stop_on`]) was set: its group
    /// was stopped.
    Stopped,
}

/// What [`Cmd::run_until`] gives back.
#[derive(Debug)]
pub(crate) struct Finished {
    /// How it ended.
    pub(crate) end: End,
    /// Its stdout (empty unless captured).
    pub(crate) stdout: Captured,
    /// Its stderr (empty unless captured).
    pub(crate) stderr: Captured,
    /// It exited, but a process it left in its group still held its output at the
    /// deadline (or the stop): the group was stopped (what was read is kept).
    pub(crate) lingered: bool,
    /// From the start to the end (the group stopped, when it was).
    pub(crate) elapsed: Duration,
}

impl Finished {
    /// Whether it ran past its deadline.
    pub(crate) fn timed_out(&self) -> bool {
        self.end == End::TimedOut
    }

    /// Its exit status, when it ended before the deadline.
    pub(crate) fn status(&self) -> Option<ExitStatus> {
        match self.end {
            End::Exited(st) => Some(st),
            End::TimedOut | End::Stopped => None,
        }
    }

    /// Its exit code (`None` when a signal ended it, or past the deadline or stop).
    #[cfg(test)]
    pub(crate) fn code(&self) -> Option<i32> {
        self.status().and_then(|s| s.code())
    }

    /// It exited 0 before the deadline.
    pub(crate) fn success(&self) -> bool {
        self.status().is_some_and(|s| s.success())
    }
}

/// A child to run: the program, its arguments, environment, folder and streams.
#[derive(Debug)]
pub(crate) struct Cmd {
    command: std::process::Command,
    /// The program as named, for messages.
    program: String,
    /// Why the program cannot be run, found when the command was built.
    refused: Option<String>,
    stdin: Input,
    stdout: Output,
    stderr: Output,
    grace: Duration,
    stop: Option<Arc<AtomicBool>>,
    /// Its whole tree is killed at its end, not only its group ([`Cmd::whole_tree`]).
    tree: bool,
}

impl Cmd {
    /// The program at `path` (absolute, or relative to the child's folder). A bare
    /// name (no `/`) is refused when it runs, with [`Error::NotFound`]: the system
    /// would look it up in every folder of `$PATH`, relative ones included — find it
    /// with [`Cmd::resolve`] instead.
    // The one `Command::new` of the crate outside tests.
    #[allow(clippy::disallowed_methods)]
    pub(crate) fn new(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        let program = path.display().to_string();
        let refused = (!path.as_os_str().as_encoded_bytes().contains(&b'/')).then(|| {
            format!("`{program}` is a bare name: forge runs programs found in an absolute folder of PATH, or named by a path")
        });
        Self {
            command: std::process::Command::new(path),
            program,
            refused,
            stdin: Input::Null,
            stdout: Output::Null,
            stderr: Output::Null,
            grace: DEFAULT_GRACE,
            stop: None,
            tree: false,
        }
    }

    /// The program `name` as [`Env::resolve_program`] finds it: a name with a `/` as
    /// written, else the first executable in an absolute folder of `$PATH`.
    pub(crate) fn resolve(env: &Env, name: &str) -> Result<Self, Error> {
        env.resolve_program(name)
            .map(Self::new)
            .map_err(|why| Error::NotFound {
                program: name.to_owned(),
                why,
            })
    }

    /// `sh -c SCRIPT` (your hooks, your editor): `sh` found as [`Cmd::resolve`] does,
    /// and `$PATH` cut to its absolute folders ([`Cmd::absolute_path`]), since the
    /// shell looks the script's words up there. Arguments added after it are the
    /// script's `$0`, `$1`, ….
    pub(crate) fn shell(env: &Env, script: &str) -> Result<Self, Error> {
        let mut cmd = Self::resolve(env, "sh")?;
        cmd.absolute_path(env).arg("-c").arg(script);
        Ok(cmd)
    }

    /// Gives the child `$PATH` without its relative folders
    /// ([`Env::absolute_path_var`]), when `$PATH` is set.
    pub(crate) fn absolute_path(&mut self, env: &Env) -> &mut Self {
        if let Some(path) = env.absolute_path_var() {
            self.command.env("PATH", path);
        }
        self
    }

    /// Adds an argument.
    pub(crate) fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.command.arg(arg);
        self
    }

    /// Adds arguments.
    pub(crate) fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Sets an environment variable.
    pub(crate) fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Self {
        self.command.env(key, value);
        self
    }

    /// Sets environment variables.
    pub(crate) fn envs<I, K, V>(&mut self, vars: I) -> &mut Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.command.envs(vars);
        self
    }

    /// Removes an environment variable.
    pub(crate) fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Self {
        self.command.env_remove(key);
        self
    }

    /// Sets the folder it runs in.
    pub(crate) fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.command.current_dir(dir);
        self
    }

    /// Sets stdin (`/dev/null` unless set).
    pub(crate) fn stdin(&mut self, input: Input) -> &mut Self {
        self.stdin = input;
        self
    }

    /// Sets stdout (`/dev/null` unless set).
    pub(crate) fn stdout(&mut self, output: Output) -> &mut Self {
        self.stdout = output;
        self
    }

    /// Sets stderr (`/dev/null` unless set).
    pub(crate) fn stderr(&mut self, output: Output) -> &mut Self {
        self.stderr = output;
        self
    }

    /// Sets the time between SIGTERM and SIGKILL at the deadline
    /// ([`DEFAULT_GRACE`] unless set). Zero: SIGKILL at once, no SIGTERM (a child
    /// whose work is worth nothing once late, like a status line).
    pub(crate) fn grace(&mut self, grace: Duration) -> &mut Self {
        self.grace = grace;
        self
    }

    /// Ends the wait of [`Cmd::run_until`] (and [`Pending::finish_by`]) early when
    /// `flag` is set — by a signal handler, say, when forge itself is asked to stop:
    /// the group is stopped as at the deadline, and the end is [`End::Stopped`]. The
    /// flag is looked at least every 50 ms (a signal also wakes the wait at once).
    pub(crate) fn stop_on(&mut self, flag: Arc<AtomicBool>) -> &mut Self {
        self.stop = Some(flag);
        self
    }

    /// With [`Cmd::begin`]: when it ends (exits, times out, is stopped or dropped),
    /// every descendant of it is killed too, not only its process group — one that
    /// left the group (`setsid`) included: forge is made their child subreaper while
    /// it runs ([`orphans`]). Where the system refuses that, only the group is
    /// killed, as without it.
    pub(crate) fn whole_tree(&mut self) -> &mut Self {
        self.tree = true;
        self
    }

    /// [`Cmd::run_until`] with a deadline `timeout` from now.
    pub(crate) fn run_for(&mut self, timeout: Duration) -> Result<Finished, Error> {
        self.run_until(deadline_after(timeout))
    }

    /// Runs it in a process group of its own and waits until it has exited and its
    /// captured streams have ended, or until `until`: then the group gets SIGTERM,
    /// and SIGKILL after the grace. The stdin bytes are taken (a second run gets
    /// `/dev/null`).
    pub(crate) fn run_until(&mut self, until: Instant) -> Result<Finished, Error> {
        self.begin()?.finish_by(until)
    }

    /// Starts it in a process group of its own, streams as set, and returns at
    /// once (stdin that fits in the pipe is already written and closed): finish it
    /// with [`Pending::finish_by`]. The stdin bytes are taken.
    #[allow(clippy::disallowed_methods)] // `Instant::now`: the run's own stopwatch.
    pub(crate) fn begin(&mut self) -> Result<Pending, Error> {
        let started = Instant::now();
        self.command.process_group(0);
        let tree = self.tree && orphans::adopt();
        let input = self.take_stdin();
        let mut child = self.spawn(input.stdio)?;
        let pid = pid_of(&child);
        let feed = child.stdin.take().map(|pipe| Feed {
            pipe: Some(pipe),
            bytes: input.bytes.unwrap_or_default(),
            written: 0,
        });
        let drain = |pipe: Option<OwnedFd>, output: Output| {
            pipe.map(|pipe| Drain {
                pipe: Some(pipe),
                cap: match output {
                    Output::Capture(cap) => cap,
                    Output::Null | Output::Inherit => 0,
                },
                kept: Captured::default(),
            })
        };
        let mut pending = Pending {
            stdout: drain(child.stdout.take().map(OwnedFd::from), self.stdout),
            stderr: drain(child.stderr.take().map(OwnedFd::from), self.stderr),
            stdin: feed,
            // Linux 5.3 and later: readable once the child has exited. Without it
            // the wait looks again after growing naps.
            pidfd: pid.and_then(|p| {
                rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok()
            }),
            child,
            pid,
            program: self.program.clone(),
            exited: false,
            reaped: false,
            started,
            grace: self.grace,
            stop: self.stop.clone(),
            tree,
        };
        let nonblocking = pending.pipes().try_for_each(|fd| {
            let flags = rustix::fs::fcntl_getfl(fd)?;
            rustix::fs::fcntl_setfl(fd, flags | rustix::fs::OFlags::NONBLOCK)
        });
        if let Err(e) = nonblocking {
            pending.kill();
            return Err(Error::Start {
                program: self.program.clone(),
                source: e.into(),
            });
        }
        pending.pump();
        Ok(pending)
    }

    /// Starts it in a process group of its own (a Ctrl-C at the terminal reaches
    /// forge, which ends it its own way) with stdout piped for [`Running::lines`];
    /// stdin and stderr as set (a captured stderr is dropped).
    pub(crate) fn start(&mut self) -> Result<Running, Error> {
        self.command.process_group(0);
        self.stderr = match self.stderr {
            Output::Capture(_) => Output::Null,
            other => other,
        };
        self.stdout = Output::Capture(0);
        let input = self.take_stdin();
        let mut child = self.spawn(input.stdio)?;
        let start_helpers = || -> io::Result<Receiver<Option<String>>> {
            if let (Some(pipe), Some(bytes)) = (child.stdin.take(), input.bytes) {
                let mut pipe = pipe;
                helper("proc-stdin", move || {
                    // A child that exits without reading closes the pipe: the
                    // write fails (EPIPE; Rust ignores SIGPIPE) and the thread ends.
                    let _ = pipe.write_all(&bytes);
                })?;
            }
            let (tx, rx) = mpsc::channel();
            match child.stdout.take() {
                Some(pipe) => helper("proc-lines", move || send_lines(pipe, &tx))?,
                None => {
                    let _ = tx.send(None);
                }
            }
            Ok(rx)
        };
        match start_helpers() {
            Ok(lines) => Ok(Running {
                child,
                lines: Some(lines),
            }),
            Err(source) => {
                kill_group(pid_of(&child), Signal::KILL);
                let _ = child.wait();
                Err(Error::Start {
                    program: self.program.clone(),
                    source,
                })
            }
        }
    }

    /// Starts it detached: a process group of its own, stdout and stderr
    /// `/dev/null`, stdin as set (`/dev/null` or a file: nobody stays to write
    /// bytes), not waited for. Returns its process id.
    pub(crate) fn detach(&mut self) -> Result<u32, Error> {
        self.command.process_group(0);
        self.stdout = Output::Null;
        self.stderr = Output::Null;
        let input = self.take_stdin();
        if input.bytes.is_some() {
            return Err(Error::Start {
                program: self.program.clone(),
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a detached child's stdin is a file or nothing",
                ),
            });
        }
        let child = self.spawn(input.stdio)?;
        Ok(child.id())
    }

    /// Runs it on forge's terminal (stdin, stdout and stderr inherited, in forge's
    /// process group, which the terminal has in the foreground) and waits for it
    /// without a deadline: a person is using it.
    pub(crate) fn interactive(&mut self) -> Result<ExitStatus, Error> {
        self.stdout = Output::Inherit;
        self.stderr = Output::Inherit;
        self.stdin = Input::Null;
        let mut child = self.spawn(Stdio::inherit())?;
        child.wait().map_err(|source| Error::Wait {
            program: self.program.clone(),
            source,
        })
    }

    /// Takes the stdin setting: the `Stdio` to give and the bytes to write.
    fn take_stdin(&mut self) -> StdinPlan {
        match std::mem::take(&mut self.stdin) {
            Input::Null => StdinPlan {
                stdio: Stdio::null(),
                bytes: None,
            },
            Input::Bytes(b) => StdinPlan {
                stdio: Stdio::piped(),
                bytes: Some(b),
            },
            Input::File(f) => StdinPlan {
                stdio: Stdio::from(f),
                bytes: None,
            },
        }
    }

    /// Spawns with `stdin` and the output settings.
    fn spawn(&mut self, stdin: Stdio) -> Result<Child, Error> {
        if let Some(why) = self.refused.clone() {
            return Err(Error::NotFound {
                program: self.program.clone(),
                why,
            });
        }
        let out = |o: Output| match o {
            Output::Null => Stdio::null(),
            Output::Capture(_) => Stdio::piped(),
            Output::Inherit => Stdio::inherit(),
        };
        self.command
            .stdin(stdin)
            .stdout(out(self.stdout))
            .stderr(out(self.stderr));
        let spawned = self.command.spawn();
        if let Ok(child) = &spawned {
            orphans::note_spawned(child.id());
        }
        spawned.map_err(|source| {
            if source.kind() == io::ErrorKind::NotFound {
                Error::NotFound {
                    program: self.program.clone(),
                    why: format!("{}: no such program ({source})", self.program),
                }
            } else {
                Error::Start {
                    program: self.program.clone(),
                    source,
                }
            }
        })
    }
}

/// Where stdin comes from, and the bytes written to it.
struct StdinPlan {
    stdio: Stdio,
    bytes: Option<Vec<u8>>,
}

/// Bytes on their way to a child's stdin (closed once all are written).
struct Feed {
    pipe: Option<ChildStdin>,
    bytes: Vec<u8>,
    written: usize,
}

/// A child's output stream being read (closed at its end).
struct Drain {
    pipe: Option<OwnedFd>,
    cap: usize,
    kept: Captured,
}

impl Drain {
    /// Reads what is there; the pipe is closed at its end (or on an error).
    fn read(&mut self) {
        let Some(pipe) = self.pipe.as_ref() else {
            return;
        };
        let mut buf = [0u8; 16 * 1024];
        loop {
            match rustix::io::read(pipe, &mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let keep = n.min(self.cap.saturating_sub(self.kept.bytes.len()));
                    self.kept
                        .bytes
                        .extend_from_slice(buf.get(..keep).unwrap_or_default());
                    self.kept.cut |= keep < n;
                }
                Err(rustix::io::Errno::AGAIN) => return,
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => break,
            }
        }
        self.pipe = None;
    }
}

/// Why a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waited {
    /// The child exited and every stream ended.
    Done,
    /// The deadline passed.
    Deadline,
    /// The stop flag was set.
    Stopped,
}

/// A child started with [`Cmd::begin`], not waited for yet.
#[derive(Debug)]
pub(crate) struct Pending {
    child: Child,
    pid: Option<Pid>,
    pidfd: Option<OwnedFd>,
    program: String,
    stdin: Option<Feed>,
    stdout: Option<Drain>,
    stderr: Option<Drain>,
    /// Its exit was seen (it is not reaped until the end: until then its group's id
    /// stays its own).
    exited: bool,
    /// It was reaped (a `Pending` dropped before that stops its group).
    reaped: bool,
    started: Instant,
    grace: Duration,
    stop: Option<Arc<AtomicBool>>,
    /// Its descendants outside its group are killed at its end ([`Cmd::whole_tree`]).
    tree: bool,
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Feed({} of {} bytes)", self.written, self.bytes.len())
    }
}

impl std::fmt::Debug for Drain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Drain({} bytes kept)", self.kept.bytes.len())
    }
}

impl Pending {
    /// Its process id.
    #[cfg(test)]
    pub(crate) fn id(&self) -> u32 {
        self.child.id()
    }

    /// [`Pending::finish_by`] with the deadline `timeout` after it began (not after
    /// now: the time forge spent on its own work meanwhile counts).
    pub(crate) fn finish_within(self, timeout: Duration) -> Result<Finished, Error> {
        let until = self.started + timeout;
        self.finish_by(until)
    }

    /// Waits until it has exited and its captured streams have ended, or until
    /// `until` (or the stop flag): then its group gets SIGTERM, and SIGKILL after
    /// the grace. Says how it ended.
    pub(crate) fn finish_by(mut self, until: Instant) -> Result<Finished, Error> {
        let waited = self.wait_until(until, true);
        let exited_in_time = self.exited;
        if waited != Waited::Done {
            // The group gets SIGTERM, and SIGKILL once the grace is over (or as
            // soon as its leader has exited and every stream has ended); with no
            // grace, SIGKILL at once.
            if !self.grace.is_zero() {
                kill_group(self.pid, Signal::TERM);
                self.wait_until(deadline_after(self.grace), false);
            }
            kill_group(self.pid, Signal::KILL);
        }
        // Reaped only now: until then the group's id cannot be given to another.
        let status = self.child.wait().map_err(|source| Error::Wait {
            program: self.program.clone(),
            source,
        })?;
        self.reaped = true;
        self.sweep();
        // A process outside the group may still hold a pipe: what was read so far
        // is what there is.
        self.pump();
        let take = |d: Option<Drain>| d.map(|d| d.kept).unwrap_or_default();
        Ok(Finished {
            end: match (exited_in_time, waited) {
                (true, _) => End::Exited(status),
                (false, Waited::Stopped) => End::Stopped,
                (false, _) => End::TimedOut,
            },
            lingered: exited_in_time && waited != Waited::Done,
            stdout: take(self.stdout.take()),
            stderr: take(self.stderr.take()),
            elapsed: self.started.elapsed(),
        })
    }

    /// Moves bytes (stdin out, stdout and stderr in) and notes its exit until it
    /// has exited and every stream has ended, `until` passes, or (with `stoppable`)
    /// the stop flag is set.
    fn wait_until(&mut self, until: Instant, stoppable: bool) -> Waited {
        let mut nap = Duration::from_micros(20);
        loop {
            self.pump();
            if !self.exited {
                self.exited = self.pid.is_none_or(|pid| {
                    matches!(
                        waitid(
                            WaitId::Pid(pid),
                            WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT
                        ),
                        Ok(Some(_)) | Err(_)
                    )
                });
            }
            let open = |d: &Option<Drain>| d.as_ref().is_some_and(|d| d.pipe.is_some());
            if self.exited && !open(&self.stdout) && !open(&self.stderr) {
                return Waited::Done;
            }
            let stop = self.stop.as_ref().filter(|_| stoppable);
            if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Waited::Stopped;
            }
            let left = time_left(until);
            if left.is_zero() {
                return Waited::Deadline;
            }
            let mut slice = left;
            if stop.is_some() {
                slice = slice.min(Duration::from_millis(50));
            }
            let mut fds = Vec::with_capacity(4);
            for d in [&self.stdout, &self.stderr].into_iter().flatten() {
                if let Some(p) = &d.pipe {
                    fds.push(PollFd::new(p, PollFlags::IN));
                }
            }
            if let Some(p) = self.stdin.as_ref().and_then(|f| f.pipe.as_ref()) {
                fds.push(PollFd::new(p, PollFlags::OUT));
            }
            if !self.exited {
                match &self.pidfd {
                    Some(fd) => fds.push(PollFd::new(fd, PollFlags::IN)),
                    None => {
                        // No pidfd: look at its exit again after 20 µs, then twice as
                        // long each time, up to 5 ms.
                        slice = slice.min(nap);
                        nap = (nap * 2).min(Duration::from_millis(5));
                    }
                }
            }
            let timeout = Timespec {
                tv_sec: i64::try_from(slice.as_secs()).unwrap_or(i64::MAX),
                tv_nsec: i64::from(slice.subsec_nanos()),
            };
            // A signal ends the wait early (EINTR); the loop looks again.
            let _ = poll(&mut fds, Some(&timeout));
        }
    }

    /// Writes what the stdin pipe takes (closing it when all is written or the
    /// child reads no more) and reads what stdout and stderr hold, without waiting.
    fn pump(&mut self) {
        if let Some(feed) = self.stdin.as_mut()
            && let Some(pipe) = feed.pipe.as_mut()
        {
            loop {
                if feed.written >= feed.bytes.len() {
                    feed.pipe = None;
                    break;
                }
                match pipe.write(feed.bytes.get(feed.written..).unwrap_or_default()) {
                    Ok(0) => feed.pipe = None,
                    Ok(n) => {
                        feed.written += n;
                        continue;
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    // It closed its stdin (EPIPE; Rust ignores SIGPIPE) or worse.
                    Err(_) => feed.pipe = None,
                }
                break;
            }
        }
        for d in [&mut self.stdout, &mut self.stderr].into_iter().flatten() {
            d.read();
        }
    }

    /// Our ends of its pipes.
    fn pipes(&self) -> impl Iterator<Item = std::os::fd::BorrowedFd<'_>> {
        let stdin = self
            .stdin
            .as_ref()
            .and_then(|f| f.pipe.as_ref())
            .map(AsFd::as_fd);
        let outs = [&self.stdout, &self.stderr]
            .into_iter()
            .flatten()
            .filter_map(|d| d.pipe.as_ref().map(AsFd::as_fd));
        stdin.into_iter().chain(outs)
    }

    /// Kills its group and reaps it (a run that could not be set up, or was never
    /// finished).
    fn kill(&mut self) {
        kill_group(self.pid, Signal::KILL);
        let _ = self.child.wait();
        self.reaped = true;
        self.sweep();
    }

    /// With [`Cmd::whole_tree`]: kills what of its tree left its group (see
    /// [`orphans`]), once.
    fn sweep(&mut self) {
        if std::mem::take(&mut self.tree) {
            orphans::sweep(self.pid);
        }
    }
}

impl Drop for Pending {
    /// A child begun and never finished (an early return) does not outlive forge's
    /// interest in it: its group is killed and it is reaped.
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
        }
    }
}

/// Starts `work` on a named thread.
fn helper(name: &str, work: impl FnOnce() + Send + 'static) -> io::Result<()> {
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(work)
        .map(drop)
}

fn pid_of(child: &Child) -> Option<Pid> {
    i32::try_from(child.id()).ok().and_then(Pid::from_raw)
}

/// Sends `sig` to the process group led by `pid`.
fn kill_group(pid: Option<Pid>, sig: Signal) {
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process_group(pid, sig);
    }
}

/// Sends each line of `pipe` (its end of line taken off, lossy UTF-8), then `None`.
fn send_lines(pipe: impl Read, tx: &Sender<Option<String>>) {
    use std::io::BufRead;
    let mut r = io::BufReader::new(pipe);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                }
                let line = String::from_utf8_lossy(&buf).into_owned();
                if tx.send(Some(line)).is_err() {
                    return;
                }
            }
        }
    }
    let _ = tx.send(None);
}

/// A child started with [`Cmd::start`].
#[derive(Debug)]
pub(crate) struct Running {
    child: Child,
    lines: Option<Receiver<Option<String>>>,
}

impl Running {
    /// Its stdout, line by line as it comes (each without its end of line), then
    /// `None` at the end. A second call gets a channel that has already ended.
    pub(crate) fn lines(&mut self) -> Receiver<Option<String>> {
        self.lines.take().unwrap_or_else(|| {
            let (tx, rx) = mpsc::channel();
            let _ = tx.send(None);
            rx
        })
    }

    /// Sends `sig` to it (not to its group: it ends its own children its way).
    pub(crate) fn signal(&self, sig: Signal) {
        if let Some(pid) = pid_of(&self.child) {
            let _ = rustix::process::kill_process(pid, sig);
        }
    }

    /// Its exit status, when it has exited.
    pub(crate) fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Waits for it to exit.
    pub(crate) fn wait(&mut self) -> Option<ExitStatus> {
        self.child.wait().ok()
    }

    /// Ends it: each step's signal in turn, the next one when it has not exited
    /// within the step's time; then waits for it. Returns its exit status.
    pub(crate) fn stop(&mut self, steps: &[(Signal, Duration)]) -> Option<ExitStatus> {
        for &(sig, wait) in steps {
            if let Some(st) = self.try_wait() {
                return Some(st);
            }
            self.signal(sig);
            let until = deadline_after(wait);
            while !time_left(until).is_zero() {
                if let Some(st) = self.try_wait() {
                    return Some(st);
                }
                std::thread::sleep(Duration::from_millis(20).min(time_left(until)));
            }
        }
        self.wait()
    }
}

#[cfg(test)]
mod tests;

mod orphans;
