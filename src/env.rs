//! The process environment, read once in `main` and passed down.
//!
//! Deep code never calls `std::env::var` or looks up the home folder itself: it takes
//! an [`Env`]. Tests build one from temporary folders so the real `~/.claude` is
//! never touched.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

/// Everything forge reads from its surroundings.
#[derive(Debug, Clone)]
pub struct Env {
    /// `$HOME`.
    pub(crate) home: Option<PathBuf>,
    /// The process working directory.
    pub(crate) cwd: PathBuf,
    /// `$CLAUDE_PROJECT_DIR`, set by Claude Code for hooks and the statusline.
    pub(crate) claude_project_dir: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`, which replaces `~/.claude` when set.
    pub(crate) claude_config_dir: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME` (only an absolute path counts, as the XDG spec says: a
    /// relative one would make a file in whatever folder forge runs in "your own
    /// config").
    pub(crate) xdg_config_home: Option<PathBuf>,
    /// `$XDG_STATE_HOME` (only an absolute path counts, as the XDG spec says).
    pub(crate) xdg_state_home: Option<PathBuf>,
    /// `$COLUMNS` when it parses.
    pub(crate) columns: Option<u16>,
    /// `$LINES` when it parses.
    pub(crate) lines: Option<u16>,
    /// `$NO_COLOR` is set to a non-empty value.
    pub(crate) no_color: bool,
    /// `$VISUAL` or `$EDITOR`.
    pub(crate) editor: Option<String>,
    /// `$PAGER`.
    pub(crate) pager: Option<String>,
    /// `$PATH`, where `forge init` looks for `forge` (see [`Env::find_program`]).
    pub path: Option<std::ffi::OsString>,
    /// `$FORGE_AGENT`: the agent this session runs as (see `Env::agent_name`, in
    /// `src/tmux.rs`: when this is unset it asks tmux, through the `proc` room, which
    /// sits above this one).
    pub(crate) forge_agent: Option<String>,
    /// The tmux session's name once asked ([`Env::agent_name`]): asked at most once
    /// per process, however many steps of a hook call want it.
    pub(crate) tmux_session: std::sync::OnceLock<Option<String>>,
    /// `$TMUX`: set inside a tmux client.
    pub(crate) tmux: bool,
    /// `$TMUX_PANE`: the pane this process runs in (inside tmux).
    pub(crate) tmux_pane: Option<String>,
    /// The tmux server's socket: the first part of `$TMUX` (`socket,pid,session`),
    /// when absolute.
    pub(crate) tmux_socket: Option<PathBuf>,
    /// `$FORGE_RELAY_*`: set by `forge run` for the continuation sessions of a chain.
    pub(crate) relay: Option<RelayVars>,
    /// `$FORGE_RELAY_STOP` (absolute paths only): set by `forge run` for every
    /// session of a chain; while that file exists, the session's `PostToolUse` hook
    /// asks the client to stop after its tool calls. Its presence also marks a
    /// session of `forge run`.
    pub(crate) relay_stop: Option<PathBuf>,
    /// `$CLAUDE_PID`: the Claude Code process that runs this hook (every hook gets
    /// it; seen with 2.1.330).
    pub(crate) claude_pid: Option<u32>,
    /// `$CLAUDE_CODE_ENTRYPOINT`: `cli` for an interactive session, `sdk-cli` for
    /// `claude -p` (seen with 2.1.330).
    pub(crate) claude_entrypoint: Option<String>,
    /// The variables that move Claude Code's own compaction point (docs/client-reference.md §7.1):
    /// `DISABLE_AUTO_COMPACT`, `DISABLE_COMPACT`, `CLAUDE_CODE_AUTO_COMPACT_WINDOW`,
    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, as set.
    pub(crate) compaction_vars: Vec<(String, String)>,
    /// `$FORGE_LAUNCHER` (absolute paths only): the npm launcher script that started
    /// this binary (npm/ccforge/bin/forge.js sets it), so `forge` on PATH being that
    /// script counts as this forge.
    pub(crate) launcher: Option<PathBuf>,
    /// What the terminal and desktop variables say, for alerts
    /// (`crate::model::agents::alert::Place`; what is installed is looked up on
    /// `$PATH` when an alert is sent).
    pub(crate) terminal: TerminalVars,
    /// The time the command started.
    pub(crate) now: DateTime<Utc>,
}

/// The variables that say which terminal and desktop forge runs in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TerminalVars {
    /// `$TERM_PROGRAM`.
    pub(crate) term_program: Option<String>,
    /// `$TERM`.
    pub(crate) term: Option<String>,
    /// `$LC_TERMINAL`.
    pub(crate) lc_terminal: Option<String>,
    /// `$KITTY_WINDOW_ID` is set.
    pub(crate) kitty: bool,
    /// `$WEZTERM_PANE` or `$GHOSTTY_RESOURCES_DIR` is set.
    pub(crate) osc_terminal: bool,
    /// `$DISPLAY` or `$WAYLAND_DISPLAY` is set.
    pub(crate) desktop: bool,
}

