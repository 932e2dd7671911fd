//! Handoff files: the names, front matter, order and threads of the files in
//! `.forge/handoffs/` ([`entry`]), the session handoff document forge writes
//! ([`handoff_doc`]), and the Signal block at the end of an agent handoff
//! ([`signal`]). Formats: docs/design.md#handoff-documents and
//! docs/design.md#agent-handoffs-and-signals.
//!
//! The rule of this wing: parsing a handoff never fails — a bad name, front matter or
//! Signal becomes a value that says what is wrong (and never counts as complete), so
//! one broken file cannot hide the others. Everything a document takes from a
//! session goes through `text::redact` before it is cut.

pub(crate) mod budget;
pub(crate) mod client_summary;
pub mod entry;
pub(crate) mod fields;
pub mod handoff_doc;
pub mod signal;
pub(crate) mod story_sections;
