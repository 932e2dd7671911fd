//! Which keys a config file may hold, and which side each is on.
//!
//! The keys come from serde's own field lists: [`schema`] asks the `Deserialize`
//! of [`Config`] for the fields of each section (and of the tables of the hook
//! lists), so a key added to a struct is known at once, with no second list to keep
//! in step. [`SIDES`] says what each key may decide when a project's file sets it; a
//! test checks it names exactly the keys of the schema.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde::Serialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;

use super::Config;
use super::words::kind_of;

/// What a config file may hold at its top: the sections (`[context]`) and the lists
/// of tables (`[[on_threshold]]`), each with its keys, in the order of the structs.
#[derive(Debug)]
pub(crate) struct Schema {
    /// Sections and lists, in the order of [`Config`]'s fields.
    pub(crate) tables: Vec<TableKeys>,
}

/// One section or list of tables and the keys it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TableKeys {
    /// `context`, `on_threshold`.
    pub(crate) name: &'static str,
    /// A list of tables (`[[on_threshold]]`), not a section.
    pub(crate) list: bool,
    /// Its keys, in the order of the struct (serde's names: `L1`, not `l1`).
    pub(crate) keys: &'static [&'static str],
}

impl Schema {
    /// The section or list `name`.
    pub(crate) fn table(&self, name: &str) -> Option<&TableKeys> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// Every key as named in messages and in [`SIDES`]: `section.key` for a
    /// section's keys, the list's own name for a list of tables.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> Vec<String> {
        self.tables
            .iter()
            .flat_map(|t| -> Vec<String> {
                if t.list {
                    vec![t.name.to_owned()]
                } else {
                    t.keys.iter().map(|k| format!("{}.{k}", t.name)).collect()
                }
            })
            .collect()
    }
}

/// The keys of the config structs ([`Config`]), read from their `Deserialize` once
/// per process.
pub(crate) fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(schema_of::<Config>)
}

/// The sections and lists of tables of `T` (a struct of sections and lists, like
/// [`Config`]) and their keys, as `T`'s `Deserialize` names them.
fn schema_of<T: for<'de> Deserialize<'de>>() -> Schema {
    let found = RefCell::new(Vec::new());
    // The probe ends in an error only if a section cannot be built from no keys at
    // all (a struct without `#[serde(default)]`): what it found so far is kept, and
    // a test checks the schema names every key.
    let _ = T::deserialize(Probe {
        found: &found,
        at: None,
        list: false,
    });
    Schema {
        tables: found.into_inner(),
    }
}

/// A deserializer that answers what a struct asks for with its field names: at the
/// top (`at: None`) it offers every field of [`Config`] as a key, with a probe for
/// its value; a probe at a section notes the section's fields and gives it no keys
/// (so it takes its defaults); a probe at a list offers one element, noting the
/// element's fields, and ends the list empty whatever that element made of it.
struct Probe<'a> {
    found: &'a RefCell<Vec<TableKeys>>,
    at: Option<&'static str>,
    list: bool,
}

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom(
            "a config value that is neither a table nor a list of tables",
        ))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.at {
            None => visitor.visit_map(Fields {
                found: self.found,
                fields,
                next: 0,
            }),
            Some(name) => {
                self.found.borrow_mut().push(TableKeys {
                    name,
                    list: self.list,
                    keys: fields,
                });
                visitor.visit_map(de::value::MapDeserializer::new(
                    std::iter::empty::<((), ())>(),
                ))
            }
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_seq(OneElement {
            probe: Some(Probe {
                found: self.found,
                at: self.at,
                list: true,
            }),
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// [`Config`]'s fields as keys, each value a [`Probe`] at that field.
struct Fields<'a> {
    found: &'a RefCell<Vec<TableKeys>>,
    fields: &'static [&'static str],
    next: usize,
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = de::value::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some(field) = self.fields.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize(de::value::StrDeserializer::new(field))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let at = self.fields.get(self.next).copied();
        self.next += 1;
        seed.deserialize(Probe {
            found: self.found,
            at,
            list: false,
        })
    }
}

