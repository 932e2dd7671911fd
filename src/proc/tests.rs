use super::*;

use std::os::unix::process::ExitStatusExt;

/// An environment with this process's PATH (where the tests find `sh`).
fn env(dir: &Path) -> Env {
    let mut env = Env::for_test(dir, dir);
    env.path = std::env::var_os("PATH");
    env
}

fn shell(dir: &Path, script: &str) -> Cmd {
    let mut cmd = Cmd::shell(&env(dir), script).unwrap();
    cmd.current_dir(dir);
    cmd
}

/// The state letter of `/proc/<pid>/stat`, `None` once the process is gone.
fn state(pid: u32) -> Option<char> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    crate::store::process::parse_stat(&text).map(|(s, _)| s)
}

/// Waits (at most 5 s) for `pid` to be gone (or a zombie nobody reaps yet).
fn ends(pid: u32) -> bool {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if matches!(state(pid), None | Some('Z' | 'X')) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Waits (at most 5 s) for `file` to hold a line, and returns its text.
fn written(file: &Path) -> String {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if let Ok(text) = std::fs::read_to_string(file)
            && text.ends_with('\n')
        {
            return text;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{} was not written", file.display());
}

#[test]
fn the_deadline_stops_the_whole_group_grandchildren_included() {
    let t = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let f = shell(t.path(), "sleep 30 & echo $! > gc.pid; wait")
        .stdout(Output::Capture(1024))
        .run_for(Duration::from_secs(1))
        .unwrap();
    assert!(f.timed_out(), "{f:?}");
    assert_eq!(f.status(), None);
    assert!(!f.success());
    assert!(started.elapsed() < Duration::from_secs(5), "{f:?}");
    let grandchild: u32 = written(&t.path().join("gc.pid")).trim().parse().unwrap();
    assert!(
        ends(grandchild),
        "the sleeping grandchild outlived the deadline"
    );
}

#[test]
fn a_group_that_ignores_sigterm_gets_sigkill_after_the_grace() {
    let t = tempfile::tempdir().unwrap();
    let started = Instant::now();
    // An ignored signal stays ignored across exec: the grandchild ignores it too.
    let f = shell(t.path(), "trap '' TERM; sleep 30 & echo $! > gc.pid; wait")
        .grace(Duration::from_millis(100))
        .run_for(Duration::from_secs(1))
        .unwrap();
    assert!(f.timed_out());
    assert!(started.elapsed() < Duration::from_secs(5), "{f:?}");
    let grandchild: u32 = written(&t.path().join("gc.pid")).trim().parse().unwrap();
    assert!(ends(grandchild));
}

#[test]
fn a_child_that_exits_while_its_output_is_held_is_stopped_with_its_group() {
    let t = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let f = shell(t.path(), "sleep 30 & echo $! > gc.pid; echo hi")
        .stdout(Output::Capture(1024))
        .run_for(Duration::from_secs(1))
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(f.success(), "{f:?}");
    assert!(f.lingered);
    assert_eq!(f.stdout.text(), "hi\n", "what was read is kept");
    let grandchild: u32 = written(&t.path().join("gc.pid")).trim().parse().unwrap();
    assert!(ends(grandchild));
}

#[test]
fn output_past_the_cap_is_read_and_dropped() {
    let t = tempfile::tempdir().unwrap();
    let f = shell(t.path(), "head -c 300000 /dev/zero | tr '\\0' x")
        .stdout(Output::Capture(1000))
        .run_for(Duration::from_secs(20))
        .unwrap();
    assert!(f.success(), "{f:?}");
    assert_eq!(f.stdout.bytes, vec![b'x'; 1000]);
    assert!(f.stdout.cut);
    // Exactly the cap is not cut.
    let f = shell(t.path(), "printf abc")
        .stdout(Output::Capture(3))
        .run_for(Duration::from_secs(20))
        .unwrap();
    assert_eq!(
        f.stdout,
        Captured {
            bytes: b"abc".to_vec(),
            cut: false
        }
    );
    assert!(!f.lingered && f.code() == Some(0));
}

#[test]
fn a_child_writing_more_than_a_pipe_buffer_on_both_streams_never_blocks() {
    let t = tempfile::tempdir().unwrap();
    // Stderr first: a parent that read only stdout (or waited before reading)
    // would leave the child blocked on a full pipe until the deadline.
    let f = shell(
        t.path(),
        "head -c 1000000 /dev/zero >&2; head -c 1000000 /dev/zero; exit 7",
    )
    .stdout(Output::Capture(2_000_000))
    .stderr(Output::Capture(2_000_000))
    .run_for(Duration::from_secs(20))
    .unwrap();
    assert!(!f.timed_out(), "{:?}", f.elapsed);
    assert_eq!(f.code(), Some(7));
    assert_eq!(
        (f.stdout.bytes.len(), f.stderr.bytes.len()),
        (1_000_000, 1_000_000)
    );
    // Not captured: read nowhere, still never blocking.
    let f = shell(t.path(), "head -c 1000000 /dev/zero")
        .run_for(Duration::from_secs(20))
        .unwrap();
    assert!(f.success() && f.stdout.bytes.is_empty());
}

#[test]
fn stdin_is_written_and_closed() {
    let t = tempfile::tempdir().unwrap();
    // `cat` ends only when its stdin is closed.
    let f = shell(t.path(), "cat")
        .stdin(Input::Bytes(b"hello".to_vec()))
        .stdout(Output::Capture(1024))
        .run_for(Duration::from_secs(20))
        .unwrap();
    assert!(f.success(), "{f:?}");
    assert_eq!(f.stdout.text(), "hello");
    // A child that reads nothing of a large stdin does not block forge.
    let f = shell(t.path(), "exit 0")
        .stdin(Input::Bytes(vec![b'x'; 1 << 20]))
        .run_for(Duration::from_secs(20))
        .unwrap();
    assert!(f.success(), "{f:?}");
    // Nothing set: /dev/null, so `cat` ends at once.
    let f = shell(t.path(), "cat")
        .stdout(Output::Capture(16))
        .run_for(Duration::from_secs(20))
        .unwrap();
    assert!(f.success() && f.stdout.bytes.is_empty());
    // A file, from its offset.
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(b"from a file").unwrap();
    std::io::Seek::rewind(&mut file).unwrap();
    let f = shell(t.path(), "cat")
        .stdin(Input::File(file))
        .stdout(Output::Capture(64))
        .run_for(Duration::from_secs(20))
        .unwrap();
    assert_eq!(f.stdout.text(), "from a file");
}

#[test]
fn a_program_not_found_is_a_typed_error() {
    let t = tempfile::tempdir().unwrap();
    let mut e = env(t.path());
    e.path = Some(t.path().as_os_str().to_owned());
    assert!(matches!(
        Cmd::resolve(&e, "no-such-program-forge"),
        Err(Error::NotFound { .. })
    ));
    // A program only a relative PATH entry names is not found.
    let rel = t.path().join("rel");
    std::fs::create_dir(&rel).unwrap();
    let tool = rel.join("tool");
    std::fs::write(&tool, "#!/bin/sh\n").unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    e.path = Some("rel".into());
    let Err(Error::NotFound { program, why }) = Cmd::resolve(&e, "tool") else {
        panic!("found through a relative PATH entry");
    };
    assert_eq!(program, "tool");
    assert!(why.contains("absolute folder"), "{why}");
    // A path that names nothing.
    let r = Cmd::new(t.path().join("nothing-here")).run_for(Duration::from_secs(5));
    assert!(matches!(r, Err(Error::NotFound { .. })), "{r:?}");
    // A bare name is never looked up by the system.
    let r = Cmd::new("sh")
        .arg("-c")
        .arg("true")
        .run_for(Duration::from_secs(5));
    match r {
        Err(Error::NotFound { why, .. }) => assert!(why.contains("bare name"), "{why}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        Cmd::new("sh").detach(),
        Err(Error::NotFound { .. })
    ));
    // The io::Error it becomes keeps the kind.
    let e: io::Error = Cmd::new("sh").start().unwrap_err().into();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
}

#[test]
fn a_detached_child_has_its_own_group_and_none_of_forges_streams() {
    let t = tempfile::tempdir().unwrap();
    let pid = shell(
        t.path(),
        "cat /proc/$$/stat > stat.tmp; mv stat.tmp stat; \
         fds=$(for fd in 0 1 2; do readlink /proc/$$/fd/$fd; done); \
         echo \"$fds\" > fds.tmp; mv fds.tmp fds",
    )
    .detach()
    .unwrap();
    let stat = written(&t.path().join("stat"));
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    // Field 5 is the process group: its own (its pid), not forge's.
    assert_eq!(fields[2], pid.to_string(), "{stat}");
    assert_ne!(
        fields[2],
        rustix::process::getpgrp().as_raw_pid().to_string()
    );
    let fds = written(&t.path().join("fds"));
    assert_eq!(fds, "/dev/null\n/dev/null\n/dev/null\n");
    // Its stdin may be a file (a wake message), never bytes nobody stays to write.
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(b"wake up\n").unwrap();
    std::io::Seek::rewind(&mut file).unwrap();
    shell(t.path(), "cat > got.tmp; mv got.tmp got")
        .stdin(Input::File(file))
        .detach()
        .unwrap();
    assert_eq!(written(&t.path().join("got")), "wake up\n");
    let r = shell(t.path(), "cat")
        .stdin(Input::Bytes(b"x".to_vec()))
        .detach();
    assert!(matches!(r, Err(Error::Start { .. })), "{r:?}");
}

#[test]
fn a_started_child_streams_its_lines_and_stops_on_its_ladder() {
    let t = tempfile::tempdir().unwrap();
    let mut running = shell(
        t.path(),
        "echo one; printf 'two\\r\\n'; trap '' INT; echo ready; exec sleep 30",
    )
    .start()
    .unwrap();
    let lines = running.lines();
    let next = || lines.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(next().as_deref(), Some("one"));
    assert_eq!(next().as_deref(), Some("two\r"));
    // SIGINT is ignored from here on.
    assert_eq!(next().as_deref(), Some("ready"));
    assert!(running.try_wait().is_none());
    let started = Instant::now();
    // SIGINT is ignored; SIGTERM after 100 ms ends it.
    let st = running
        .stop(&[
            (Signal::INT, Duration::from_millis(100)),
            (Signal::TERM, Duration::from_secs(5)),
        ])
        .unwrap();
    assert_eq!(st.signal(), Some(libc::SIGTERM));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(next(), None, "the stream ends with the child");
    assert!(running.lines().recv().unwrap().is_none());
}

#[test]
fn an_interactive_child_is_waited_for_and_its_status_given() {
    let t = tempfile::tempdir().unwrap();
    let st = shell(t.path(), "exit 4").interactive().unwrap();
    assert_eq!(st.code(), Some(4));
}

#[test]
fn the_environment_folder_and_arguments_reach_the_child() {
    let t = tempfile::tempdir().unwrap();
    let mut e = env(t.path());
    e.path = Some(std::env::join_paths(["rel", "/usr/bin", "/bin"]).unwrap());
    let f = Cmd::shell(&e, "echo \"$PATH|$A|$0|$1|$(pwd)\"")
        .unwrap()
        .arg("zero")
        .arg("one")
        .env("A", "a")
        .env("GONE", "x")
        .env_remove("GONE")
        .current_dir(t.path())
        .stdout(Output::Capture(4096))
        .run_for(Duration::from_secs(20))
        .unwrap();
    let pwd = t.path().canonicalize().unwrap();
    assert_eq!(
        f.stdout.text(),
        format!("/usr/bin:/bin|a|zero|one|{}\n", pwd.display())
    );
}

#[test]
fn the_stop_flag_ends_the_wait_and_stops_the_group() {
    let t = tempfile::tempdir().unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    let setter = Arc::clone(&flag);
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        setter.store(true, Ordering::Relaxed);
    });
    let started = Instant::now();
    let f = shell(t.path(), "sleep 30 & echo $! > gc.pid; wait")
        .stop_on(flag)
        .run_for(Duration::from_secs(30))
        .unwrap();
    assert_eq!(f.end, End::Stopped, "{f:?}");
    assert!(!f.timed_out() && f.status().is_none());
    assert!(started.elapsed() < Duration::from_secs(5), "{f:?}");
    let grandchild: u32 = written(&t.path().join("gc.pid")).trim().parse().unwrap();
    assert!(ends(grandchild));
}

