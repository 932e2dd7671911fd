//! forge's integration tests, one binary (jj's, ripgrep's and bottom's form): after a
//! change cargo links this one test executable instead of one per file. Each module
//! is what was a file of its own in `tests/`; `common` holds the shared helpers
//! (a temporary project, tmux, the release files of `dist/`). Run one module with
//! `cargo test --test it e2e::` (a filter on the module's path).

mod common;

mod agents;
mod alerts;
mod commands;
mod completions;
mod e2e;
mod fleet;
mod handoff;
mod hardening;
mod hooks;
mod hostile;
mod hostile_doors;
mod hostile_output;
mod hostile_repo;
mod ladder;
mod lifecycle;
mod log;
mod mcp;
mod ownership;
mod plugin;
mod properties;
mod real_sessions;
mod redaction;
mod relay;
mod release;
mod share;
mod slash_commands;
mod statusline;
mod trust;
mod tui;
mod user_hooks;
mod wake;
mod worktrees;
