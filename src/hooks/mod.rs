//! `forge hook`: Claude Code runs this on hook events with one JSON object on stdin.
//!
//! The flow is wire → event → effects: [`wire`] mirrors the JSON leniently,
//! [`event`] turns it into a [`event::HookEvent`], and [`handle`] writes the state
//! files and composes the (documented) stdout. The entry point never fails: every
//! error is logged to `.forge/logs/errors.log` and the exit status is always 0.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod event;
pub mod handle;
pub mod wire;

pub use handle::{MAX_STDIN, handle_input};