/// A list of one probed element, which ends empty: the element's struct notes its
/// fields, and whether it could then be built (a hook needs its `command`) does not
/// matter.
struct OneElement<'a> {
    probe: Option<Probe<'a>>,
}

impl<'de> SeqAccess<'de> for OneElement<'_> {
    type Error = de::value::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        if let Some(probe) = self.probe.take() {
            let _ = seed.deserialize(probe);
        }
        Ok(None)
    }
}

/// The lists of user hooks (`on_threshold`, `on_session_start`): they run commands,
/// so forge takes them only from the user's own config file (and its agent tables),
/// never from a project's `.forge/config.toml`, which a repository can ship.
#[cfg(test)]
pub(crate) fn hook_lists() -> impl Iterator<Item = &'static str> {
    schema().tables.iter().filter(|t| t.list).map(|t| t.name)
}

/// The keys of a hook table that only `[[on_threshold]]` takes (a session start has
/// no threshold).
pub(crate) const THRESHOLD_ONLY: [&str; 2] = ["threshold", "replace_handoff"];

/// The keys a table of the hook list `list` may have: every key of a hook in
/// `[[on_threshold]]`; those but [`THRESHOLD_ONLY`] in `[[on_session_start]]`.
pub(crate) fn hook_list_keys(list: &str) -> Vec<&'static str> {
    let keys = schema().table(list).map_or(&[][..], |t| t.keys);
    keys.iter()
        .copied()
        .filter(|k| list == "on_threshold" || !THRESHOLD_ONLY.contains(k))
        .collect()
}

/// What a key of a project's `.forge/config.toml` may decide. A project file ships
/// with the repository, so it is someone else's until you say otherwise (`forge
/// trust`): what it may change on its own is what forge *shows*.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Side {
    /// Changes what forge shows, or how it orients the session of this very project
    /// (segments, widths, wording, what SessionStart injects): applies from any file.
    Shows,
    /// Changes what forge shows from any file, like [`Side::Shows`], and decides *when*
    /// your own steps act — the context levels and the handoff threshold, at which
    /// your ladder's actions, the threshold handoff, your `[[on_threshold]]` commands
    /// and `forge run`'s hooks fire. From a project file nobody trusted it applies to
    /// what forge shows only; what acts waits on your own file's value (or the
    /// default) until you trust the file.
    Gates,
    /// Makes forge act for you — commit, send to or wait for an orchestrator, delete
    /// files, start or stop sessions, or change what other projects' views show:
    /// from a project file only once you trusted that file's exact content.
    Acts,
    /// Runs a command: only from your own config, never from a project file (an error
    /// there, trusted or not).
    YoursOnly,
}

/// One config key, the side it is on, and what it decides (in words, for `forge
/// trust`, `forge config show` and docs/security.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeySide {
    /// `section.key`, or a list of tables (`on_threshold`).
    pub(crate) key: &'static str,
    /// Its side.
    pub(crate) side: Side,
    /// What it decides.
    pub(crate) what: &'static str,
}

const fn shows(key: &'static str, what: &'static str) -> KeySide {
    KeySide {
        key,
        side: Side::Shows,
        what,
    }
}

const fn gates(key: &'static str, what: &'static str) -> KeySide {
    KeySide {
        key,
        side: Side::Gates,
        what,
    }
}

const fn acts(key: &'static str, what: &'static str) -> KeySide {
    KeySide {
        key,
        side: Side::Acts,
        what,
    }
}

const fn yours_only(key: &'static str, what: &'static str) -> KeySide {
    KeySide {
        key,
        side: Side::YoursOnly,
        what,
    }
}

