//! Keeps the header's git facts true while the dashboard is open.
//!
//! Hooks refresh `logs/git-cache.json` only when Claude Code does something, so a
//! `git checkout` in another terminal would go unseen. A helper thread reads the
//! cheap [`Marks`] (HEAD, its ref and one `lstat` of the index, in the repository's
//! real git folder) every [`POLL`], and computes the full facts ([`git::facts`], the
//! work-tree scan) on that thread only when the marks changed, or when the last full
//! look is older than [`Schedule::full_every`] (an edited work-tree file changes no
//! mark). New facts are written to the cache when it says otherwise, and sent to the
//! loop only when they differ from the last sent. The UI thread never waits for git.
//!
//! Nor does this thread wait for good: a repository with a file that would block
//! libgit2 is not opened ([`git::open_checked`]; said once in `errors.log`), and the
//! full look runs on a helper of its own, waited for at most [`git::GIT_DEADLINE`]
//! (a FIFO among the work tree's `.gitignore` files, which no check before the scan
//! can see, would block it). Such a look is left to come back on its own; while
//! [`MAX_OUT`] have not, no new one starts.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::thread;
use std::time::{Duration, Instant};

use chrono::Utc;

use crate::git::{self, Marks};
use crate::model::session::state::GitCache;
use crate::store::Paths;

/// How often the marks are read: a checkout is on screen within about this long.
pub(crate) const POLL: Duration = Duration::from_secs(1);
/// The shortest time between two full looks when no mark changed.
pub(crate) const FULL_MIN: Duration = Duration::from_secs(2);
/// The longest.
pub(crate) const FULL_MAX: Duration = Duration::from_secs(60);
/// A full look waits this many times its last cost, so it takes at most about 2%
/// of one core (a tree whose scan takes 400 ms is looked at every 20 s).
pub(crate) const COST_FACTOR: u32 = 50;

/// The most full looks left running past their deadline (each on a thread of its
/// own, perhaps blocked for good): then no new one starts. Two, so that once the
/// repository is fixed the next look still comes.
pub(crate) const MAX_OUT: usize = 2;

/// When to compute the full facts: pure, so it is tested without a clock or git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Schedule {
    marks: Option<Marks>,
    last_full: Instant,
    cost: Duration,
}

impl Schedule {
    /// Facts matching `marks` were computed at `last_full` (at start, the dashboard's
    /// own first read).
    pub(crate) fn new(marks: Option<Marks>, last_full: Instant) -> Self {
        Self {
            marks,
            last_full,
            cost: Duration::ZERO,
        }
    }

    /// How long an unchanged repository goes between full looks: [`COST_FACTOR`]
    /// times what the last one took, within [`FULL_MIN`]..=[`FULL_MAX`].
    pub(crate) fn full_every(&self) -> Duration {
        self.cost
            .saturating_mul(COST_FACTOR)
            .clamp(FULL_MIN, FULL_MAX)
    }

    /// Whether to compute the full facts now, given the marks just read.
    pub(crate) fn due(&self, marks: &Option<Marks>, now: Instant) -> bool {
        *marks != self.marks || now.saturating_duration_since(self.last_full) >= self.full_every()
    }

    /// Records a full look that ended at `done` and took `cost`, with the marks read
    /// just before it (so a change during the scan is seen at the next poll).
    pub(crate) fn ran(&mut self, marks: Option<Marks>, done: Instant, cost: Duration) {
        self.marks = marks;
        self.last_full = done;
        self.cost = cost;
    }
}

/// The polling thread; dropping this stops it at its next wake-up.
pub struct GitPoll {
    _stop: Sender<()>,
}

impl GitPoll {
    /// Starts polling the project at `paths`, whose facts `shown` are on screen.
    /// `send` gets facts that differ from the last it got (or `shown`) and returns
    /// `false` once the loop is gone.
    pub fn spawn(
        paths: Paths,
        shown: Option<GitCache>,
        send: impl Fn(GitCache) -> bool + Send + 'static,
    ) -> std::io::Result<Self> {
        let (stop, stopped) = mpsc::channel::<()>();
        thread::Builder::new()
            .name("git-poll".into())
            .spawn(move || poll(&paths, shown, &stopped, &send))?;
        Ok(Self { _stop: stop })
    }
}

/// Whether the dashboard has closed (the sender was dropped).
fn closed(stopped: &Receiver<()>) -> bool {
    !matches!(stopped.try_recv(), Err(TryRecvError::Empty))
}

