//! Test-only: proptest strategies for whole requests, shaped by what a wire format carries.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::message::{Arguments, Image, MediaType, Message, Opaque, Part, ResultPart, Role, ToolCall, ToolResult};
use crate::request::{Asks, Cache, Limits, Request, ToolChoice, ToolDef};

/// What the format under test can carry beyond the common ground.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    /// Opaque blocks of this provider appear in assistant messages.
    pub opaque: Option<&'static str>,
    /// Tool calls carry Gemini thought signatures.
    pub signatures: bool,
    /// Tool-call arguments may be malformed text (formats that carry arguments as text).
    pub malformed_args: bool,
    /// Text and images interleave freely inside a tool result.
    pub interleaved_results: bool,
}

// Texts never start with `[`: the formats that lack a field mark it in the text with a
// bracketed tag (`[error] `), and a generated text must not look like one.
fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9][a-zA-Z0-9 .,:{}\"é✓]{0,15}"
}

fn image() -> impl Strategy<Value = Image> {
    (
        prop_oneof![Just(MediaType::Png), Just(MediaType::Jpeg), Just(MediaType::Gif), Just(MediaType::Webp)],
        proptest::collection::vec(any::<u8>(), 0..12),
    )
        .prop_map(|(media_type, data)| Image { media_type, data })
}

fn user_part() -> impl Strategy<Value = Part> {
    prop_oneof![3 => text().prop_map(Part::Text), 1 => image().prop_map(Part::Image)]
}

fn json_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[a-z ]{0,8}".prop_map(Value::from),
        any::<i32>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        proptest::collection::vec(any::<i16>(), 0..3).prop_map(|v| json!(v)),
    ]
}

fn arguments(malformed: bool) -> BoxedStrategy<Arguments> {
    let good = proptest::collection::btree_map("[a-z_]{1,6}", json_value(), 0..4)
        .prop_map(|m| Arguments::Json(Value::Object(m.into_iter().collect())));
    if malformed {
        // An object that never closes: always malformed.
        prop_oneof![3 => good, 1 => "[a-z0-9 ]{0,6}".prop_map(|t| Arguments::parse(&format!("{{\"k\": {t}")))].boxed()
    } else {
        good.boxed()
    }
}

fn opaque(provider: &'static str) -> BoxedStrategy<Part> {
    let block = match provider {
        "anthropic" => prop_oneof![
            (text(), "[A-Za-z0-9+/]{4,16}")
                .prop_map(|(t, s)| json!({ "type": "thinking", "thinking": t, "signature": s })),
            "[A-Za-z0-9+/]{4,16}".prop_map(|d| json!({ "type": "redacted_thinking", "data": d })),
        ]
        .boxed(),
        _ => (text(), "[A-Za-z0-9+/]{4,16}")
            .prop_map(|(t, s)| json!({ "text": t, "thought": true, "thoughtSignature": s }))
            .boxed(),
    };
    block.prop_map(move |block| Part::Opaque(Opaque { provider: provider.into(), block })).boxed()
}

/// One call with the result that answers it: (name, arguments, signature, result parts, is_error).
type CallSpec = (String, Arguments, Option<String>, Vec<ResultPart>, bool);

fn call_spec(caps: Caps) -> impl Strategy<Value = CallSpec> {
    let sig = if caps.signatures { proptest::option::of("[A-Za-z0-9]{4,10}").boxed() } else { Just(None).boxed() };
    let parts = proptest::collection::vec(
        prop_oneof![2 => text().prop_map(ResultPart::Text), 1 => image().prop_map(ResultPart::Image)],
        0..4,
    );
    ("[a-z_]{1,8}", arguments(caps.malformed_args), sig, parts, any::<bool>()).prop_map(
        move |(n, a, s, mut parts, e)| {
            if !caps.interleaved_results {
                parts.sort_by_key(|p| matches!(p, ResultPart::Image(_)));
            }
            (n, a, s, parts, e)
        },
    )
}

type Round = (Vec<Part>, Vec<String>, Vec<CallSpec>, Vec<Part>);

fn round(caps: Caps) -> impl Strategy<Value = Round> {
    let opaques = match caps.opaque {
        Some(p) => proptest::collection::vec(opaque(p), 0..2).boxed(),
        None => Just(Vec::new()).boxed(),
    };
    (
        opaques,
        proptest::collection::vec(text(), 0..2),
        proptest::collection::vec(call_spec(caps), 0..3),
        proptest::collection::vec(user_part(), 0..2),
    )
}

fn tool_def() -> impl Strategy<Value = ToolDef> {
    ("[a-z_]{1,8}", text(), proptest::collection::btree_map("[a-z]{1,5}", Just(json!({ "type": "string" })), 0..3))
        .prop_map(|(name, description, props)| ToolDef {
            name,
            description,
            parameters: json!({ "type": "object", "properties": Value::Object(props.into_iter().collect()) }),
        })
}