/// Every key of the config structs ([`schema`]) with its side: the one typed list of
/// what acts (a test fails when a key of the config structs has no side here, and
/// [`take_acting`] takes a key with no side for one that acts).
pub(crate) const SIDES: [KeySide; 43] = [
    gates(
        "context.warn",
        "where L1 starts: when your ladder's L1 actions run",
    ),
    gates(
        "context.critical",
        "where L2 starts: when your ladder's L2 actions run",
    ),
    gates(
        "context.emergency",
        "where L3 starts: when your ladder's L3 actions run",
    ),
    gates(
        "context.handoff_threshold",
        "where the status line shows ⚠ CTX, the automatic handoff is written and your [[on_threshold]] commands without a threshold of their own run",
    ),
    shows("statusline.segments", "the status line's parts"),
    shows("statusline.bar_width", "the context bar's width"),
    shows(
        "statusline.wrap_position",
        "where forge's segments go beside a status line it wraps",
    ),
    shows(
        "statusline.wrap_segments",
        "forge's segments beside a status line it wraps",
    ),
    shows(
        "git.cache_ttl_secs",
        "when the status line marks its git count as stale",
    ),
    shows(
        "hooks.handoff_on_precompact",
        "the safety-net handoff before a compaction (a file in .forge/)",
    ),
    shows(
        "hooks.compaction_reread",
        "after a compaction, ask the session once to re-read its files",
    ),
    shows(
        "hooks.dirty_warning",
        "when Stop warns that the work tree is dirty (a message on your screen)",
    ),
    shows("learn.nudge", "the /forge-learn reminder at SessionStart"),
    shows(
        "learn.memory_max_lines",
        "the MEMORY.md length `forge learn archive` (run by you) keeps to",
    ),
    shows(
        "resume.auto",
        "which automatic handoffs SessionStart injects",
    ),
    shows(
        "resume.max_age",
        "how old an injected automatic handoff may be",
    ),
    shows(
        "resume.max_bytes",
        "how much of the orientation and resumed handoff SessionStart gives the model",
    ),
    shows(
        "handoffs.max_bytes",
        "how long a session handoff document may be",
    ),
    acts(
        "attention.stale_after",
        "how long this project's sessions count as live in every other project's fleet views and `elsewhere` segment",
    ),
    acts(
        "handoffs.auto_prune",
        "deletes old handoffs at each new session",
    ),
    acts(
        "handoffs.older_than",
        "which handoffs auto_prune (and a plain `forge handoff prune`) deletes",
    ),
    acts(
        "handoffs.keep",
        "how many handoffs auto_prune (and a plain `forge handoff prune`) keeps",
    ),
    yours_only("notify.command", "the command that gets wake messages"),
    yours_only(
        "alerts.on",
        "which moments send you a notification (a project could make your desktop pop up)",
    ),
    yours_only(
        "alerts.via",
        "how alerts reach you: your terminal, notify-send, osascript or the bell",
    ),
    yours_only(
        "alerts.debounce",
        "how often a session may alert you for one reason",
    ),
    acts(
        "notify.stdin",
        "whether your [notify] command gets the message on stdin or as its last argument",
    ),
    acts(
        "notify.events",
        "which events send your orchestrator a wake message",
    ),
    acts(
        "notify.mode",
        "bidirectional: Stop waits for your orchestrator, whose reply keeps the session working",
    ),
    acts("notify.timeout_secs", "how long a bidirectional Stop waits"),
    acts(
        "notify.pane_capture_lines",
        "how many lines of your terminal's screen are sent to your orchestrator",
    ),
    acts(
        "ladder.L1",
        "what forge does at L1: a handoff, an alert to the model, a WIP commit of your tracked changes",
    ),
    acts(
        "ladder.L2",
        "what forge does at L2: a handoff, an alert to the model, a WIP commit of your tracked changes",
    ),
    acts(
        "ladder.L3",
        "what forge does at L3: a handoff, an alert to the model, a WIP commit of your tracked changes",
    ),
    acts(
        "ladder.protected_branches",
        "the branches a WIP commit never commits on",
    ),
    acts(
        "relay.threshold",
        "where `forge run` ends a session and starts the next",
    ),
    acts("relay.max_handoffs", "how many sessions `forge run` starts"),
    acts(
        "relay.grace_secs",
        "how long `forge run` waits between SIGINT and SIGTERM",
    ),
    yours_only(
        "share.remote",
        "the git remote your Signals are pushed to and others' fetched from",
    ),
    yours_only(
        "share.retention_days",
        "how long a resolved Signal is still published",
    ),
    yours_only(
        "share.timeout_secs",
        "how long a background share run may wait on the remote",
    ),
    yours_only("on_threshold", "commands run at a context threshold"),
    yours_only("on_session_start", "commands run at each SessionStart"),
];

