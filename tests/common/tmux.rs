//! A tmux server of a test's own (unique socket), to run the dashboard in a real
//! terminal: start a command in a pane, read the screen, send keys, ask tmux about
//! the pane's terminal modes.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server, killed (and its socket removed) when dropped.
pub struct Tmux {
    socket: String,
    socket_path: Option<PathBuf>,
}

impl Tmux {
    /// Whether tmux can be run here.
    pub fn available() -> bool {
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// A server with one `width`×`height` window running `command` in session `t`.
    pub fn start(width: u16, height: u16, command: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let socket = format!("forge-test-{}-{nanos}", std::process::id());
        let mut t = Self {
            socket,
            socket_path: None,
        };
        let (w, h) = (width.to_string(), height.to_string());
        t.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &w,
            "-y",
            &h,
            command,
        ]);
        let path = t.run(&["display-message", "-p", "#{socket_path}"]);
        t.socket_path = Some(PathBuf::from(path.trim()));
        t
    }

    /// Runs a tmux command on this server; panics when it fails.
    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane's text.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// A tmux format (`#{alternate_on}`…) for the pane.
    pub fn format(&self, format: &str) -> String {
        self.run(&["display-message", "-p", "-t", "t", format])
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
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
        // tmux leaves its socket file behind.
        if let Some(p) = &self.socket_path {
            let _ = std::fs::remove_file(p);
        }
    }
}
