//! The OpenAI-compatible conversion: back from the wire (test-only) and round trips.

use std::collections::HashMap;

use proptest::prelude::*;
use serde_json::json;

use super::wire::{Content, ContentPart, MaxTokensField, WireMessage, WireRequest, to_wire};
use crate::message::{Arguments, Image, MediaType, Message, Part, ResultPart, Role, ToolCall, ToolResult};
use crate::request::{Cache, Limits, Request, ToolChoice, ToolDef};
use crate::tags::{ERROR_TAG, parse_images_tag};
use crate::testgen::{Caps, carried, request};

fn image_of(url: &str) -> Image {
    let rest = url.strip_prefix("data:").unwrap();
    let (mime, data) = rest.split_once(";base64,").unwrap();
    Image::from_base64(MediaType::parse(mime).unwrap(), data).unwrap()
}

fn texts(content: &Option<Content>) -> Vec<String> {
    match content {
        None => Vec::new(),
        Some(Content::Text(t)) if t.is_empty() => Vec::new(),
        Some(Content::Text(t)) => vec![t.clone()],
        Some(Content::Parts(ps)) => ps
            .iter()
            .filter_map(|p| if let ContentPart::Text { text } = p { Some(text.clone()) } else { None })
            .collect(),
    }
}

/// The conversation a request body describes: the inverse of `to_wire`. Consecutive
/// `tool` and `user` messages form one user message, as they were made from one.
fn back(w: &WireRequest) -> Request {
    let mut system = String::new();
    let mut messages: Vec<Message> = Vec::new();
    let mut names = HashMap::new();
    let push_user = |messages: &mut Vec<Message>, part: Part| match messages.last_mut() {
        Some(m) if m.role == Role::User => m.parts.push(part),
        _ => messages.push(Message { role: Role::User, parts: vec![part] }),
    };
    for m in &w.messages {
        match m.role.as_str() {
            "system" => system = texts(&m.content).concat(),
            "assistant" => {
                let mut parts: Vec<Part> = texts(&m.content).into_iter().map(Part::Text).collect();
                for c in &m.tool_calls {
                    names.insert(c.id.clone(), c.function.name.clone());
                    parts.push(Part::ToolCall(ToolCall {
                        id: c.id.clone(),
                        name: c.function.name.clone(),
                        arguments: Arguments::parse(&c.function.arguments),
                        signature: None,
                    }));
                }
                messages.push(Message { role: Role::Assistant, parts });
            }
            "tool" => {
                let id = m.tool_call_id.clone().unwrap();
                let mut t = texts(&m.content);
                let mut is_error = false;
                if let Some(first) = t.first_mut() {
                    if first == ERROR_TAG {
                        is_error = true;
                        t.remove(0);
                    } else if let Some(rest) = first.strip_prefix(&format!("{ERROR_TAG} ")) {
                        is_error = true;
                        *first = rest.to_string();
                    }
                }
                let result = ToolResult {
                    call_id: id.clone(),
                    name: names.get(&id).cloned().unwrap_or_default(),
                    parts: t.into_iter().map(ResultPart::Text).collect(),
                    is_error,
                };
                push_user(&mut messages, Part::ToolResult(result));
            }
            "user" => user_back(m, &mut messages, push_user),
            other => panic!("unexpected role {other}"),
        }
    }
    let tool_choice = match &w.tool_choice {
        Some(v) if v == "required" => ToolChoice::Required,
        Some(v) if v == "none" => ToolChoice::None,
        Some(v) if v.is_object() => ToolChoice::Tool(v["function"]["name"].as_str().unwrap().into()),
        _ => ToolChoice::Auto,
    };
    Request {
        system,
        messages,
        tools: w
            .tools
            .iter()
            .map(|t| ToolDef {
                name: t.function.name.clone(),
                description: t.function.description.clone(),
                parameters: t.function.parameters.clone(),
            })
            .collect(),
        tool_choice,
        limits: Limits {
            max_tokens: w.max_tokens.or(w.max_completion_tokens).unwrap(),
            temperature: w.temperature,
            stop: w.stop.clone(),
        },
        asks: Default::default(),
        cache: Cache::default(),
    }
}

fn user_back(m: &WireMessage, messages: &mut Vec<Message>, push_user: impl Fn(&mut Vec<Message>, Part)) {
    let parts: Vec<&ContentPart> = match &m.content {
        Some(Content::Parts(ps)) => ps.iter().collect(),
        Some(Content::Text(t)) => {
            push_user(messages, Part::Text(t.clone()));
            return;
        }
        None => return,
    };
    let mut i = 0;
    while i < parts.len() {
        match parts[i] {
            ContentPart::Text { text } => match parse_images_tag(text) {
                Some((id, n)) => {
                    let images: Vec<ResultPart> = parts[i + 1..i + 1 + n]
                        .iter()
                        .map(|p| match p {
                            ContentPart::ImageUrl { image_url } => ResultPart::Image(image_of(&image_url.url)),
                            ContentPart::Text { .. } => panic!("the tag promised an image"),
                        })
                        .collect();
                    let last = messages.last_mut().unwrap();
                    let result = last
                        .parts
                        .iter_mut()
                        .find_map(|p| match p {
                            Part::ToolResult(r) if r.call_id == id => Some(r),
                            _ => None,
                        })
                        .unwrap();
                    result.parts.extend(images);
                    i += 1 + n;
                    continue;
                }
                None => push_user(messages, Part::Text(text.clone())),
            },
            ContentPart::ImageUrl { image_url } => push_user(messages, Part::Image(image_of(&image_url.url))),
        }
        i += 1;
    }
}

