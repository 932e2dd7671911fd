//! A mock of the Anthropic Messages API for the real Claude Code client: a small
//! HTTP/1.1 server on an ephemeral 127.0.0.1 port, one thread per connection, every
//! response closing its connection.
//!
//! It answers what the client 2.1.330 asks (docs/client-reference.md §9.3):
//! - `POST /v1/messages` with `"stream": true`: server-sent events (`message_start`,
//!   `content_block_start`/`_delta`/`_stop`, `message_delta` with the usage,
//!   `message_stop`);
//! - `POST /v1/messages` without streaming (side requests such as titles): one JSON
//!   message;
//! - `POST /v1/messages/count_tokens`: `{"input_tokens": N}`;
//! - anything else: 404.
//!
//! A test scripts it: replies keyed by a word in the last user text ([`MockApi::on`]),
//! replies to a tool result ([`MockApi::on_tool_result`]), the usage every answer
//! reports ([`MockApi::set_context`]), and how slowly the compaction summary comes
//! ([`MockApi::set_summary_delay`]). Every request body is recorded
//! ([`MockApi::requests`]) so a test can assert what reached the model. The server
//! stops when the value is dropped.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The words that mark the client's compaction request (its last user message asks
/// for a summary of the conversation, manual or automatic).
const COMPACTION_MARKS: [&str; 2] = [
    "create a detailed summary of the conversation",
    "an <analysis> block followed by a <summary> block",
];

/// One content block of a reply, streamed the way the Messages API streams it
/// (`content_block_start`, its deltas, `content_block_stop`).
#[derive(Debug, Clone)]
pub enum Block {
    /// Text (`text_delta`s).
    Text(String),
    /// A tool call (`input_json_delta`s).
    Tool {
        /// `Bash`, `Write`, `Read`, …
        name: String,
        /// The tool's input.
        input: Value,
    },
    /// Extended thinking (`thinking_delta`s, then a `signature_delta`).
    Thinking(String),
}

/// What the model answers: one message of one or more content blocks. A reply with
/// a tool call stops with `tool_use`, any other with `end_turn`.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The blocks, in order.
    pub blocks: Vec<Block>,
}

impl Reply {
    /// A text answer.
    pub fn text(t: &str) -> Self {
        Self {
            blocks: vec![Block::Text(t.to_owned())],
        }
    }

    /// A tool call.
    pub fn tool(name: &str, input: Value) -> Self {
        Self {
            blocks: vec![Block::Tool {
                name: name.to_owned(),
                input,
            }],
        }
    }

    /// Any blocks, as a real model writes them: a sentence and then a tool call,
    /// several tool calls, thinking first.
    pub fn blocks(blocks: Vec<Block>) -> Self {
        Self { blocks }
    }

    /// A sentence, then one tool call (what real models nearly always send).
    pub fn say_then_tool(text: &str, name: &str, input: Value) -> Self {
        Self::blocks(vec![
            Block::Text(text.to_owned()),
            Block::Tool {
                name: name.to_owned(),
                input,
            },
        ])
    }

    fn has_tool(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b, Block::Tool { .. }))
    }
}

/// The token counts every answer reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// `input_tokens`.
    pub input: u64,
    /// `cache_creation_input_tokens`.
    pub cache_creation: u64,
    /// `cache_read_input_tokens`.
    pub cache_read: u64,
    /// `output_tokens`.
    pub output: u64,
}

impl Usage {
    /// A context of `tokens` input-side tokens (mostly cache reads, as a long session
    /// has), with 20 output tokens.
    pub fn context(tokens: u64) -> Self {
        Self {
            input: tokens.min(3),
            cache_creation: 0,
            cache_read: tokens.saturating_sub(3),
            output: 20,
        }
    }

    fn to_json(self) -> Value {
        json!({
            "input_tokens": self.input,
            "cache_creation_input_tokens": self.cache_creation,
            "cache_read_input_tokens": self.cache_read,
            "output_tokens": self.output,
        })
    }
}

/// One request as the mock received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST`, `GET`, …
    pub method: String,
    /// The path with its query (`/v1/messages?beta=true`).
    pub path: String,
    /// The JSON body (`null` when there was none or it did not parse).
    pub body: Value,
    /// When it arrived.
    pub at: std::time::SystemTime,
}

impl Recorded {
    /// Whether this is a model turn (`POST /v1/messages`, not `count_tokens`).
    pub fn is_message(&self) -> bool {
        self.method == "POST"
            && (self.path == "/v1/messages" || self.path.starts_with("/v1/messages?"))
    }

