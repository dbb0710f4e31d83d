//! Anthropic Messages wire types and the conversion of a [`Request`] into them (pure).
//!
//! Everything in the conversation has a place here: images and tool results with images
//! are native, thinking blocks go back as received ([`Part::Opaque`] from `anthropic`),
//! and [`crate::Cache`] becomes `cache_control` breakpoints. Not carried: Gemini
//! signatures and other providers' opaque blocks (dropped), tool-call arguments that are
//! not a JSON object (wrapped in one, since `input` must be an object).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::message::{Image, Part, ResultPart, Role};
use crate::request::{Request, ToolChoice};

/// The `anthropic-version` header this client speaks.
pub(crate) const VERSION: &str = "2023-06-01";

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct WireRequest {
    pub model: String,
    pub max_tokens: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub system: Vec<Block>,
    pub messages: Vec<WireMessage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<WireTool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Value>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct WireMessage {
    pub role: String,
    pub content: Vec<Block>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct WireTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
}

/// A content block. Blocks this client does not model (thinking, redacted thinking,
/// server tools, whatever comes next) are kept whole in `Other` and sent back as they came.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Block {
    Text {
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<Value>,
    },
    Image {
        source: ImageSource,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<Value>,
    },
    ToolUse {
        id: String,
        name: String,
        input: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<Value>,
    },
    ToolResult {
        tool_use_id: String,
        #[serde(default)]
        content: ResultContent,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<Value>,
    },
    #[serde(untagged)]
    Other(Value),
}

impl Block {
    /// Sets a breakpoint; `false` for blocks that cannot hold one (thinking).
    fn set_cache_control(&mut self) -> bool {
        match self {
            Block::Text { cache_control, .. }
            | Block::Image { cache_control, .. }
            | Block::ToolUse { cache_control, .. }
            | Block::ToolResult { cache_control, .. } => {
                *cache_control = Some(ephemeral());
                true
            }
            Block::Other(_) => false,
        }
    }
}

/// A tool result's content: the API accepts a string or blocks; this client sends blocks.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub(crate) enum ResultContent {
    Text(String),
    Blocks(Vec<ResultBlock>),
}

impl Default for ResultContent {
    fn default() -> Self {
        ResultContent::Blocks(Vec::new())
    }
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ResultBlock {
    Text { text: String },
    Image { source: ImageSource },
}

#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct ImageSource {
    #[serde(rename = "type")]
    pub kind: String,
    pub media_type: String,
    pub data: String,
}

impl ImageSource {
    fn of(image: &Image) -> Self {
        Self { kind: "base64".into(), media_type: image.media_type.as_str().into(), data: image.base64() }
    }

    #[cfg(test)]
    pub(crate) fn to_image(&self) -> Result<Image, String> {
        use crate::message::MediaType;
        let media =
            MediaType::parse(&self.media_type).ok_or_else(|| format!("unknown image type {:?}", self.media_type))?;
        Image::from_base64(media, &self.data)
    }
}

fn ephemeral() -> Value {
    json!({ "type": "ephemeral" })
}

/// The request body for `request` (pure; `stream` selects SSE).
pub(crate) fn to_wire(model: &str, request: &Request, stream: bool) -> Result<WireRequest, String> {
    request.check()?;
    if request.asks.thinking_budget.is_some() && request.limits.temperature.is_some() {
        return Err("Anthropic extended thinking does not take a temperature: leave limits.temperature unset".into());
    }
    let mut system = Vec::new();
    if !request.system.is_empty() {
        system.push(Block::Text { text: request.system.clone(), cache_control: None });
    }
    let mut tools: Vec<WireTool> = request
        .tools
        .iter()
        .map(|t| WireTool {
            name: t.name.clone(),
            description: t.description.clone(),
            input_schema: t.parameters.clone(),
            cache_control: None,
        })
        .collect();
    let mut messages: Vec<WireMessage> = request.messages.iter().map(message).collect();

    // The cached prefix is tools, then system, then messages: one breakpoint at the end of
    // the system prompt covers the tools too; without a system prompt, the last tool.
    if request.cache.prefix {
        if let Some(block) = system.last_mut() {
            block.set_cache_control();
        } else if let Some(tool) = tools.last_mut() {
            tool.cache_control = Some(ephemeral());
        }
    }
    if let Some(i) = request.cache.through_message
        && let Some(m) = messages.get_mut(i)
    {
        // Thinking blocks cannot hold a breakpoint: the last block that can.
        let _ = m.content.iter_mut().rev().any(Block::set_cache_control);
    }

    let tool_choice = (!request.tools.is_empty()).then(|| match &request.tool_choice {
        ToolChoice::Auto => json!({ "type": "auto" }),
        ToolChoice::Required => json!({ "type": "any" }),
        ToolChoice::None => json!({ "type": "none" }),
        ToolChoice::Tool(name) => json!({ "type": "tool", "name": name }),
    });
    Ok(WireRequest {
        model: model.to_string(),
        max_tokens: request.limits.max_tokens,
        system,
        messages,
        tools,
        tool_choice,
        temperature: request.limits.temperature,
        stop_sequences: request.limits.stop.clone(),
        thinking: request.asks.thinking_budget.map(|b| json!({ "type": "enabled", "budget_tokens": b })),
        stream,
    })
}

fn message(m: &crate::message::Message) -> WireMessage {
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    let content = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(text) => Some(Block::Text { text: text.clone(), cache_control: None }),
            Part::Image(img) => Some(Block::Image { source: ImageSource::of(img), cache_control: None }),
            Part::ToolCall(c) => Some(Block::ToolUse {
                id: c.id.clone(),
                name: c.name.clone(),
                input: c.arguments.to_object(),
                cache_control: None,
            }),
            Part::ToolResult(r) => Some(Block::ToolResult {
                tool_use_id: r.call_id.clone(),
                content: ResultContent::Blocks(
                    r.parts
                        .iter()
                        .map(|p| match p {
                            ResultPart::Text(text) => ResultBlock::Text { text: text.clone() },
                            ResultPart::Image(img) => ResultBlock::Image { source: ImageSource::of(img) },
                        })
                        .collect(),
                ),
                is_error: r.is_error,
                cache_control: None,
            }),
            Part::Opaque(o) if o.provider == "anthropic" => Some(Block::Other(o.block.clone())),
            Part::Opaque(_) => None,
        })
        .collect();
    WireMessage { role: role.into(), content }
}
