//! forge with other processes and agents: the registry of every project and live
//! session ([`fleet`]), the stream reader and chain of `forge run` ([`relay`]), wake
//! messages to an orchestrating agent ([`notify`]), the escalation ladder and its WIP
//! commit ([`ladder`]), and what the user's own context hooks receive
//! ([`user_hooks`]).
//!
//! The rule of this wing: what forge sends to another process is built here, as a
//! value or a text that is already redacted and bounded; spawning, waiting and
//! writing is `crate::app` (see its `notify`, `relay`, `ladder`, `user_hooks`). What
//! a project's own config may make these do is decided by `setup::trust`.

pub(crate) mod alert;
pub(crate) mod fleet;
pub(crate) mod ladder;
pub mod notify;
pub(crate) mod pane;
pub mod relay;
pub(crate) mod share;
pub(crate) mod user_hooks;
