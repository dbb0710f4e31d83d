//! The Anthropic conversion: back from the wire (test-only), round trips, cache breakpoints.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::wire::{Block, ResultBlock, ResultContent, WireRequest, to_wire};
use crate::message::{Arguments, Message, Opaque, Part, ResultPart, Role, ToolCall, ToolResult};
use crate::request::{Cache, Limits, Request, ToolChoice, ToolDef};
use crate::testgen::{Caps, carried, request};

/// The conversation a request body describes: the inverse of `to_wire`.
fn back(w: &WireRequest) -> Request {
    let system = w.system.iter().map(|b| if let Block::Text { text, .. } = b { text.as_str() } else { "" }).collect();
    let mut names = std::collections::HashMap::new();
    let messages = w
        .messages
        .iter()
        .map(|m| Message {
            role: if m.role == "user" { Role::User } else { Role::Assistant },
            parts: m
                .content
                .iter()
                .map(|b| match b {
                    Block::Text { text, .. } => Part::Text(text.clone()),
                    Block::Image { source, .. } => Part::Image(source.to_image().unwrap()),
                    Block::ToolUse { id, name, input, .. } => {
                        names.insert(id.clone(), name.clone());
                        Part::ToolCall(ToolCall {
                            id: id.clone(),
                            name: name.clone(),
                            arguments: Arguments::Json(input.clone()),
                            signature: None,
                        })
                    }
                    Block::ToolResult { tool_use_id, content, is_error, .. } => Part::ToolResult(ToolResult {
                        call_id: tool_use_id.clone(),
                        name: names.get(tool_use_id).cloned().unwrap_or_default(),
                        parts: match content {
                            ResultContent::Text(t) => vec![ResultPart::Text(t.clone())],
                            ResultContent::Blocks(bs) => bs
                                .iter()
                                .map(|b| match b {
                                    ResultBlock::Text { text } => ResultPart::Text(text.clone()),
                                    ResultBlock::Image { source } => ResultPart::Image(source.to_image().unwrap()),
                                })
                                .collect(),
                        },
                        is_error: *is_error,
                    }),
                    Block::Other(v) => Part::Opaque(Opaque { provider: "anthropic".into(), block: v.clone() }),
                })
                .collect(),
        })
        .collect();
    let tool_choice = match &w.tool_choice {
        Some(v) if v["type"] == "any" => ToolChoice::Required,
        Some(v) if v["type"] == "none" => ToolChoice::None,
        Some(v) if v["type"] == "tool" => ToolChoice::Tool(v["name"].as_str().unwrap().into()),
        _ => ToolChoice::Auto,
    };
    Request {
        system,
        messages,
        tools: w
            .tools
            .iter()
            .map(|t| ToolDef {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.input_schema.clone(),
            })
            .collect(),
        tool_choice,
        limits: Limits { max_tokens: w.max_tokens, temperature: w.temperature, stop: w.stop_sequences.clone() },
        asks: Default::default(),
        cache: Cache::default(),
    }
}

const CAPS: Caps =
    Caps { opaque: Some("anthropic"), signatures: false, malformed_args: false, interleaved_results: true };

proptest! {
    #[test]
    fn any_conversation_converts_and_parses_back(req in request(CAPS)) {
        let wire = to_wire("claude-test", &req, false).unwrap();
        // Through JSON text, as it travels.
        let text = serde_json::to_string(&wire).unwrap();
        let parsed: WireRequest = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&parsed, &wire);
        prop_assert_eq!(carried(&back(&parsed)), carried(&req));
    }
}

fn sample(system: &str) -> Request {
    let mut r = Request::new(system, "hello");
    r.tools = vec![
        ToolDef { name: "click".into(), description: "Click".into(), parameters: json!({"type": "object"}) },
        ToolDef { name: "look".into(), description: "Screenshot".into(), parameters: json!({"type": "object"}) },
    ];
    r.messages.push(Message {
        role: Role::Assistant,
        parts: vec![
            Part::Opaque(Opaque {
                provider: "anthropic".into(),
                block: json!({"type": "thinking", "thinking": "hmm", "signature": "c2ln"}),
            }),
            Part::ToolCall(ToolCall {
                id: "toolu_1".into(),
                name: "look".into(),
                arguments: Arguments::Json(json!({})),
                signature: None,
            }),
        ],
    });
    r.messages.push(Message {
        role: Role::User,
        parts: vec![Part::ToolResult(ToolResult {
            call_id: "toolu_1".into(),
            name: "look".into(),
            parts: vec![ResultPart::Text("ok".into())],
            is_error: false,
        })],
    });
    r
}

fn wire_json(r: &Request) -> Value {
    serde_json::to_value(to_wire("m", r, false).unwrap()).unwrap()
}

#[test]
fn cache_breakpoints_on_the_prefix_and_a_message() {
    let mut r = sample("be careful");
    r.cache = Cache::through_newest(r.messages.len());
    let w = wire_json(&r);
    let eph = json!({"type": "ephemeral"});
    assert_eq!(w["system"], json!([{"type": "text", "text": "be careful", "cache_control": eph}]));
    assert!(w["tools"][1].get("cache_control").is_none(), "the system breakpoint covers the tools");
    assert_eq!(w["messages"][2]["content"][0]["cache_control"], eph);
    assert!(w["messages"][0]["content"][0].get("cache_control").is_none());
}

