//! Who wrote a `user` record of a transcript: the person, or the client in the
//! person's role. One classifier for every reader of the person's words — the
//! transcript reader (a handoff's requests), the conversation pager and the handoff
//! document — so that what the client inserts (a finished background command, a
//! slash command's output, a skill's text, the compaction summary, an interruption
//! marker, hook feedback) is never taken for something the person typed.
//!
//! The shapes come from the pinned client (2.1.330): its tag lists (the
//! `<bash-input>`, `<local-command-…>`, `<command-…>`, `<task-notification>`,
//! `<system-reminder>` families and the rest of the tags it strips from a session's
//! title), the texts it writes itself (`[Request interrupted by user…]`, a refused
//! tool call, "Base directory for this skill: …", "… hook feedback: …"), and the
//! record flags (`isMeta`, `isCompactSummary`, `isVisibleInTranscriptOnly`); and
//! from real transcripts (tests/fixtures/real-transcripts/). The client's own rule
//! for a session's first prompt is the model here: a slash command is the person's
//! words as `/name args`, `<bash-input>` as `! command`, anything else that starts
//! with one of the client's tags or an interruption marker is not the person's.

use serde_json::Value;

use super::record::{content_text, is_sidechain};

/// What a main-chain `user` record holds, by who wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UserRecord {
    /// What the person typed.
    Typed(String),
    /// A slash command the person ran (`name` without the `/`; `args` trimmed,
    /// possibly empty).
    Command {
        /// The command's name (`compact`, `handgemacht:create-beads`).
        name: String,
        /// What the person typed after it.
        args: String,
    },
    /// A shell command the person ran with `!` (`<bash-input>`).
    Shell(String),
    /// The summary a compaction left (`isCompactSummary`), its whole text.
    CompactSummary(String),
    /// A background task's end, as the client reports it (`<task-notification>`).
    TaskNotification(TaskNotice),
    /// Tool results (`tool_result` blocks): the client answering the model.
    ToolResult,
    /// Something else the client wrote in the person's role.
    Client(ClientText),
}

/// The parts of a `<task-notification>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TaskNotice {
    /// `<task-id>`.
    pub(crate) id: Option<String>,
    /// `<status>`: `completed`, `failed`, `killed`, …
    pub(crate) status: Option<String>,
    /// `<summary>`: `Background command "…" completed (exit code 0)`.
    pub(crate) summary: Option<String>,
}

/// The kinds of text the client writes in the person's role (besides the ones
/// [`UserRecord`] names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientText {
    /// A record the client marks `isMeta` or `isVisibleInTranscriptOnly`: a skill's
    /// or a slash command's expanded text, the local-command caveat, …
    Meta,
    /// A slash command's output (`<local-command-stdout>`, `-stderr`).
    CommandOutput,
    /// The caveat before local commands (`<local-command-caveat>`).
    Caveat,
    /// A `!` command's output (`<bash-stdout>`, `<bash-stderr>`, `<bash-exit-code>`).
    ShellOutput,
    /// A `#` memory note (`<user-memory-input>`): the person's words, but a note to
    /// the memory file, not a request.
    MemoryNote,
    /// A system reminder (`<system-reminder>`).
    Reminder,
    /// A hook's words (`<user-prompt-submit-hook>`, `Stop hook feedback: …`,
    /// `… hook error: …`, `… hook success: …`).
    HookFeedback,
    /// A skill the client loaded ("Base directory for this skill: …").
    SkillLoad,
    /// `[Request interrupted by user…]` and the like.
    Interrupted,
    /// A refused tool call's text, "No response requested.".
    Refusal,
    /// Another of the client's tags (a teammate's or another session's message, a
    /// channel message, a tick, fetched web content, …).
    OtherTag,
    /// No text at all.
    Empty,
}

