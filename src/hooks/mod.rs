//! `forge hook`: Claude Code runs this on hook events with one JSON object on stdin.
//!
//! A call has the status line's shape — gather → decide → apply — and
//! [`dispatch`] reads top to bottom: the payload is read leniently
//! ([`wire`]) into an [`event`]; [`gather`] reads what that event needs, each file
//! once (git scans on a helper thread meanwhile); a plain function of
//! `crate::model::hook` decides from those facts, the payload and the time, and
//! returns a plan (what to print, the effects in order, the session bridge's
//! change); [`apply`] carries it out, writing only what changed and the bridge at
//! most once, under its lock. SessionStart runs the same steps around the two
//! things only I/O can do in its middle ([`session_start`]). Afterwards the
//! `[notify]` command hears of the event ([`notify`]) and the fleet registry of the
//! session ([`fleet`]); the call's one line in `events.jsonl` comes last. The entry
//! point never fails: every error is logged to `.forge/logs/errors.log` and the
//! exit status is always 0.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod alert;
mod apply;
mod call;
pub(crate) mod dispatch;
mod fleet;
mod gather;
mod notify;
mod session_start;

pub(crate) use crate::model::hook::{event, wire};
pub(crate) use dispatch::MAX_STDIN;
pub use dispatch::handle_input;

#[cfg(test)]
mod tests;
