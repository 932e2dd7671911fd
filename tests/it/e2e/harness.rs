//! What every end-to-end test needs: the pinned Claude Code client (installed into
//! `target/` when missing), a mock Messages API, a temporary `HOME` seeded the way
//! the interactive client needs it (docs/client-reference.md §9.3), a temporary git project wired
//! by `forge init`, and a private tmux server to drive the interactive client.
//!
//! The real `~/.claude` is never touched: the client and forge run with `HOME`,
//! `XDG_CONFIG_HOME` and every Claude Code variable set or cleared explicitly
//! (`env -i` with a short allow-list), so nothing leaks in from a parent Claude Code
//! session either.
//!
//! Waits are polls with deadlines. When a test fails, [`World`]'s `Drop` prints the
//! screen, the requests the mock received, the client's debug log tail and forge's
//! `.forge/logs`, so a CI failure can be read without a rerun.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::common::tmux::Tmux;
use super::common::{git, sh_quote};
use super::mock_api::MockApi;

/// The client version the suite pins.
pub const CLIENT_VERSION: &str = "2.1.330";
/// Its npm package (the native binary; no Node.js needed to run it).
pub const CLIENT_PACKAGE: &str = "@anthropic-ai/claude-code-linux-x64";
/// The model every test asks for (a 200k window).
pub const MODEL: &str = "claude-sonnet-4-6";
/// Any key: the mock never checks it. The interactive client wants its last 20
/// characters approved in `.claude.json`.
const API_KEY: &str = "sk-ant-forge-e2e-0123456789abcdefghij";

/// The default wait for something the client or forge does.
pub const WAIT: Duration = Duration::from_secs(40);

/// One end-to-end test at a time: the client is heavy and the machine has 2 cores.
static SERIAL: Mutex<()> = Mutex::new(());

/// Whether this run is CI (`CI` set to anything but empty, `0` or `false`), where a
/// missing tool is a failure instead of a skip.
pub fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// `target/` (the folder that holds the `forge` binary cargo built for this test).
pub fn target_dir() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_forge"));
    bin.parent()
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("target"), Path::to_path_buf)
}

/// Where the pinned client is installed: `target/claude-code/<version>/`.
pub fn client_dir() -> PathBuf {
    target_dir().join("claude-code").join(CLIENT_VERSION)
}

fn client_exe(dir: &Path) -> PathBuf {
    dir.join("node_modules").join(CLIENT_PACKAGE).join("claude")
}