/// The tags the client wraps its own messages in, from the pinned client's lists
/// (the ones it strips from a session's title and the ones it treats as not typed).
const CLIENT_TAGS: [&str; 40] = [
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-stdout",
    "bash-stderr",
    "bash-exit-code",
    "bash-input",
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "skill-format",
    "task-notification",
    "agent-message",
    "teammate-message",
    "cross-session-message",
    "remote-review",
    "remote-review-progress",
    "slack-ping",
    "slack-tag-message",
    "tick",
    "fetched-web-content",
    "untrusted-widget-state",
    "coordinator-relay",
    "channel",
    "system-reminder",
    "system_reminder",
    "function_results",
    "tool_use_error",
    "sandbox_violations",
    "persisted-output",
    "user-prompt-submit-hook",
    "user-memory-input",
    "fork-boilerplate",
    "forked-skill-launch",
    "ide_selection",
    "ide_opened_file",
    "mcp-resource-update",
    "mcp-polling-update",
    "post-tool-use-hook",
];

/// The starts of texts the client writes itself, not inside a tag.
const CLIENT_STARTS: [(&str, ClientText); 7] = [
    ("[Request interrupted", ClientText::Interrupted),
    (
        "The user doesn't want to proceed with this tool use",
        ClientText::Refusal,
    ),
    (
        "The user doesn't want to take this action right now",
        ClientText::Refusal,
    ),
    ("No response requested.", ClientText::Refusal),
    ("Base directory for this skill: ", ClientText::SkillLoad),
    (
        "This skill is served by MCP server \"",
        ClientText::SkillLoad,
    ),
    (
        "Caveat: The messages below were generated",
        ClientText::Caveat,
    ),
];

/// Classifies a transcript record: `None` when it is not a main-chain `user` record.
pub(crate) fn classify(rec: &Value) -> Option<UserRecord> {
    if rec.get("type").and_then(Value::as_str) != Some("user") || is_sidechain(rec) {
        return None;
    }
    let flag = |k: &str| rec.get(k).and_then(Value::as_bool) == Some(true);
    let content = rec.get("message").and_then(|m| m.get("content"));
    if flag("isCompactSummary") {
        return Some(UserRecord::CompactSummary(
            content.map(content_text).unwrap_or_default(),
        ));
    }
    let Some(content) = content else {
        return Some(UserRecord::Client(ClientText::Empty));
    };
    let is_result = |b: &Value| b.get("type").and_then(Value::as_str) == Some("tool_result");
    if content
        .as_array()
        .is_some_and(|blocks| blocks.iter().any(is_result))
    {
        return Some(UserRecord::ToolResult);
    }
    if flag("isMeta") || flag("isVisibleInTranscriptOnly") {
        return Some(UserRecord::Client(ClientText::Meta));
    }
    Some(classify_text(&content_text(content)))
}

/// Classifies the text of a `user` message (no record flags known).
pub(crate) fn classify_text(text: &str) -> UserRecord {
    let t = text.trim();
    if t.is_empty() {
        return UserRecord::Client(ClientText::Empty);
    }
    if let Some(tag) = leading_tag(t) {
        return tagged(t, tag);
    }
    if let Some((_, kind)) = CLIENT_STARTS.iter().find(|(s, _)| t.starts_with(s)) {
        return UserRecord::Client(*kind);
    }
    if is_hook_words(t) {
        return UserRecord::Client(ClientText::HookFeedback);
    }
    UserRecord::Typed(t.to_owned())
}

/// The client's tag `text` starts with, if any.
fn leading_tag(text: &str) -> Option<&'static str> {
    let rest = text.strip_prefix('<')?;
    CLIENT_TAGS.iter().copied().find(|tag| {
        rest.strip_prefix(tag)
            .is_some_and(|after| after.starts_with(['>', ' ', '\n', '/']))
    })
}

