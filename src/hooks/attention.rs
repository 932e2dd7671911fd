//! Notification, PermissionRequest and UserPromptSubmit: what a session is waiting
//! for, kept in its bridge file for the dashboard's attention pane and `forge status`.

use super::dispatch::{Ctx, HookResult};

/// The most of a notification's message a session bridge keeps (after redaction).
const ATTENTION_MESSAGE_MAX: usize = 200;
use crate::model::outcome::Outcome;
use crate::model::session::state::Attention;
use crate::store::files;

impl Ctx<'_> {
    /// Notification: the session waits for a permission or for input.
    pub(super) fn notification(&self, kind: Option<&str>, message: Option<&str>) -> HookResult {
        let attention = match kind {
            Some("permission_prompt" | "worker_permission_prompt") => {
                Some(Attention::WaitingPermission)
            }
            Some(
                "idle_prompt"
                | "agent_needs_input"
                | "elicitation_dialog"
                | "elicitation_url_dialog",
            ) => Some(Attention::WaitingInput),
            _ => None,
        };
        // The permission_prompt notification says only "Claude needs your
        // permission" (docs/client-reference.md §9.1 #4): keep the PermissionRequest's
        // message, which names the tool.
        let message = if attention == Some(Attention::WaitingPermission) {
            self.session_id()
                .and_then(|sid| files::read_bridge(&self.paths, sid))
                .filter(|b| b.attention == Some(Attention::WaitingPermission))
                .and_then(|b| b.attention_message)
                .or_else(|| message.map(str::to_owned))
        } else {
            message.map(str::to_owned)
        };
        // The message can quote a command line (and its password): the bridge
        // writer redacts it before it is stored (`touch_bridge_and`).
        self.set_attention("Notification", attention, message);
        Ok(String::new())
    }

    /// PermissionRequest: the session waits for the person to allow a tool.
    pub(super) fn permission_request(&self, tool_name: Option<&str>) -> HookResult {
        let msg = tool_name.map(|t| format!("permission to use {t}"));
        self.set_attention("PermissionRequest", Some(Attention::WaitingPermission), msg);
        Ok(String::new())
    }

    /// UserPromptSubmit: the session is busy again.
    pub(super) fn user_prompt_submit(&self) -> HookResult {
        self.set_attention("UserPromptSubmit", Some(Attention::Busy), None);
        // The ladder's alert, once: plain stdout here reaches the model.
        let Some(sid) = self.session_id() else {
            return Ok(String::new());
        };
        let path = self.paths.alert(sid);
        let Some(text) = crate::store::read_text(&path) else {
            return Ok(String::new());
        };
        let _ = crate::store::remove_if_exists(&path);
        let text: String = crate::model::text::sanitize::single_line(text.trim())
            .chars()
            .take(400)
            .collect();
        if text.is_empty() {
            return Ok(String::new());
        }
        self.record(Outcome::Alerted { text: text.clone() });
        Ok(format!("{text}\n"))
    }

    /// [`Ctx::touch_bridge`] for an event whose news is the attention state: that
    /// state is also the call's outcome.
    pub(super) fn set_attention(
        &self,
        event: &str,
        attention: Option<Attention>,
        message: Option<String>,
    ) {
        if let (Some(a), Some(_)) = (attention, self.session_id()) {
            self.record(Outcome::AttentionSet {
                state: a.as_str().to_owned(),
            });
        }
        self.touch_bridge(event, attention, message);
    }

    /// Records the last event (and attention state) in the session's bridge file.
    pub(super) fn touch_bridge(
        &self,
        event: &str,
        attention: Option<Attention>,
        message: Option<String>,
    ) {
        self.touch_bridge_and(event, attention, message, |_| {});
    }

    /// [`Ctx::touch_bridge`], and `also` on the same bridge under the same lock.
    pub(super) fn touch_bridge_and(
        &self,
        event: &str,
        attention: Option<Attention>,
        message: Option<String>,
        also: impl FnOnce(&mut crate::model::session::state::SessionBridge),
    ) {
        let Some(sid) = self.session_id() else { return };
        // Redacted whole, then cut to what the bridge keeps: a cut first could leave
        // half a key no rule knows.
        let message = message.map(|m| {
            let red = crate::model::text::redact::redact(&m);
            crate::model::text::sanitize::cut_chars(&red, ATTENTION_MESSAGE_MAX)
        });
        let transcript = self.wire.transcript_path.clone();
        let cwd = self.wire.cwd.clone();
        let now = crate::model::time::iso(self.env.now);
        let pid = self.env.claude_pid;
        let result = files::update_bridge(&self.paths, sid, self.env.now, |b| {
            b.last_event = Some(event.to_owned());
            b.last_event_at = Some(now);
            // The client's process, read from /proc once per process (a `--resume`
            // is a new one), for the views' liveness check.
            if let Some(pid) = pid
                && b.client_pid != Some(pid)
            {
                b.client_started = crate::store::process::start_time(pid);
                b.client_pid = b.client_started.map(|_| pid);
            }
            if let Some(a) = attention {
                b.attention = Some(a);
                b.attention_message = message;
            }
            if transcript.is_some() {
                b.transcript_path = transcript;
            }
            if cwd.is_some() {
                b.cwd = cwd;
            }
            also(b);
            true
        });
        if let Err(e) = result {
            self.fail(event, &format!("bridge: {e}"));
        }
    }
}
