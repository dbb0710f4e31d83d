//! The two wire formats the test model speaks: OpenAI-compatible chat completions and
//! Anthropic Messages, read into one neutral view of what the agent sent, and its reply
//! written back in the same format (a whole JSON body, or a stream of server-sent events).

use serde_json::{Value, json};

use super::Usage;

/// Which format a request came in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// `POST /v1/chat/completions`.
    OpenAi,
    /// `POST /v1/messages`.
    Anthropic,
}

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum From {
    /// The agent's side (goal, tool results, notes).
    User,
    /// The model's side.
    Assistant,
}

/// A tool call the model made earlier in the conversation.
#[derive(Clone, Debug, PartialEq)]
pub struct SeenCall {
    /// Its id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments.
    pub args: Value,
}

/// A tool result the agent sent.
#[derive(Clone, Debug, PartialEq)]
pub struct SeenResult {
    /// The call it answers.
    pub call_id: String,
    /// Its text.
    pub text: String,
}

/// One message, neutral.
#[derive(Clone, Debug, PartialEq)]
pub struct SeenMessage {
    /// Who wrote it.
    pub from: From,
    /// Its text parts, joined.
    pub text: String,
    /// Tool calls (assistant).
    pub calls: Vec<SeenCall>,
    /// Tool results (user).
    pub results: Vec<SeenResult>,
    /// Images attached.
    pub images: usize,
}

/// A request as the test model reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    /// The format.
    pub wire: Wire,
    /// The model name asked for.
    pub model: String,
    /// The system prompt.
    pub system: String,
    /// The conversation.
    pub messages: Vec<SeenMessage>,
    /// The tools offered, with their parameter schemas.
    pub tools: Vec<(String, Value)>,
    /// Top log-probabilities asked for.
    pub logprobs: Option<u64>,
    /// Samples asked for.
    pub n: u64,
    /// A streamed reply asked for.
    pub stream: bool,
    /// Characters of text in the request (for the token estimate).
    pub chars: usize,
}

fn text_of(content: &Value) -> (String, usize) {
    match content {
        Value::String(s) => (s.clone(), 0),
        Value::Array(parts) => {
            let mut t = String::new();
            let mut images = 0;
            for p in parts {
                match p["type"].as_str() {
                    Some("text") => t.push_str(p["text"].as_str().unwrap_or_default()),
                    Some("image_url" | "image") => images += 1,
                    _ => {}
                }
            }
            (t, images)
        }
        _ => (String::new(), 0),
    }
}

