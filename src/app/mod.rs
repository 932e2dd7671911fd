//! Application work that composes the lower layers: the state files (`store`), git
//! (`git`), the configuration (`config`) and session transcripts.
//!
//! `store` only reads and writes files; what needs more than one of them lives
//! here, once, for every face that needs it: the [`snapshot`] the dashboard draws,
//! `forge status` prints and SessionStart summarises, and the [`session_handoff`]
//! that `forge handoff` and PreCompact's safety net write. Nothing below this layer
//! imports it.

pub mod fleet;
pub mod ladder;
pub mod learn;
pub mod notify;
pub mod plugin;
pub mod prune;
pub mod relay;
pub mod search;
pub mod session_handoff;
pub mod signal;
pub mod snapshot;
pub mod user_hooks;
pub mod wrapped;
