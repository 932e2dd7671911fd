//! Pure types and functions shared by every face: no terminal, no watcher, no disk,
//! no child process, no clock.
//!
//! The store (`crate::store`) reads files and hands their text to the parsers here;
//! the dashboard, `forge status` and SessionStart all draw the same
//! [`snapshot::Snapshot`]. Callers pass in what the world is (file texts, the time
//! now, the time zone, whether a path exists) and get values back; doing something
//! with those values (writing, spawning, printing) happens above this room.
//!
//! The room is in five wings, one folder each, plus the few types every wing and face
//! shares at the top:
//!
//! - [`setup`]: how forge is installed and trusted — `settings.json` edits, the
//!   memory folder, the trust of a project's config.
//! - [`text`]: text on its way out — the terminal sanitiser, redaction, secret scans.
//! - [`session`]: one Claude Code session — its transcript, the state files, levels.
//! - [`handoff`]: handoff files and documents, and the Signal of an agent handoff.
//! - [`agents`]: forge with other processes and agents — the fleet, `forge run`'s
//!   relay, wake messages, the escalation ladder, the user's own hooks.
//! - At the top: [`snapshot`] (the one picture of a project), [`outcome`] (what a
//!   hook call did), [`activity`] (those outcomes as rows), [`time`] (parsing and
//!   showing times), [`lenient`] (reading payloads and state files leniently),
//!   [`dashboard`] (the dashboard's model and `update`), [`hook`] (what a hook call
//!   decides: facts, payload and time in, a plan out), [`segment`] (the status
//!   line's segments and their orders) and [`named`] (the enums of settings that
//!   name one of a few values).
//!
//! The rule, checked by a unit test (`src/layers.rs`): no file here names another
//! room of the crate (`crate::store`, `app`, `git`, `config`, `env`, `hooks`, `cli`,
//! `tui`, `ui`, …) or calls `std::fs`, `std::process`, `std::env` or a clock
//! (`SystemTime::now`, `Utc::now`, `Local::now`, `Instant::now`). Between wings, `text` and `time` are used by all;
//! `setup` and `text` use no other wing.

pub(crate) mod activity;
pub mod agents;
pub mod dashboard;
pub mod handoff;
pub(crate) mod hook;
pub(crate) mod lenient;
pub(crate) mod named;
pub(crate) mod outcome;
pub mod segment;
pub mod session;
pub mod setup;
pub(crate) mod snapshot;
pub mod text;
pub(crate) mod time;