/// Read a request body of `wire`.
pub fn parse(wire: Wire, body: &Value) -> Seen {
    let mut messages = Vec::new();
    let mut system = String::new();
    let mut tools = Vec::new();
    match wire {
        Wire::OpenAi => {
            for m in body["messages"].as_array().into_iter().flatten() {
                let (text, images) = text_of(&m["content"]);
                match m["role"].as_str() {
                    Some("system" | "developer") => system.push_str(&text),
                    Some("assistant") => {
                        let calls = m["tool_calls"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(|c| SeenCall {
                                id: c["id"].as_str().unwrap_or_default().into(),
                                name: c["function"]["name"].as_str().unwrap_or_default().into(),
                                args: serde_json::from_str(c["function"]["arguments"].as_str().unwrap_or("{}"))
                                    .unwrap_or(Value::Null),
                            })
                            .collect();
                        messages.push(SeenMessage { from: From::Assistant, text, calls, results: vec![], images });
                    }
                    Some("tool") => {
                        let r = SeenResult { call_id: m["tool_call_id"].as_str().unwrap_or_default().into(), text };
                        // Consecutive tool messages answer one assistant turn: keep them together.
                        match messages.last_mut() {
                            Some(last)
                                if last.from == From::User && last.text.is_empty() && !last.results.is_empty() =>
                            {
                                last.results.push(r)
                            }
                            _ => messages.push(SeenMessage {
                                from: From::User,
                                text: String::new(),
                                calls: vec![],
                                results: vec![r],
                                images: 0,
                            }),
                        }
                    }
                    _ => {
                        // A user message right after tool messages carries their notes and images.
                        match messages.last_mut() {
                            Some(last) if last.from == From::User && !last.results.is_empty() => {
                                last.text.push_str(&text);
                                last.images += images;
                            }
                            _ => messages.push(SeenMessage {
                                from: From::User,
                                text,
                                calls: vec![],
                                results: vec![],
                                images,
                            }),
                        }
                    }
                }
            }
            for t in body["tools"].as_array().into_iter().flatten() {
                tools.push((
                    t["function"]["name"].as_str().unwrap_or_default().to_string(),
                    t["function"]["parameters"].clone(),
                ));
            }
        }
        Wire::Anthropic => {
            system = text_of(&body["system"]).0;
            for m in body["messages"].as_array().into_iter().flatten() {
                let from = if m["role"] == "assistant" { From::Assistant } else { From::User };
                let mut msg = SeenMessage { from, text: String::new(), calls: vec![], results: vec![], images: 0 };
                match &m["content"] {
                    Value::String(s) => msg.text = s.clone(),
                    Value::Array(blocks) => {
                        for b in blocks {
                            match b["type"].as_str() {
                                Some("text") => msg.text.push_str(b["text"].as_str().unwrap_or_default()),
                                Some("image") => msg.images += 1,
                                Some("tool_use") => msg.calls.push(SeenCall {
                                    id: b["id"].as_str().unwrap_or_default().into(),
                                    name: b["name"].as_str().unwrap_or_default().into(),
                                    args: b["input"].clone(),
                                }),
                                Some("tool_result") => {
                                    let (t, images) = text_of(&b["content"]);
                                    msg.images += images;
                                    let t = if b["is_error"] == true { format!("[error] {t}") } else { t };
                                    msg.results.push(SeenResult {
                                        call_id: b["tool_use_id"].as_str().unwrap_or_default().into(),
                                        text: t,
                                    });
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
                messages.push(msg);
            }
            for t in body["tools"].as_array().into_iter().flatten() {
                tools.push((t["name"].as_str().unwrap_or_default().to_string(), t["input_schema"].clone()));
            }
        }
    }
    let chars = system.len()
        + messages.iter().map(|m| m.text.len() + m.results.iter().map(|r| r.text.len()).sum::<usize>()).sum::<usize>()
        + tools.iter().map(|(n, s)| n.len() + s.to_string().len()).sum::<usize>();
    Seen {
        wire,
        model: body["model"].as_str().unwrap_or_default().to_string(),
        system,
        messages,
        tools,
        logprobs: if body["logprobs"] == true { body["top_logprobs"].as_u64().or(Some(0)) } else { None },
        n: body["n"].as_u64().unwrap_or(1),
        stream: body["stream"] == true,
        chars,
    }
}

/// What the test model answers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// The text (its thought, or a letter).
    pub text: String,
    /// A tool call, when it acts.
    pub calls: Vec<(String, Value)>,
    /// The first token's alternatives with their natural-log probabilities, when asked for.
    pub top_logprobs: Option<Vec<(String, f64)>>,
    /// Further samples' texts (`n` > 1).
    pub samples: Vec<String>,
}

/// The label every reply carries, so that no reader takes it for an LLM.
pub const MODEL_LABEL: &str = "deft-test-model (test model: a deterministic policy, not an LLM)";

/// The reply as a JSON body of `wire`.
pub fn body(wire: Wire, r: &Reply, usage: &Usage, seq: u64) -> Value {
    let out_tokens = (r.text.len() / 4 + 1) as u64 + r.calls.len() as u64 * 20;
    match wire {
        Wire::OpenAi => {
            let tool_calls: Vec<Value> = r
                .calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| {
                    json!({"id": format!("call_{seq}_{i}"), "type": "function", "function": {"name": name, "arguments": args.to_string()}})
                })
                .collect();
            let mut message = json!({"role": "assistant", "content": r.text});
            if !tool_calls.is_empty() {
                message["tool_calls"] = Value::Array(tool_calls);
            }
            let mut first = json!({"index": 0, "message": message, "finish_reason": if r.calls.is_empty() { "stop" } else { "tool_calls" }});
            if let Some(top) = &r.top_logprobs {
                let tops: Vec<Value> =
                    top.iter().map(|(t, lp)| json!({"token": t, "logprob": lp, "bytes": t.as_bytes()})).collect();
                let (t0, lp0) = top.first().cloned().unwrap_or_default();
                first["logprobs"] =
                    json!({"content": [{"token": t0, "logprob": lp0, "bytes": t0.as_bytes(), "top_logprobs": tops}]});
            }
            let mut choices = vec![first];
            for (i, s) in r.samples.iter().enumerate() {
                choices.push(
                    json!({"index": i + 1, "message": {"role": "assistant", "content": s}, "finish_reason": "stop"}),
                );
            }
            json!({
                "id": format!("chatcmpl-test-{seq}"),
                "object": "chat.completion",
                "created": 0,
                "model": MODEL_LABEL,
                "choices": choices,
                "usage": openai_usage(usage, out_tokens)
            })
        }
        Wire::Anthropic => {
            let mut content = Vec::new();
            if !r.text.is_empty() {
                content.push(json!({"type": "text", "text": r.text}));
            }
            for (i, (name, args)) in r.calls.iter().enumerate() {
                content
                    .push(json!({"type": "tool_use", "id": format!("toolu_{seq}_{i}"), "name": name, "input": args}));
            }
            json!({
                "id": format!("msg_test_{seq}"),
                "type": "message",
                "role": "assistant",
                "model": MODEL_LABEL,
                "content": content,
                "stop_reason": if r.calls.is_empty() { "end_turn" } else { "tool_use" },
                "stop_sequence": null,
                "usage": anthropic_usage(usage, out_tokens)
            })
        }
    }
}

/// OpenAI's usage: `prompt_tokens` counts the cached ones too, told apart in its details.
fn openai_usage(u: &Usage, out_tokens: u64) -> Value {
    let prompt = u.input + u.cache_read;
    json!({"prompt_tokens": prompt, "completion_tokens": out_tokens, "total_tokens": prompt + out_tokens,
           "prompt_tokens_details": {"cached_tokens": u.cache_read}})
}

/// Anthropic's usage: `input_tokens` counts neither what was read from the cache nor what
/// was written to it.
fn anthropic_usage(u: &Usage, out_tokens: u64) -> Value {
    json!({"input_tokens": u.input, "output_tokens": out_tokens, "cache_creation_input_tokens": u.cache_write,
           "cache_read_input_tokens": u.cache_read})
}

fn chunks(text: &str) -> Vec<String> {
    // A few pieces, split at spaces, so that streaming is exercised.
    let mut out = Vec::new();
    let mut cur = String::new();
    for w in text.split_inclusive(' ') {
        cur.push_str(w);
        if cur.len() > 24 {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The reply as server-sent events of `wire`.
pub fn stream(wire: Wire, r: &Reply, usage: &Usage, seq: u64) -> Vec<String> {
    let out_tokens = (r.text.len() / 4 + 1) as u64;
    let sse = |event: Option<&str>, data: Value| match event {
        Some(e) => format!("event: {e}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    };
    match wire {
        Wire::OpenAi => {
            let id = format!("chatcmpl-test-{seq}");
            let chunk = |delta: Value, finish: Value| {
                sse(
                    None,
                    json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": MODEL_LABEL, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
                )
            };
            let mut ev = vec![chunk(json!({"role": "assistant", "content": ""}), Value::Null)];
            for c in chunks(&r.text) {
                ev.push(chunk(json!({"content": c}), Value::Null));
            }
            for (i, (name, args)) in r.calls.iter().enumerate() {
                ev.push(chunk(
                    json!({"tool_calls": [{"index": i, "id": format!("call_{seq}_{i}"), "type": "function", "function": {"name": name, "arguments": ""}}]}),
                    Value::Null,
                ));
                ev.push(chunk(
                    json!({"tool_calls": [{"index": i, "function": {"arguments": args.to_string()}}]}),
                    Value::Null,
                ));
            }
            ev.push(chunk(json!({}), json!(if r.calls.is_empty() { "stop" } else { "tool_calls" })));
            ev.push(sse(None, json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": MODEL_LABEL, "choices": [], "usage": openai_usage(usage, out_tokens)})));
            ev.push("data: [DONE]\n\n".into());
            ev
        }
        Wire::Anthropic => {
            let mut ev = vec![sse(
                Some("message_start"),
                json!({"type": "message_start", "message": {"id": format!("msg_test_{seq}"), "type": "message", "role": "assistant", "content": [], "model": MODEL_LABEL, "stop_reason": null, "stop_sequence": null, "usage": anthropic_usage(usage, 1)}}),
            )];
            let mut index = 0;
            if !r.text.is_empty() {
                ev.push(sse(Some("content_block_start"), json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
                for c in chunks(&r.text) {
                    ev.push(sse(Some("content_block_delta"), json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": c}})));
                }
                ev.push(sse(Some("content_block_stop"), json!({"type": "content_block_stop", "index": index})));
                index += 1;
            }
            for (i, (name, args)) in r.calls.iter().enumerate() {
                ev.push(sse(Some("content_block_start"), json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": format!("toolu_{seq}_{i}"), "name": name, "input": {}}})));
                ev.push(sse(Some("content_block_delta"), json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": args.to_string()}})));
                ev.push(sse(Some("content_block_stop"), json!({"type": "content_block_stop", "index": index})));
                index += 1;
            }
            ev.push(sse(Some("message_delta"), json!({"type": "message_delta", "delta": {"stop_reason": if r.calls.is_empty() { "end_turn" } else { "tool_use" }, "stop_sequence": null}, "usage": {"output_tokens": out_tokens}})));
            ev.push(sse(Some("message_stop"), json!({"type": "message_stop"})));
            ev
        }
    }
}
