//! `forge hook`'s own trace: a hook call that panicked before it could say anything
//! leaves a line where the developer looks, `.forge/logs/errors.log`.

use crate::env::Env;

/// Logs a panicked hook call to the project's `errors.log` (the project of
/// `CLAUDE_PROJECT_DIR` or the current folder), when its logs folder exists.
pub(crate) fn log_panic(env: &Env) {
    let paths = crate::store::Paths::new(crate::store::resolve_root(
        env.claude_project_dir.as_deref(),
        &env.cwd,
    ));
    if paths.logs().is_dir() {
        crate::store::log_error(&paths, "hook", "panic in hook (ignored)");
    }
}
