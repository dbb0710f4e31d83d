//! Shared test helpers: the canonical conversation, fixtures, configs, odd servers.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use deft_llm::{
    Arguments, Image, Message, Part, ProviderConfig, ProviderKind, Request, ResultPart, RetryConfig, Role, Secret,
    ToolCall, ToolDef, ToolResult,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The key every test client uses; `secrets` checks it never shows.
pub const KEY: &str = "sk-test-SECRETKEY-0123456789abcdef";

/// The PNG signature: a tiny "image" whose base64 is `iVBORw0KGgo=`.
pub fn png() -> Image {
    Image::png(b"\x89PNG\r\n\x1a\n".to_vec())
}

/// The two tools of the canonical conversation.
pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "click".into(),
            description: "Click an element".into(),
            parameters: json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        },
        ToolDef {
            name: "look".into(),
            description: "Take a screenshot".into(),
            parameters: json!({"type": "object", "properties": {}}),
        },
    ]
}

fn call(id: &str, name: &str, args: Value) -> Part {
    Part::ToolCall(ToolCall { id: id.into(), name: name.into(), arguments: Arguments::Json(args), signature: None })
}

/// The conversation every provider's request fixture describes: a look answered with a
/// screenshot, then a failed click; `ids` are the provider's call ids.
pub fn conversation(ids: [&str; 2]) -> Request {
    let mut r = Request::new("You operate a desktop.", "Click Submit.");
    r.tools = tools();
    r.limits.max_tokens = 1024;
    r.limits.temperature = Some(0.2);
    r.messages.push(Message {
        role: Role::Assistant,
        parts: vec![Part::Text("Let me look first.".into()), call(ids[0], "look", json!({}))],
    });
    r.messages.push(Message {
        role: Role::User,
        parts: vec![Part::ToolResult(ToolResult {
            call_id: ids[0].into(),
            name: "look".into(),
            parts: vec![ResultPart::Text("a window with a Submit button".into()), ResultPart::Image(png())],
            is_error: false,
        })],
    });
    r.messages.push(Message {
        role: Role::Assistant,
        parts: vec![Part::Text("Clicking.".into()), call(ids[1], "click", json!({"name": "Submit"}))],
    });
    r.messages.push(Message {
        role: Role::User,
        parts: vec![
            Part::ToolResult(ToolResult {
                call_id: ids[1].into(),
                name: "click".into(),
                parts: vec![ResultPart::Text("no element named Submit".into())],
                is_error: true,
            }),
            Part::Text("Try again.".into()),
        ],
    });
    r
}

/// A fixture file's text.
pub fn fixture_text(path: &str) -> String {
    let full = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// A JSON fixture.
pub fn fixture(path: &str) -> Value {
    serde_json::from_str(&fixture_text(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Exact JSON equality, failing with the path of the first difference.
pub fn assert_json(expected: &Value, actual: &Value) {
    fn walk(path: &str, e: &Value, a: &Value, out: &mut Vec<String>) {
        match (e, a) {
            (Value::Object(eo), Value::Object(ao)) => {
                for (k, ev) in eo {
                    match ao.get(k) {
                        Some(av) => walk(&format!("{path}.{k}"), ev, av, out),
                        None => out.push(format!("{path}.{k}: missing (expected {ev})")),
                    }
                }
                for k in ao.keys().filter(|k| !eo.contains_key(*k)) {
                    out.push(format!("{path}.{k}: unexpected {}", ao[k]));
                }
            }
            (Value::Array(ea), Value::Array(aa)) if ea.len() == aa.len() => {
                for (i, (ev, av)) in ea.iter().zip(aa).enumerate() {
                    walk(&format!("{path}[{i}]"), ev, av, out);
                }
            }
            _ if e == a => {}
            _ => out.push(format!("{path}: expected {e}, got {a}")),
        }
    }
    let mut diffs = Vec::new();
    walk("$", expected, actual, &mut diffs);
    assert!(diffs.is_empty(), "request body differs from the fixture:\n  {}", diffs.join("\n  "));
}

/// A config for `kind` at `base_url` with a key and quick, seeded retries.
pub fn config(kind: ProviderKind, model: &str, base_url: &str) -> ProviderConfig {
    let mut c = ProviderConfig::new(kind, model);
    c.base_url = Some(base_url.to_string());
    c.api_key = Some(Secret::new(KEY));
    c.resolve_key(|_| None);
    c.timeout_ms = 20_000;
    c.retry = RetryConfig { max_attempts: 3, initial_delay_ms: 1, max_delay_ms: 2_000, seed: Some(42) };
    c
}

/// The JSON bodies the server received, in order.
pub async fn bodies(server: &wiremock::MockServer) -> Vec<Value> {
    server.received_requests().await.unwrap().iter().map(|r| serde_json::from_slice(&r.body).unwrap()).collect()
}

/// A server that answers every request with `head` and `body`, then closes the connection
/// (a body shorter than its `content-length` is a connection dropped mid-body). Returns
/// its base URL and the number of requests it received.
pub async fn raw_server(head: &'static str, body: &'static str) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else { return };
            let seen = seen.clone();
            tokio::spawn(async move {
                // Read the request: headers, then as many bytes as content-length says.
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let n = sock.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf);
                    if let Some(end) = text.find("\r\n\r\n") {
                        let len = text[..end]
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_string())
                            })
                            .and_then(|v| v.parse::<usize>().ok())
                            .unwrap_or(0);
                        if buf.len() >= end + 4 + len {
                            break;
                        }
                    }
                }
                seen.fetch_add(1, Ordering::SeqCst);
                let _ = sock.write_all(head.as_bytes()).await;
                let _ = sock.write_all(body.as_bytes()).await;
                let _ = sock.flush().await;
                // Dropping the socket closes the connection.
            });
        }
    });
    (url, count)
}

/// A free loopback port nothing listens on.
pub async fn closed_port_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}
