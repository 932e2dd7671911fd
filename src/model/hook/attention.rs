//! Notification, PermissionRequest and UserPromptSubmit, decided: what a session is
//! waiting for, kept in its bridge for the dashboard's attention pane and
//! `forge status`, and the ladder's alert, once.

use super::bridge::{BridgeEdit, Touch};
use super::wire::WireHookInput;
use super::{Plan, Session};
use crate::model::outcome::Outcome;
use crate::model::session::state::Attention;

/// The most of the ladder's alert that reaches the model.
const ALERT_MAX: usize = 400;

/// The attention state a notification means (`None`: it means none).
pub(crate) fn notification_attention(kind: Option<&str>) -> Option<Attention> {
    match kind {
        Some("permission_prompt" | "worker_permission_prompt") => {
            Some(Attention::WaitingPermission)
        }
        Some(
            "idle_prompt" | "agent_needs_input" | "elicitation_dialog" | "elicitation_url_dialog",
        ) => Some(Attention::WaitingInput),
        _ => None,
    }
}

/// Notification: the session waits for a permission or for input.
pub(crate) fn notification(
    session: &Session,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
) -> Plan {
    let attention = notification_attention(payload.notification_type.as_deref());
    // The permission_prompt notification says only "Claude needs your permission"
    // (docs/client-reference.md §9.1 #4): keep the PermissionRequest's message,
    // which names the tool.
    let kept = session
        .bridge
        .as_ref()
        .filter(|b| b.attention == Some(Attention::WaitingPermission))
        .and_then(|b| b.attention_message.as_deref());
    let message = if attention == Some(Attention::WaitingPermission) {
        kept.or(payload.message.as_deref())
    } else {
        payload.message.as_deref()
    };
    // The message can quote a command line (and its password): redacted before it is
    // stored.
    attention_plan("Notification", session, attention, message, payload, now)
}

/// PermissionRequest: the session waits for the person to allow a tool.
pub(crate) fn permission_request(
    session: &Session,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
) -> Plan {
    let message = payload
        .tool_name
        .as_deref()
        .map(|t| format!("permission to use {t}"));
    attention_plan(
        "PermissionRequest",
        session,
        Some(Attention::WaitingPermission),
        message.as_deref(),
        payload,
        now,
    )
}

/// UserPromptSubmit: the session is busy again, and the ladder's alert (taken by
/// this call, `alert`) reaches the model once: plain stdout here is added to the
/// prompt.
pub(crate) fn user_prompt_submit(
    session: &Session,
    alert: Option<&str>,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
) -> Plan {
    let mut plan = attention_plan(
        "UserPromptSubmit",
        session,
        Some(Attention::Busy),
        None,
        payload,
        now,
    );
    let text: String = alert
        .map(|a| crate::model::text::sanitize::single_line(a.trim()))
        .unwrap_or_default()
        .chars()
        .take(ALERT_MAX)
        .collect();
    if !text.is_empty() {
        plan.stdout = format!("{text}\n");
        plan.record(Outcome::Alerted { text });
    }
    plan
}

/// The event recorded in the bridge with its attention state, which is also the
/// call's outcome.
fn attention_plan(
    event: &str,
    session: &Session,
    attention: Option<Attention>,
    message: Option<&str>,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
) -> Plan {
    let mut plan = Plan::default();
    if session.id.is_none() {
        return plan;
    }
    if let Some(a) = attention {
        plan.record(Outcome::AttentionSet {
            state: a.as_str().to_owned(),
        });
    }
    plan.bridge = Some(BridgeEdit::touch(Touch::new(
        event,
        attention,
        message,
        payload,
        now,
        session.client_pid,
    )));
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::session::state::SessionBridge;

    fn now() -> chrono::DateTime<chrono::Utc> {
        crate::model::time::parse_iso("2026-11-21T10:00:00Z").unwrap()
    }

    fn session(bridge: Option<SessionBridge>) -> Session {
        Session {
            id: Some("s1".into()),
            bridge,
            client_pid: None,
        }
    }

    fn stored(plan: &Plan) -> Option<(Attention, Option<String>)> {
        plan.bridge.as_ref()?.touch.as_ref()?.attention.clone()
    }

    #[test]
    fn a_permission_prompt_keeps_the_message_that_names_the_tool() {
        let asked = SessionBridge {
            attention: Some(Attention::WaitingPermission),
            attention_message: Some("permission to use Bash".into()),
            ..SessionBridge::default()
        };
        let payload = WireHookInput {
            notification_type: Some("permission_prompt".into()),
            message: Some("Claude needs your permission".into()),
            ..WireHookInput::default()
        };
        let plan = notification(&session(Some(asked)), &payload, now());
        assert_eq!(
            stored(&plan),
            Some((
                Attention::WaitingPermission,
                Some("permission to use Bash".into())
            ))
        );
        let plan = notification(&session(None), &payload, now());
        assert_eq!(
            stored(&plan).and_then(|(_, m)| m).as_deref(),
            Some("Claude needs your permission")
        );
        // A notification that means no state: the event only, no outcome.
        let other = WireHookInput {
            notification_type: Some("auth_success".into()),
            ..WireHookInput::default()
        };
        let plan = notification(&session(None), &other, now());
        assert_eq!(plan.effects, []);
        assert!(plan.bridge.unwrap().touch.unwrap().attention.is_none());
    }

    #[test]
    fn an_alert_reaches_the_model_once_on_one_line() {
        let plan = user_prompt_submit(
            &session(None),
            Some("  L2: hand off now\nplease  "),
            &WireHookInput::default(),
            now(),
        );
        assert_eq!(plan.stdout, "L2: hand off now please\n");
        assert_eq!(plan.effects.len(), 2, "busy, then the alert");
        let plan = user_prompt_submit(&session(None), Some("  "), &WireHookInput::default(), now());
        assert_eq!(plan.stdout, "");
        // No session: nothing at all.
        let none = Session::default();
        assert_eq!(
            permission_request(&none, &WireHookInput::default(), now()),
            Plan::default()
        );
    }
}
