//! Pure types and functions shared by every face: no terminal, no watcher, no disk.
//!
//! The store (`crate::store`) reads files and hands their text to the parsers here;
//! the dashboard, `forge status` and SessionStart all draw the same [`Snapshot`].

pub mod activity;
pub mod conversation;
pub mod dashboard;
pub mod diff;
pub mod dirty;
pub mod fleet;
pub mod handoff;
pub mod handoff_doc;
pub mod json_edit;
pub mod ladder;
pub mod learn;
pub mod level;
pub mod memory;
pub mod notify;
pub mod outcome;
pub mod plugin;
pub mod redact;
pub mod relay;
pub mod scan;
pub mod secrets;
pub mod session_id;
pub mod settings;
pub mod signal;
pub mod snapshot;
pub mod state;
pub mod text;
pub mod time;
pub mod transcript;
pub mod trend;
pub mod trust;
pub mod user_hooks;

pub use handoff::{FrontMatter, HandoffEntry, HandoffKind};
pub use level::Level;
pub use signal::{Signal, SignalParse, SignalStatus};
pub use snapshot::Snapshot;