    /// Whether the client asked for a compaction summary.
    pub fn is_compaction(&self) -> bool {
        let text = last_user_blocks(&self.body);
        self.is_message() && COMPACTION_MARKS.iter().any(|m| text.contains(m))
    }

    /// Every text of the request's messages and system prompt, joined: what reached
    /// the model.
    pub fn all_text(&self) -> String {
        let mut out = String::new();
        collect_text(&self.body, &mut out);
        out
    }

    /// The last text block of the last user message (the newest prompt).
    pub fn last_user_text(&self) -> String {
        last_user_text(&self.body)
    }
}

struct Rule {
    word: String,
    reply: Reply,
    /// Makes the reply from the request instead (a path only the request names).
    make: Option<Maker>,
}

/// A reply made from the request it answers.
type Maker = Arc<dyn Fn(&Recorded) -> Reply + Send + Sync>;

impl Rule {
    fn reply_to(&self, r: &Recorded) -> Reply {
        self.make
            .as_ref()
            .map_or_else(|| self.reply.clone(), |make| make(r))
    }
}

struct Script {
    prompt_rules: Vec<Rule>,
    tool_result_rules: Vec<Rule>,
    usage: Usage,
    /// `(base, per)`: the context is `base + per × messages in the request`.
    per_message: Option<(u64, u64)>,
    summary_delay: Duration,
    /// The compaction summary's text (`None`: a two-line one).
    summary: Option<String>,
    /// How long every other model turn takes (a real model is not instant).
    reply_delay: Duration,
    requests: Vec<Recorded>,
    responses: u64,
}

/// The mock server. Dropping it stops the server.
pub struct MockApi {
    addr: SocketAddr,
    script: Arc<Mutex<Script>>,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

fn lock(script: &Mutex<Script>) -> MutexGuard<'_, Script> {
    script.lock().unwrap_or_else(PoisonError::into_inner)
}

impl MockApi {
    /// Starts the server on an ephemeral loopback port.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let script = Arc::new(Mutex::new(Script {
            prompt_rules: Vec::new(),
            tool_result_rules: Vec::new(),
            usage: Usage::context(12_000),
            per_message: None,
            summary_delay: Duration::ZERO,
            summary: None,
            reply_delay: Duration::ZERO,
            requests: Vec::new(),
            responses: 0,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let acceptor = {
            let script = Arc::clone(&script);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let script = Arc::clone(&script);
                    let stop = Arc::clone(&stop);
                    std::thread::spawn(move || {
                        // A client that hangs up mid-answer (Esc) is not an error.
                        let _ = serve(conn, &script, &stop);
                    });
                }
            })
        };
        Self {
            addr,
            script,
            stop,
            acceptor: Some(acceptor),
        }
    }

    /// `http://127.0.0.1:<port>`, for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// When the last user text contains `word`, answer `reply` (the first matching
    /// rule wins; without one the answer is a short text).
    pub fn on(&self, word: &str, reply: Reply) {
        lock(&self.script).prompt_rules.push(Rule {
            word: word.to_owned(),
            reply,
            make: None,
        });
    }

    /// [`MockApi::on`] with a reply made from the request (the plan file plan mode's
    /// reminder names, say).
    pub fn on_with(&self, word: &str, make: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) {
        lock(&self.script).prompt_rules.push(Rule {
            word: word.to_owned(),
            reply: Reply::text(""),
            make: Some(Arc::new(make)),
        });
    }

    /// When the request ends with a tool result whose text contains `word`, answer
    /// `reply` (without a matching rule the answer is the text `Done.`).
    pub fn on_tool_result(&self, word: &str, reply: Reply) {
        lock(&self.script).tool_result_rules.push(Rule {
            word: word.to_owned(),
            reply,
            make: None,
        });
    }

    /// Every answer from now on reports a context of `tokens` input-side tokens.
    pub fn set_context(&self, tokens: u64) {
        lock(&self.script).usage = Usage::context(tokens);
    }

    /// Every answer from now on reports a context that grows with the conversation:
    /// `base + per × the messages in the request` (a fresh session starts low again).
    pub fn set_context_per_message(&self, base: u64, per: u64) {
        lock(&self.script).per_message = Some((base, per));
    }

    /// The compaction summary comes after `delay` (a slow summary can be cancelled).
    pub fn set_summary_delay(&self, delay: Duration) {
        lock(&self.script).summary_delay = delay;
    }

    /// The compaction summary is `text` from now on (the `<analysis>` and
    /// `<summary>` blocks a real model writes, its numbered sections inside).
    pub fn set_summary(&self, text: &str) {
        lock(&self.script).summary = Some(text.to_owned());
    }

    /// Every model turn but the compaction summary takes `delay` from now on (as a
    /// real model takes seconds: a relay can land while a request is in flight).
    pub fn set_reply_delay(&self, delay: Duration) {
        lock(&self.script).reply_delay = delay;
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.script).requests.clone()
    }

    /// The model turns so far (`POST /v1/messages`), oldest first.
    pub fn messages(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(Recorded::is_message)
            .collect()
    }

    /// A readable list of the requests, for a failing test's report.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (i, r) in self.requests().iter().enumerate() {
            let last: String = r.last_user_text().chars().take(160).collect();
            let kind = if r.is_compaction() {
                "compaction"
            } else if r.body.get("stream") == Some(&Value::Bool(true)) {
                "stream"
            } else {
                "json"
            };
            let _ = writeln!(
                out,
                "#{i} {} {} [{kind}] last user text: {:?}",
                r.method, r.path, last
            );
        }
        out
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the acceptor so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.acceptor.take() {
            let _ = t.join();
        }
    }
}

