//! Shared helpers for process tests: a temporary git project with `HOME`,
//! `XDG_CONFIG_HOME` and `XDG_STATE_HOME` in temporary folders, so no test touches the
//! real `~/.claude` or the real fleet registry.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod dist;
pub mod tmux;

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

/// A temporary project: `root` is a git repository, `home` and `xdg` are empty.
pub struct TestProject {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub xdg: PathBuf,
}

/// Runs `cmd`, asserts it succeeded, and returns its stdout as text.
pub fn ok_stdout(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).expect("stdout is UTF-8")
}

/// The fixture folder of this crate.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Runs git in `dir` with a fixed identity; panics when git fails.
pub fn git(dir: &Path, args: &[&str]) {
    let out = StdCommand::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `s` quoted for `sh` (in single quotes), for a command line a test builds.
pub fn sh_quote(s: &(impl AsRef<Path> + ?Sized)) -> String {
    format!(
        "'{}'",
        s.as_ref().display().to_string().replace('\'', "'\\''")
    )
}

/// A poll: calls `probe` every 100 ms until it returns `Some`, for at most `limit`.
pub fn poll<T>(limit: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = probe() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits until `ok` holds, checking every 50 ms; panics naming `what` after 10 s.
pub fn wait_until(what: &str, ok: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ok() {
        assert!(Instant::now() < deadline, "waited 10 s for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Writes the user config (`$XDG_CONFIG_HOME/forge/config.toml`).
pub fn user_config(p: &TestProject, text: &str) {
    let path = p.xdg.join("forge/config.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Every outcome of the event lines of `event` in `.forge/logs/events.jsonl`.
pub fn outcomes(p: &TestProject, event: &str) -> Vec<Value> {
    std::fs::read_to_string(p.forge_dir().join("logs/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["event"] == event)
        .flat_map(|v| v["outcomes"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// The messages a test's fake orchestrator logged (each followed by a `---` line),
/// oldest first.
pub fn wake_messages(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .split("\n---\n")
        .filter(|m| !m.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// One status-line tick of the fixture session (`statusline/used-74.json`) at `pct`.
pub fn statusline(p: &TestProject, pct: u32) -> String {
    let payload = p.payload("statusline/used-74.json").replace(
        "\"used_percentage\": 74",
        &format!("\"used_percentage\": {pct}"),
    );
    ok_stdout(p.forge().arg("statusline").write_stdin(payload))
}

impl TestProject {
    /// A git repository on branch `main` with one commit (README.md).
    pub fn new() -> Self {
        Self::named("project")
    }

    /// [`Self::new`] with the project folder called `name`.
    pub fn named(name: &str) -> Self {
        let p = Self::bare_named(name);
        git(&p.root, &["init", "-q", "-b", "main"]);
        std::fs::write(p.root.join("README.md"), "# test\n").unwrap();
        git(&p.root, &["add", "README.md"]);
        git(&p.root, &["commit", "-qm", "initial"]);
        p
    }

    /// A plain folder (no git).
    pub fn bare_folder() -> Self {
        Self::bare_named("project")
    }

    fn bare_named(name: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(name);
        let home = dir.path().join("home");
        let xdg = dir.path().join("xdg");
        for d in [&root, &home, &xdg] {
            std::fs::create_dir_all(d).unwrap();
        }
        let root = root.canonicalize().unwrap();
        Self {
            dir,
            root,
            home,
            xdg,
        }
    }

    /// A folder of the test's own that comes first on `PATH` for [`Self::forge`]
    /// (empty unless a test puts a `forge` there); the rest of `PATH` is the system
    /// folders, so the real `forge` a developer may have installed is never found.
    pub fn bin_dir(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    /// `forge` with a clean environment pointed at the temp folders, run in `root`.
    /// `FORGE_TEST_BIN` names another build to run instead (to show that a test fails
    /// on an older binary).
    pub fn forge(&self) -> Command {
        let mut cmd = Command::new(forge_bin());
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", self.bin_dir().display());
        cmd.current_dir(&self.root)
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", &self.xdg)
            .env("XDG_STATE_HOME", self.state())
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("COLUMNS")
            .env_remove("LINES")
            .env_remove("EDITOR")
            .env_remove("VISUAL")
            // Where alerts would go: a test chooses its own (tests/it/alerts.rs).
            .env_remove("TERM_PROGRAM")
            .env_remove("LC_TERMINAL")
            .env_remove("KITTY_WINDOW_ID")
            .env_remove("WEZTERM_PANE")
            .env_remove("GHOSTTY_RESOURCES_DIR")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env("NO_COLOR", "1");
        cmd
    }

    /// A fixture payload with the example paths (`/home/alice/...`) rewritten to this
    /// project and home.
    pub fn payload(&self, fixture: &str) -> String {
        let text = std::fs::read_to_string(fixtures().join(fixture)).unwrap();
        text.replace(
            "/home/alice/.claude",
            &self.home.join(".claude").display().to_string(),
        )
        .replace("/home/alice/src/acme-api", &self.root.display().to_string())
    }

    /// `$XDG_STATE_HOME` for [`Self::forge`] (created by forge when it registers).
    pub fn state(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    /// The fleet registry [`Self::forge`] writes.
    pub fn registry(&self) -> PathBuf {
        self.state().join("forge/projects.json")
    }

    /// `.forge/` of this project.
    pub fn forge_dir(&self) -> PathBuf {
        self.root.join(".forge")
    }

    /// The session handoffs (`handoff-*.md`) in `.forge/handoffs/`, sorted.
    pub fn session_handoffs(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.forge_dir().join("handoffs"))
            .map(|r| {
                r.filter_map(Result::ok)
                    .filter(|e| e.file_name().to_string_lossy().starts_with("handoff-"))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }

    /// Writes a file under the project root, creating folders.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Reads a file under the project root.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    /// Copies a fixture handoff into `.forge/handoffs/`.
    pub fn add_handoff_fixture(&self, name: &str) -> PathBuf {
        let dst = self.forge_dir().join("handoffs").join(name);
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(fixtures().join("handoffs").join(name), &dst).unwrap();
        dst
    }
}

/// The forge binary the tests run: cargo's build, or the one `FORGE_TEST_BIN` names
/// (another build: an older one, to show that a test fails on it, or the release's
/// static binary, to run the suite against what ships).
pub fn forge_bin() -> PathBuf {
    std::env::var_os("FORGE_TEST_BIN")
        .map_or_else(|| assert_cmd::cargo::cargo_bin("forge"), PathBuf::from)
}
