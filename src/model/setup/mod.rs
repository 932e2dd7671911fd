//! How forge is set up in Claude Code and in a project: the hook entries and the
//! `statusLine` that `forge init` writes into `settings.json` and takes out again
//! ([`settings`]), as edits that keep the rest of the file byte for byte
//! ([`json_edit`]) with a diff to show first ([`diff`]); Claude Code's per-project
//! memory folder ([`memory`]); how forge installed as a Claude Code plugin shows in
//! Claude Code's files and which hook commands the plugin carries ([`plugin`]);
//! the trust a person gives a project's own `.forge/config.toml` ([`trust`]); and
//! what `forge doctor` decides of a `model:` value and a `sh -c` command's program
//! ([`doctor`]; its checks on disk are `app::doctor`).
//!
//! The rule of this wing: the caller hands in what it read (a settings text, a
//! canonical root, a config's bytes) and what it asked the file system (does this
//! script exist? — a closure); out come the new text and the decision. Writing them
//! is `app::setup`, `app::trust`, `app::plugin` and `store`.
//!
//! `plugin` came later and belongs here for the reason `settings` does: it is how
//! forge is wired into Claude Code (the plugin's hooks beside the settings' hooks,
//! `init --plugin`). `trust` sits here rather than with the agents: it gates keys of
//! every wing (handoff pruning, notify, the ladder, the relay), and it is given the
//! way `forge init` is, once per project by its person.

pub(crate) mod commands;
pub(crate) mod diff;
pub(crate) mod doctor;
pub mod help;
pub(crate) mod ignore;
pub(crate) mod install;
pub(crate) mod json_edit;
pub mod memory;
pub(crate) mod plan;
pub(crate) mod plugin;
pub mod settings;
pub(crate) mod trust;