/// A text that starts with the client's `tag`.
fn tagged(text: &str, tag: &str) -> UserRecord {
    match tag {
        "command-name" | "command-message" | "command-args" => {
            let name = inner(text, "command-name")
                .or_else(|| inner(text, "command-message"))
                .unwrap_or_default();
            UserRecord::Command {
                name: name.trim().trim_start_matches('/').to_owned(),
                args: inner(text, "command-args")
                    .unwrap_or_default()
                    .trim()
                    .to_owned(),
            }
        }
        "bash-input" => UserRecord::Shell(
            inner(text, "bash-input")
                .unwrap_or_default()
                .trim()
                .to_owned(),
        ),
        "task-notification" => UserRecord::TaskNotification(TaskNotice {
            id: inner(text, "task-id").map(|s| s.trim().to_owned()),
            status: inner(text, "status").map(|s| s.trim().to_owned()),
            summary: inner(text, "summary").map(|s| s.trim().to_owned()),
        }),
        "local-command-stdout" | "local-command-stderr" => {
            UserRecord::Client(ClientText::CommandOutput)
        }
        "local-command-caveat" => UserRecord::Client(ClientText::Caveat),
        "bash-stdout" | "bash-stderr" | "bash-exit-code" => {
            UserRecord::Client(ClientText::ShellOutput)
        }
        "user-memory-input" => UserRecord::Client(ClientText::MemoryNote),
        "system-reminder" | "system_reminder" => UserRecord::Client(ClientText::Reminder),
        "user-prompt-submit-hook" | "post-tool-use-hook" => {
            UserRecord::Client(ClientText::HookFeedback)
        }
        _ => UserRecord::Client(ClientText::OtherTag),
    }
}

/// `Stop hook feedback: …`, `PreToolUse:Write hook error: …`,
/// `SessionStart:startup hook success: …`, `Stop hook blocking error from command …`:
/// the words the client puts before what a hook said.
fn is_hook_words(text: &str) -> bool {
    let first = text.lines().next().unwrap_or("");
    let Some((event, rest)) = first.split_once(" hook ") else {
        return false;
    };
    let event_like = !event.is_empty()
        && !event.contains(' ')
        && event.starts_with(|c: char| c.is_ascii_uppercase());
    event_like
        && ["feedback", "error", "success", "blocking error", "stopped"]
            .iter()
            .any(|w| rest.starts_with(w))
}

/// The text between `<tag>` and `</tag>`.
fn inner<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = start + text.get(start..)?.find(&close)?;
    text.get(start..end)
}

/// The client's own slash commands whose arguments are no task (what the person
/// asks of the client, not of the model): `/compact focus on tests` asks for a
/// compaction, `/model opus` for a model.
const CLIENT_COMMANDS: [&str; 52] = [
    "add-dir",
    "agents",
    "bashes",
    "bug",
    "clear",
    "color",
    "compact",
    "config",
    "context",
    "cost",
    "doctor",
    "effort",
    "exit",
    "export",
    "extra-usage",
    "fast",
    "feedback",
    "fork",
    "help",
    "hooks",
    "ide",
    "install-github-app",
    "keybindings",
    "login",
    "logout",
    "mcp",
    "memory",
    "model",
    "output-style",
    "permissions",
    "plan",
    "plugin",
    "plugins",
    "privacy-settings",
    "quit",
    "release-notes",
    "remote-env",
    "rename",
    "resume",
    "rewind",
    "sandbox",
    "settings",
    "stats",
    "status",
    "statusline",
    "tasks",
    "terminal-setup",
    "theme",
    "todos",
    "upgrade",
    "usage",
    "vim",
];

impl UserRecord {
    /// The person's request in this record, as they would say it: what they typed;
    /// a slash command that asks the model for something as `/name args`; a `!`
    /// command as `! command`. `None` for everything the client wrote, and for the
    /// client's own commands (`/compact`, `/model`, `/clear`, …).
    pub(crate) fn request(&self) -> Option<String> {
        match self {
            Self::Typed(t) => Some(t.clone()),
            Self::Command { name, args } => {
                let own = CLIENT_COMMANDS.contains(&name.to_ascii_lowercase().as_str());
                (!name.is_empty() && !own).then(|| {
                    if args.is_empty() {
                        format!("/{name}")
                    } else {
                        format!("/{name} {args}")
                    }
                })
            }
            Self::Shell(cmd) if !cmd.is_empty() => Some(format!("! {cmd}")),
            _ => None,
        }
    }
}