#[test]
fn a_child_begun_now_runs_while_forge_works_and_is_finished_later() {
    let t = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let pending = shell(t.path(), "read line; sleep 0.3; echo \"got $line\"")
        .stdin(Input::Bytes(b"payload\n".to_vec()))
        .stdout(Output::Capture(64))
        .begin()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_millis(300),
        "begin waits for nothing"
    );
    // forge's own work, meanwhile.
    std::thread::sleep(Duration::from_millis(300));
    let f = pending
        .finish_by(deadline_after(Duration::from_secs(20)))
        .unwrap();
    assert!(f.success(), "{f:?}");
    assert_eq!(f.stdout.text(), "got payload\n");
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "the two overlapped: {:?}",
        started.elapsed()
    );
}

#[test]
fn without_a_pidfd_the_exit_and_the_deadline_are_still_seen() {
    let t = tempfile::tempdir().unwrap();
    let mut pending = shell(t.path(), "exit 3").begin().unwrap();
    pending.pidfd = None;
    let f = pending
        .finish_by(deadline_after(Duration::from_secs(20)))
        .unwrap();
    assert_eq!(f.code(), Some(3));
    assert!(f.elapsed < Duration::from_secs(5));
    let mut pending = shell(t.path(), "exec sleep 30").begin().unwrap();
    pending.pidfd = None;
    let f = pending
        .finish_by(deadline_after(Duration::from_millis(300)))
        .unwrap();
    assert!(f.timed_out());
    assert!(f.elapsed < Duration::from_secs(5));
}

