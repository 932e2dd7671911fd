//! One Claude Code session as forge sees it: its transcript ([`transcript`] for the
//! context size and a handoff's facts, [`conversation`] for a person to read), the
//! JSON state files forge keeps about it ([`state`]), its context level and trend
//! ([`level`], [`trend`]), the decisions taken at the end of its turns (did it change
//! files, [`learn`]; is the dirty tree news, [`dirty`]), and its id as people type it
//! ([`session_id`]).
//!
//! The rule of this wing: the field names in [`state`] are the on-disk contract
//! (docs/design.md#state-files) and are never renamed; every reader is lenient (a
//! missing or unknown field is a default, not an error); a transcript is read as
//! Claude Code reads it (docs/client-reference.md §6). `dirty` and `conversation`
//! came after the first cut of this wing and belong here for the same reason as
//! `learn` and `transcript`: they are about one session, from its bridge or its
//! transcript.

pub(crate) mod conversation;
pub(crate) mod dirty;
pub(crate) mod learn;
pub(crate) mod level;
pub mod pace;
pub(crate) mod record;
pub(crate) mod session_id;
pub mod state;
pub mod story;
pub mod transcript;
pub(crate) mod trend;
pub(crate) mod user_record;