/// What `forge run` tells a continuation session (and so its hooks) about the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RelayVars {
    /// `$FORGE_RELAY_CHAIN`: the chain's first session id.
    pub(crate) chain: String,
    /// `$FORGE_RELAY_PREVIOUS`: the session this one continues.
    pub(crate) previous_session_id: Option<String>,
    /// `$FORGE_RELAY_HANDOFFS`: the handoffs the chain has written so far.
    pub(crate) handoff_count: usize,
}

/// The variables of [`Env::compaction_vars`].
const COMPACTION_VARS: [&str; 4] = [
    "DISABLE_AUTO_COMPACT",
    "DISABLE_COMPACT",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW",
    "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
];

fn non_empty(value: Option<std::ffi::OsString>) -> Option<std::ffi::OsString> {
    value.filter(|v| !v.is_empty())
}

/// A path variable's value when it is absolute. The XDG Base Directory spec says a
/// relative `$XDG_*` value is invalid and must be ignored; forge runs in whatever
/// folder a session is in, where a relative value would name a file the repository
/// ships.
fn absolute(value: Option<std::ffi::OsString>) -> Option<PathBuf> {
    value.map(PathBuf::from).filter(|p| p.is_absolute())
}

impl Env {
    /// Reads the real process environment. Call this once, in `main`.
    #[allow(clippy::disallowed_methods)] // `now`: the command's own time, read here once.
    pub fn from_process() -> Self {
        let var = |name: &str| non_empty(std::env::var_os(name));
        let parse_u16 = |name: &str| {
            var(name)
                .and_then(|v| v.to_str().and_then(|s| s.trim().parse::<u16>().ok()))
                .filter(|n| *n > 0)
        };
        Self {
            home: var("HOME").map(PathBuf::from),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            claude_project_dir: var("CLAUDE_PROJECT_DIR").map(PathBuf::from),
            claude_config_dir: var("CLAUDE_CONFIG_DIR").map(PathBuf::from),
            xdg_config_home: absolute(var("XDG_CONFIG_HOME")),
            xdg_state_home: absolute(var("XDG_STATE_HOME")),
            columns: parse_u16("COLUMNS"),
            lines: parse_u16("LINES"),
            no_color: var("NO_COLOR").is_some(),
            editor: var("VISUAL")
                .or_else(|| var("EDITOR"))
                .and_then(|v| v.into_string().ok()),
            pager: var("PAGER").and_then(|v| v.into_string().ok()),
            path: var("PATH"),
            forge_agent: var("FORGE_AGENT")
                .and_then(|v| v.into_string().ok())
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty()),
            tmux_session: std::sync::OnceLock::new(),
            tmux: var("TMUX").is_some(),
            tmux_pane: var("TMUX_PANE").and_then(|v| v.into_string().ok()),
            tmux_socket: var("TMUX")
                .and_then(|v| v.into_string().ok())
                .and_then(|v| v.split(',').next().map(PathBuf::from))
                .filter(|p| p.is_absolute()),
            relay: var("FORGE_RELAY_CHAIN")
                .and_then(|v| v.into_string().ok())
                .map(|chain| RelayVars {
                    chain,
                    previous_session_id: var("FORGE_RELAY_PREVIOUS")
                        .and_then(|v| v.into_string().ok()),
                    handoff_count: var("FORGE_RELAY_HANDOFFS")
                        .and_then(|v| v.to_str().and_then(|s| s.trim().parse().ok()))
                        .unwrap_or(0),
                }),
            relay_stop: var("FORGE_RELAY_STOP")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute()),
            claude_pid: var("CLAUDE_PID")
                .and_then(|v| v.to_str().and_then(|s| s.trim().parse().ok()))
                .filter(|p| *p > 1),
            claude_entrypoint: var("CLAUDE_CODE_ENTRYPOINT").and_then(|v| v.into_string().ok()),
            compaction_vars: COMPACTION_VARS
                .iter()
                .filter_map(|k| Some(((*k).to_owned(), var(k)?.into_string().ok()?)))
                .collect(),
            launcher: absolute(var("FORGE_LAUNCHER")),
            terminal: TerminalVars {
                term_program: var("TERM_PROGRAM").and_then(|v| v.into_string().ok()),
                term: var("TERM").and_then(|v| v.into_string().ok()),
                lc_terminal: var("LC_TERMINAL").and_then(|v| v.into_string().ok()),
                kitty: var("KITTY_WINDOW_ID").is_some(),
                osc_terminal: var("WEZTERM_PANE").is_some()
                    || var("GHOSTTY_RESOURCES_DIR").is_some(),
                desktop: var("DISPLAY").is_some() || var("WAYLAND_DISPLAY").is_some(),
            },
            now: Utc::now(),
        }
    }

    /// An environment rooted in `home`, working in `cwd`, with nothing else set.
    #[allow(clippy::disallowed_methods)] // `now`, as `from_process` reads it.
    pub fn for_test(home: &Path, cwd: &Path) -> Self {
        Self {
            home: Some(home.to_path_buf()),
            cwd: cwd.to_path_buf(),
            claude_project_dir: None,
            claude_config_dir: None,
            xdg_config_home: None,
            xdg_state_home: None,
            columns: None,
            lines: None,
            no_color: true,
            editor: None,
            pager: None,
            path: None,
            forge_agent: None,
            tmux_session: std::sync::OnceLock::new(),
            tmux: false,
            tmux_pane: None,
            tmux_socket: None,
            relay: None,
            relay_stop: None,
            claude_pid: None,
            claude_entrypoint: None,
            compaction_vars: Vec::new(),
            launcher: None,
            terminal: TerminalVars::default(),
            now: Utc::now(),
        }
    }

    /// One of [`Env::compaction_vars`].
    pub(crate) fn compaction_var(&self, name: &str) -> Option<String> {
        self.compaction_vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    /// The session runs headless (`claude -p`): nobody can type into it.
    pub(crate) fn headless(&self) -> bool {
        self.claude_entrypoint
            .as_deref()
            .is_some_and(|e| e.starts_with("sdk"))
    }

    /// The file a shell would run for the command `name`: the first executable
    /// regular file called `name` in a folder of `$PATH`. Relative folders (and the
    /// empty entry, which means the current folder) are skipped: hooks run in
    /// whatever folder the session is in.
    pub(crate) fn find_program(&self, name: &str) -> Option<PathBuf> {
        find_in_path(self.path.as_ref()?, name)
    }

    /// The file forge runs for the program `name` (`git`, `tmux`, `sh`, `claude`, the
    /// first word of your `[notify] command`): a name with a `/` as written (it comes
    /// from your own config or command line), else the first executable called `name`
    /// in an absolute folder of `$PATH`. Relative entries (a leading `:`, `.`) are
    /// skipped: forge runs in whatever folder a session is in, so they would name a
    /// file the repository ships. `sh` falls back to `/bin/sh`. `Err` says why not, in
    /// words.
    pub(crate) fn resolve_program(&self, name: &str) -> Result<PathBuf, String> {
        if name.contains('/') {
            return Ok(PathBuf::from(name));
        }
        if name.is_empty() {
            return Err("no program named".to_owned());
        }
        if let Some(p) = self.find_program(name) {
            return Ok(p);
        }
        let fallback = Path::new("/bin").join(name);
        if name == "sh" && is_executable_file(&fallback) {
            return Ok(fallback);
        }
        Err(format!(
            "`{name}` is not in any absolute folder of PATH (relative PATH entries are skipped: they would run a file of whatever folder forge runs in)"
        ))
    }

    /// `$PATH` without its relative entries (and without empty ones, which mean the
    /// current folder), for the commands forge runs through `sh -c` (your hooks, your
    /// editor): the shell looks their words up in `$PATH`, and a relative entry would
    /// find a file of the project. `None` when `$PATH` is unset.
    pub(crate) fn absolute_path_var(&self) -> Option<std::ffi::OsString> {
        let path = self.path.as_ref()?;
        let kept: Vec<PathBuf> = std::env::split_paths(path)
            .filter(|d| d.is_absolute())
            .collect();
        std::env::join_paths(kept).ok()
    }

    /// Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub(crate) fn claude_dir(&self) -> Option<PathBuf> {
        self.claude_config_dir
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".claude")))
    }

    /// The global `~/.claude/pending-resume` marker.
    pub(crate) fn global_pending_resume(&self) -> Option<PathBuf> {
        self.claude_dir().map(|d| d.join("pending-resume"))
    }

    /// forge's user config folder: `$XDG_CONFIG_HOME/forge`, else `~/.config/forge`.
    /// Only absolute values count (a relative `$XDG_CONFIG_HOME` or `$HOME` would
    /// make a file of the project forge runs in "your own config", whose commands
    /// run).
    pub(crate) fn user_config_dir(&self) -> Option<PathBuf> {
        self.xdg_config_home
            .clone()
            .filter(|d| d.is_absolute())
            .or_else(|| {
                self.home
                    .as_ref()
                    .filter(|h| h.is_absolute())
                    .map(|h| h.join(".config"))
            })
            .map(|d| d.join("forge"))
    }

    /// forge's user state folder, where the fleet registry lives:
    /// `$XDG_STATE_HOME/forge`, else `~/.local/state/forge`. A relative
    /// `$XDG_STATE_HOME` is ignored (the XDG spec says so), and so is a relative
    /// `$HOME`: forge must never write its state relative to whatever folder a hook
    /// runs in.
    pub(crate) fn user_state_dir(&self) -> Option<PathBuf> {
        self.xdg_state_home
            .clone()
            .filter(|d| d.is_absolute())
            .or_else(|| {
                self.home
                    .as_ref()
                    .filter(|h| h.is_absolute())
                    .map(|h| h.join(".local").join("state"))
            })
            .map(|d| d.join("forge"))
    }
}