#[test]
fn a_child_begun_and_never_finished_is_stopped_when_dropped() {
    let t = tempfile::tempdir().unwrap();
    let pending = shell(t.path(), "sleep 30 & echo $! > gc.pid; exec sleep 30")
        .begin()
        .unwrap();
    let grandchild: u32 = written(&t.path().join("gc.pid")).trim().parse().unwrap();
    let pid = pending.id();
    drop(pending);
    assert!(ends(pid) && ends(grandchild));
}

#[test]
fn a_grace_of_zero_kills_the_group_at_once_without_sigterm() {
    let t = tempfile::tempdir().unwrap();
    // A TERM trap that would write a file: SIGKILL alone leaves it unwritten.
    let f = shell(
        t.path(),
        "trap 'echo term > term' TERM; sleep 30 & echo $! > gc.pid; wait; wait",
    )
    .grace(Duration::ZERO)
    .run_for(Duration::from_millis(300))
    .unwrap();
    assert!(f.timed_out(), "{f:?}");
    assert_eq!(f.status(), None);
    assert!(f.elapsed < Duration::from_secs(2), "{f:?}");
    let grandchild: u32 = written(&t.path().join("gc.pid")).trim().parse().unwrap();
    assert!(ends(grandchild));
    std::thread::sleep(Duration::from_millis(100));
    assert!(!t.path().join("term").exists(), "no SIGTERM before SIGKILL");
}

