//! forge keeps Claude Code sessions oriented across context limits.
//!
//! The crate is a library with a thin binary (`src/main.rs`). What the binary and the
//! integration tests (`tests/`) name is `pub`; everything else is `pub(crate)`, so the
//! compiler reports code nothing uses (a test-only helper is `#[cfg(test)]`). Module
//! map:
//!
//! - [`app`]: composition above the store: the `Snapshot`, session handoffs.
//! - [`env`]: the process environment, injected so tests never touch the real `~/.claude`;
//!   and the clock's only doors outside the dashboard loop.
//! - [`proc`]: the one way forge runs a child (stdio set, a deadline, capped output,
//!   the process group stopped); [`tmux`]: the questions forge asks tmux, through it.
//! - [`store`]: paths, atomic writes, capped logs, typed state-file readers/writers.
//! - [`model`]: pure types and decisions, in wings (setup, text, session, handoff, agents).
//! - [`git`]: git facts through `git2` (branch, uncommitted count, changed names).
//! - [`config`]: layered TOML configuration.
//! - [`hooks`]: `forge hook`: gather (reads) → decide (`model::hook`, pure) → apply (writes).
//! - [`mcp`]: `forge mcp`, forge's MCP server (tools and resources for agents).
//! - [`cli`]: one file per subcommand (`Args` + `run`).
//! - [`ui`], [`tui`], [`watch`]: the dashboard.

#![warn(missing_docs)]
// Files are opened only through `store::safe`, children run only through `proc`,
// and the clock is read only in `env`, `proc` and the dashboard loop (see
// clippy.toml); tests build their fixtures with plain std::fs, spawn and time
// freely.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]

pub mod app;
pub mod cli;
pub mod config;
pub mod env;
pub mod git;
pub mod hooks;
pub(crate) mod mcp;
pub mod model;
pub(crate) mod proc;
pub mod statusline;
pub mod store;
pub(crate) mod tmux;
pub mod tui;
pub(crate) mod ui;
pub(crate) mod watch;

// The rooms' rules (what each may name and call) and no import circle, as a test.
#[cfg(test)]
mod layers;

// Every citation of docs/… in comments, the README and the docs resolves, as a test.
#[cfg(test)]
mod citations;