/// The side of `key` (`section.key`, or a hook list); `None` for a key forge does not
/// know. The keys of an `[agents.<name>]` table are on the side of the same key
/// outside it.
pub(crate) fn side_of(key: &str) -> Option<Side> {
    SIDES.iter().find(|k| k.key == key).map(|k| k.side)
}

/// The entry of `key` in [`SIDES`].
pub(crate) fn key_side(key: &str) -> Option<&'static KeySide> {
    SIDES.iter().find(|k| k.key == key)
}

/// Takes the keys that act ([`Side::Acts`]) out of a project file's table — its own
/// sections and its agent tables — and returns them as named in messages
/// (`ladder.L1`, `agents.builder.notify.mode`) with their values, sorted by name.
pub(crate) fn take_acting(table: &mut toml::Table) -> Vec<(String, toml::Value)> {
    let mut out = Vec::new();
    take_acting_in(table, "", &mut out);
    out
}

fn take_acting_in(table: &mut toml::Table, prefix: &str, out: &mut Vec<(String, toml::Value)>) {
    for (section, value) in table.iter_mut() {
        if section == AGENTS && prefix.is_empty() {
            for (name, t) in value.as_table_mut().into_iter().flatten() {
                if let Some(t) = t.as_table_mut() {
                    take_acting_in(t, &format!("{AGENTS}.{name}."), out);
                }
            }
            continue;
        }
        let Some(inner) = value.as_table_mut() else {
            continue;
        };
        // A key with no side (a test keeps there being none) is taken for one that
        // acts: a key someone forgot to place never applies from a file nobody
        // trusted.
        let acting: Vec<String> = inner
            .keys()
            .filter(|k| {
                !matches!(
                    side_of(&format!("{section}.{k}")),
                    Some(Side::Shows | Side::Gates)
                )
            })
            .cloned()
            .collect();
        for k in acting {
            if let Some(v) = inner.remove(&k) {
                out.push((format!("{prefix}{section}.{k}"), v));
            }
        }
    }
}

