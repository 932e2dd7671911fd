//! JSON-RPC 2.0 and the MCP lifecycle, by hand: one message a line on stdin, one
//! answer a line on stdout (MCP's stdio transport). Pure: the project is behind
//! [`Backend`], so every answer can be tested without a disk.
//!
//! Version negotiation as the pinned client 2.1.330 does it (seen with it, and in
//! docs/plugin.md): it first probes `server/discover` with the stateless revision
//! `2026-07-28` in `_meta`; forge answers that probe truthfully with the revisions it
//! speaks ([`VERSIONS`], all with the `initialize` handshake), and the client then
//! sends `initialize` with `2025-11-25`. `initialize` gets back the version asked
//! for when forge speaks it, else forge's newest (the client decides whether it can
//! go on).

use serde_json::{Map, Value, json};

/// The MCP revisions forge speaks, newest first. All of them open with `initialize`.
pub(crate) const VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The longest message forge reads (a line); a longer one is answered with an error
/// and skipped.
pub(crate) const MAX_MESSAGE: usize = 4 << 20;

/// JSON-RPC: the message is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the message is not a request object.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the parameters are wrong (an unknown tool, a missing name).
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the server failed.
pub(crate) const INTERNAL_ERROR: i64 = -32603;
/// MCP: no such resource.
pub(crate) const RESOURCE_NOT_FOUND: i64 = -32002;

/// What a tool call answered. An input the tool refuses is a result with
/// `is_error` set (MCP: tool errors are results, so the model reads them and can try
/// again), not a protocol error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolResult {
    /// The text the model reads.
    pub(crate) text: String,
    /// The same as data (`structuredContent`), when there is any.
    pub(crate) structured: Option<Value>,
    /// Whether the call was refused or failed.
    pub(crate) is_error: bool,
}

impl ToolResult {
    /// A refusal or failure, in words for the agent.
    pub(crate) fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            structured: None,
            is_error: true,
        }
    }
}

/// The project side of the server.
pub(crate) trait Backend {
    /// The tools, as `tools/list` lists them.
    fn tools(&self) -> Vec<Value>;
    /// Runs tool `name` with `args`; `None` when there is no such tool.
    fn call_tool(&mut self, name: &str, args: &Map<String, Value>) -> Option<ToolResult>;
    /// The resources, as `resources/list` lists them.
    fn list_resources(&mut self) -> Vec<Value>;
    /// The contents of resource `uri` (`resources/read`'s `contents`), or why not.
    fn read_resource(&mut self, uri: &str) -> Result<Vec<Value>, String>;
    /// What the server tells the client about itself (`initialize`'s `instructions`).
    fn instructions(&self) -> &str;
}

/// The version `initialize` answers: the one asked for when forge speaks it, else
/// forge's newest.
pub(crate) fn negotiate(requested: Option<&str>) -> &'static str {
    requested
        .and_then(|r| VERSIONS.iter().find(|v| **v == r))
        .copied()
        .unwrap_or(VERSIONS[0])
}

fn server_info() -> Value {
    json!({"name": "forge", "title": "forge", "version": env!("CARGO_PKG_VERSION")})
}

fn capabilities() -> Value {
    json!({
        "tools": {"listChanged": false},
        "resources": {"listChanged": false, "subscribe": false}
    })
}

