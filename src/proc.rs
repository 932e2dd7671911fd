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
//! - [`Cmd::run_for`] / [`Cmd::run_until`]: in a process group of its own, waited
//!   for until a deadline. Stdout and stderr are read on threads, each kept up to
//!   its cap and the rest read and dropped (a chatty child never blocks on a full
//!   pipe); stdin is written on a thread and closed. At the deadline the whole group
//!   gets SIGTERM, and SIGKILL after a grace; so does a group whose leader exited
//!   while a process it left still holds its output. [`Finished`] says how it ended
//!   (exit status or timed out, each stream's bytes and whether they were cut).
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
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::env::{Env, deadline_after, time_left};

pub use rustix::process::Signal;

/// How long a group has between SIGTERM and SIGKILL at its deadline (unless
/// [`Cmd::grace`] says otherwise).
pub const DEFAULT_GRACE: Duration = Duration::from_millis(200);

/// What a child reads on stdin.
#[derive(Debug, Default)]
pub enum Input {
    /// `/dev/null`.
    #[default]
    Null,
    /// These bytes, written on a thread, then stdin is closed (a child that reads
    /// nothing never blocks forge).
    Bytes(Vec<u8>),
    /// This file, from its current offset.
    File(std::fs::File),
}

/// Where a child's stdout or stderr goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Output {
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
pub enum Error {
    /// No such program: not in an absolute folder of `$PATH`, a bare name given
    /// where a path was needed, or no file at the path.
    #[error("{why}")]
    NotFound {
        /// The program as named.
        program: String,
        /// Why, in words.
        why: String,
    },
    /// It could not be started (not executable, no memory, no thread for its
    /// streams, …).
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
pub struct Captured {
    /// The first bytes, at most the cap.
    pub bytes: Vec<u8>,
    /// More came than the cap (it was read and dropped).
    pub cut: bool,
}

impl Captured {
    /// The bytes as text (lossy UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// How a child run to a deadline ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// It exited (or a signal ended it) before the deadline.
    Exited(ExitStatus),
    /// It was still running at the deadline: its group was stopped.
    TimedOut,
}

/// What [`Cmd::run_until`] gives back.
#[derive(Debug)]
pub struct Finished {
    /// How it ended.
    pub end: End,
    /// Its stdout (empty unless captured).
    pub stdout: Captured,
    /// Its stderr (empty unless captured).
    pub stderr: Captured,
    /// It exited, but a process it left in its group still held its output at the
    /// deadline: the group was stopped (what was read is kept).
    pub lingered: bool,
    /// From the start to the end (the group stopped, when it was).
    pub elapsed: Duration,
}

impl Finished {
    /// Whether it ran past its deadline.
    pub fn timed_out(&self) -> bool {
        self.end == End::TimedOut
    }

    /// Its exit status, when it ended before the deadline.
    pub fn status(&self) -> Option<ExitStatus> {
        match self.end {
            End::Exited(st) => Some(st),
            End::TimedOut => None,
        }
    }

    /// Its exit code (`None` when a signal ended it, or past the deadline).
    pub fn code(&self) -> Option<i32> {
        self.status().and_then(|s| s.code())
    }

    /// It exited 0 before the deadline.
    pub fn success(&self) -> bool {
        self.status().is_some_and(|s| s.success())
    }
}

/// A child to run: the program, its arguments, environment, folder and streams.
#[derive(Debug)]
pub struct Cmd {
    command: std::process::Command,
    /// The program as named, for messages.
    program: String,
    /// Why the program cannot be run, found when the command was built.
    refused: Option<String>,
    stdin: Input,
    stdout: Output,
    stderr: Output,
    grace: Duration,
}

impl Cmd {
    /// The program at `path` (absolute, or relative to the child's folder). A bare
    /// name (no `/`) is refused when it runs, with [`Error::NotFound`]: the system
    /// would look it up in every folder of `$PATH`, relative ones included — find it
    /// with [`Cmd::resolve`] instead.
    // The one `Command::new` of the crate outside tests.
    #[allow(clippy::disallowed_methods)]
    pub fn new(path: impl AsRef<Path>) -> Self {
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
        }
    }

    /// The program `name` as [`Env::resolve_program`] finds it: a name with a `/` as
    /// written, else the first executable in an absolute folder of `$PATH`.
    pub fn resolve(env: &Env, name: &str) -> Result<Self, Error> {
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
    pub fn shell(env: &Env, script: &str) -> Result<Self, Error> {
        let mut cmd = Self::resolve(env, "sh")?;
        cmd.absolute_path(env).arg("-c").arg(script);
        Ok(cmd)
    }

    /// Gives the child `$PATH` without its relative folders
    /// ([`Env::absolute_path_var`]), when `$PATH` is set.
    pub fn absolute_path(&mut self, env: &Env) -> &mut Self {
        if let Some(path) = env.absolute_path_var() {
            self.command.env("PATH", path);
        }
        self
    }

    /// Adds an argument.
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Self {
        self.command.arg(arg);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Sets an environment variable.
    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Self {
        self.command.env(key, value);
        self
    }

    /// Sets environment variables.
    pub fn envs<I, K, V>(&mut self, vars: I) -> &mut Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.command.envs(vars);
        self
    }

    /// Removes an environment variable.
    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Self {
        self.command.env_remove(key);
        self
    }

    /// Sets the folder it runs in.
    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.command.current_dir(dir);
        self
    }

