//! Gemini `generateContent` wire types and the conversion of a [`Request`] into them (pure).
//!
//! Parts are JSON objects named by their one data field (`text`, `inlineData`,
//! `functionCall`, `functionResponse`), so they are built as JSON. What the format lacks,
//! and how it is carried anyway:
//! - images in a tool result: `functionResponse.response` is JSON only, so the images
//!   follow the response part in the same turn, introduced by the tag of [`crate::tags`];
//! - a tool result's text and error flag: `response` is `{"output": ...}` or
//!   `{"error": ...}`, a string for one text part, an array of strings otherwise (texts
//!   before images: their interleaving is not kept);
//! - a text part's thought signature: the response's text becomes a text part followed by
//!   a signature-only opaque part, put back together here;
//! - Anthropic's opaque blocks: not sent;
//! - a tool without parameters: its schema (`{"type": "object", "properties": {}}`) is
//!   left out, as the API documents.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::message::{Image, Message, Part, ResultPart, Role, ToolResult};
use crate::request::{Request, ToolChoice};
use crate::tags::images_tag;

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireRequest {
    pub contents: Vec<WireContent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<WireContent>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<Value>,
    pub generation_config: GenerationConfig,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct WireContent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    pub parts: Vec<Value>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenerationConfig {
    pub max_output_tokens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_logprobs: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<Value>,
}

pub(crate) fn inline_data(image: &Image) -> Value {
    json!({ "inlineData": { "mimeType": image.media_type.as_str(), "data": image.base64() } })
}

/// Whether a schema declares no parameters at all (no or empty `properties`).
pub(crate) fn no_parameters(schema: &Value) -> bool {
    schema.get("properties").is_none_or(|p| p.as_object().is_some_and(Map::is_empty))
        && schema.as_object().is_none_or(|o| o.keys().all(|k| k == "type" || k == "properties"))
}

/// Whether a part is a signature alone (how a text part's signature is carried).
pub(crate) fn signature_only(block: &Value) -> Option<&str> {
    match block.as_object() {
        Some(o) if o.len() == 1 => o.get("thoughtSignature").and_then(Value::as_str),
        _ => None,
    }
}

/// The request body for `request` (pure).
pub(crate) fn to_wire(request: &Request) -> Result<WireRequest, String> {
    request.check()?;
    let contents = request.messages.iter().map(content).collect();
    let system_instruction = (!request.system.is_empty())
        .then(|| WireContent { role: None, parts: vec![json!({ "text": request.system })] });
    let tools = if request.tools.is_empty() {
        Vec::new()
    } else {
        let decls: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                let mut decl = json!({ "name": t.name, "description": t.description });
                // `parametersJsonSchema` takes JSON Schema as it is (`parameters` takes
                // only an OpenAPI subset, and refuses `$schema` or `additionalProperties`
                // from generated schemas). A tool without parameters leaves it unset, as
                // documented.
                if !no_parameters(&t.parameters) {
                    decl["parametersJsonSchema"] = t.parameters.clone();
                }
                decl
            })
            .collect();
        vec![json!({ "functionDeclarations": decls })]
    };
    let tool_config = (!request.tools.is_empty()).then(|| {
        let config = match &request.tool_choice {
            ToolChoice::Auto => json!({ "mode": "AUTO" }),
            ToolChoice::Required => json!({ "mode": "ANY" }),
            ToolChoice::None => json!({ "mode": "NONE" }),
            ToolChoice::Tool(name) => json!({ "mode": "ANY", "allowedFunctionNames": [name] }),
        };
        json!({ "functionCallingConfig": config })
    });
    let asks = &request.asks;
    Ok(WireRequest {
        contents,
        system_instruction,
        tools,
        tool_config,
        generation_config: GenerationConfig {
            max_output_tokens: request.limits.max_tokens,
            temperature: request.limits.temperature,
            stop_sequences: request.limits.stop.clone(),
            candidate_count: (asks.samples > 1).then_some(asks.samples),
            response_logprobs: asks.logprobs.map(|_| true),
            logprobs: asks.logprobs.filter(|&k| k > 0),
            thinking_config: asks.thinking_budget.map(|b| json!({ "thinkingBudget": b, "includeThoughts": true })),
        },
    })
}

fn content(m: &Message) -> WireContent {
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "model",
    };
    let mut parts: Vec<Value> = Vec::new();
    for p in &m.parts {
        match p {
            Part::Text(text) => parts.push(json!({ "text": text })),
            Part::Image(img) => parts.push(inline_data(img)),
            Part::ToolCall(c) => {
                let mut part =
                    json!({ "functionCall": { "id": c.id, "name": c.name, "args": c.arguments.to_object() } });
                if let Some(sig) = &c.signature {
                    part["thoughtSignature"] = json!(sig);
                }
                parts.push(part);
            }
            Part::ToolResult(r) => tool_result(r, &mut parts),
            Part::Opaque(o) if o.provider == "gemini" => match signature_only(&o.block) {
                // A text part's signature goes back onto that text part.
                Some(sig) => match parts.last_mut() {
                    Some(Value::Object(prev)) if prev.len() == 1 && prev.get("text").is_some() && role == "model" => {
                        prev.insert("thoughtSignature".into(), json!(sig));
                    }
                    _ => parts.push(json!({ "text": "", "thoughtSignature": sig })),
                },
                None => parts.push(o.block.clone()),
            },
            Part::Opaque(_) => {}
        }
    }
    WireContent { role: Some(role.into()), parts }
}

fn tool_result(r: &ToolResult, parts: &mut Vec<Value>) {
    let texts: Vec<&str> =
        r.parts.iter().filter_map(|p| if let ResultPart::Text(t) = p { Some(t.as_str()) } else { None }).collect();
    let images: Vec<&Image> =
        r.parts.iter().filter_map(|p| if let ResultPart::Image(i) = p { Some(i) } else { None }).collect();
    let value = match texts.as_slice() {
        [one] => json!(one),
        many => json!(many),
    };
    let mut response = Map::new();
    response.insert(if r.is_error { "error" } else { "output" }.into(), value);
    parts.push(json!({ "functionResponse": { "id": r.call_id, "name": r.name, "response": response } }));
    if !images.is_empty() {
        parts.push(json!({ "text": images_tag(&r.call_id, images.len()) }));
        parts.extend(images.into_iter().map(inline_data));
    }
}