// ----- reading requests ---------------------------------------------------------------

fn collect_text(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| collect_text(x, out)),
        Value::Object(o) => {
            // Strings only under the keys that hold text (not `type`, `role`, ids);
            // a ToolSearch result names the tools it loaded (`tool_reference`).
            for (k, x) in o {
                let text_key = matches!(
                    k.as_str(),
                    "text" | "content" | "system" | "messages" | "tool_name"
                );
                if text_key || x.is_array() || x.is_object() {
                    collect_text(x, out);
                }
            }
        }
        _ => {}
    }
}

fn last_user(body: &Value) -> Option<&Value> {
    body.get("messages")?
        .as_array()?
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
}

/// The texts of the last user message's text blocks (a string content counts whole).
fn last_user_blocks(body: &Value) -> String {
    match last_user(body).and_then(|m| m.get("content")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn last_user_text(body: &Value) -> String {
    match last_user(body).and_then(|m| m.get("content")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .rev()
            .find_map(|b| {
                (b.get("type").and_then(Value::as_str) == Some("text"))
                    .then(|| b.get("text").and_then(Value::as_str))
                    .flatten()
            })
            .unwrap_or_default()
            .to_owned(),
        _ => String::new(),
    }
}

/// The text of the tool results in the last message, when it carries any.
fn tool_result_text(body: &Value) -> Option<String> {
    let last = body.get("messages")?.as_array()?.last()?;
    let blocks = last.get("content")?.as_array()?;
    let results: Vec<&Value> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .collect();
    if results.is_empty() {
        return None;
    }
    let mut out = String::new();
    for r in results {
        collect_text(r.get("content").unwrap_or(&Value::Null), &mut out);
    }
    Some(out)
}

// ----- serving ------------------------------------------------------------------------

struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

fn read_request(
    reader: &mut BufReader<TcpStream>,
    out: &mut TcpStream,
) -> std::io::Result<Request> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse().unwrap_or(0),
            "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
            "expect" if value.eq_ignore_ascii_case("100-continue") => {
                out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
            }
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if size == 0 {
                // The trailer's blank line.
                line.clear();
                reader.read_line(&mut line)?;
                break;
            }
            let mut chunk = vec![0; size];
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk);
            line.clear();
            reader.read_line(&mut line)?;
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Request { method, path, body })
}

