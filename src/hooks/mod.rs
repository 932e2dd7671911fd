//! `forge hook`: Claude Code runs this on hook events with one JSON object on stdin.
//!
//! The flow is wire → event → effects: [`wire`] mirrors the JSON leniently,
//! [`event`] turns it into a [`event::HookEvent`], and [`dispatch`] hands it to the
//! handler of its concern, which writes the state files and composes the
//! (documented) stdout: [`session_start`], [`turn`] (Stop, SessionEnd),
//! [`compaction`] (PreCompact, PreToolUse, the re-read marker) and [`attention`]
//! (Notification, PermissionRequest, UserPromptSubmit). [`text`] cuts what they
//! compose to Claude Code's budgets; [`fleet`] puts the project and the session's
//! state in the user's fleet registry afterwards. The entry point never fails: every
//! error is logged to `.forge/logs/errors.log` and the exit status is always 0.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod attention;
pub mod compaction;
pub mod dispatch;
pub mod event;
pub mod fleet;
mod notify;
pub mod session_start;
pub mod text;
pub mod turn;
pub mod wire;

pub use dispatch::{Handled, MAX_STDIN, handle, handle_input};

#[cfg(test)]
mod tests;