#[test]
fn finish_within_counts_from_the_start_not_from_the_call() {
    let t = tempfile::tempdir().unwrap();
    let pending = shell(t.path(), "exec sleep 30").begin().unwrap();
    // forge's own work, meanwhile: it eats most of the time allowed.
    std::thread::sleep(Duration::from_millis(400));
    let called = Instant::now();
    let f = pending.finish_within(Duration::from_millis(500)).unwrap();
    assert!(f.timed_out(), "{f:?}");
    assert!(
        called.elapsed() < Duration::from_millis(400),
        "waited {:?} after the call: the deadline was counted from the call",
        called.elapsed()
    );
    assert!(f.elapsed >= Duration::from_millis(500), "{f:?}");
}

#[test]
fn whole_tree_ends_a_descendant_that_left_the_group_and_spares_a_detached_child() {
    let t = tempfile::tempdir().unwrap();
    // Detached first (it must outlive the run, as the status line's children do).
    let detached = shell(t.path(), "exec sleep 30").detach().unwrap();
    // The run leaves a `setsid` grandchild behind and exits at once.
    let f = shell(
        t.path(),
        "setsid sh -c 'echo $$ > gc.pid; exec sleep 30' >/dev/null 2>&1 & sleep 0.2; echo done",
    )
    .stdout(Output::Capture(1024))
    .whole_tree()
    .run_for(Duration::from_secs(5))
    .unwrap();
    assert!(f.success(), "{f:?}");
    let gc: u32 = written(&t.path().join("gc.pid")).trim().parse().unwrap();
    // Killed and reaped before the run returned: no wait needed.
    assert_eq!(state(gc), None, "the setsid grandchild outlived the run");
    assert!(
        matches!(state(detached), Some(s) if s != 'Z'),
        "the detached child was killed"
    );
    kill_group(
        i32::try_from(detached).ok().and_then(Pid::from_raw),
        Signal::KILL,
    );
    // A run without whole_tree leaves it (only its group is killed).
    let f = shell(
        t.path(),
        "setsid sh -c 'echo $$ > gc2.pid; exec sleep 30' >/dev/null 2>&1 & sleep 0.2; echo done",
    )
    .stdout(Output::Capture(1024))
    .run_for(Duration::from_secs(5))
    .unwrap();
    assert!(f.success());
    let gc2: u32 = written(&t.path().join("gc2.pid")).trim().parse().unwrap();
    assert!(state(gc2).is_some());
    let _ = rustix::process::kill_process(
        i32::try_from(gc2).ok().and_then(Pid::from_raw).unwrap(),
        Signal::KILL,
    );
}
