//! Application work that composes the lower layers: the state files (`store`), git
//! (`git`), the configuration (`config`) and session transcripts.
//!
//! `store` only reads and writes files; what needs more than one of them lives
//! here, once, for every face that needs it: the [`snapshot`] the dashboard draws,
//! `forge status` prints and SessionStart summarises, and the [`session_handoff`]
//! that `forge handoff` and PreCompact's safety net write. Nothing below this layer
//! imports it.

pub(crate) mod alert;
pub(crate) mod complete;
pub(crate) mod context;
pub(crate) mod doctor;
pub(crate) mod fleet;
pub(crate) mod handoff;
pub(crate) mod hook;
pub mod ladder;
pub(crate) mod learn;
pub(crate) mod log;
pub(crate) mod manual;
pub(crate) mod notify;
pub(crate) mod plugin;
pub(crate) mod project;
pub(crate) mod prune;
pub(crate) mod relay;
pub(crate) mod resume;
pub(crate) mod search;
pub(crate) mod session_handoff;
pub(crate) mod setup;
pub(crate) mod share;
pub(crate) mod signal;
pub(crate) mod snapshot;
pub(crate) mod status;
pub(crate) mod statusline;
pub(crate) mod trust;
pub(crate) mod user_hooks;
pub(crate) mod wrapped;