// The clock. Outside this file, the `proc` room and the dashboard's loop (`tui/`)
// nothing reads it (clippy.toml bans the calls; `src/layers.rs` checks the text): a
// command takes its time from `Env::now`, or is handed an instant. These three are
// the doors for what cannot: a deadline (a hook's wait for git, a lock's short
// wait) and the time of something a long-running command does (`forge run`'s
// events, the shell completion's ages).

/// The moment `after` from now on the monotonic clock: a deadline.
#[allow(clippy::disallowed_methods)]
pub(crate) fn deadline_after(after: Duration) -> Instant {
    Instant::now() + after
}

/// How long until `until` (zero once it has passed).
#[allow(clippy::disallowed_methods)]
pub(crate) fn time_left(until: Instant) -> Duration {
    until.saturating_duration_since(Instant::now())
}

/// The wall clock now: for what happens after [`Env::now`] (the command's start) in
/// a command that runs on (`forge run` stamps each session's events and ends, the
/// fleet dashboard opens a project), where no [`Env`] is at hand (a shell
/// completion), and for the store's few comparisons with the times the kernel
/// stamps on files (`errors.log` lines, pruning by age, a bridge's time from the
/// future, the registry's pending names).
#[allow(clippy::disallowed_methods)]
pub(crate) fn wall_clock() -> DateTime<Utc> {
    Utc::now()
}