/// A JSON-RPC error answer.
pub(crate) fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn answer(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// Answers one line of input; `None` for a notification (nothing to answer) or a
/// blank line.
pub(crate) fn handle_line(line: &str, backend: &mut dyn Backend) -> Option<Value> {
    if line.trim().is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(line) {
        Ok(msg) => handle(msg, backend),
        Err(e) => Some(error(Value::Null, PARSE_ERROR, &format!("not JSON: {e}"))),
    }
}

/// Answers one message.
pub(crate) fn handle(msg: Value, backend: &mut dyn Backend) -> Option<Value> {
    let Value::Object(mut msg) = msg else {
        // JSON-RPC batches were removed from MCP in 2025-06-18.
        return Some(error(
            Value::Null,
            INVALID_REQUEST,
            "expected one JSON-RPC request object (batches are not part of MCP)",
        ));
    };
    let id = msg.remove("id");
    let Some(method) = msg.get("method").and_then(Value::as_str).map(str::to_owned) else {
        // A response to a request forge never sent, or garbage: nothing to answer
        // unless it carries an id.
        return id.map(|id| error(id, INVALID_REQUEST, "a request needs a method"));
    };
    // A notification (no id) is never answered.
    let id = id?;
    if !matches!(id, Value::String(_) | Value::Number(_)) {
        return Some(error(
            Value::Null,
            INVALID_REQUEST,
            "the id must be a string or a number",
        ));
    }
    let params = match msg.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => return Some(error(id, INVALID_PARAMS, "params must be an object")),
    };
    Some(match method.as_str() {
        "initialize" => {
            let asked = params.get("protocolVersion").and_then(Value::as_str);
            answer(
                id,
                json!({
                    "protocolVersion": negotiate(asked),
                    "capabilities": capabilities(),
                    "serverInfo": server_info(),
                    "instructions": backend.instructions(),
                }),
            )
        }
        "server/discover" => answer(
            id,
            json!({
                "resultType": "complete",
                "supportedVersions": VERSIONS,
                "capabilities": capabilities(),
                "instructions": backend.instructions(),
                "ttlMs": 0,
                "cacheScope": "private",
                "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
            }),
        ),
        "ping" => answer(id, json!({})),
        "tools/list" => answer(id, json!({"tools": backend.tools()})),
        "tools/call" => return Some(call_tool(id, &params, backend)),
        "resources/list" => answer(id, json!({"resources": backend.list_resources()})),
        "resources/templates/list" => answer(id, json!({"resourceTemplates": []})),
        "resources/read" => {
            let Some(uri) = params.get("uri").and_then(Value::as_str) else {
                return Some(error(id, INVALID_PARAMS, "resources/read needs a uri"));
            };
            match backend.read_resource(uri) {
                Ok(contents) => answer(id, json!({"contents": contents})),
                Err(why) => error(id, RESOURCE_NOT_FOUND, &why),
            }
        }
        other => error(
            id,
            METHOD_NOT_FOUND,
            &format!("forge's MCP server has no method {other:?}"),
        ),
    })
}

fn call_tool(id: Value, params: &Map<String, Value>, backend: &mut dyn Backend) -> Value {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return error(id, INVALID_PARAMS, "tools/call needs the tool's name");
    };
    let empty = Map::new();
    let args = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(a)) => a,
        Some(_) => {
            return answer(
                id,
                result_json(ToolResult::error("arguments must be a JSON object")),
            );
        }
    };
    match backend.call_tool(name, args) {
        Some(result) => answer(id, result_json(result)),
        None => error(
            id,
            INVALID_PARAMS,
            &format!("forge has no tool {name:?} (tools/list lists them)"),
        ),
    }
}

