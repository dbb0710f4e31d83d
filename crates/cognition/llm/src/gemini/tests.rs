//! The Gemini conversion: back from the wire (test-only) and round trips.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::parse::parts_of;
use super::wire::{WireRequest, to_wire};
use crate::message::{Image, MediaType, Message, Opaque, Part, ResultPart, Role, ToolResult};
use crate::request::{Cache, Limits, Request, ToolChoice, ToolDef};
use crate::tags::parse_images_tag;
use crate::testgen::{Caps, carried, request};

fn image_of(part: &Value) -> Image {
    let d = &part["inlineData"];
    Image::from_base64(MediaType::parse(d["mimeType"].as_str().unwrap()).unwrap(), d["data"].as_str().unwrap()).unwrap()
}

fn user_parts(parts: &[Value]) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let p = &parts[i];
        if let Some(fr) = p.get("functionResponse") {
            let (is_error, value) = match fr["response"].get("error") {
                Some(v) => (true, v),
                None => (false, &fr["response"]["output"]),
            };
            let texts = match value {
                Value::String(s) => vec![ResultPart::Text(s.clone())],
                Value::Array(a) => a.iter().map(|t| ResultPart::Text(t.as_str().unwrap().into())).collect(),
                other => panic!("unexpected response {other}"),
            };
            out.push(Part::ToolResult(ToolResult {
                call_id: fr["id"].as_str().unwrap().into(),
                name: fr["name"].as_str().unwrap().into(),
                parts: texts,
                is_error,
            }));
        } else if let Some((id, n)) = p["text"].as_str().and_then(parse_images_tag) {
            let r = out
                .iter_mut()
                .find_map(|x| match x {
                    Part::ToolResult(r) if r.call_id == id => Some(r),
                    _ => None,
                })
                .unwrap();
            r.parts.extend(parts[i + 1..i + 1 + n].iter().map(|p| ResultPart::Image(image_of(p))));
            i += n;
        } else if let Some(t) = p["text"].as_str() {
            out.push(Part::Text(t.into()));
        } else if p.get("inlineData").is_some() {
            out.push(Part::Image(image_of(p)));
        } else {
            panic!("unexpected user part {p}");
        }
        i += 1;
    }
    out
}

/// The conversation a request body describes: the inverse of `to_wire`.
fn back(w: &WireRequest) -> Request {
    let system =
        w.system_instruction.as_ref().map(|s| s.parts[0]["text"].as_str().unwrap().to_string()).unwrap_or_default();
    let messages = w
        .contents
        .iter()
        .map(|c| match c.role.as_deref() {
            Some("user") => Message { role: Role::User, parts: user_parts(&c.parts) },
            _ => {
                let mut parts = Vec::new();
                let mut calls = 0;
                for p in &c.parts {
                    parts_of(p.clone(), &mut calls, &mut parts);
                }
                Message { role: Role::Assistant, parts }
            }
        })
        .collect();
    let decls = w.tools.first().map(|t| t["functionDeclarations"].as_array().unwrap().clone()).unwrap_or_default();
    let config = w.tool_config.as_ref().map(|c| c["functionCallingConfig"].clone()).unwrap_or(Value::Null);
    let tool_choice = match config["mode"].as_str() {
        Some("ANY") if config.get("allowedFunctionNames").is_some() => {
            ToolChoice::Tool(config["allowedFunctionNames"][0].as_str().unwrap().into())
        }
        Some("ANY") => ToolChoice::Required,
        Some("NONE") => ToolChoice::None,
        _ => ToolChoice::Auto,
    };
    let g = &w.generation_config;
    Request {
        system,
        messages,
        tools: decls
            .iter()
            .map(|d| ToolDef {
                name: d["name"].as_str().unwrap().into(),
                description: d["description"].as_str().unwrap().into(),
                parameters: d
                    .get("parametersJsonSchema")
                    .cloned()
                    .unwrap_or(json!({"type": "object", "properties": {}})),
            })
            .collect(),
        tool_choice,
        limits: Limits { max_tokens: g.max_output_tokens, temperature: g.temperature, stop: g.stop_sequences.clone() },
        asks: Default::default(),
        cache: Cache::default(),
    }
}