/// [`Env::find_program`] for a `$PATH` value kept elsewhere (see
/// `crate::git::set_search_path`).
pub(crate) fn find_in_path(path: &std::ffi::OsStr, name: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable_file(candidate))
}

/// Whether `path` (following symlinks) is a regular file someone may execute.
fn is_executable_file(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn find_program_takes_the_first_executable_in_path_order() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let (a, b, c) = (t.path().join("a"), t.path().join("b"), t.path().join("c"));
        for d in [&a, &b, &c] {
            std::fs::create_dir(d).unwrap();
        }
        // a/forge is not executable, b/forge is a folder, c/forge is the one.
        let write = |p: &Path, mode: u32| {
            std::fs::File::create(p).unwrap();
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        write(&a.join("forge"), 0o644);
        std::fs::create_dir(b.join("forge")).unwrap();
        write(&c.join("forge"), 0o755);
        let mut env = Env::for_test(t.path(), t.path());
        assert_eq!(env.find_program("forge"), None, "no PATH, nothing found");
        env.path = Some(
            std::env::join_paths([
                "rel",
                "",
                a.to_str().unwrap(),
                b.to_str().unwrap(),
                c.to_str().unwrap(),
            ])
            .unwrap(),
        );
        assert_eq!(env.find_program("forge"), Some(c.join("forge")));
        assert_eq!(env.find_program("nothing"), None);
    }

    #[cfg(unix)]
    #[test]
    fn programs_and_the_path_children_get_come_from_absolute_folders_only() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let bin = t.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let tool = bin.join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A project folder with its own `tool`, named by relative entries.
        std::fs::write(t.path().join("tool"), "#!/bin/sh\n").unwrap();
        let mut env = Env::for_test(t.path(), t.path());
        env.path = Some(std::env::join_paths(["", ".", "rel", bin.to_str().unwrap()]).unwrap());
        assert_eq!(env.resolve_program("tool"), Ok(tool));
        assert!(
            env.resolve_program("nothing")
                .unwrap_err()
                .contains("absolute folder")
        );
        // A path is taken as written (it comes from your own config or command line).
        assert_eq!(
            env.resolve_program("/opt/x/claude"),
            Ok(PathBuf::from("/opt/x/claude"))
        );
        assert_eq!(env.absolute_path_var(), Some(bin.into_os_string()));
        // `sh` is always found: /bin/sh when PATH has none.
        env.path = None;
        assert_eq!(env.resolve_program("sh"), Ok(PathBuf::from("/bin/sh")));
        assert_eq!(env.absolute_path_var(), None);
    }

    #[test]
    fn relative_xdg_folders_and_home_are_ignored() {
        assert_eq!(absolute(Some(".".into())), None);
        assert_eq!(absolute(Some("rel/x".into())), None);
        assert_eq!(absolute(Some("/x".into())), Some(PathBuf::from("/x")));
        let mut env = Env::for_test(Path::new("/home/me"), Path::new("/p"));
        env.xdg_config_home = Some(PathBuf::from("."));
        assert_eq!(
            env.user_config_dir(),
            Some(PathBuf::from("/home/me/.config/forge"))
        );
        env.home = Some(PathBuf::from("home"));
        assert_eq!(env.user_config_dir(), None);
    }
}