    /// Sets stdin (`/dev/null` unless set).
    pub fn stdin(&mut self, input: Input) -> &mut Self {
        self.stdin = input;
        self
    }

    /// Sets stdout (`/dev/null` unless set).
    pub fn stdout(&mut self, output: Output) -> &mut Self {
        self.stdout = output;
        self
    }

    /// Sets stderr (`/dev/null` unless set).
    pub fn stderr(&mut self, output: Output) -> &mut Self {
        self.stderr = output;
        self
    }

    /// Sets the time between SIGTERM and SIGKILL at the deadline
    /// ([`DEFAULT_GRACE`] unless set).
    pub fn grace(&mut self, grace: Duration) -> &mut Self {
        self.grace = grace;
        self
    }

    /// [`Cmd::run_until`] with a deadline `timeout` from now.
    pub fn run_for(&mut self, timeout: Duration) -> Result<Finished, Error> {
        self.run_until(deadline_after(timeout))
    }

    /// Runs it in a process group of its own and waits until it has exited and its
    /// captured streams have ended, or until `until`: then the group gets SIGTERM,
    /// and SIGKILL after the grace. The stdin bytes are taken (a second run gets
    /// `/dev/null`).
    #[allow(clippy::disallowed_methods)] // `Instant::now`: the run's own stopwatch.
    pub fn run_until(&mut self, until: Instant) -> Result<Finished, Error> {
        let started = Instant::now();
        self.command.process_group(0);
        let input = self.take_stdin();
        let mut child = self.spawn(input.stdio)?;
        let (tx, rx) = mpsc::channel();
        let mut helpers = Helpers::default();
        let started_helpers = (|| -> io::Result<()> {
            if let (Some(pipe), Some(bytes)) = (child.stdin.take(), input.bytes) {
                give_stdin(pipe, bytes)?;
            }
            if let Some(pipe) = child.stdout.take() {
                helpers.stdout = Some(reader(pipe, self.stdout, &tx)?);
            }
            if let Some(pipe) = child.stderr.take() {
                helpers.stderr = Some(reader(pipe, self.stderr, &tx)?);
            }
            helpers.streams =
                usize::from(helpers.stdout.is_some()) + usize::from(helpers.stderr.is_some());
            waiter(&child, tx.clone())
        })();
        drop(tx);
        if let Err(source) = started_helpers {
            let pid = pid_of(&child);
            kill_group(pid, Signal::KILL);
            let _ = child.wait();
            return Err(Error::Start {
                program: self.program.clone(),
                source,
            });
        }
        let mut left = Left {
            exited: false,
            streams: helpers.streams,
        };
        let ended_in_time = left.wait_on(&rx, until);
        let exited_in_time = left.exited;
        let lingered = exited_in_time && !ended_in_time;
        if !ended_in_time {
            // Past the deadline: the group gets SIGTERM, and SIGKILL once the grace
            // is over (or as soon as all of it is gone).
            let pid = pid_of(&child);
            kill_group(pid, Signal::TERM);
            left.wait_on(&rx, deadline_after(self.grace));
            kill_group(pid, Signal::KILL);
        }
        // Reaped only now: until then the group's id cannot be given to another.
        let status = child.wait().map_err(|source| Error::Wait {
            program: self.program.clone(),
            source,
        })?;
        if left.streams > 0 {
            // A process outside the group may still hold a pipe: what was read
            // so far is what there is.
            left.wait_on(&rx, deadline_after(self.grace));
        }
        Ok(Finished {
            end: if exited_in_time {
                End::Exited(status)
            } else {
                End::TimedOut
            },
            stdout: helpers.stdout.map(take).unwrap_or_default(),
            stderr: helpers.stderr.map(take).unwrap_or_default(),
            lingered,
            elapsed: started.elapsed(),
        })
    }