const CAPS: Caps = Caps { opaque: None, signatures: false, malformed_args: true, interleaved_results: false };

proptest! {
    #[test]
    fn any_conversation_converts_and_parses_back(req in request(CAPS), completion in any::<bool>()) {
        let field = if completion { MaxTokensField::MaxCompletionTokens } else { MaxTokensField::MaxTokens };
        let wire = to_wire("gpt-test", &req, field, false).unwrap();
        let text = serde_json::to_string(&wire).unwrap();
        let parsed: WireRequest = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&parsed, &wire);
        prop_assert_eq!(carried(&back(&parsed)), carried(&req));
    }
}

#[test]
fn asks_become_n_logprobs_and_top_logprobs_only_when_asked() {
    let mut r = Request::new("", "hi");
    let plain = serde_json::to_value(to_wire("m", &r, MaxTokensField::MaxTokens, false).unwrap()).unwrap();
    for absent in
        ["n", "logprobs", "top_logprobs", "stream", "stream_options", "tools", "tool_choice", "max_completion_tokens"]
    {
        assert!(plain.get(absent).is_none(), "{absent} sent unasked: {plain}");
    }
    r.asks.samples = 3;
    r.asks.logprobs = Some(5);
    let w = serde_json::to_value(to_wire("m", &r, MaxTokensField::MaxCompletionTokens, true).unwrap()).unwrap();
    assert_eq!(w["n"], 3);
    assert_eq!(w["logprobs"], true);
    assert_eq!(w["top_logprobs"], 5);
    assert_eq!(w["max_completion_tokens"], 4096);
    assert_eq!(w["stream_options"], json!({"include_usage": true}));
    r.asks.logprobs = Some(0);
    let w = serde_json::to_value(to_wire("m", &r, MaxTokensField::MaxTokens, false).unwrap()).unwrap();
    assert_eq!(w["logprobs"], true);
    assert!(w.get("top_logprobs").is_none());
}

#[test]
fn malformed_arguments_go_back_as_written() {
    let mut r = Request::new("", "hi");
    r.messages.push(Message {
        role: Role::Assistant,
        parts: vec![Part::ToolCall(ToolCall {
            id: "c1".into(),
            name: "click".into(),
            arguments: Arguments::parse("{\"x\": 1,"),
            signature: None,
        })],
    });
    let w = serde_json::to_value(to_wire("m", &r, MaxTokensField::MaxTokens, false).unwrap()).unwrap();
    assert_eq!(w["messages"][1]["tool_calls"][0]["function"]["arguments"], "{\"x\": 1,");
    assert!(w["messages"][1].get("content").is_none(), "no text: no content");
}

fn dialect() -> super::parse::OpenAiDialect {
    super::parse::OpenAiDialect {
        provider: crate::config::ProviderKind::OpenaiCompatible,
        model: "llama3.2".into(),
        base_url: "http://localhost:11434/v1".into(),
        env: "api_key_env".into(),
        key_source: None,
    }
}

#[test]
fn ollama_gets_its_own_hint() {
    let e =
        dialect().error(404, r#"{"error":{"message":"model \"llama3.2\" not found, try pulling it first"}}"#, None, 1);
    assert!(e.to_string().ends_with("list the models Ollama has with `ollama list` (or `curl http://localhost:11434/v1/models`); get this one with `ollama pull llama3.2`"), "{e}");
}

proptest! {
    /// Whatever a server streams, the client ends with a value or an error, never a panic.
    #[test]
    fn any_stream_gives_a_value_or_an_error(
        events in proptest::collection::vec((crate::testgen::event_name(), crate::testgen::wild_json()), 0..12),
    ) {
        use crate::http::StreamSink;
        let d = dialect();
        let mut sink = super::stream::OpenAiStream::new(&d);
        let call = crate::call::Call::default();
        for (event, data) in events {
            let _ = sink.event(crate::http::sse::SseEvent { event, data: data.to_string() }, &call);
        }
        let _ = sink.usage();
        let _ = sink.into_choices();
    }

    #[test]
    fn any_body_gives_a_value_or_an_error(body in crate::testgen::wild_json(), status in 200u16..600) {
        use crate::http::Dialect;
        if let Ok(r) = serde_json::from_value::<super::parse::WireResponse>(body.clone()) {
            let _: Vec<_> = r.choices.into_iter().map(super::parse::choice).collect();
        }
        let failure = crate::http::Failure { status, body: body.to_string(), retry_after: None, url: "u".into() };
        let _ = dialect().classify(&failure, 1).to_string();
    }
}

proptest! {
    /// A real stream with random values replaced, events dropped, repeated or cut:
    /// still a value or an error, never a panic.
    #[test]
    fn a_mangled_stream_gives_a_value_or_an_error(
        events in crate::testgen::mutated_stream(include_str!("../../tests/fixtures/openai/stream.sse")),
    ) {
        use crate::http::StreamSink;
        let d = dialect();
        let mut sink = super::stream::OpenAiStream::new(&d);
        let call = crate::call::Call::default();
        for event in events {
            let _ = sink.event(event, &call);
        }
        let _ = sink.is_complete();
        let _ = sink.into_choices();
    }
}