#[test]
fn without_a_system_prompt_the_last_tool_holds_the_prefix_breakpoint() {
    let mut r = sample("");
    r.cache = Cache { prefix: true, through_message: Some(1) };
    let w = wire_json(&r);
    assert!(w.get("system").is_none());
    assert_eq!(w["tools"][1]["cache_control"], json!({"type": "ephemeral"}));
    // Message 1 ends with a tool_use after a thinking block: the tool_use holds it, the
    // thinking block (which may not) stays as it came.
    assert_eq!(w["messages"][1]["content"][1]["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(w["messages"][1]["content"][0], json!({"type": "thinking", "thinking": "hmm", "signature": "c2ln"}));
}

#[test]
fn misplaced_parts_are_refused_before_sending() {
    let mut r = Request::new("", "x");
    r.messages[0].parts.push(Part::ToolCall(ToolCall {
        id: "a".into(),
        name: "b".into(),
        arguments: Arguments::Json(json!({})),
        signature: None,
    }));
    assert_eq!(to_wire("m", &r, false).unwrap_err(), "message 0 holds a tool call in a user message");
    let mut r = Request::new("", "x");
    r.asks.thinking_budget = Some(2048);
    r.limits.temperature = Some(0.2);
    assert!(to_wire("m", &r, false).unwrap_err().contains("temperature"));
}

proptest! {
    /// Whatever a server streams, the client ends with a value or an error, never a panic.
    #[test]
    fn any_stream_gives_a_value_or_an_error(
        events in proptest::collection::vec((crate::testgen::event_name(), crate::testgen::wild_json()), 0..12),
    ) {
        use crate::http::StreamSink;
        let dialect = super::parse::AnthropicDialect {
            model: "m".into(), base_url: "http://x".into(), env: "ANTHROPIC_API_KEY".into(), key_source: None,
        };
        let mut sink = super::stream::AnthropicStream::new(&dialect);
        let call = crate::call::Call::default();
        for (event, data) in events {
            let _ = sink.event(crate::http::sse::SseEvent { event, data: data.to_string() }, &call);
        }
        let _ = sink.choice();
        let _ = sink.usage.to_usage();
    }

    #[test]
    fn any_body_gives_a_value_or_an_error(body in crate::testgen::wild_json(), status in 200u16..600) {
        use crate::http::Dialect;
        let dialect = super::parse::AnthropicDialect {
            model: "m".into(), base_url: "http://x".into(), env: "ANTHROPIC_API_KEY".into(), key_source: None,
        };
        if let Ok(r) = serde_json::from_value::<super::parse::WireResponse>(body.clone()) {
            let _ = super::parse::choice(r);
        }
        let failure = crate::http::Failure { status, body: body.to_string(), retry_after: None, url: "u".into() };
        let _ = dialect.classify(&failure, 1).to_string();
    }
}

proptest! {
    /// A real stream with random values replaced, events dropped, repeated or cut:
    /// still a value or an error, never a panic.
    #[test]
    fn a_mangled_stream_gives_a_value_or_an_error(
        events in crate::testgen::mutated_stream(include_str!("../../tests/fixtures/anthropic/stream.sse")),
    ) {
        use crate::http::StreamSink;
        let dialect = super::parse::AnthropicDialect {
            model: "m".into(), base_url: "http://x".into(), env: "ANTHROPIC_API_KEY".into(), key_source: None,
        };
        let mut sink = super::stream::AnthropicStream::new(&dialect);
        let call = crate::call::Call::default();
        for event in events {
            let _ = sink.event(event, &call);
        }
        let _ = sink.is_complete();
        let _ = sink.choice();
    }
}

/// Found by the mangled-stream property: a block that is not an object, or a delta for a
/// block that never started, panicked on JSON indexing.
#[test]
fn odd_blocks_are_errors_not_panics() {
    use crate::http::StreamSink;
    use crate::http::sse::SseEvent;
    let dialect = super::parse::AnthropicDialect {
        model: "m".into(),
        base_url: "http://x".into(),
        env: "ANTHROPIC_API_KEY".into(),
        key_source: None,
    };
    let mut sink = super::stream::AnthropicStream::new(&dialect);
    let call = crate::call::Call::default();
    let ev = |event: &str, data: Value| SseEvent { event: event.into(), data: data.to_string() };
    let err = sink
        .event(
            ev("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": []})),
            &call,
        )
        .unwrap_err();
    assert!(err.to_string().contains("content_block_start without a block"), "{err}");
    let delta = json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "x"}});
    assert!(sink.event(ev("content_block_delta", delta), &call).unwrap_err().to_string().contains("never started"));
    let huge = json!({"type": "content_block_stop", "index": 1u64 << 40});
    assert!(sink.event(ev("content_block_stop", huge), &call).is_err());
    assert!(sink.choice().parts.is_empty());
}