const CAPS: Caps = Caps { opaque: Some("gemini"), signatures: true, malformed_args: false, interleaved_results: false };

proptest! {
    #[test]
    fn any_conversation_converts_and_parses_back(req in request(CAPS)) {
        let wire = to_wire(&req).unwrap();
        let text = serde_json::to_string(&wire).unwrap();
        let parsed: WireRequest = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&parsed, &wire);
        prop_assert_eq!(carried(&back(&parsed)), carried(&req));
    }
}

#[test]
fn a_text_signature_goes_back_on_its_text_part() {
    let mut parts = Vec::new();
    let mut calls = 0;
    parts_of(json!({"text": "Done.", "thoughtSignature": "c2ln"}), &mut calls, &mut parts);
    assert_eq!(
        parts,
        vec![
            Part::Text("Done.".into()),
            Part::Opaque(Opaque { provider: "gemini".into(), block: json!({"thoughtSignature": "c2ln"}) })
        ]
    );
    let mut r = Request::new("", "hi");
    r.messages.push(Message { role: Role::Assistant, parts });
    let w = serde_json::to_value(to_wire(&r).unwrap()).unwrap();
    assert_eq!(w["contents"][1], json!({"role": "model", "parts": [{"text": "Done.", "thoughtSignature": "c2ln"}]}));
}

#[test]
fn asks_go_into_generation_config() {
    let mut r = Request::new("sys", "hi");
    let w = serde_json::to_value(to_wire(&r).unwrap()).unwrap();
    assert_eq!(w["generationConfig"], json!({"maxOutputTokens": 4096}));
    assert_eq!(w["systemInstruction"], json!({"parts": [{"text": "sys"}]}));
    r.asks.samples = 2;
    r.asks.logprobs = Some(3);
    r.asks.thinking_budget = Some(1024);
    let w = serde_json::to_value(to_wire(&r).unwrap()).unwrap();
    assert_eq!(
        w["generationConfig"],
        json!({"maxOutputTokens": 4096, "candidateCount": 2, "responseLogprobs": true, "logprobs": 3,
               "thinkingConfig": {"thinkingBudget": 1024, "includeThoughts": true}})
    );
}

fn dialect() -> super::parse::GeminiDialect {
    super::parse::GeminiDialect {
        model: "gemini-2.5-flash".into(),
        base_url: "http://x/v1beta".into(),
        env: "GEMINI_API_KEY".into(),
        key_source: None,
    }
}

proptest! {
    /// Whatever a server streams, the client ends with a value or an error, never a panic.
    #[test]
    fn any_stream_gives_a_value_or_an_error(
        events in proptest::collection::vec((crate::testgen::event_name(), crate::testgen::wild_json()), 0..12),
    ) {
        use crate::http::StreamSink;
        let d = dialect();
        let mut sink = super::stream::GeminiStream::new(&d);
        let call = crate::call::Call::default();
        for (event, data) in events {
            let _ = sink.event(crate::http::sse::SseEvent { event, data: data.to_string() }, &call);
        }
        let _ = sink.into_choices();
    }

    #[test]
    fn any_body_gives_a_value_or_an_error(body in crate::testgen::wild_json(), status in 200u16..600) {
        use crate::http::Dialect;
        if let Ok(r) = serde_json::from_value::<super::parse::WireResponse>(body.clone()) {
            let _: Vec<_> = r.candidates.into_iter().map(super::parse::choice).collect();
        }
        let d = dialect();
        let failure = crate::http::Failure { status, body: body.to_string(), retry_after: None, url: "u".into() };
        let _ = d.classify(&failure, 1).to_string();
        let _ = d.body_retry_after(&body.to_string());
    }
}

proptest! {
    /// A real stream with random values replaced, events dropped, repeated or cut:
    /// still a value or an error, never a panic.
    #[test]
    fn a_mangled_stream_gives_a_value_or_an_error(
        events in crate::testgen::mutated_stream(include_str!("../../tests/fixtures/gemini/stream.sse")),
    ) {
        use crate::http::StreamSink;
        let d = dialect();
        let mut sink = super::stream::GeminiStream::new(&d);
        let call = crate::call::Call::default();
        for event in events {
            let _ = sink.event(event, &call);
        }
        let _ = sink.is_complete();
        let _ = sink.into_choices();
    }
}
