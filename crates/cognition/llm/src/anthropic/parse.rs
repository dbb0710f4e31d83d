//! Anthropic responses and error bodies into this crate's types (pure).

use serde::Deserialize;
use serde_json::Value;

use super::wire::Block;
use crate::config::ProviderKind;
use crate::error::LlmError;
use crate::http::{Dialect, Failure, number_after};
use crate::message::{Arguments, Opaque, Part, ToolCall};
use crate::response::{Choice, Stop, StopReason, Usage};

#[derive(Debug, Deserialize)]
pub(crate) struct WireResponse {
    pub model: String,
    pub content: Vec<Block>,
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub usage: WireUsage,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct WireUsage {
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
}

impl WireUsage {
    /// Anthropic's `input_tokens` already excludes cached tokens.
    pub(crate) fn to_usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_read_tokens: self.cache_read_input_tokens.unwrap_or(0),
            cache_write_tokens: self.cache_creation_input_tokens.unwrap_or(0),
        }
    }

    /// Streaming sends usage in pieces; later values replace earlier ones.
    pub(crate) fn merge(&mut self, later: WireUsage) {
        self.input_tokens = later.input_tokens.or(self.input_tokens);
        self.output_tokens = later.output_tokens.or(self.output_tokens);
        self.cache_creation_input_tokens = later.cache_creation_input_tokens.or(self.cache_creation_input_tokens);
        self.cache_read_input_tokens = later.cache_read_input_tokens.or(self.cache_read_input_tokens);
    }
}

pub(crate) fn stop(raw: Option<&str>) -> Stop {
    let raw = raw.unwrap_or("");
    let reason = match raw {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "refusal" => StopReason::ContentFilter,
        _ => StopReason::Other,
    };
    Stop::new(reason, raw)
}

/// A response content block as a part. Tool results and images never come back from
/// the model; such a block would be kept opaque rather than lost.
pub(crate) fn part(block: Block) -> Part {
    match block {
        Block::Text { text, .. } => Part::Text(text),
        Block::ToolUse { id, name, input, .. } => {
            Part::ToolCall(ToolCall { id, name, arguments: Arguments::Json(input), signature: None })
        }
        other => {
            let block = serde_json::to_value(&other).unwrap_or(Value::Null);
            Part::Opaque(Opaque { provider: "anthropic".into(), block })
        }
    }
}

pub(crate) fn choice(resp: WireResponse) -> Choice {
    Choice {
        parts: resp.content.into_iter().map(part).collect(),
        stop: stop(resp.stop_reason.as_deref()),
        logprobs: None,
    }
}

/// Reads Anthropic's error body: `{"type":"error","error":{"type":..,"message":..}}`.
pub(crate) fn error_fields(body: &str) -> (String, String) {
    let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let err = &v["error"];
    let kind = err["type"].as_str().unwrap_or("").to_string();
    let message = err["message"].as_str().map(str::to_string).unwrap_or_else(|| body.to_string());
    (kind, message)
}

/// How the Anthropic client reads its failures.
pub(crate) struct AnthropicDialect {
    pub model: String,
    pub base_url: String,
    /// The variable(s) to name in key errors.
    pub env: String,
    /// Where the key in use came from.
    pub key_source: Option<String>,
}

impl AnthropicDialect {
    /// The error for an `error` object, from a response or a stream event.
    pub(crate) fn error(
        &self,
        status: u16,
        kind: &str,
        message: String,
        failure: Option<&Failure>,
        attempts: u32,
    ) -> LlmError {
        let provider = ProviderKind::Anthropic;
        let retry_after = failure.and_then(|f| f.retry_after);
        let url = failure.map(|f| f.url.clone()).unwrap_or_else(|| format!("{}/v1/messages", self.base_url));
        match (status, kind) {
            (401, _) | (_, "authentication_error") => LlmError::InvalidKey {
                provider,
                status,
                detail: message,
                fix: format!(
                    "set a valid key in {} or api_key in the [model] section of the config{}",
                    self.env,
                    self.key_source.as_ref().map(|s| format!(" (the rejected key came from {s})")).unwrap_or_default()
                ),
            },
            (403, _) | (_, "permission_error") => LlmError::InvalidKey {
                provider,
                status,
                detail: message,
                fix: format!("this key may not make this request; use a key that may ({})", self.env),
            },
            (404, _) | (_, "not_found_error") if message.contains("model") => LlmError::ModelNotFound {
                model: self.model.clone(),
                url,
                detail: message,
                hint: format!(
                    "list the models your key can use with `curl {}/v1/models -H \"x-api-key: ${}\" -H \"anthropic-version: {}\"`",
                    self.base_url,
                    self.env.split(' ').next().unwrap_or("ANTHROPIC_API_KEY"),
                    super::wire::VERSION
                ),
            },
            (404, _) => LlmError::Rejected {
                provider,
                status,
                detail: format!("{message} (nothing at {url}: is base_url right?)"),
            },
            (_, "invalid_request_error") if message.contains("prompt is too long") => LlmError::ContextTooLong {
                // "prompt is too long: 208310 tokens > 200000 maximum"
                prompt_tokens: number_after(&message, "too long:"),
                limit: number_after(&message, ">"),
                detail: message,
            },
            (429, _) | (_, "rate_limit_error") => {
                LlmError::RateLimited { provider, attempts, retry_after, detail: message }
            }
            (_, "overloaded_error") => LlmError::Server {
                provider,
                status: if status == 200 { 529 } else { status },
                attempts,
                retry_after,
                detail: message,
            },
            (500..=599, _) | (_, "api_error") => LlmError::Server {
                provider,
                status: if status == 200 { 500 } else { status },
                attempts,
                retry_after,
                detail: message,
            },
            _ => LlmError::Rejected { provider, status, detail: message },
        }
    }
}

impl Dialect for AnthropicDialect {
    fn classify(&self, failure: &Failure, attempts: u32) -> LlmError {
        let (kind, message) = error_fields(&failure.body);
        self.error(failure.status, &kind, message, Some(failure), attempts)
    }
}
