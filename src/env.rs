//! The process environment, read once in `main` and passed down.
//!
//! Deep code never calls `std::env::var` or looks up the home folder itself: it takes
//! an [`Env`]. Tests build one from temporary folders so the real `~/.claude` is
//! never touched.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

/// Everything forge reads from its surroundings.
#[derive(Debug, Clone)]
pub struct Env {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// The process working directory.
    pub cwd: PathBuf,
    /// `$CLAUDE_PROJECT_DIR`, set by Claude Code for hooks and the statusline.
    pub claude_project_dir: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`, which replaces `~/.claude` when set.
    pub claude_config_dir: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`.
    pub xdg_config_home: Option<PathBuf>,
    /// `$COLUMNS` when it parses.
    pub columns: Option<u16>,
    /// `$LINES` when it parses.
    pub lines: Option<u16>,
    /// `$NO_COLOR` is set to a non-empty value.
    pub no_color: bool,
    /// `$VISUAL` or `$EDITOR`.
    pub editor: Option<String>,
    /// `$PAGER`.
    pub pager: Option<String>,
    /// `$PATH`, where `forge init` looks for `forge` (see [`Env::find_program`]).
    pub path: Option<std::ffi::OsString>,
    /// The time the command started.
    pub now: DateTime<Utc>,
}

fn non_empty(value: Option<std::ffi::OsString>) -> Option<std::ffi::OsString> {
    value.filter(|v| !v.is_empty())
}

impl Env {
    /// Reads the real process environment. Call this once, in `main`.
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
            xdg_config_home: var("XDG_CONFIG_HOME").map(PathBuf::from),
            columns: parse_u16("COLUMNS"),
            lines: parse_u16("LINES"),
            no_color: var("NO_COLOR").is_some(),
            editor: var("VISUAL")
                .or_else(|| var("EDITOR"))
                .and_then(|v| v.into_string().ok()),
            pager: var("PAGER").and_then(|v| v.into_string().ok()),
            path: var("PATH"),
            now: Utc::now(),
        }
    }

    /// An environment rooted in `home`, working in `cwd`, with nothing else set.
    pub fn for_test(home: &Path, cwd: &Path) -> Self {
        Self {
            home: Some(home.to_path_buf()),
            cwd: cwd.to_path_buf(),
            claude_project_dir: None,
            claude_config_dir: None,
            xdg_config_home: None,
            columns: None,
            lines: None,
            no_color: true,
            editor: None,
            pager: None,
            path: None,
            now: Utc::now(),
        }
    }

    /// The file a shell would run for the command `name`: the first executable
    /// regular file called `name` in a folder of `$PATH`. Relative folders (and the
    /// empty entry, which means the current folder) are skipped: hooks run in
    /// whatever folder the session is in.
    pub fn find_program(&self, name: &str) -> Option<PathBuf> {
        find_in_path(self.path.as_ref()?, name)
    }

    /// Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub fn claude_dir(&self) -> Option<PathBuf> {
        self.claude_config_dir
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".claude")))
    }

    /// The global `~/.claude/pending-resume` marker.
    pub fn global_pending_resume(&self) -> Option<PathBuf> {
        self.claude_dir().map(|d| d.join("pending-resume"))
    }

    /// forge's user config folder: `$XDG_CONFIG_HOME/forge`, else `~/.config/forge`.
    pub fn user_config_dir(&self) -> Option<PathBuf> {
        self.xdg_config_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".config")))
            .map(|d| d.join("forge"))
    }
}

/// [`Env::find_program`] for a `$PATH` value kept elsewhere (see
/// `crate::git::set_search_path`).
pub fn find_in_path(path: &std::ffi::OsStr, name: &str) -> Option<PathBuf> {
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
}