fn serve(conn: TcpStream, script: &Mutex<Script>, stop: &AtomicBool) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut out = conn.try_clone()?;
    let mut reader = BufReader::new(conn);
    let req = read_request(&mut reader, &mut out)?;
    if req.method.is_empty() {
        return Ok(());
    }
    let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let recorded = Recorded {
        method: req.method.clone(),
        path: req.path.clone(),
        body: body.clone(),
        at: std::time::SystemTime::now(),
    };
    lock(script).requests.push(recorded.clone());

    if req.method == "POST" && req.path.starts_with("/v1/messages/count_tokens") {
        let text = recorded.all_text();
        return write_json(
            &mut out,
            200,
            &json!({"input_tokens": (text.len() / 4).max(1)}),
        );
    }
    if !recorded.is_message() {
        return write_json(
            &mut out,
            404,
            &json!({"type":"error","error":{"type":"not_found_error","message":"not mocked"}}),
        );
    }

    let (reply, usage, delay, id) = {
        let mut s = lock(script);
        s.responses += 1;
        let id = s.responses;
        let (reply, mut delay) = choose(&s, &recorded);
        // Side requests (titles, the permission classifier) are not slowed down.
        if body.get("stream") != Some(&Value::Bool(true)) && !recorded.is_compaction() {
            delay = Duration::ZERO;
        }
        let usage = match s.per_message {
            Some((base, per)) => {
                let n = body
                    .get("messages")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len) as u64;
                Usage::context(base + per * n)
            }
            None => s.usage,
        };
        (reply, usage, delay, id)
    };
    // A slow answer (a summary the test wants to cancel) checks the stop flag, so the
    // server still stops with the test.
    let until = Instant::now() + delay;
    while Instant::now() < until {
        if stop.load(Ordering::SeqCst) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-sonnet-4-6")
        .to_owned();
    let blocks: Vec<Value> = reply
        .blocks
        .iter()
        .enumerate()
        .map(|(k, b)| match b {
            Block::Text(t) => json!({"type":"text","text":t}),
            // Several tool calls of one reply get ids of their own.
            Block::Tool { name, input } => json!({
                "type":"tool_use","id":format!("toolu_mock{id:04}_{k}"),"name":name,"input":input
            }),
            Block::Thinking(t) => json!({"type":"thinking","thinking":t,
                                         "signature":format!("sig_mock{id:04}_{k}")}),
        })
        .collect();
    let stop_reason = if reply.has_tool() {
        "tool_use"
    } else {
        "end_turn"
    };
    let msg_id = format!("msg_mock{id:04}");
    if body.get("stream") != Some(&Value::Bool(true)) {
        return write_json(
            &mut out,
            200,
            &json!({"id":msg_id,"type":"message","role":"assistant","model":model,
                    "content":blocks,"stop_reason":stop_reason,"stop_sequence":null,
                    "usage":usage.to_json()}),
        );
    }
    write_stream(&mut out, &msg_id, &model, &blocks, stop_reason, usage)
}

/// The reply to a model turn and how long to wait before giving it.
fn choose(s: &Script, r: &Recorded) -> (Reply, Duration) {
    if r.is_compaction() {
        let summary = s.summary.clone().unwrap_or_else(|| {
            "<analysis>The user is testing forge with a mock model.</analysis>\n\
             <summary>1. Primary Request and Intent: exercise forge's hooks.\n\
             2. Pending Tasks: none.</summary>"
                .to_owned()
        });
        return (Reply::text(&summary), s.summary_delay);
    }
    if let Some(result) = tool_result_text(&r.body) {
        let reply = s
            .tool_result_rules
            .iter()
            .find(|rule| result.contains(&rule.word))
            .map_or_else(|| Reply::text("Done."), |rule| rule.reply_to(r));
        return (reply, s.reply_delay);
    }
    let text = r.last_user_text();
    let reply = s
        .prompt_rules
        .iter()
        .find(|rule| text.contains(&rule.word))
        .map_or_else(|| Reply::text("OK."), |rule| rule.reply_to(r));
    (reply, s.reply_delay)
}

