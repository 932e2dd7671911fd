//! Hook payloads as domain events. Events forge does not act on become
//! [`HookEvent::Other`]: still logged, never an error.

use super::wire::WireHookInput;

/// What happened, as forge cares about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HookEvent {
    /// A session started (`source`: startup, resume, clear, compact, fork).
    SessionStart {
        /// `source`, when given.
        source: Option<String>,
    },
    /// A turn ended.
    Stop {
        /// The turn already continues because of a Stop hook.
        stop_hook_active: bool,
    },
    /// The session ended.
    SessionEnd {
        /// `reason`.
        reason: Option<String>,
    },
    /// Compaction is about to happen.
    PreCompact {
        /// `auto` or `manual`.
        trigger: Option<String>,
    },
    /// A compaction happened (the client sends its summary).
    PostCompact {
        /// `auto` or `manual`.
        trigger: Option<String>,
    },
    /// A tool is about to run.
    PreToolUse,
    /// A tool ran. forge's hook for it exists only in `forge run`'s sessions (added
    /// with `--settings`), for the relay's stop.
    PostToolUse {
        /// `tool_name`.
        tool_name: Option<String>,
    },
    /// Claude Code notified the user.
    Notification {
        /// `notification_type`.
        kind: Option<String>,
        /// `message`.
        message: Option<String>,
    },
    /// A permission dialog is shown.
    PermissionRequest {
        /// `tool_name`.
        tool_name: Option<String>,
    },
    /// The user sent a prompt.
    UserPromptSubmit,
    /// Any other event name: logged only.
    Other(String),
}

impl HookEvent {
    /// Builds the event from its name (argument or `hook_event_name`) and the payload.
    /// Names are matched case-insensitively, so `forge hook stop` works too.
    pub(crate) fn from_wire(name: &str, w: &WireHookInput) -> Self {
        match name.to_ascii_lowercase().as_str() {
            "sessionstart" => Self::SessionStart {
                source: w.source.clone(),
            },
            "stop" => Self::Stop {
                stop_hook_active: w.stop_hook_active,
            },
            "sessionend" => Self::SessionEnd {
                reason: w.reason.clone(),
            },
            "precompact" => Self::PreCompact {
                trigger: w.trigger.clone(),
            },
            "postcompact" => Self::PostCompact {
                trigger: w.trigger.clone(),
            },
            "pretooluse" => Self::PreToolUse,
            "posttooluse" => Self::PostToolUse {
                tool_name: w.tool_name.clone(),
            },
            "notification" => Self::Notification {
                kind: w.notification_type.clone(),
                message: w.message.clone(),
            },
            "permissionrequest" => Self::PermissionRequest {
                tool_name: w.tool_name.clone(),
            },
            "userpromptsubmit" => Self::UserPromptSubmit,
            _ => Self::Other(name.to_owned()),
        }
    }

    /// The canonical event name (as Claude Code spells it).
    pub(crate) fn name(&self) -> &str {
        match self {
            Self::SessionStart { .. } => "SessionStart",
            Self::Stop { .. } => "Stop",
            Self::SessionEnd { .. } => "SessionEnd",
            Self::PreCompact { .. } => "PreCompact",
            Self::PostCompact { .. } => "PostCompact",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse { .. } => "PostToolUse",
            Self::Notification { .. } => "Notification",
            Self::PermissionRequest { .. } => "PermissionRequest",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::Other(n) => n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_other() {
        let w = WireHookInput::default();
        for n in crate::model::setup::settings::FORGE_EVENTS {
            assert_eq!(HookEvent::from_wire(n, &w).name(), n);
        }
        assert_eq!(HookEvent::from_wire("stop", &w).name(), "Stop");
        assert_eq!(
            HookEvent::from_wire("PostToolUseFailure", &w),
            HookEvent::Other("PostToolUseFailure".into())
        );
        assert_eq!(
            HookEvent::from_wire("PostToolUse", &w).name(),
            "PostToolUse"
        );
    }
}
