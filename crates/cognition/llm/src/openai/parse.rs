//! OpenAI-compatible responses and error bodies into this crate's types (pure).

use serde::Deserialize;
use serde_json::{Value, json};

use crate::config::ProviderKind;
use crate::error::LlmError;
use crate::http::{Dialect, Failure, number_after};
use crate::message::{Arguments, Opaque, Part, ToolCall};
use crate::response::{Choice, Stop, StopReason, TokenLogprob, TopLogprob, Usage};

#[derive(Debug, Deserialize)]
pub(crate) struct WireResponse {
    #[serde(default)]
    pub model: String,
    #[serde(default)]
    pub choices: Vec<WireChoice>,
    #[serde(default)]
    pub usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireChoice {
    #[serde(default)]
    pub index: usize,
    pub message: RespMessage,
    #[serde(default)]
    pub finish_reason: Option<String>,
    #[serde(default)]
    pub logprobs: Option<WireLogprobs>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RespMessage {
    #[serde(default)]
    pub content: Option<Value>,
    #[serde(default)]
    pub tool_calls: Option<Vec<RespToolCall>>,
    /// Reasoning text of DeepSeek-style models (vLLM, LM Studio); `reasoning` in Ollama.
    #[serde(default, alias = "reasoning")]
    pub reasoning_content: Option<String>,
    #[serde(default)]
    pub refusal: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RespToolCall {
    #[serde(default)]
    pub id: Option<String>,
    pub function: RespFunction,
}

#[derive(Debug, Deserialize)]
pub(crate) struct RespFunction {
    #[serde(default)]
    pub name: String,
    /// JSON text; some servers send an object instead.
    #[serde(default)]
    pub arguments: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct WireLogprobs {
    #[serde(default)]
    pub content: Option<Vec<WireTokenLogprob>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireTokenLogprob {
    pub token: String,
    pub logprob: f64,
    #[serde(default)]
    pub top_logprobs: Vec<WireTop>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireTop {
    pub token: String,
    pub logprob: f64,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct WireUsage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct PromptDetails {
    #[serde(default)]
    pub cached_tokens: Option<u64>,
}

impl WireUsage {
    /// `prompt_tokens` includes cached tokens; they are moved to `cache_read_tokens`.
    pub(crate) fn to_usage(&self) -> Usage {
        let cached = self.prompt_tokens_details.as_ref().and_then(|d| d.cached_tokens).unwrap_or(0);
        Usage {
            input_tokens: self.prompt_tokens.saturating_sub(cached),
            output_tokens: self.completion_tokens,
            cache_read_tokens: cached,
            cache_write_tokens: 0,
        }
    }
}

pub(crate) fn token_logprobs(l: WireLogprobs) -> Option<Vec<TokenLogprob>> {
    l.content.map(|tokens| {
        tokens
            .into_iter()
            .map(|t| TokenLogprob {
                token: t.token,
                logprob: t.logprob,
                top: t.top_logprobs.into_iter().map(|a| TopLogprob { token: a.token, logprob: a.logprob }).collect(),
            })
            .collect()
    })
}

pub(crate) fn stop(raw: Option<&str>, has_calls: bool) -> Stop {
    let raw = raw.unwrap_or("");
    // Some local servers say "stop" while returning tool calls: the calls decide.
    let reason = match raw {
        _ if has_calls => StopReason::ToolUse,
        "stop" => StopReason::EndTurn,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
        "content_filter" => StopReason::ContentFilter,
        _ => StopReason::Other,
    };
    Stop::new(reason, raw)
}

/// The parts of a reply: reasoning (shown, never sent back), text, tool calls.
pub(crate) fn parts(
    reasoning: Option<String>,
    text: String,
    calls: Vec<(Option<String>, String, String)>,
) -> Vec<Part> {
    let mut parts = Vec::new();
    if let Some(r) = reasoning.filter(|r| !r.is_empty()) {
        parts.push(Part::Opaque(Opaque { provider: "openai".into(), block: json!({ "reasoning_content": r }) }));
    }
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    for (i, (id, name, args)) in calls.into_iter().enumerate() {
        parts.push(Part::ToolCall(ToolCall {
            // Some servers give no id; the result must still refer to something.
            id: id.filter(|s| !s.is_empty()).unwrap_or_else(|| format!("call_{i}")),
            name,
            arguments: Arguments::parse(&args),
            signature: None,
        }));
    }
    parts
}

/// Text of a message `content`: a string, or parts whose text is joined.
pub(crate) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

pub(crate) fn choice(c: WireChoice) -> Choice {
    let text = content_text(c.message.content.as_ref());
    let text = if text.is_empty() { c.message.refusal.unwrap_or_default() } else { text };
    let calls: Vec<(Option<String>, String, String)> = c
        .message
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .map(|t| {
            let args = match t.function.arguments {
                Some(Value::String(s)) => s,
                Some(Value::Null) | None => String::new(),
                Some(v) => v.to_string(),
            };
            (t.id, t.function.name, args)
        })
        .collect();
    let stop = stop(c.finish_reason.as_deref(), !calls.is_empty());
    Choice {
        parts: parts(c.message.reasoning_content, text, calls),
        stop,
        logprobs: c.logprobs.and_then(token_logprobs),
    }
}

/// How the OpenAI-compatible client reads its failures.
#[derive(Debug)]
pub(crate) struct OpenAiDialect {
    pub provider: ProviderKind,
    pub model: String,
    pub base_url: String,
    pub env: String,
    pub key_source: Option<String>,
}

/// (message, type, code) of an error body: `{"error": {...}}`, `{"error": "..."}`, or text.
pub(crate) fn error_fields(body: &str) -> (String, String, String, Value) {
    let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let err = &v["error"];
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    };
    match err {
        Value::String(s) => (s.clone(), String::new(), String::new(), Value::Null),
        Value::Object(_) => {
            let message = err["message"].as_str().map(str::to_string).unwrap_or_else(|| body.to_string());
            (message, text(&err["type"]), text(&err["code"]), err.clone())
        }
        _ => (body.to_string(), String::new(), String::new(), Value::Null),
    }
}

impl OpenAiDialect {
    pub(crate) fn error(&self, status: u16, body: &str, failure: Option<&Failure>, attempts: u32) -> LlmError {
        let (message, kind, code, err) = error_fields(body);
        let provider = self.provider;
        let retry_after = failure.and_then(|f| f.retry_after);
        let url = failure.map(|f| f.url.clone()).unwrap_or_else(|| format!("{}/chat/completions", self.base_url));
        let lower = message.to_ascii_lowercase();
        if status == 401 || status == 403 || code == "invalid_api_key" {
            let fix = match (provider, status) {
                (ProviderKind::OpenaiCompatible, _) => format!(
                    "the server at {} wants a key: set api_key, or api_key_env to the variable holding it, \
                     in the [model] section of the config",
                    self.base_url
                ),
                (_, 403) => format!("this key may not make this request; use a key that may ({})", self.env),
                _ => format!(
                    "set a valid key in {} or api_key in the [model] section of the config{}",
                    self.env,
                    self.key_source.as_ref().map(|s| format!(" (the rejected key came from {s})")).unwrap_or_default()
                ),
            };
            return LlmError::InvalidKey { provider, status, detail: message, fix };
        }
        if code == "context_length_exceeded"
            || kind == "exceed_context_size_error"
            || lower.contains("maximum context length")
            || lower.contains("context size")
            || lower.contains("maximum model length")
        {
            // OpenAI and vLLM: "maximum context length is 8192 tokens. However, you requested
            // 9000 tokens"; llama.cpp: `n_prompt_tokens` and `n_ctx` beside the message.
            let limit = err["n_ctx"]
                .as_u64()
                .or_else(|| number_after(&message, "maximum context length is"))
                .or_else(|| number_after(&message, "maximum model length of"));
            let prompt = err["n_prompt_tokens"]
                .as_u64()
                .or_else(|| number_after(&message, "resulted in"))
                .or_else(|| number_after(&message, "you requested"))
                .or_else(|| number_after(&message, "(length"));
            return LlmError::ContextTooLong { prompt_tokens: prompt, limit, detail: message };
        }
        if code == "model_not_found"
            || (lower.contains("model")
                && (lower.contains("not found") || lower.contains("does not exist") || lower.contains("not exist")))
        {
            return LlmError::ModelNotFound {
                model: self.model.clone(),
                url,
                detail: message,
                hint: self.models_hint(),
            };
        }
        match status {
            429 if code == "insufficient_quota" => LlmError::Rejected {
                provider,
                status,
                detail: format!("{message} (the account has no credit left: check its plan and billing)"),
            },
            429 => LlmError::RateLimited { provider, attempts, retry_after, detail: message },
            500..=599 => LlmError::Server { provider, status, attempts, retry_after, detail: message },
            200 => LlmError::Server { provider, status: 500, attempts, retry_after, detail: message },
            404 => LlmError::Rejected {
                provider,
                status,
                detail: format!("{message} (nothing at {url}: is base_url right? it usually ends in /v1)"),
            },
            400 if lower.contains("max_tokens") && lower.contains("max_completion_tokens") => LlmError::Rejected {
                provider,
                status,
                detail: format!("{message} (set max_tokens_field = \"max_completion_tokens\" in the [model] section)"),
            },
            _ => LlmError::Rejected { provider, status, detail: message },
        }
    }

    fn models_hint(&self) -> String {
        let base = &self.base_url;
        match self.provider {
            ProviderKind::Openai => format!(
                "list the models your key can use with `curl {base}/models -H \"Authorization: Bearer ${}\"`",
                self.env.split(' ').next().unwrap_or("OPENAI_API_KEY")
            ),
            _ if base.contains(":11434") => format!(
                "list the models Ollama has with `ollama list` (or `curl {base}/models`); get this one with `ollama pull {}`",
                self.model
            ),
            _ => format!("list the models the server offers with `curl {base}/models`"),
        }
    }
}

impl Dialect for OpenAiDialect {
    fn classify(&self, failure: &Failure, attempts: u32) -> LlmError {
        self.error(failure.status, &failure.body, Some(failure), attempts)
    }
}