/// The keys of a project file's table (its own sections and its agent tables) that
/// decide when your own steps act ([`Side::Gates`]), named as in messages, with their
/// values, sorted by name. They stay in the table: they still apply to what forge
/// shows.
pub(crate) fn gating(table: &toml::Table) -> Vec<(String, toml::Value)> {
    let mut out = Vec::new();
    gating_in(table, "", &mut out);
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn gating_in(table: &toml::Table, prefix: &str, out: &mut Vec<(String, toml::Value)>) {
    for (section, value) in table {
        if section == AGENTS && prefix.is_empty() {
            for (name, t) in value.as_table().into_iter().flatten() {
                if let Some(t) = t.as_table() {
                    gating_in(t, &format!("{AGENTS}.{name}."), out);
                }
            }
            continue;
        }
        for (k, v) in value.as_table().into_iter().flatten() {
            if side_of(&format!("{section}.{k}")) == Some(Side::Gates) {
                out.push((format!("{prefix}{section}.{k}"), v.clone()));
            }
        }
    }
}

/// Unknown sections and keys, and sections that are not tables, each named once.
pub(super) fn unknown_keys(table: &toml::Table) -> Vec<String> {
    unknown_keys_in(table, "")
}

/// [`unknown_keys`] of a table at `prefix` (`""`, or `agents.builder.` inside an
/// agent table, whose sections are named with it).
fn unknown_keys_in(table: &toml::Table, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    // At the top of a file, the agent tables are a section too; they do not nest.
    let sections = || {
        schema()
            .tables
            .iter()
            .map(|t| {
                if t.list {
                    format!("[[{}]]", t.name)
                } else {
                    format!("[{}]", t.name)
                }
            })
            .chain(
                prefix
                    .is_empty()
                    .then(|| format!("[{AGENTS}.<name>.<section>]")),
            )
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (name, value) in table {
        if name == AGENTS && prefix.is_empty() {
            out.extend(unknown_agent_keys(value));
            continue;
        }
        let table = schema().table(name);
        if let Some(list) = table.filter(|t| t.list) {
            let tables = value
                .as_array()
                .filter(|a| a.iter().all(toml::Value::is_table));
            let Some(tables) = tables else {
                out.push(format!(
                    "`{prefix}{name}` must be a list of tables like [[{prefix}{name}]], found {}",
                    kind_of(value)
                ));
                continue;
            };
            for t in tables.iter().filter_map(toml::Value::as_table) {
                for key in t.keys() {
                    // `threshold` in [[on_session_start]] gets its own message from
                    // the value checks (it belongs to [[on_threshold]]).
                    if !list.keys.contains(&key.as_str()) {
                        out.push(format!(
                            "unknown key `{prefix}{name}.{key}` (valid keys in [[{name}]]: {})",
                            hook_list_keys(name).join(", ")
                        ));
                    }
                }
            }
            continue;
        }
        let Some(keys) = table.map(|t| t.keys) else {
            out.push(format!(
                "unknown key `{prefix}{name}` (valid sections{}: {})",
                if prefix.is_empty() {
                    String::new()
                } else {
                    format!(" in [{}]", prefix.trim_end_matches('.'))
                },
                sections()
            ));
            continue;
        };
        let Some(inner) = value.as_table() else {
            out.push(format!(
                "`{prefix}{name}` must be a table like [{prefix}{name}], found {}",
                kind_of(value)
            ));
            continue;
        };
        for key in inner.keys() {
            if !keys.contains(&key.as_str()) {
                out.push(format!(
                    "unknown key `{prefix}{name}.{key}` (valid keys in [{name}]: {})",
                    keys.join(", ")
                ));
            }
        }
    }
    out
}

/// The key of the per-agent tables: `[agents.<name>.<section>]`.
pub(crate) const AGENTS: &str = "agents";

/// The problems of an `agents` value: it must be a table of agent tables, each
/// holding sections like the file itself (and no `agents` of its own).
fn unknown_agent_keys(value: &toml::Value) -> Vec<String> {
    let Some(agents) = value.as_table() else {
        return vec![format!(
            "`agents` must hold tables like [agents.builder.context], found {}",
            kind_of(value)
        )];
    };
    let mut out = Vec::new();
    for (agent, table) in agents {
        let Some(t) = table.as_table() else {
            out.push(format!(
                "`agents.{agent}` must be a table like [agents.{agent}.context], found {}",
                kind_of(table)
            ));
            continue;
        };
        if t.contains_key(AGENTS) {
            out.push(format!("`agents.{agent}.agents`: agent tables do not nest"));
            continue;
        }
        out.extend(unknown_keys_in(t, &format!("agents.{agent}.")));
    }
    out
}

/// The sections of yours-only keys that a project file may hold but that are left
/// out of it, trusted or not ([`take_project_ignored`]), rather than refused:
/// `[share]` sends and fetches, and a repository that ships one is not an error.
pub(crate) const PROJECT_IGNORED: [&str; 1] = ["share"];

/// Takes the [`PROJECT_IGNORED`] sections out of a project file's table (its agent
/// tables too); returns whether there were any.
pub(crate) fn take_project_ignored(table: &mut toml::Table) -> bool {
    let mut any = false;
    for s in PROJECT_IGNORED {
        any |= table.remove(s).is_some();
    }
    if let Some(agents) = table.get_mut(AGENTS).and_then(toml::Value::as_table_mut) {
        for t in agents.iter_mut().filter_map(|(_, v)| v.as_table_mut()) {
            for s in PROJECT_IGNORED {
                any |= t.remove(s).is_some();
            }
        }
    }
    any
}

/// The first key of `table` (or of one of its agent tables) that runs commands: one
/// of [`Side::YoursOnly`] (the lists of hooks first, then `notify.command`).
pub(super) fn commands_in(table: &toml::Table) -> Option<String> {
    let (own, agents) = split_agents(table);
    let yours_only = || {
        SIDES
            .iter()
            .filter(|k| k.side == Side::YoursOnly)
            .map(|k| k.key)
            .filter(|k| {
                !PROJECT_IGNORED
                    .iter()
                    .any(|s| k.split_once('.').is_some_and(|(section, _)| section == *s))
            })
    };
    let in_one = |t: &toml::Table| -> Option<&'static str> {
        let lists = yours_only().filter(|k| !k.contains('.'));
        let keys = yours_only().filter(|k| k.contains('.'));
        lists.chain(keys).find(|key| match key.split_once('.') {
            Some((section, k)) => t
                .get(section)
                .and_then(toml::Value::as_table)
                .is_some_and(|s| s.contains_key(k)),
            None => t.contains_key(*key),
        })
    };
    in_one(&own).map(str::to_owned).or_else(|| {
        agents
            .iter()
            .find_map(|(name, t)| in_one(t).map(|k| format!("agents.{name}.{k}")))
    })
}

/// A parsed file's own settings (its `agents` tables left out) and its agent
/// tables by name.
pub(super) fn split_agents(table: &toml::Table) -> (toml::Table, BTreeMap<String, toml::Table>) {
    let mut own = table.clone();
    let agents = match own.remove(AGENTS) {
        Some(toml::Value::Table(t)) => t
            .into_iter()
            .filter_map(|(k, v)| match v {
                toml::Value::Table(t) => Some((k, t)),
                _ => None,
            })
            .collect(),
        _ => BTreeMap::new(),
    };
    (own, agents)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Top {
        first: First,
        #[serde(rename = "Second")]
        second: Second,
        hooks: Vec<Hook>,
    }

    #[derive(Deserialize, Default)]
    #[serde(deny_unknown_fields, default)]
    struct First {
        a: u8,
        #[serde(rename = "B")]
        b: String,
    }

    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Second {
        c: Vec<String>,
    }

    #[derive(Deserialize)]
    struct Hook {
        command: String,
        #[serde(default)]
        when: Option<f64>,
    }

    #[test]
    fn the_keys_are_serdes_own_field_names() {
        let s = schema_of::<Top>();
        assert_eq!(
            s.tables,
            [
                TableKeys {
                    name: "first",
                    list: false,
                    keys: &["a", "B"]
                },
                TableKeys {
                    name: "Second",
                    list: false,
                    keys: &["c"]
                },
                TableKeys {
                    name: "hooks",
                    list: true,
                    keys: &["command", "when"]
                },
            ]
        );
        assert_eq!(s.keys(), ["first.a", "first.B", "Second.c", "hooks"]);
        // (The fields are never read: the probe builds nothing from them.)
        let t = Top::default();
        let _ = (t.first.a, t.first.b, t.second.c, t.hooks);
        let h = Hook {
            command: String::new(),
            when: None,
        };
        let _ = (h.command, h.when);
    }

    #[test]
    fn the_config_schema_has_every_section_in_the_order_of_the_struct() {
        let names: Vec<&str> = schema().tables.iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "context",
                "statusline",
                "git",
                "hooks",
                "learn",
                "resume",
                "attention",
                "handoffs",
                "notify",
                "alerts",
                "ladder",
                "relay",
                "share",
                "on_threshold",
                "on_session_start"
            ]
        );
        assert_eq!(
            hook_lists().collect::<Vec<_>>(),
            ["on_threshold", "on_session_start"]
        );
        assert_eq!(
            schema().table("ladder").map(|t| t.keys),
            Some(&["L1", "L2", "L3", "protected_branches"][..])
        );
        assert_eq!(
            hook_list_keys("on_session_start"),
            ["command", "timeout_secs"]
        );
        assert_eq!(
            hook_list_keys("on_threshold"),
            ["command", "timeout_secs", "threshold", "replace_handoff"]
        );
    }
}
