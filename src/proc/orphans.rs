//! A command's whole tree, not only its process group: a descendant that leaves the
//! group (`setsid`, a daemon's double fork) is out of reach of a group kill, and
//! outlived forge. With [`adopt`], forge is the *child subreaper* of what it starts
//! from then on (`prctl(PR_SET_CHILD_SUBREAPER)`, Linux 3.4): a descendant whose
//! parent dies is re-parented to forge rather than to init, so forge can still see
//! it — as a child it did not spawn. [`sweep`] kills those, one generation after
//! another (each killed one's own children are adopted in turn), and stops being a
//! subreaper.
//!
//! Only what comes from the command's tree is swept. Never a child forge spawned
//! itself through [`super::Cmd`] (the detached children the status line starts,
//! meant to outlive it; every spawn is noted, [`note_spawned`]), nor one in the
//! process group of another child forge spawned (what that child left behind is
//! its own run's to stop), nor one still in forge's own group (a child started
//! some other way). What is left is in the command's group, or in a group or
//! session it made itself. Children are listed from the main thread's
//! `/proc/self/task/<pid>/children` (Linux 3.5, `CONFIG_PROC_CHILDREN`), else from
//! every process's `stat`.

use std::sync::Mutex;

use rustix::process::{Pid, Signal, WaitOptions};

/// Every process id forge spawned (never swept).
static SPAWNED: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Notes a child forge spawned.
pub(super) fn note_spawned(pid: u32) {
    if let (Ok(pid), Ok(mut spawned)) = (i32::try_from(pid), SPAWNED.lock()) {
        spawned.push(pid);
    }
}

/// Makes forge the subreaper of its descendants (see the module documentation).
/// `false` when the system does not allow it (then only the group is killed).
pub(super) fn adopt() -> bool {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok()
}

/// How many generations of adopted descendants [`sweep`] kills at most.
const MAX_GENERATIONS: usize = 64;

/// Kills every child forge adopted from the tree of `root` (the command a
/// [`super::Cmd::whole_tree`] started; see the module documentation for what is
/// left alone), and theirs as they are adopted in turn, reaping each; then stops
/// being a subreaper. Returns how many it killed.
pub(super) fn sweep(root: Option<Pid>) -> usize {
    let own_group = rustix::process::getpgrp().as_raw_nonzero().get();
    let root = root.map(|p| p.as_raw_nonzero().get());
    let mut killed = 0;
    for _ in 0..MAX_GENERATIONS {
        let spawned = SPAWNED.lock().map(|s| s.clone()).unwrap_or_default();
        let others = |group: i32| Some(group) != root && spawned.contains(&group);
        let adopted: Vec<Pid> = children()
            .into_iter()
            .filter(|p| !spawned.contains(p))
            .filter_map(Pid::from_raw)
            .filter(|p| {
                rustix::process::getpgid(Some(*p)).is_ok_and(|g| {
                    let g = g.as_raw_nonzero().get();
                    g != own_group && !others(g)
                })
            })
            .collect();
        if adopted.is_empty() {
            break;
        }
        for pid in adopted {
            // Its group too, when it leads one (a `setsid` child does).
            let _ = rustix::process::kill_process_group(pid, Signal::KILL);
            let _ = rustix::process::kill_process(pid, Signal::KILL);
            let _ = rustix::process::waitpid(Some(pid), WaitOptions::empty());
            killed += 1;
        }
    }
    let _ = rustix::process::set_child_subreaper(None);
    killed
}

/// The process ids of this process's children that it may have adopted: the
/// kernel re-parents an orphan to the subreaper's first live thread, its main one,
/// so one small read of `/proc/self/task/<pid>/children` lists them (children
/// another thread spawned are listed under that thread, and forge spawned those
/// itself).
fn children() -> Vec<i32> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let listed = read_small(std::path::Path::new(&format!(
        "/proc/self/task/{me}/children"
    )));
    let mut out = match listed {
        Some(text) => text
            .split_ascii_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
            .collect(),
        None => children_from_stat(),
    };
    out.sort_unstable();
    out.dedup();
    out
}

/// [`children`] without `children` files: every process whose `stat` names this
/// one as its parent.
fn children_from_stat() -> Vec<i32> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            read_small(std::path::Path::new(&format!("/proc/{pid}/stat")))
                .and_then(|stat| parent_in_stat(&stat))
                == Some(me)
        })
        .collect()
}

/// The parent's id in a `/proc/PID/stat` line: the second field after the command
/// name, which is in parentheses and may hold anything (so after the last `)`).
fn parent_in_stat(stat: &str) -> Option<i32> {
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    rest.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// A small `/proc` file's text (`None` when it cannot be read).
fn read_small(path: &std::path::Path) -> Option<String> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()).ok()?;
    let mut buf = vec![0u8; 4096];
    let mut len = 0;
    loop {
        if len == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        match rustix::io::read(&fd, buf.get_mut(len..)?) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => return None,
        }
        if len > 1024 * 1024 {
            return None;
        }
    }
    buf.truncate(len);
    String::from_utf8(buf).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_after_the_command_name_whatever_it_holds() {
        assert_eq!(parent_in_stat("42 (sh) S 7 42 42 0"), Some(7));
        assert_eq!(parent_in_stat("42 (a) b) S 9 1 1"), Some(9));
        assert_eq!(parent_in_stat("42 sh"), None);
    }
}
