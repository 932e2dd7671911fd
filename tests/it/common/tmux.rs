//! A tmux server of a test's own (unique socket), to run a command in a real
//! terminal: start it in a pane, read the screen, send keys, ask tmux about the
//! pane's terminal modes. The dashboard tests use [`Tmux::start`]; the end-to-end
//! harness (`tests/it/e2e/harness.rs`) names its own socket and session, passes `-u`,
//! and has the pane's process waited for when the server goes ([`Tmux::reap_pane`]).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server, killed (and its socket removed) when dropped.
pub struct Tmux {
    socket: String,
    socket_path: Option<PathBuf>,
    /// The session (and so the pane) every command here targets.
    session: String,
    /// `tmux -u`: tell tmux the terminal speaks UTF-8.
    utf8: bool,
    /// The pane's process, waited for (killed if it lingers) after the server is.
    pane_pid: Option<u32>,
}

/// Whether tmux can be run here.
fn available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

impl Tmux {
    /// Whether tmux can be run here.
    pub fn available() -> bool {
        available()
    }

    /// Whether tmux is here to drive a real terminal. Missing on CI (where .ci/run
    /// installs it) it is a failure; elsewhere the test says it skipped.
    pub fn here() -> bool {
        if available() {
            return true;
        }
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is missing on CI: .ci/run should have installed it"
        );
        eprintln!("SKIPPED: tmux is not installed (CI installs it via .ci/run)");
        false
    }

    /// A server with one `width`×`height` window running `command` in session `t`.
    pub fn start(width: u16, height: u16, command: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let socket = format!("forge-test-{}-{nanos}", std::process::id());
        let mut t = Self::server(socket, "t", false);
        t.open(width, height, command)
            .unwrap_or_else(|e| panic!("{e}"));
        t
    }

    /// A server on socket `socket` (`tmux -L`) whose commands target session
    /// `session`, with `-u` when `utf8`; nothing runs until [`Self::open`].
    pub fn server(socket: String, session: &str, utf8: bool) -> Self {
        Self {
            socket,
            socket_path: None,
            session: session.to_owned(),
            utf8,
            pane_pid: None,
        }
    }

    /// Starts the server with one `width`×`height` window running `command`.
    pub fn open(&mut self, width: u16, height: u16, command: &str) -> Result<(), String> {
        let (w, h) = (width.to_string(), height.to_string());
        self.try_run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            &self.session,
            "-x",
            &w,
            "-y",
            &h,
            command,
        ])?;
        let path = self.try_run(&["display-message", "-p", "#{socket_path}"])?;
        self.socket_path = Some(PathBuf::from(path.trim()));
        Ok(())
    }

    /// The socket's name (`tmux -L <name>`).
    pub fn socket(&self) -> &str {
        &self.socket
    }

    /// The socket's path (as in `TMUX`), known once [`Self::open`] ran.
    pub fn socket_path(&self) -> Option<&Path> {
        self.socket_path.as_deref()
    }

    /// Runs a tmux command on this server; its stdout, or what tmux said.
    pub fn try_run(&self, args: &[&str]) -> Result<String, String> {
        let mut cmd = Command::new("tmux");
        if self.utf8 {
            cmd.arg("-u");
        }
        let out = cmd
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .output()
            .map_err(|e| format!("tmux {args:?}: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(format!(
                "tmux {args:?}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// Runs a tmux command on this server; panics when it fails.
    pub fn run(&self, args: &[&str]) -> String {
        self.try_run(args).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The pane's text.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", &self.session])
    }

    /// Sends tmux key names (`Enter`, `Escape`, `C-c`, `-l text`, …) to the pane.
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", self.session.as_str()];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// A tmux format (`#{alternate_on}`…) for the pane.
    pub fn format(&self, format: &str) -> String {
        self.run(&["display-message", "-p", "-t", &self.session, format])
            .trim()
            .to_owned()
    }

    /// Waits until the screen contains `text`; panics with the screen after 10 s.
    pub fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "waited 10 s for {text:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The pane's process id, from now on waited for when the server is killed on
    /// drop (SIGHUP lets it finish; one that lingers 10 s is killed), so nothing it
    /// runs writes into the test's folders after they are removed.
    pub fn reap_pane(&mut self) -> Option<u32> {
        self.pane_pid = self
            .try_run(&["display-message", "-p", "-t", &self.session, "#{pane_pid}"])
            .ok()
            .and_then(|p| p.trim().parse().ok());
        self.pane_pid
    }

    /// The process [`Self::reap_pane`] found.
    pub fn pane_pid(&self) -> Option<u32> {
        self.pane_pid
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.try_run(&["kill-server"]);
        if let Some(pid) = self.pane_pid {
            let proc_dir = PathBuf::from(format!("/proc/{pid}"));
            let gone = || (!proc_dir.exists()).then_some(());
            if super::poll(Duration::from_secs(10), gone).is_none() {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
                let _ = super::poll(Duration::from_secs(5), gone);
            }
        }
        // tmux leaves its socket file behind.
        if let Some(p) = &self.socket_path {
            let _ = std::fs::remove_file(p);
        }
    }
}