/// Any request the format can carry, in canonical form: roles alternate starting with
/// the user, every tool call is answered in the next user message, tool results come
/// first in a user message, and an assistant message is thinking, then text, then calls.
pub(crate) fn request(caps: Caps) -> impl Strategy<Value = Request> {
    (
        prop_oneof![Just(String::new()), text()],
        proptest::collection::vec(tool_def(), 0..3),
        proptest::collection::vec(user_part(), 1..3),
        proptest::collection::vec(round(caps), 0..3),
        (
            1u32..5000,
            proptest::option::of(prop_oneof![Just(0.0), Just(0.5), Just(1.0)]),
            proptest::collection::vec("[a-z]{1,4}", 0..2),
        ),
        0usize..4,
    )
        .prop_map(|(system, tools, first, rounds, (max_tokens, temperature, stop), choice)| {
            let mut messages = vec![Message { role: Role::User, parts: first }];
            let mut next_id = 0;
            for (opaques, texts, calls, extra) in rounds {
                let mut assistant = opaques;
                assistant.extend(texts.into_iter().map(Part::Text));
                let mut results = Vec::new();
                for (name, arguments, signature, parts, is_error) in calls {
                    next_id += 1;
                    let id = format!("call_{next_id}");
                    assistant.push(Part::ToolCall(ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        arguments,
                        signature,
                    }));
                    results.push(Part::ToolResult(ToolResult { call_id: id, name, parts, is_error }));
                }
                if assistant.is_empty() {
                    assistant.push(Part::Text("ok".into()));
                }
                results.extend(extra);
                if results.is_empty() {
                    results.push(Part::Text("go on".into()));
                }
                messages.push(Message { role: Role::Assistant, parts: assistant });
                messages.push(Message { role: Role::User, parts: results });
            }
            let tool_choice = match (tools.first(), choice) {
                (None, _) | (_, 0) => ToolChoice::Auto,
                (_, 1) => ToolChoice::Required,
                (_, 2) => ToolChoice::None,
                (Some(t), _) => ToolChoice::Tool(t.name.clone()),
            };
            Request {
                system,
                messages,
                tools,
                tool_choice,
                limits: Limits { max_tokens, temperature, stop },
                asks: Asks::default(),
                cache: Cache::default(),
            }
        })
}

/// The parts of a request a wire format round-trips (asks and cache are checked apart).
pub(crate) fn carried(r: &Request) -> (String, Vec<Message>, Vec<ToolDef>, ToolChoice, Limits) {
    (r.system.clone(), r.messages.clone(), r.tools.clone(), r.tool_choice.clone(), r.limits.clone())
}

const KEYS: &[&str] = &[
    "type",
    "index",
    "delta",
    "content_block",
    "text",
    "thinking",
    "signature",
    "partial_json",
    "message",
    "usage",
    "input_tokens",
    "output_tokens",
    "stop_reason",
    "error",
    "choices",
    "content",
    "tool_calls",
    "function",
    "name",
    "arguments",
    "id",
    "finish_reason",
    "logprobs",
    "top_logprobs",
    "token",
    "logprob",
    "candidates",
    "parts",
    "functionCall",
    "args",
    "thought",
    "thoughtSignature",
    "finishReason",
    "usageMetadata",
    "promptTokenCount",
    "logprobsResult",
    "chosenCandidates",
    "topCandidates",
    "logProbability",
    "reasoning_content",
    "model",
    "input",
];

const WORDS: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "text_delta",
    "input_json_delta",
    "thinking_delta",
    "signature_delta",
    "tool_use",
    "thinking",
    "text",
    "error",
    "overloaded_error",
    "STOP",
    "tool_calls",
    "[DONE]",
    "{\"a\":",
    "",
];

/// JSON made of the providers' own field names and values, nested, with numbers that
/// include huge indexes: what a broken or hostile server might send.
pub(crate) fn wild_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0u64..4).prop_map(Value::from),
        prop_oneof![Just(u64::MAX), Just(1u64 << 40), Just(1025u64)].prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        proptest::sample::select(WORDS).prop_map(Value::from),
        "[a-z {}\":,]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(proptest::sample::select(KEYS), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

/// An SSE event name as the providers use them, or none.
pub(crate) fn event_name() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), proptest::sample::select(WORDS).prop_map(str::to_string)]
}

/// Replaces the value at a path chosen by `seeds` (each picks a child) with `new`.
fn mutate(v: &mut Value, seeds: &[u32], new: Value) {
    let next = match (v, seeds.split_first()) {
        (Value::Object(o), Some((s, rest))) if !o.is_empty() => {
            let key = o.keys().nth(*s as usize % o.len()).unwrap().clone();
            Some((o.get_mut(&key).unwrap(), rest))
        }
        (Value::Array(a), Some((s, rest))) if !a.is_empty() => {
            let len = a.len();
            Some((&mut a[*s as usize % len], rest))
        }
        (v, _) => {
            *v = new;
            return;
        }
    };
    if let Some((child, rest)) = next {
        mutate(child, rest, new);
    }
}

/// The events of a real stream (a fixture), with values at random paths replaced by
/// wild ones, events dropped or repeated, and the stream cut short.
pub(crate) fn mutated_stream(sse: &'static str) -> impl Strategy<Value = Vec<crate::http::sse::SseEvent>> {
    let mut parser = crate::http::sse::SseParser::default();
    let mut events = Vec::new();
    parser.feed(sse.as_bytes(), &mut events);
    parser.finish(&mut events);
    let n = events.len();
    (
        proptest::collection::vec((0..n, proptest::collection::vec(any::<u32>(), 0..5), wild_json()), 0..5),
        proptest::collection::vec(0..n, 0..n + 3),
        any::<bool>(),
    )
        .prop_map(move |(mutations, order, reorder)| {
            let mut evs: Vec<(String, Value)> = events
                .iter()
                .map(|e| (e.event.clone(), serde_json::from_str(&e.data).unwrap_or(Value::Null)))
                .collect();
            for (i, seeds, new) in mutations {
                mutate(&mut evs[i].1, &seeds, new);
            }
            let evs = if reorder { order.into_iter().map(|i| evs[i].clone()).collect() } else { evs };
            evs.into_iter()
                .map(|(event, data)| crate::http::sse::SseEvent {
                    event,
                    data: if data.is_null() { "[DONE]".into() } else { data.to_string() },
                })
                .collect()
        })
}