fn result_json(r: ToolResult) -> Value {
    let mut v = json!({
        "content": [{"type": "text", "text": r.text}],
        "isError": r.is_error,
    });
    if let (Some(s), Some(obj)) = (r.structured, v.as_object_mut()) {
        obj.insert("structuredContent".into(), s);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake {
        calls: Vec<(String, Map<String, Value>)>,
    }

    impl Backend for Fake {
        fn tools(&self) -> Vec<Value> {
            vec![json!({"name": "echo", "inputSchema": {"type": "object"}})]
        }
        fn call_tool(&mut self, name: &str, args: &Map<String, Value>) -> Option<ToolResult> {
            self.calls.push((name.to_owned(), args.clone()));
            (name == "echo").then(|| ToolResult {
                text: "said".into(),
                structured: Some(json!({"n": 1})),
                is_error: false,
            })
        }
        fn list_resources(&mut self) -> Vec<Value> {
            vec![json!({"uri": "forge://handoffs/a.md", "name": "a.md"})]
        }
        fn read_resource(&mut self, uri: &str) -> Result<Vec<Value>, String> {
            if uri == "forge://handoffs/a.md" {
                Ok(vec![json!({"uri": uri, "text": "A"})])
            } else {
                Err(format!("no resource {uri}"))
            }
        }
        fn instructions(&self) -> &str {
            "use the tools"
        }
    }

    fn fake() -> Fake {
        Fake { calls: Vec::new() }
    }

    fn ask(b: &mut Fake, line: &str) -> Value {
        handle_line(line, b).expect("an answer")
    }

    #[test]
    fn initialize_answers_the_version_asked_for_when_forge_speaks_it() {
        let mut b = fake();
        // What the pinned client 2.1.330 sends.
        let v = ask(
            &mut b,
            r#"{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"claude-code","version":"2.1.330"}},"jsonrpc":"2.0","id":0}"#,
        );
        assert_eq!(v["id"], 0);
        assert_eq!(v["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(v["result"]["serverInfo"]["name"], "forge");
        assert!(v["result"]["capabilities"]["tools"].is_object());
        assert!(v["result"]["capabilities"]["resources"].is_object());
        assert_eq!(v["result"]["instructions"], "use the tools");
        for (asked, got) in [
            ("2025-06-18", "2025-06-18"),
            ("2024-11-05", "2024-11-05"),
            ("2026-07-28", "2025-11-25"),
            ("1999-01-01", "2025-11-25"),
        ] {
            let v = ask(
                &mut b,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":"x","method":"initialize","params":{{"protocolVersion":"{asked}"}}}}"#
                ),
            );
            assert_eq!(v["result"]["protocolVersion"], got, "{asked}");
        }
    }

    #[test]
    fn the_discover_probe_is_answered_with_the_versions_forge_speaks() {
        let mut b = fake();
        let v = ask(
            &mut b,
            r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        );
        assert_eq!(v["id"], "server-discover-probe-1");
        assert_eq!(v["result"]["resultType"], "complete");
        assert_eq!(v["result"]["supportedVersions"], json!(VERSIONS));
        assert_eq!(
            v["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "forge"
        );
    }

    #[test]
    fn notifications_get_no_answer_and_bad_messages_get_errors() {
        let mut b = fake();
        assert!(
            handle_line(
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                &mut b
            )
            .is_none()
        );
        assert!(handle_line("   ", &mut b).is_none());
        assert_eq!(ask(&mut b, "{not json")["error"]["code"], PARSE_ERROR);
        assert_eq!(ask(&mut b, "[1,2]")["error"]["code"], INVALID_REQUEST);
        assert_eq!(
            ask(&mut b, r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#)["error"]["code"],
            INVALID_REQUEST
        );
        assert_eq!(
            ask(
                &mut b,
                r#"{"jsonrpc":"2.0","id":1,"method":"prompts/list"}"#
            )["error"]["code"],
            METHOD_NOT_FOUND
        );
        assert_eq!(
            ask(
                &mut b,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}"#
            )["error"]["code"],
            INVALID_PARAMS
        );
        assert_eq!(
            ask(&mut b, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)["result"],
            json!({})
        );
    }

    #[test]
    fn tool_calls_reach_the_backend_and_unknown_tools_are_protocol_errors() {
        let mut b = fake();
        let v = ask(
            &mut b,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"a":1},"_meta":{"progressToken":3}}}"#,
        );
        assert_eq!(v["result"]["content"][0]["text"], "said");
        assert_eq!(v["result"]["isError"], false);
        assert_eq!(v["result"]["structuredContent"]["n"], 1);
        assert_eq!(b.calls.last().unwrap().1["a"], 1);
        let v = ask(
            &mut b,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}"#,
        );
        assert_eq!(v["error"]["code"], INVALID_PARAMS);
        let v = ask(
            &mut b,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":"x"}}"#,
        );
        assert_eq!(v["result"]["isError"], true);
        assert_eq!(
            b.calls.len(),
            2,
            "a call with bad arguments reached the tool"
        );
    }

    #[test]
    fn resources_are_listed_and_read() {
        let mut b = fake();
        let v = ask(
            &mut b,
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#,
        );
        assert_eq!(v["result"]["resources"][0]["name"], "a.md");
        let v = ask(
            &mut b,
            r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"forge://handoffs/a.md"}}"#,
        );
        assert_eq!(v["result"]["contents"][0]["text"], "A");
        let v = ask(
            &mut b,
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}"#,
        );
        assert_eq!(v["error"]["code"], RESOURCE_NOT_FOUND);
    }
}