fn tool_runs(name: &str, arg: &str) -> bool {
    Command::new(name)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `claude --version` says the pinned version.
fn client_works(exe: &Path) -> Result<(), String> {
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .arg("--version")
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && text.contains(CLIENT_VERSION) {
        Ok(())
    } else {
        Err(format!(
            "{} --version said {text:?} ({}), not {CLIENT_VERSION}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Installs the pinned client with `npm install --ignore-scripts` into a fresh folder
/// next to the cache, then renames it into place, so a cut install is never reused.
fn install_client(dir: &Path) -> Result<(), String> {
    if !tool_runs("npm", "--version") {
        return Err("npm is not installed (.ci/run installs it)".to_owned());
    }
    let parent = dir
        .parent()
        .ok_or("no parent folder for the client cache")?;
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let staging = parent.join(format!(".install-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|e| e.to_string())?;
    std::fs::write(
        staging.join("package.json"),
        "{\"name\":\"forge-e2e-client\",\"private\":true}\n",
    )
    .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let out = Command::new("npm")
        .args([
            "install",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--loglevel=error",
            &format!("{CLIENT_PACKAGE}@{CLIENT_VERSION}"),
        ])
        .current_dir(&staging)
        .output()
        .map_err(|e| format!("npm: {e}"))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!(
            "npm install {CLIENT_PACKAGE}@{CLIENT_VERSION} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    client_works(&client_exe(&staging))?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&staging, dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let _ = writeln!(
        std::io::stderr(),
        "e2e: installed {CLIENT_PACKAGE}@{CLIENT_VERSION} into {} in {:.1} s",
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The pinned client's executable, installed on first use (once per test run).
fn client() -> Result<PathBuf, String> {
    static CLIENT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            let dir = client_dir();
            let exe = client_exe(&dir);
            if client_works(&exe).is_err() {
                install_client(&dir)?;
            }
            client_works(&exe)?;
            Ok(exe)
        })
        .clone()
}

/// What the suite needs, or why it cannot run. On CI a missing piece fails the test;
/// elsewhere the test prints a SKIPPED line (straight to stderr, past the test
/// harness's capture, so it is never silent) and returns.
fn requirements() -> Result<PathBuf, String> {
    if !tool_runs("tmux", "-V") {
        return Err("tmux is not installed (.ci/run installs it)".to_owned());
    }
    if !tool_runs("git", "--version") {
        return Err("git is not installed".to_owned());
    }
    client()
}

pub use super::common::poll;

/// Waits (a [`poll`] of [`WAIT`]) until `cond` holds; panics naming `what`.
pub fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    assert!(
        poll(WAIT, || cond().then_some(())).is_some(),
        "waited {WAIT:?} for {what}"
    );
}

/// One end-to-end test's world: mock API, temp HOME, project, client.
pub struct World {
    /// The test's name (for reports).
    pub name: String,
    /// The mock Messages API.
    pub api: MockApi,
    /// The temporary `HOME` of the client and forge.
    pub home: PathBuf,
    /// The git project wired by `forge init` (a test that drives sessions in other
    /// work trees of it points this at the one it runs the client in next).
    pub root: PathBuf,
    /// `FORGE_AGENT` for the client (and so forge's hooks and MCP server), when set.
    pub agent: Option<String>,
    client: PathBuf,
    debug_log: PathBuf,
    tmux: Option<Tmux>,
    /// `PATH` for the client and forge when a test sets it (see
    /// [`World::forge_on_path`], [`World::forge_not_on_path`]).
    path: Option<String>,
    _dir: tempfile::TempDir,
    _serial: MutexGuard<'static, ()>,
}

impl World {
    /// Sets up the world for test `name`, or returns `None` (after printing SKIPPED)
    /// when the client, npm or tmux is missing outside CI. On CI that panics instead.
    pub fn new(name: &str) -> Option<Self> {
        Self::create(name, true)
    }

    /// [`Self::new`] without `forge init`: a git project that forge's plugin wires.
    pub fn new_unwired(name: &str) -> Option<Self> {
        Self::create(name, false)
    }

    fn create(name: &str, wired: bool) -> Option<Self> {
        let serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
        let client = match requirements() {
            Ok(c) => c,
            Err(why) => {
                assert!(
                    !on_ci(),
                    "e2e {name}: {why}; CI must run the end-to-end suite"
                );
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED e2e::{name}: {why} (set CI=1 to make this a failure)"
                );
                return None;
            }
        };
        let dir = tempfile::Builder::new()
            .prefix("forge-e2e-")
            .tempdir()
            .expect("temp dir");
        let base = dir.path().canonicalize().expect("canonical temp dir");
        let home = base.join("home");
        let root = base.join("project");
        std::fs::create_dir_all(home.join(".config")).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        let world = Self {
            name: name.to_owned(),
            api: MockApi::start(),
            debug_log: base.join("claude-debug.log"),
            home,
            root,
            agent: None,
            client,
            tmux: None,
            path: None,
            _dir: dir,
            _serial: serial,
        };
        world.seed_home();
        world.init_project(wired);
        Some(world)
    }

    /// Marks `dir` trusted in `$HOME/.claude.json`, as [`Self::seed_home`] does for
    /// the project (another work tree of it the client is started in).
    pub fn trust_folder(&self, dir: &Path) {
        let file = self.home.join(".claude.json");
        let mut seed: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        seed["projects"][dir.display().to_string()] =
            json!({"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true});
        std::fs::write(&file, serde_json::to_string_pretty(&seed).unwrap()).unwrap();
    }

    /// `$HOME/.claude.json` as the interactive client needs it to skip onboarding,
    /// the API-key question and the trust dialog (docs/client-reference.md §9.3).
    fn seed_home(&self) {
        let key_tail: String = {
            let chars: Vec<char> = API_KEY.chars().collect();
            chars[chars.len() - 20..].iter().collect()
        };
        let seed = json!({
            "hasCompletedOnboarding": true,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [key_tail], "rejected": []},
            "messageIdleNotifThresholdMs": 3000,
            "projects": {
                self.root.display().to_string(): {
                    "hasTrustDialogAccepted": true,
                    "hasCompletedProjectOnboarding": true
                }
            }
        });
        std::fs::write(
            self.home.join(".claude.json"),
            serde_json::to_string_pretty(&seed).unwrap(),
        )
        .unwrap();
    }

    /// A git repository with one commit, wired by `forge init` (when `wired`), with
    /// the wiring committed so the tree starts clean.
    fn init_project(&self, wired: bool) {
        git(&self.root, &["init", "-q", "-b", "main"]);
        self.write("README.md", "# e2e\n");
        self.write("SPEC.md", "# spec\nThe widget must be blue.\n");
        if wired {
            let out = self.forge(&["init"]);
            assert!(
                out.status.success(),
                "forge init: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        git(&self.root, &["add", "-A"]);
        git(&self.root, &["commit", "-qm", "initial"]);
    }

    /// Writes a file under the project.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Commits everything in the project (so the tree is clean again).
    pub fn commit_all(&self) {
        git(&self.root, &["add", "-A"]);
        git(&self.root, &["commit", "-qm", "test setup"]);
    }

    /// The environment the client (and so forge's hooks and status line) runs with:
    /// nothing from this process but `PATH`.
    fn client_env(&self) -> Vec<(String, String)> {
        let mut env = self.base_env();
        if let Some(a) = &self.agent {
            env.push(("FORGE_AGENT".into(), a.clone()));
        }
        env
    }

    fn base_env(&self) -> Vec<(String, String)> {
        vec![
            (
                "PATH".into(),
                self.path.clone().unwrap_or_else(|| {
                    std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
                }),
            ),
            ("HOME".into(), self.home.display().to_string()),
            (
                "XDG_CONFIG_HOME".into(),
                self.home.join(".config").display().to_string(),
            ),
            ("LANG".into(), "C.UTF-8".into()),
            ("TERM".into(), "xterm-256color".into()),
            ("ANTHROPIC_BASE_URL".into(), self.api.base_url()),
            ("ANTHROPIC_API_KEY".into(), API_KEY.into()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                "1".into(),
            ),
            ("DISABLE_AUTOUPDATER".into(), "1".into()),
            // Otherwise the client fetches the plugin marketplace from the internet.
            (
                "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL".into(),
                "1".into(),
            ),
            ("GIT_AUTHOR_NAME".into(), "Test".into()),
            ("GIT_AUTHOR_EMAIL".into(), "test@example.com".into()),
            ("GIT_COMMITTER_NAME".into(), "Test".into()),
            ("GIT_COMMITTER_EMAIL".into(), "test@example.com".into()),
        ]
    }

    /// `PATH` from now on: this process's `PATH` without the folders that hold a
    /// `forge`, so the client and its hooks find none.
    pub fn forge_not_on_path(&mut self) {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs: Vec<PathBuf> = std::env::split_paths(&path)
            .filter(|d| !d.join("forge").exists())
            .collect();
        self.path = Some(
            std::env::join_paths(dirs)
                .expect("PATH joins")
                .to_string_lossy()
                .into_owned(),
        );
    }

    /// `PATH` from now on: a folder holding this build's `forge` first (as an
    /// installed forge is found), then [`Self::forge_not_on_path`]'s.
    pub fn forge_on_path(&mut self) {
        let bin = self.home.parent().unwrap().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let link = bin.join("forge");
        if !link.exists() {
            std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_forge"), &link).unwrap();
        }
        self.forge_not_on_path();
        let rest = self.path.take().unwrap_or_default();
        self.path = Some(format!("{}:{rest}", bin.display()));
    }

    /// `PATH` from now on: `dir` first (a forge installed there, by npm say), then
    /// [`Self::forge_not_on_path`]'s.
    pub fn first_on_path(&mut self, dir: &Path) {
        self.forge_not_on_path();
        let rest = self.path.take().unwrap_or_default();
        self.path = Some(format!("{}:{rest}", dir.display()));
    }

    /// `program` run in the project with the test's environment (its `PATH`
    /// included), as the client would run it.
    pub fn command(&self, program: &Path) -> Command {
        let mut c = Command::new(program);
        c.current_dir(&self.root)
            .env_clear()
            .envs(self.client_env())
            .env("NO_COLOR", "1");
        c
    }

    /// `PATH` from now on: `dir` first (stand-in programs the hooks find), then the
    /// `PATH` set so far.
    pub fn path_first(&mut self, dir: &Path) {
        let rest = self
            .path
            .take()
            .unwrap_or_else(|| std::env::var("PATH").unwrap_or_default());
        self.path = Some(format!("{}:{rest}", dir.display()));
    }

    /// `PATH` from now on: a relative entry (`.`, the folder the client and its
    /// hooks run in) first, then the `PATH` set so far.
    pub fn relative_path_entry_first(&mut self) {
        let rest = self
            .path
            .take()
            .unwrap_or_else(|| std::env::var("PATH").unwrap_or_default());
        self.path = Some(format!(".:{rest}"));
    }

    /// Runs the client with `args` (`plugin install …`) in the project, with the
    /// test's environment; returns its output.
    pub fn claude(&self, args: &[&str]) -> Output {
        Command::new(&self.client)
            .args(args)
            .current_dir(&self.root)
            .env_clear()
            .envs(self.client_env())
            .stdin(Stdio::null())
            .output()
            .expect("the client runs")
    }

    /// The pinned client's executable.
    pub fn client_path(&self) -> &Path {
        &self.client
    }

    /// `forge <args>` as [`Self::forge`] does, as a command to finish and run
    /// (for a long `forge run` whose env or timing the test controls).
    pub fn forge_command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_forge"));
        c.args(args)
            .current_dir(&self.root)
            .env_clear()
            .envs(self.client_env())
            .env("NO_COLOR", "1");
        c
    }

    /// `forge <args>` in the project with the test's HOME.
    pub fn forge(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_forge"))
            .args(args)
            .current_dir(&self.root)
            .env_clear()
            .envs(self.client_env())
            .env("NO_COLOR", "1")
            .output()
            .expect("forge runs")
    }

    /// Runs the client in print mode (`claude -p <prompt>`); returns its output.
    pub fn print(&self, prompt: &str) -> Output {
        self.print_with(&[], prompt)
    }

    /// [`Self::print`] with `extra` arguments before the prompt
    /// (`--allowedTools …`).
    pub fn print_with(&self, extra: &[&str], prompt: &str) -> Output {
        let mut child = Command::new(&self.client)
            .args(["-p", "--model", MODEL, "--debug-file"])
            .arg(&self.debug_log)
            .args(extra)
            .arg(prompt)
            .current_dir(&self.root)
            .env_clear()
            .envs(self.client_env())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the client starts");
        // Bounded: a hung client fails the test instead of hanging CI.
        let status = poll(WAIT, || child.try_wait().ok().flatten());
        if status.is_none() {
            let _ = child.kill();
        }
        let out = child.wait_with_output().expect("client output");
        assert!(status.is_some(), "claude -p did not finish within {WAIT:?}");
        out
    }

    /// Starts the interactive client in a private tmux server (140×45) with
    /// `extra` arguments, and waits until forge's status line is drawn.
    pub fn start(&mut self, extra: &[&str]) {
        self.start_with(extra, false);
    }

    /// [`Self::start`]; with `in_tmux`, the client (and so forge's hooks) also gets
    /// the pane's `TMUX` and `TMUX_PANE`, as a client started by hand in tmux has.
    pub fn start_with(&mut self, extra: &[&str], in_tmux: bool) {
        self.launch(extra, in_tmux);
        self.wait_screen("the prompt and forge's status line", |s| {
            s.contains('❯') && status_line(s).is_some()
        });
    }

    /// [`Self::start`] where no status line is drawn (forge is not installed): waits
    /// for the prompt only.
    pub fn start_without_status_line(&mut self, extra: &[&str]) {
        self.launch(extra, false);
        self.wait_screen("the prompt", |s| s.contains('❯'));
    }

    fn launch(&mut self, extra: &[&str], in_tmux: bool) {
        let socket = format!(
            "forge-e2e-{}-{}",
            std::process::id(),
            self.root
                .parent()
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        let mut script = String::from("#!/bin/sh\n");
        let _ = writeln!(
            script,
            "cd {} || exit 1",
            sh_quote(&self.root.display().to_string())
        );
        script.push_str("exec env -i");
        if in_tmux {
            script.push_str(" TMUX=\"$TMUX\" TMUX_PANE=\"$TMUX_PANE\"");
        }
        for (k, v) in self.client_env() {
            let _ = write!(script, " {k}={}", sh_quote(&v));
        }
        let _ = write!(
            script,
            " {} --model {MODEL} --debug-file {}",
            sh_quote(&self.client.display().to_string()),
            sh_quote(&self.debug_log.display().to_string())
        );
        for a in extra {
            script.push(' ');
            script.push_str(&sh_quote(a));
        }
        script.push('\n');
        let path = self.home.parent().unwrap().join("run-claude.sh");
        std::fs::write(&path, script).unwrap();
        let mut tmux = Tmux::server(socket, "e2e", true);
        tmux.open(
            140,
            45,
            &format!("sh {}", sh_quote(&path.display().to_string())),
        )
        .expect("tmux starts");
        // Keep the pane after the client exits, so /exit can be observed.
        let _ = tmux.try_run(&["set-option", "-t", "e2e", "remain-on-exit", "on"]);
        // The pane's command `exec`s the client: the server's Drop waits for it.
        tmux.reap_pane();
        self.tmux = Some(tmux);
    }

    /// Closes the interactive client's tmux server (its pane kept the finished
    /// client's screen), so [`Self::start`] can open the next session's.
    pub fn close(&mut self) {
        self.tmux = None;
    }

    fn tmux(&self) -> &Tmux {
        self.tmux
            .as_ref()
            .expect("the interactive client was started")
    }

    /// Runs a tmux command on the test's server.
    pub fn tmux_run(&self, args: &[&str]) -> Result<String, String> {
        self.tmux().try_run(args)
    }

    /// The interactive client's process id (the pane's command `exec`s it).
    pub fn client_pid(&self) -> Option<u32> {
        self.tmux.as_ref().and_then(Tmux::pane_pid)
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        self.tmux
            .as_ref()
            .and_then(|t| t.try_run(&["capture-pane", "-p", "-t", "e2e"]).ok())
            .unwrap_or_default()
    }

    /// Sends tmux key names (`Enter`, `Escape`, `C-c`, …).
    pub fn keys(&self, keys: &[&str]) {
        self.tmux().keys(keys);
    }

    /// Types `text` into the prompt, waits until it shows, and presses Enter.
    pub fn type_line(&self, text: &str) {
        self.tmux().keys(&["-l", text]);
        let shown: String = text.chars().take(30).collect();
        self.wait_screen(&format!("the typed text {shown:?}"), |s| {
            s.lines().any(|l| l.contains('❯') && l.contains(&shown))
        });
        self.keys(&["Enter"]);
    }

    /// Waits until `pred` holds for the screen; returns that screen.
    pub fn wait_screen(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        poll(WAIT, || {
            let s = self.screen();
            pred(&s).then_some(s)
        })
        .unwrap_or_else(|| panic!("waited {WAIT:?} for {what} on the screen"))
    }

    /// The client's debug log (`--debug-file`) so far.
    pub fn debug_log(&self) -> String {
        std::fs::read_to_string(&self.debug_log).unwrap_or_default()
    }

    /// forge's event log (`.forge/logs/events.jsonl`), oldest first.
    pub fn events(&self) -> Vec<Value> {
        std::fs::read_to_string(self.root.join(".forge/logs/events.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The event names in order (`SessionStart:startup`, `Stop:active`, …).
    pub fn event_names(&self) -> Vec<String> {
        self.events().iter().map(event_label).collect()
    }

    /// Waits until at least `n` events named `label` (see [`event_label`]) are logged.
    pub fn wait_events(&self, label: &str, n: usize) -> Vec<String> {
        poll(WAIT, || {
            let names = self.event_names();
            (names.iter().filter(|e| *e == label).count() >= n).then_some(names)
        })
        .unwrap_or_else(|| panic!("waited {WAIT:?} for {n} × {label} in events.jsonl"))
    }

    /// How many events named `label` are logged now.
    pub fn count_events(&self, label: &str) -> usize {
        self.event_names().iter().filter(|e| *e == label).count()
    }

    /// Types `prompt` and waits for the turn's Stop (the client's turn is over).
    pub fn turn(&self, prompt: &str) {
        let stops = self.count_events("Stop");
        self.type_line(prompt);
        self.wait_events("Stop", stops + 1);
    }

    /// A file under `.forge/`, parsed as JSON (`None` when missing or broken).
    pub fn forge_json(&self, rel: &str) -> Option<Value> {
        let text = std::fs::read_to_string(self.root.join(".forge").join(rel)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// A text file under `.forge/` (`""` when missing).
    pub fn forge_text(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(".forge").join(rel)).unwrap_or_default()
    }

    /// The one session id seen in the events with `label` (e.g. the compacting one).
    pub fn session_of(&self, label: &str) -> String {
        self.events()
            .iter()
            .rev()
            .find(|e| event_label(e) == label)
            .and_then(|e| e["session"].as_str().map(str::to_owned))
            .unwrap_or_else(|| panic!("no {label} event"))
    }

    /// The session transcript the client writes for session `id`.
    pub fn transcript(&self, id: &str) -> PathBuf {
        let name: String = self
            .root
            .display()
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.home
            .join(".claude/projects")
            .join(name)
            .join(format!("{id}.jsonl"))
    }

    /// Everything a failing test's reader needs.
    fn report(&self) -> String {
        let mut out = format!(
            "\n===== e2e {} failed: what the world looked like =====\n",
            self.name
        );
        if self.tmux.is_some() {
            out.push_str("--- screen ---\n");
            out.push_str(&self.screen());
        }
        out.push_str("--- requests the mock received ---\n");
        out.push_str(&self.api.describe());
        let logs = self.root.join(".forge/logs");
        let mut files: Vec<PathBuf> = Vec::new();
        for dir in [logs.clone(), logs.join("sessions")] {
            if let Ok(rd) = std::fs::read_dir(&dir) {
                let mut v: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
                v.sort();
                files.extend(v.into_iter().filter(|p| p.is_file()));
            }
        }
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            let tail: String = text
                .chars()
                .rev()
                .take(4000)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let _ = writeln!(out, "--- {} ---\n{tail}", f.display());
        }
        if let Ok(h) = std::fs::read_dir(self.root.join(".forge/handoffs")) {
            let names: Vec<String> = h
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            let _ = writeln!(out, "--- .forge/handoffs: {names:?}");
        }
        let debug = std::fs::read_to_string(&self.debug_log).unwrap_or_default();
        let wanted: Vec<&str> = debug
            .lines()
            .filter(|l| {
                ["hook", "Hook", "compact", "ERROR", "API", "status"]
                    .iter()
                    .any(|w| l.contains(w))
            })
            .collect();
        out.push_str("--- client debug log (hooks, compaction, errors; last 60) ---\n");
        for l in wanted.iter().rev().take(60).rev() {
            let l: String = l.chars().take(400).collect();
            out.push_str(&l);
            out.push('\n');
        }
        out
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = writeln!(std::io::stderr(), "{}", self.report());
        }
        let keep = std::env::var_os("FORGE_E2E_KEEP").is_some();
        if keep && self.tmux.is_some() {
            let _ = std::fs::write(
                self.home.parent().unwrap().join("screen.txt"),
                self.screen(),
            );
        }
        // The client goes before the folders it writes to.
        self.tmux = None;
        if keep {
            let dir = std::mem::replace(&mut self._dir, tempfile::tempdir().expect("temp dir"));
            let kept = dir.keep();
            let _ = writeln!(
                std::io::stderr(),
                "e2e {}: kept {}",
                self.name,
                kept.display()
            );
        }
    }
}

/// An event line as `Name` or `Name:detail` (`SessionStart:compact`,
/// `PreCompact:auto`, `SessionEnd:clear`, `PreToolUse:Bash`, `Stop:active`).
pub fn event_label(e: &Value) -> String {
    let name = e["event"].as_str().unwrap_or("?");
    let f = &e["facts"];
    let detail = match name {
        "SessionStart" => f["source"].as_str(),
        "PreCompact" => f["trigger"].as_str(),
        "SessionEnd" => f["reason"].as_str(),
        "PreToolUse" | "PermissionRequest" => f["tool"].as_str(),
        "Notification" => f["notification"].as_str(),
        "Stop" if f["stop_hook_active"] == true => Some("active"),
        _ => None,
    };
    detail.map_or_else(|| name.to_owned(), |d| format!("{name}:{d}"))
}

/// forge's status line on the screen: the row right under the prompt box (the
/// client draws it there, above its own mode row), when it has a context figure.
pub fn status_line(screen: &str) -> Option<String> {
    let rows: Vec<&str> = screen.lines().collect();
    let border = rows.iter().rposition(|l| {
        let t = l.trim();
        !t.is_empty() && t.chars().all(|c| c == '─')
    })?;
    rows.get(border + 1..)?
        .iter()
        .find(|l| !l.trim().is_empty())
        .filter(|l| l.contains(" │ ") && l.contains('%'))
        .map(|l| l.trim().to_owned())
}