fn write_json(out: &mut TcpStream, status: u16, v: &Value) -> std::io::Result<()> {
    let body = v.to_string();
    let reason = if status == 200 { "OK" } else { "Not Found" };
    write!(
        out,
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

fn write_stream(
    out: &mut TcpStream,
    msg_id: &str,
    model: &str,
    blocks: &[Value],
    stop_reason: &str,
    usage: Usage,
) -> std::io::Result<()> {
    out.write_all(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
          connection: close\r\n\r\n",
    )?;
    let mut event = |name: &str, data: Value| -> std::io::Result<()> {
        write!(out, "event: {name}\ndata: {data}\n\n")?;
        out.flush()
    };
    let mut start_usage = usage.to_json();
    start_usage["output_tokens"] = json!(1);
    event(
        "message_start",
        json!({"type":"message_start","message":{"id":msg_id,"type":"message",
               "role":"assistant","model":model,"content":[],"stop_reason":null,
               "stop_sequence":null,"usage":start_usage}}),
    )?;
    for (i, b) in blocks.iter().enumerate() {
        if b["type"] == "text" {
            event(
                "content_block_start",
                json!({"type":"content_block_start","index":i,
                       "content_block":{"type":"text","text":""}}),
            )?;
            // Text comes in pieces, as the real API sends it.
            for piece in pieces(b["text"].as_str().unwrap_or_default()) {
                event(
                    "content_block_delta",
                    json!({"type":"content_block_delta","index":i,
                           "delta":{"type":"text_delta","text":piece}}),
                )?;
            }
        } else if b["type"] == "thinking" {
            event(
                "content_block_start",
                json!({"type":"content_block_start","index":i,
                       "content_block":{"type":"thinking","thinking":"","signature":""}}),
            )?;
            for piece in pieces(b["thinking"].as_str().unwrap_or_default()) {
                event(
                    "content_block_delta",
                    json!({"type":"content_block_delta","index":i,
                           "delta":{"type":"thinking_delta","thinking":piece}}),
                )?;
            }
            event(
                "content_block_delta",
                json!({"type":"content_block_delta","index":i,
                       "delta":{"type":"signature_delta","signature":b["signature"]}}),
            )?;
        } else {
            event(
                "content_block_start",
                json!({"type":"content_block_start","index":i,
                       "content_block":{"type":"tool_use","id":b["id"],"name":b["name"],
                                        "input":{}}}),
            )?;
            // The input JSON in two pieces: the client must join them.
            let input = b["input"].to_string();
            let cut = input
                .char_indices()
                .map(|(k, _)| k)
                .nth(input.chars().count() / 2)
                .unwrap_or(0);
            for piece in [&input[..cut], &input[cut..]] {
                event(
                    "content_block_delta",
                    json!({"type":"content_block_delta","index":i,
                           "delta":{"type":"input_json_delta","partial_json":piece}}),
                )?;
            }
        }
        event(
            "content_block_stop",
            json!({"type":"content_block_stop","index":i}),
        )?;
    }
    event(
        "message_delta",
        json!({"type":"message_delta","delta":{"stop_reason":stop_reason,"stop_sequence":null},
               "usage":usage.to_json()}),
    )?;
    event("message_stop", json!({"type":"message_stop"}))
}

/// `text` in pieces of a few words (at least one piece, possibly empty).
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for (k, word) in text.split_inclusive(' ').enumerate() {
        cur.push_str(word);
        if k % 3 == 2 {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A raw HTTP/1.1 POST to the mock; returns the whole response text.
    fn post(api: &MockApi, path: &str, body: &Value) -> String {
        let mut s = TcpStream::connect(api.addr).unwrap();
        let body = body.to_string();
        write!(
            s,
            "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
             content-length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    fn user(text: &str) -> Value {
        json!({"model":"claude-sonnet-4-6","stream":true,
               "messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},
                                                     {"type":"text","text":text}]}]})
    }

    #[test]
    fn scripted_replies_stream_with_the_usage_and_requests_are_recorded() {
        let api = MockApi::start();
        api.set_context(150_000);
        api.on("RUN-IT", Reply::tool("Bash", json!({"command":"echo hi"})));
        let sse = post(&api, "/v1/messages?beta=true", &user("please RUN-IT now"));
        assert!(sse.starts_with("HTTP/1.1 200 OK"), "{sse}");
        for e in [
            "event: message_start",
            "event: content_block_start",
            "\"name\":\"Bash\"",
            "input_json_delta",
            "event: content_block_stop",
            "event: message_delta",
            "\"cache_read_input_tokens\":149997",
            "event: message_stop",
        ] {
            assert!(sse.contains(e), "{e} missing from {sse}");
        }
        let plain = post(&api, "/v1/messages", &user("hello"));
        assert!(plain.contains("\"text\":\"OK.\""), "{plain}");
        let mut non_stream = user("title please");
        non_stream["stream"] = json!(false);
        let title = post(&api, "/v1/messages", &non_stream);
        let body = title.split("\r\n\r\n").nth(1).unwrap();
        let v: Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["content"][0]["text"], "OK.");
        assert_eq!(v["usage"]["cache_read_input_tokens"], 149_997);
        let count = post(&api, "/v1/messages/count_tokens", &user("count me"));
        assert!(count.contains("input_tokens"), "{count}");
        assert!(post(&api, "/v1/other", &json!({})).starts_with("HTTP/1.1 404"));
        let reqs = api.requests();
        assert_eq!(reqs.len(), 5);
        assert_eq!(reqs[0].last_user_text(), "please RUN-IT now");
        assert!(reqs[0].all_text().contains("<system-reminder>x"));
        assert_eq!(api.messages().len(), 3);
    }

    #[test]
    fn a_reply_streams_each_block_as_the_messages_api_does() {
        let api = MockApi::start();
        api.set_context(40_000);
        api.on(
            "SEVERAL",
            Reply::blocks(vec![
                Block::Thinking("Let me think about it first.".into()),
                Block::Text("I'll run the tests and list the files.".into()),
                Block::Tool {
                    name: "Bash".into(),
                    input: json!({"command": "cargo test"}),
                },
                Block::Tool {
                    name: "Bash".into(),
                    input: json!({"command": "ls"}),
                },
            ]),
        );
        let sse = post(&api, "/v1/messages", &user("SEVERAL please"));
        let events: Vec<Value> = sse
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect();
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        // One start and one stop per block, with the block's deltas between.
        assert_eq!(
            kinds
                .iter()
                .filter(|k| **k == "content_block_start")
                .count(),
            4
        );
        assert_eq!(
            kinds.iter().filter(|k| **k == "content_block_stop").count(),
            4
        );
        let deltas = |i: u64, t: &str| -> Vec<Value> {
            events
                .iter()
                .filter(|e| {
                    e["type"] == "content_block_delta" && e["index"] == i && e["delta"]["type"] == t
                })
                .map(|e| e["delta"].clone())
                .collect()
        };
        let thought: String = deltas(0, "thinking_delta")
            .iter()
            .map(|d| d["thinking"].as_str().unwrap())
            .collect();
        assert_eq!(thought, "Let me think about it first.");
        assert_eq!(deltas(0, "signature_delta").len(), 1);
        let text = deltas(1, "text_delta");
        assert!(text.len() > 1, "text comes in pieces");
        let text: String = text.iter().map(|d| d["text"].as_str().unwrap()).collect();
        assert_eq!(text, "I'll run the tests and list the files.");
        let input: String = deltas(3, "input_json_delta")
            .iter()
            .map(|d| d["partial_json"].as_str().unwrap())
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&input).unwrap(),
            json!({"command": "ls"})
        );
        let ids: Vec<&str> = events
            .iter()
            .filter(|e| e["content_block"]["type"] == "tool_use")
            .map(|e| e["content_block"]["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1]);
        let delta = events
            .iter()
            .find(|e| e["type"] == "message_delta")
            .unwrap();
        assert_eq!(delta["delta"]["stop_reason"], "tool_use");
        assert_eq!(delta["usage"]["cache_read_input_tokens"], 39_997);
        // A slow model: the reply waits, side requests do not.
        api.set_reply_delay(Duration::from_millis(300));
        let started = Instant::now();
        post(&api, "/v1/messages", &user("hello"));
        assert!(started.elapsed() >= Duration::from_millis(300));
        let mut side = user("title");
        side["stream"] = json!(false);
        let started = Instant::now();
        post(&api, "/v1/messages", &side);
        assert!(started.elapsed() < Duration::from_millis(300));
    }

    #[test]
    fn a_tool_search_result_names_the_tools_it_loaded() {
        let api = MockApi::start();
        // ToolSearch's result names the tool it loaded.
        api.on_tool_result("mcp__x__y", Reply::tool("mcp__x__y", json!({"a": 1})));
        let mut body = user("x");
        body["messages"] = json!([
            {"role":"user","content":"go"},
            {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ToolSearch","input":{}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1",
              "content":[{"type":"tool_reference","tool_name":"mcp__x__y"}]},
              {"type":"text","text":"Tool loaded."}]}
        ]);
        assert!(post(&api, "/v1/messages", &body).contains("\"name\":\"mcp__x__y\""));
    }

    #[test]
    fn tool_results_and_compaction_requests_get_their_own_answers() {
        let api = MockApi::start();
        api.on_tool_result(
            "hook error",
            Reply::tool("Write", json!({"file_path":"/x"})),
        );
        let mut body = user("x");
        body["messages"] = json!([
            {"role":"user","content":"write it"},
            {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,
              "content":"PreToolUse:Write hook error: held back"}]}
        ]);
        assert!(post(&api, "/v1/messages", &body).contains("\"name\":\"Write\""));
        body["messages"][2]["content"][0]["content"] = json!("fine");
        assert!(post(&api, "/v1/messages", &body).contains("Done."));
        api.set_summary_delay(Duration::from_millis(300));
        let started = Instant::now();
        let summary = post(
            &api,
            "/v1/messages",
            &user("Your task is to create a detailed summary of the conversation so far"),
        );
        assert!(summary.contains("<summary>"), "{summary}");
        assert!(started.elapsed() >= Duration::from_millis(300));
        assert!(api.requests().last().unwrap().is_compaction());
    }
}
