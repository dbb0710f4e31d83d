//! OpenAI chat-completions wire types and the conversion of a [`Request`] into them (pure).
//!
//! What the format lacks, and how it is carried anyway (the same on OpenAI, Ollama, vLLM,
//! llama.cpp's server and LM Studio):
//! - images in a tool result: a `tool` message holds text only, so the images follow in
//!   one user message, each group introduced by `[tool call <id> returned <n> image(s),
//!   attached below]`;
//! - a tool result's error flag: its text begins with `[error] `;
//! - thinking and other providers' opaque blocks, Gemini signatures: not sent (reasoning
//!   text that a server returns is not to be sent back);
//! - order: a user message sends its tool results first, an assistant message its text
//!   before its tool calls.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::message::{Image, Message, Part, ResultPart, Role, ToolResult};
use crate::request::{Request, ToolChoice};
use crate::tags::{ERROR_TAG, images_tag};

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct WireRequest {
    pub model: String,
    pub messages: Vec<WireMessage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<WireTool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_logprobs: Option<u8>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<Value>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct WireMessage {
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<WireToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

/// Message content: a string, or parts.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub(crate) enum Content {
    Text(String),
    Parts(Vec<ContentPart>),
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ContentPart {
    Text { text: String },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct ImageUrl {
    pub url: String,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct WireToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub function: FunctionCall,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct FunctionCall {
    pub name: String,
    /// JSON text, as the model wrote it.
    pub arguments: String,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct WireTool {
    #[serde(rename = "type")]
    pub kind: String,
    pub function: FunctionDef,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct FunctionDef {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// `data:image/png;base64,...`
pub(crate) fn data_url(image: &Image) -> String {
    format!("data:{};base64,{}", image.media_type.as_str(), image.base64())
}

fn image_part(image: &Image) -> ContentPart {
    ContentPart::ImageUrl { image_url: ImageUrl { url: data_url(image) } }
}

/// Which field carries `max_tokens`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MaxTokensField {
    MaxTokens,
    MaxCompletionTokens,
}

/// The request body for `request` (pure).
pub(crate) fn to_wire(
    model: &str,
    request: &Request,
    field: MaxTokensField,
    stream: bool,
) -> Result<WireRequest, String> {
    request.check()?;
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(WireMessage {
            role: "system".into(),
            content: Some(Content::Text(request.system.clone())),
            tool_calls: Vec::new(),
            tool_call_id: None,
        });
    }
    for m in &request.messages {
        match m.role {
            Role::User => user(m, &mut messages),
            Role::Assistant => messages.push(assistant(m)),
        }
    }
    let tools: Vec<WireTool> = request
        .tools
        .iter()
        .map(|t| WireTool {
            kind: "function".into(),
            function: FunctionDef {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.parameters.clone(),
            },
        })
        .collect();
    // Some servers refuse `tool_choice` without tools.
    let tool_choice = (!tools.is_empty()).then(|| match &request.tool_choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::Required => json!("required"),
        ToolChoice::None => json!("none"),
        ToolChoice::Tool(name) => json!({ "type": "function", "function": { "name": name } }),
    });
    let max = Some(request.limits.max_tokens);
    Ok(WireRequest {
        model: model.to_string(),
        messages,
        tools,
        tool_choice,
        max_tokens: max.filter(|_| field == MaxTokensField::MaxTokens),
        max_completion_tokens: max.filter(|_| field == MaxTokensField::MaxCompletionTokens),
        temperature: request.limits.temperature,
        stop: request.limits.stop.clone(),
        // Sent only when asked: some servers refuse `n` and `logprobs` altogether.
        n: (request.asks.samples > 1).then_some(request.asks.samples),
        logprobs: request.asks.logprobs.map(|_| true),
        top_logprobs: request.asks.logprobs.filter(|&k| k > 0),
        stream,
        stream_options: stream.then(|| json!({ "include_usage": true })),
    })
}

/// A user message: its tool results as `tool` messages, then one user message with the
/// results' images (each group tagged) and the message's own parts.
fn user(m: &Message, out: &mut Vec<WireMessage>) {
    let mut rest = Vec::new();
    for p in &m.parts {
        if let Part::ToolResult(r) = p {
            out.push(tool_message(r));
            let images: Vec<&Image> =
                r.parts.iter().filter_map(|p| if let ResultPart::Image(i) = p { Some(i) } else { None }).collect();
            if !images.is_empty() {
                rest.push(ContentPart::Text { text: images_tag(&r.call_id, images.len()) });
                rest.extend(images.into_iter().map(image_part));
            }
        }
    }
    for p in &m.parts {
        match p {
            Part::Text(text) => rest.push(ContentPart::Text { text: text.clone() }),
            Part::Image(img) => rest.push(image_part(img)),
            _ => {}
        }
    }
    if rest.is_empty() {
        return;
    }
    let content = match rest.as_slice() {
        [ContentPart::Text { text }] => Content::Text(text.clone()),
        _ => Content::Parts(rest),
    };
    out.push(WireMessage { role: "user".into(), content: Some(content), tool_calls: Vec::new(), tool_call_id: None });
}

fn tool_message(r: &ToolResult) -> WireMessage {
    let mut texts: Vec<String> =
        r.parts.iter().filter_map(|p| if let ResultPart::Text(t) = p { Some(t.clone()) } else { None }).collect();
    if r.is_error {
        match texts.first_mut() {
            Some(first) => *first = format!("{ERROR_TAG} {first}"),
            None => texts.push(ERROR_TAG.into()),
        }
    }
    let content = match texts.len() {
        0 => Content::Text(String::new()),
        1 => Content::Text(texts.remove(0)),
        _ => Content::Parts(texts.into_iter().map(|text| ContentPart::Text { text }).collect()),
    };
    WireMessage {
        role: "tool".into(),
        content: Some(content),
        tool_calls: Vec::new(),
        tool_call_id: Some(r.call_id.clone()),
    }
}

fn assistant(m: &Message) -> WireMessage {
    let mut texts: Vec<String> =
        m.parts.iter().filter_map(|p| if let Part::Text(t) = p { Some(t.clone()) } else { None }).collect();
    let tool_calls: Vec<WireToolCall> = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some(WireToolCall {
                id: c.id.clone(),
                kind: "function".into(),
                function: FunctionCall { name: c.name.clone(), arguments: c.arguments.to_text() },
            }),
            _ => None,
        })
        .collect();
    let content = match texts.len() {
        0 if !tool_calls.is_empty() => None,
        0 => Some(Content::Text(String::new())),
        1 => Some(Content::Text(texts.remove(0))),
        _ => Some(Content::Parts(texts.into_iter().map(|text| ContentPart::Text { text }).collect())),
    };
    WireMessage { role: "assistant".into(), content, tool_calls, tool_call_id: None }
}