/// Whether a request only says to go on ("continue", "go on", "keep going", "yes",
/// "ok, continue until all are done"): kept in the story, never taken as the task.
pub(crate) fn is_continue_like(request: &str) -> bool {
    const GO_ON: [&str; 26] = [
        "continue", "cont", "go", "keep", "proceed", "resume", "carry", "next", "yes", "y", "yep",
        "yeah", "ok", "okay", "k", "sure", "please", "pls", "do", "lgtm", "approved", "fine",
        "great", "thanks", "good", "done",
    ];
    let lower = request.trim().to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    match words.first() {
        None => true,
        Some(first) => words.len() <= 6 && GO_ON.contains(first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user(content: &Value) -> Value {
        json!({"type":"user","message":{"role":"user","content":content}})
    }

    fn of(text: &str) -> UserRecord {
        classify(&user(&json!(text))).unwrap()
    }

    /// Each shape as the pinned client 2.1.330 writes it (its tag lists and the texts
    /// in its binary), or as a real transcript holds it; the kind it is, when the
    /// test names one.
    const CLIENT_SHAPES: [(&str, Option<ClientText>); 25] = [
        (
            "<task-notification>\n<task-id>be613ab</task-id>\n<output-file>/tmp/x.output</output-file>\n<status>completed</status>\n<summary>Background command \"Run tests\" completed (exit code 0)</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/x.output",
            None,
        ),
        (
            "<local-command-stdout>Reconnected to tidewave.</local-command-stdout>",
            Some(ClientText::CommandOutput),
        ),
        (
            "<local-command-stderr>Error: no such server</local-command-stderr>",
            Some(ClientText::CommandOutput),
        ),
        (
            "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>",
            Some(ClientText::Caveat),
        ),
        (
            "<bash-stdout>README.md</bash-stdout><bash-stderr></bash-stderr>",
            Some(ClientText::ShellOutput),
        ),
        (
            "<bash-stderr>ls: cannot access</bash-stderr>",
            Some(ClientText::ShellOutput),
        ),
        (
            "<user-memory-input>always run the tests</user-memory-input>",
            Some(ClientText::MemoryNote),
        ),
        (
            "<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>",
            Some(ClientText::Reminder),
        ),
        (
            "Base directory for this skill: /home/a/.claude/skills/pdf\n\n# PDF",
            Some(ClientText::SkillLoad),
        ),
        (
            "This skill is served by MCP server \"docs\"",
            Some(ClientText::SkillLoad),
        ),
        (
            "[Request interrupted by user]",
            Some(ClientText::Interrupted),
        ),
        (
            "[Request interrupted by user for tool use]",
            Some(ClientText::Interrupted),
        ),
        (
            "[Request interrupted: the session ended before this agent finished.]",
            Some(ClientText::Interrupted),
        ),
        (
            "The user doesn't want to proceed with this tool use. The tool use was rejected",
            Some(ClientText::Refusal),
        ),
        ("No response requested.", Some(ClientText::Refusal)),
        (
            "Stop hook feedback:\n- [forge hook Stop]: re-read SPEC.md",
            Some(ClientText::HookFeedback),
        ),
        (
            "PreToolUse:Write hook error: forge held this call back once",
            Some(ClientText::HookFeedback),
        ),
        (
            "SessionStart:startup hook success: Last session: …",
            Some(ClientText::HookFeedback),
        ),
        (
            "Stop hook blocking error from command \"forge hook Stop\": x",
            Some(ClientText::HookFeedback),
        ),
        (
            "<user-prompt-submit-hook>note</user-prompt-submit-hook>",
            Some(ClientText::HookFeedback),
        ),
        (
            "<teammate-message teammate_id=\"b\">done</teammate-message>",
            Some(ClientText::OtherTag),
        ),
        (
            "<cross-session-message from=\"x\">hi</cross-session-message>",
            Some(ClientText::OtherTag),
        ),
        (
            "<channel source=\"slack\">deploy?</channel>",
            Some(ClientText::OtherTag),
        ),
        ("<tick>", Some(ClientText::OtherTag)),
        ("   ", Some(ClientText::Empty)),
    ];

    #[test]
    fn every_shape_the_client_writes_is_the_clients() {
        let client = CLIENT_SHAPES;
        for (text, kind) in client {
            let got = of(text);
            assert_eq!(got.request(), None, "{text:?} taken for the person's");
            if let Some(kind) = kind {
                assert_eq!(got, UserRecord::Client(kind), "{text:?}");
            }
        }
        assert_eq!(
            of(client[0].0),
            UserRecord::TaskNotification(TaskNotice {
                id: Some("be613ab".into()),
                status: Some("completed".into()),
                summary: Some("Background command \"Run tests\" completed (exit code 0)".into()),
            })
        );
    }

    #[test]
    fn record_flags_and_tool_results_are_the_clients() {
        let flagged = |k: &str| {
            let mut r = user(&json!("Create beads with a structured preview"));
            r[k] = json!(true);
            classify(&r).unwrap()
        };
        assert_eq!(flagged("isMeta"), UserRecord::Client(ClientText::Meta));
        assert_eq!(
            flagged("isVisibleInTranscriptOnly"),
            UserRecord::Client(ClientText::Meta)
        );
        assert_eq!(
            flagged("isCompactSummary"),
            UserRecord::CompactSummary("Create beads with a structured preview".into())
        );
        let result = user(&json!([{"type":"tool_result","tool_use_id":"t","content":"ok"}]));
        assert_eq!(classify(&result), Some(UserRecord::ToolResult));
        let mut side = user(&json!("side"));
        side["isSidechain"] = json!(true);
        assert_eq!(classify(&side), None);
        assert_eq!(classify(&json!({"type":"assistant"})), None);
    }

    #[test]
    fn the_persons_words_and_commands_read_as_they_typed_them() {
        assert_eq!(
            of("  mix phx.server doesnt seem to start \n")
                .request()
                .as_deref(),
            Some("mix phx.server doesnt seem to start")
        );
        let blocks = user(&json!([{"type":"text","text":"create the beads"}]));
        assert_eq!(
            classify(&blocks).unwrap().request().as_deref(),
            Some("create the beads")
        );
        // A skill's command with arguments (tests/fixtures/real-transcripts/subagent.jsonl).
        let skill = of(
            "<command-message>handgemacht:create-beads</command-message>\n<command-name>/handgemacht:create-beads</command-name>\n<command-args>websearch to learn credo</command-args>",
        );
        assert_eq!(
            skill.request().as_deref(),
            Some("/handgemacht:create-beads websearch to learn credo")
        );
        // The client's own commands ask nothing of the model.
        for own in [
            "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args>focus on tests</command-args>",
            "<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>",
            "<command-name>/mcp</command-name>",
            "<command-name>/clear</command-name>",
        ] {
            assert_eq!(of(own).request(), None, "{own}");
        }
        assert_eq!(
            of("<command-name>/review</command-name>")
                .request()
                .as_deref(),
            Some("/review")
        );
        assert_eq!(
            of("<bash-input>git status</bash-input>")
                .request()
                .as_deref(),
            Some("! git status")
        );
        // A person's text that merely mentions a tag or a marker is theirs.
        for theirs in [
            "why does <task-notification> show up as my title?",
            "<div> breaks the layout",
            "Request the interrupted build again",
            "the Stop hook feedback is confusing",
        ] {
            assert_eq!(of(theirs).request().as_deref(), Some(theirs), "{theirs}");
        }
    }

    #[test]
    fn continue_like_lines_are_told_from_tasks() {
        for go_on in [
            "continue",
            "Continue.",
            "continue until all are done",
            "ok, keep going",
            "go on",
            "yes",
            "proceed",
            "",
        ] {
            assert!(is_continue_like(go_on), "{go_on:?}");
        }
        for task in [
            "Work on bead spotter-fum. Run bd show spotter-fum to see the issue details",
            "did you push?",
            "continue the migration of every handler to the new pool, then run the whole suite",
            "fix the flaky login test",
        ] {
            assert!(!is_continue_like(task), "{task:?}");
        }
    }
}