    /// Starts it in a process group of its own (a Ctrl-C at the terminal reaches
    /// forge, which ends it its own way) with stdout piped for [`Running::lines`];
    /// stdin and stderr as set (a captured stderr is dropped).
    pub fn start(&mut self) -> Result<Running, Error> {
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
                give_stdin(pipe, bytes)?;
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
    pub fn detach(&mut self) -> Result<u32, Error> {
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
    pub fn interactive(&mut self) -> Result<ExitStatus, Error> {
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
        self.command.spawn().map_err(|source| {
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

/// Where stdin comes from, and the bytes a thread writes to it.
struct StdinPlan {
    stdio: Stdio,
    bytes: Option<Vec<u8>>,
}

/// The streams a run reads.
#[derive(Default)]
struct Helpers {
    stdout: Option<Arc<Mutex<Captured>>>,
    stderr: Option<Arc<Mutex<Captured>>>,
    streams: usize,
}

/// What a run's helper threads say.
enum Event {
    /// The child exited (not reaped yet).
    Exited,
    /// A captured stream ended.
    StreamDone,
}

/// What a run still waits for.
struct Left {
    exited: bool,
    streams: usize,
}

impl Left {
    /// Takes events until the child has exited and every stream has ended (`true`),
    /// or until `until` (`false`).
    fn wait_on(&mut self, rx: &Receiver<Event>, until: Instant) -> bool {
        while !(self.exited && self.streams == 0) {
            match rx.recv_timeout(time_left(until)) {
                Ok(Event::Exited) => self.exited = true,
                Ok(Event::StreamDone) => self.streams = self.streams.saturating_sub(1),
                Err(RecvTimeoutError::Timeout) => return false,
                // Every helper has ended: nothing more will come.
                Err(RecvTimeoutError::Disconnected) => return self.exited && self.streams == 0,
            }
        }
        true
    }
}

/// Starts `work` on a named thread.
fn helper(name: &str, work: impl FnOnce() + Send + 'static) -> io::Result<()> {
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(work)
        .map(drop)
}

/// The most stdin written on the caller's thread: a fresh pipe holds at least a page
/// (even at the per-user pipe limit), so this much never blocks.
const INLINE_STDIN: usize = 4096;

/// Writes `bytes` to the child's stdin and closes it: on this thread when they fit in
/// a fresh pipe (the status line's payload: no thread to start), else on a thread.
fn give_stdin(pipe: std::process::ChildStdin, bytes: Vec<u8>) -> io::Result<()> {
    if bytes.len() <= INLINE_STDIN {
        write_and_close(pipe, &bytes);
        Ok(())
    } else {
        helper("proc-stdin", move || write_and_close(pipe, &bytes))
    }
}

fn write_and_close(mut pipe: std::process::ChildStdin, bytes: &[u8]) {
    // A child that exits without reading gets its pipe closed: the write fails
    // (EPIPE; Rust ignores SIGPIPE) and the thread ends.
    let _ = pipe.write_all(bytes);
}

/// Reads `pipe` to its end on a thread, keeping up to the cap of `output`.
fn reader(
    mut pipe: impl Read + Send + 'static,
    output: Output,
    tx: &Sender<Event>,
) -> io::Result<Arc<Mutex<Captured>>> {
    let cap = match output {
        Output::Capture(cap) => cap,
        Output::Null | Output::Inherit => 0,
    };
    let kept = Arc::new(Mutex::new(Captured::default()));
    let into = Arc::clone(&kept);
    let tx = tx.clone();
    helper("proc-read", move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let mut c = into.lock().unwrap_or_else(PoisonError::into_inner);
                    let keep = n.min(cap.saturating_sub(c.bytes.len()));
                    c.bytes
                        .extend_from_slice(buf.get(..keep).unwrap_or_default());
                    c.cut |= keep < n;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = tx.send(Event::StreamDone);
    })?;
    Ok(kept)
}

/// What a reader kept so far.
fn take(kept: Arc<Mutex<Captured>>) -> Captured {
    std::mem::take(&mut *kept.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Says [`Event::Exited`] when `child` has exited, without reaping it (so its
/// process group id stays its own until forge has signalled the group).
fn waiter(child: &Child, tx: Sender<Event>) -> io::Result<()> {
    let pid = pid_of(child);
    helper("proc-wait", move || {
        if let Some(pid) = pid {
            use rustix::process::{WaitId, WaitIdOptions, waitid};
            while let Err(rustix::io::Errno::INTR) = waitid(
                WaitId::Pid(pid),
                WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
            ) {}
        }
        let _ = tx.send(Event::Exited);
    })
}

fn pid_of(child: &Child) -> Option<rustix::process::Pid> {
    i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
}

/// Sends `sig` to the process group led by `pid`.
fn kill_group(pid: Option<rustix::process::Pid>, sig: Signal) {
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
pub struct Running {
    child: Child,
    lines: Option<Receiver<Option<String>>>,
}

impl Running {
    /// Its process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Its stdout, line by line as it comes (each without its end of line), then
    /// `None` at the end. A second call gets a channel that has already ended.
    pub fn lines(&mut self) -> Receiver<Option<String>> {
        self.lines.take().unwrap_or_else(|| {
            let (tx, rx) = mpsc::channel();
            let _ = tx.send(None);
            rx
        })
    }

    /// Sends `sig` to it (not to its group: it ends its own children its way).
    pub fn signal(&self, sig: Signal) {
        if let Some(pid) = pid_of(&self.child) {
            let _ = rustix::process::kill_process(pid, sig);
        }
    }

    /// Its exit status, when it has exited.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Waits for it to exit.
    pub fn wait(&mut self) -> Option<ExitStatus> {
        self.child.wait().ok()
    }

    /// Ends it: each step's signal in turn, the next one when it has not exited
    /// within the step's time; then waits for it. Returns its exit status.
    pub fn stop(&mut self, steps: &[(Signal, Duration)]) -> Option<ExitStatus> {
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
