//! `forge mcp`: forge's MCP server over stdio, so agents hand off through tools
//! instead of hand-formatting Markdown.
//!
//! - [`protocol`]: JSON-RPC 2.0 and the MCP lifecycle (pure; the project is behind a
//!   trait).
//! - [`tools`]: the tools' schemas and the checks on their arguments (pure).
//! - [`project`]: the tools and resources on a real project: the same writers as
//!   `forge signal`, `forge signal resolve`, `forge handoff` and `forge status`, and
//!   one outcome line in `events.jsonl` per call.
//!
//! Hand-written rather than on the official SDK (`rmcp`): the SDK needs tokio, and
//! the whole protocol forge needs is a loop over lines of JSON (docs/plugin.md has
//! the measurements). Nothing here runs on the status line's or the hooks' path.

pub(crate) mod project;
pub(crate) mod protocol;
pub(crate) mod tools;

use std::io::{self, BufRead, Write};

use protocol::{Backend, INVALID_REQUEST, MAX_MESSAGE};

/// Serves `backend` until `input` ends: one message a line in, one answer a line out
/// (flushed at once). A line longer than [`MAX_MESSAGE`] is skipped with an error
/// answer; input that is not UTF-8 is read as it decodes (and then fails to parse).
pub(crate) fn serve(
    mut input: impl BufRead,
    mut output: impl Write,
    backend: &mut dyn Backend,
) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = io::Read::take(&mut input, MAX_MESSAGE as u64 + 1).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(());
        }
        let answer = if line.len() > MAX_MESSAGE && line.last() != Some(&b'\n') {
            skip_line(&mut input)?;
            Some(protocol::error(
                serde_json::Value::Null,
                INVALID_REQUEST,
                &format!("message longer than {MAX_MESSAGE} bytes: skipped"),
            ))
        } else {
            let text = String::from_utf8_lossy(&line);
            // A bug in one answer must not end the server the session relies on.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                protocol::handle_line(&text, &mut *backend)
            }))
            .unwrap_or_else(|_| {
                Some(protocol::error(
                    request_id(&text),
                    protocol::INTERNAL_ERROR,
                    "forge failed on this request (a bug; its message is on stderr, which Claude Code keeps in its MCP log)",
                ))
            })
        };
        if let Some(answer) = answer {
            let mut text = answer.to_string();
            text.push('\n');
            output.write_all(text.as_bytes())?;
            output.flush()?;
        }
    }
}

/// The id of a request, when the line is one (for an answer to a request that failed).
fn request_id(line: &str) -> serde_json::Value {
    serde_json::from_str::<serde_json::Value>(line)
        .ok()
        .and_then(|v| v.get("id").cloned())
        .unwrap_or(serde_json::Value::Null)
}

/// Reads and drops the rest of a line (in bounded pieces).
fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    let mut scratch = Vec::new();
    loop {
        scratch.clear();
        let n = io::Read::take(&mut *input, 64 * 1024).read_until(b'\n', &mut scratch)?;
        if n == 0 || scratch.last() == Some(&b'\n') {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::ToolResult;
    use serde_json::{Map, Value, json};

    struct Quiet;
    impl Backend for Quiet {
        fn tools(&self) -> Vec<Value> {
            Vec::new()
        }
        fn call_tool(&mut self, _: &str, _: &Map<String, Value>) -> Option<ToolResult> {
            None
        }
        fn list_resources(&mut self) -> Vec<Value> {
            Vec::new()
        }
        fn read_resource(&mut self, _: &str) -> Result<Vec<Value>, String> {
            Err("none".into())
        }
        fn instructions(&self) -> &str {
            ""
        }
    }

    struct Buggy;
    impl Backend for Buggy {
        fn tools(&self) -> Vec<Value> {
            Vec::new()
        }
        #[allow(clippy::panic)]
        fn call_tool(&mut self, _: &str, _: &Map<String, Value>) -> Option<ToolResult> {
            panic!("a bug")
        }
        fn list_resources(&mut self) -> Vec<Value> {
            Vec::new()
        }
        fn read_resource(&mut self, _: &str) -> Result<Vec<Value>, String> {
            Err("none".into())
        }
        fn instructions(&self) -> &str {
            ""
        }
    }

    #[test]
    fn a_panic_in_one_call_is_an_error_answer_and_the_server_goes_on() {
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}\n";
        let mut out = Vec::new();
        serve(&input[..], &mut out, &mut Buggy).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["id"], 7);
        assert_eq!(lines[0]["error"]["code"], protocol::INTERNAL_ERROR);
        assert_eq!(lines[1], json!({"jsonrpc":"2.0","id":8,"result":{}}));
    }

    #[test]
    fn one_answer_a_line_and_an_overlong_line_is_skipped() {
        let mut input = Vec::new();
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        input
            .extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        input.extend(std::iter::repeat_n(b'x', MAX_MESSAGE + 10));
        input.push(b'\n');
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
        let mut out = Vec::new();
        serve(&input[..], &mut out, &mut Quiet).unwrap();
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert_eq!(lines[0]["id"], 1);
        assert_eq!(lines[1]["error"]["code"], INVALID_REQUEST);
        assert_eq!(lines[2], json!({"jsonrpc":"2.0","id":2,"result":{}}));
    }
}