#[allow(clippy::disallowed_methods)] // the dashboard loop reads the clock (clippy.toml)
fn poll(
    paths: &Paths,
    mut sent: Option<GitCache>,
    stopped: &Receiver<()>,
    send: &dyn Fn(GitCache) -> bool,
) {
    // The dashboard read the facts just before starting this thread (and said why
    // when it could not).
    let first = git::marks_checked(&paths.root);
    let mut said = first.as_ref().err().cloned();
    let mut schedule = Schedule::new(first.ok().flatten(), Instant::now());
    // Full looks that had not come back by their deadline.
    let mut out: Vec<git::PendingFacts> = Vec::new();
    // Says why the repository is not opened, once for each reason.
    let mut say = |why: git::Refusal| {
        if said.as_ref() != Some(&why) {
            crate::store::log_error(paths, "git", &why.to_string());
            said = Some(why);
        }
    };
    loop {
        if !matches!(stopped.recv_timeout(POLL), Err(RecvTimeoutError::Timeout)) {
            return;
        }
        out.retain(git::PendingFacts::running);
        if out.len() >= MAX_OUT {
            continue;
        }
        let marks = match git::marks_checked(&paths.root) {
            Ok(marks) => marks,
            Err(why) => {
                say(why);
                continue;
            }
        };
        if !schedule.due(&marks, Instant::now()) {
            continue;
        }
        let (at, started) = (Utc::now(), Instant::now());
        let answer = match git::start_facts(&paths.root, git::GIT_DEADLINE).wait_or_keep() {
            Ok(answer) => answer,
            Err(pending) => {
                out.push(pending);
                Ok(None)
            }
        };
        schedule.ran(marks, Instant::now(), started.elapsed());
        let facts = match answer {
            Ok(Some(facts)) => facts,
            Ok(None) => continue,
            Err(why) => {
                say(why);
                continue;
            }
        };
        // Closed while git worked: write nothing more.
        if closed(stopped) {
            return;
        }
        let cache = git::cache_of(facts, at);
        // Never into folders that fail the StrictModes check (the loop shows none).
        if paths.check().is_ok() {
            git::save_cache(paths, &cache, None);
        }
        if sent.as_ref().is_none_or(|s| !s.same_facts(&cache)) {
            if !send(cache.clone()) {
                return;
            }
            sent = Some(cache);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(branch: &str) -> Option<Marks> {
        Some(Marks {
            branch: Some(branch.into()),
            head: Some("abc".into()),
            index: Some((10, 1, 2, 3)),
        })
    }

    #[test]
    fn a_changed_mark_means_a_full_look_at_once() {
        let t0 = Instant::now();
        let s = Schedule::new(marks("main"), t0);
        let soon = t0 + Duration::from_millis(10);
        assert!(!s.due(&marks("main"), soon), "nothing changed");
        assert!(s.due(&marks("feat/x"), soon), "a checkout");
        let mut staged = marks("main");
        if let Some(m) = staged.as_mut() {
            m.index = Some((11, 1, 2, 4));
        }
        assert!(s.due(&staged, soon), "git add");
        assert!(s.due(&None, soon), "the repository went away");
        assert!(
            Schedule::new(None, t0).due(&marks("main"), soon),
            "git init"
        );
    }

    #[test]
    fn unchanged_marks_wait_in_proportion_to_the_cost() {
        let t0 = Instant::now();
        let mut s = Schedule::new(marks("main"), t0);
        assert_eq!(s.full_every(), FULL_MIN);
        assert!(!s.due(&marks("main"), t0 + FULL_MIN - Duration::from_millis(1)));
        assert!(s.due(&marks("main"), t0 + FULL_MIN), "edits are looked for");
        // A slow scan: 400 ms → every 20 s, counted from its end.
        let done = t0 + Duration::from_secs(3);
        s.ran(marks("main"), done, Duration::from_millis(400));
        assert_eq!(s.full_every(), Duration::from_secs(20));
        assert!(!s.due(&marks("main"), done + Duration::from_secs(19)));
        assert!(s.due(&marks("main"), done + Duration::from_secs(20)));
        // Still at once for a checkout, however slow the scan.
        assert!(s.due(&marks("feat/x"), done + Duration::from_millis(1)));
        s.ran(marks("main"), done, Duration::from_secs(30));
        assert_eq!(s.full_every(), FULL_MAX);
    }

    #[test]
    fn the_thread_sends_a_checkout_and_nothing_while_quiet() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let git = |args: &[&str]| crate::git::tests::git(&root, args);
        git(&["init", "-q", "-b", "main"]);
        std::fs::write(root.join("a.txt"), "a").unwrap();
        git(&["add", "a.txt"]);
        git(&["commit", "-qm", "first"]);
        let paths = Paths::new(&root);
        std::fs::create_dir_all(paths.logs()).unwrap();
        let shown = git::cache_of(git::facts(&root).unwrap(), Utc::now());
        let (tx, rx) = mpsc::channel();
        let poll = GitPoll::spawn(paths.clone(), Some(shown), move |c| tx.send(c).is_ok());
        let _poll = poll.unwrap();
        assert!(
            rx.recv_timeout(POLL * 3).is_err(),
            "the facts on screen are not sent again"
        );
        let start = Instant::now();
        git(&["checkout", "-q", "-b", "feat/x"]);
        let got = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(got.branch.as_deref(), Some("feat/x"));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        let cached = crate::store::files::read_git_cache(&paths).unwrap();
        assert!(cached.same_facts(&got), "the cache says the same");
        // An untracked file touches no mark: the next full look finds it.
        std::fs::write(root.join("new.txt"), "n").unwrap();
        let got = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(got.uncommitted_changes, 1);
    }
}
