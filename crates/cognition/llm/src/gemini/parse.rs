//! Gemini responses and error bodies into this crate's types (pure).

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::config::ProviderKind;
use crate::error::LlmError;
use crate::http::{Dialect, Failure, number_after};
use crate::message::{Arguments, Opaque, Part, ToolCall};
use crate::response::{Choice, Stop, StopReason, TokenLogprob, TopLogprob, Usage};
use crate::retry::parse_duration_text;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireResponse {
    #[serde(default)]
    pub candidates: Vec<WireCandidate>,
    #[serde(default)]
    pub usage_metadata: Option<WireUsage>,
    #[serde(default)]
    pub model_version: Option<String>,
    #[serde(default)]
    pub prompt_feedback: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireCandidate {
    #[serde(default)]
    pub content: Option<CandidateContent>,
    #[serde(default)]
    pub finish_reason: Option<String>,
    #[serde(default)]
    pub index: usize,
    #[serde(default)]
    pub logprobs_result: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct CandidateContent {
    #[serde(default)]
    pub parts: Vec<Value>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WireUsage {
    #[serde(default)]
    pub prompt_token_count: u64,
    #[serde(default)]
    pub candidates_token_count: u64,
    #[serde(default)]
    pub cached_content_token_count: u64,
    #[serde(default)]
    pub thoughts_token_count: u64,
}

impl WireUsage {
    /// The prompt count includes cached tokens, and thinking is billed as output.
    pub(crate) fn to_usage(&self) -> Usage {
        Usage {
            input_tokens: self.prompt_token_count.saturating_sub(self.cached_content_token_count),
            output_tokens: self.candidates_token_count + self.thoughts_token_count,
            cache_read_tokens: self.cached_content_token_count,
            cache_write_tokens: 0,
        }
    }
}

/// One response part as parts of this crate (a text with a signature gives two).
pub(crate) fn parts_of(part: Value, call_index: &mut usize, out: &mut Vec<Part>) {
    let sig = part.get("thoughtSignature").and_then(Value::as_str).map(str::to_string);
    if let Some(fc) = part.get("functionCall") {
        *call_index += 1;
        out.push(Part::ToolCall(ToolCall {
            // Models that give no id get one, so a result can refer to its call.
            id: fc["id"]
                .as_str()
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| format!("call_{call_index}")),
            name: fc["name"].as_str().unwrap_or("").to_string(),
            arguments: Arguments::Json(if fc["args"].is_null() { json!({}) } else { fc["args"].clone() }),
            signature: sig,
        }));
        return;
    }
    let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
    match (part.get("text").and_then(Value::as_str), thought, sig) {
        (Some(text), false, sig) if part.as_object().is_some_and(|o| o.len() <= 2) => {
            if !text.is_empty() {
                out.push(Part::Text(text.to_string()));
            }
            if let Some(sig) = sig {
                out.push(Part::Opaque(Opaque { provider: "gemini".into(), block: json!({ "thoughtSignature": sig }) }));
            }
        }
        // Thoughts, and parts this client does not model: kept whole.
        _ => out.push(Part::Opaque(Opaque { provider: "gemini".into(), block: part })),
    }
}

pub(crate) fn stop(raw: Option<&str>, has_calls: bool) -> Stop {
    let raw = raw.unwrap_or("");
    let reason = match raw {
        "STOP" if has_calls => StopReason::ToolUse,
        "STOP" => StopReason::EndTurn,
        "MAX_TOKENS" => StopReason::MaxTokens,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            StopReason::ContentFilter
        }
        _ if has_calls => StopReason::ToolUse,
        _ => StopReason::Other,
    };
    Stop::new(reason, raw)
}

/// `logprobsResult`: the chosen token at each step with the top candidates beside it.
pub(crate) fn logprobs(result: &Value) -> Option<Vec<TokenLogprob>> {
    let chosen = result.get("chosenCandidates")?.as_array()?;
    let top = result.get("topCandidates").and_then(Value::as_array);
    let entry =
        |c: &Value| (c["token"].as_str().unwrap_or("").to_string(), c["logProbability"].as_f64().unwrap_or(0.0));
    Some(
        chosen
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let (token, logprob) = entry(c);
                let alternatives = top
                    .and_then(|t| t.get(i))
                    .and_then(|t| t["candidates"].as_array())
                    .map(|cs| cs.iter().map(entry).map(|(token, logprob)| TopLogprob { token, logprob }).collect())
                    .unwrap_or_default();
                TokenLogprob { token, logprob, top: alternatives }
            })
            .collect(),
    )
}

pub(crate) fn choice(c: WireCandidate) -> Choice {
    let mut parts = Vec::new();
    let mut calls = 0;
    for p in c.content.map(|c| c.parts).unwrap_or_default() {
        parts_of(p, &mut calls, &mut parts);
    }
    Choice {
        stop: stop(c.finish_reason.as_deref(), calls > 0),
        parts,
        logprobs: c.logprobs_result.as_ref().and_then(logprobs),
    }
}

/// A response with no candidate: the prompt itself was blocked.
pub(crate) fn blocked(feedback: Option<&Value>) -> Choice {
    let reason = feedback.and_then(|f| f["blockReason"].as_str()).unwrap_or("no candidates");
    Choice { parts: Vec::new(), stop: Stop::new(StopReason::ContentFilter, reason), logprobs: None }
}

/// How the Gemini client reads its failures.
#[derive(Debug)]
pub(crate) struct GeminiDialect {
    pub model: String,
    pub base_url: String,
    pub env: String,
    pub key_source: Option<String>,
}

impl GeminiDialect {
    pub(crate) fn error(&self, status: u16, body: &str, failure: Option<&Failure>, attempts: u32) -> LlmError {
        let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        let err = &v["error"];
        let message = err["message"].as_str().map(str::to_string).unwrap_or_else(|| body.to_string());
        let code = err["status"].as_str().unwrap_or("");
        let status = if status == 200 { err["code"].as_u64().unwrap_or(500) as u16 } else { status };
        let reasons: Vec<&str> =
            err["details"].as_array().into_iter().flatten().filter_map(|d| d["reason"].as_str()).collect();
        let provider = ProviderKind::Gemini;
        let retry_after = failure.and_then(|f| f.retry_after).or_else(|| self.body_retry_after(body));
        let url = failure.map(|f| f.url.clone()).unwrap_or_else(|| self.base_url.clone());
        if status == 401
            || status == 403
            || reasons.contains(&"API_KEY_INVALID")
            || message.contains("API key not valid")
            || code == "UNAUTHENTICATED"
        {
            return LlmError::InvalidKey {
                provider,
                status,
                detail: message,
                fix: format!(
                    "set a valid key in {} or api_key in the [model] section of the config{}",
                    self.env,
                    self.key_source.as_ref().map(|s| format!(" (the rejected key came from {s})")).unwrap_or_default()
                ),
            };
        }
        if message.contains("exceeds the maximum number of tokens") {
            // "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."
            return LlmError::ContextTooLong {
                prompt_tokens: number_after(&message, "input token count ("),
                limit: number_after(&message, "tokens allowed ("),
                detail: message,
            };
        }
        match status {
            404 if message.contains("models/") || code == "NOT_FOUND" => LlmError::ModelNotFound {
                model: self.model.clone(),
                url,
                detail: message,
                hint: format!(
                    "list the models your key can use with `curl {}/models -H \"x-goog-api-key: ${}\"`",
                    self.base_url,
                    self.env.split(' ').next().unwrap_or("GEMINI_API_KEY")
                ),
            },
            429 => LlmError::RateLimited { provider, attempts, retry_after, detail: message },
            500..=599 => LlmError::Server { provider, status, attempts, retry_after, detail: message },
            _ => LlmError::Rejected { provider, status, detail: message },
        }
    }
}

impl Dialect for GeminiDialect {
    fn classify(&self, failure: &Failure, attempts: u32) -> LlmError {
        self.error(failure.status, &failure.body, Some(failure), attempts)
    }

    /// `{"error": {"details": [{"@type": "...RetryInfo", "retryDelay": "13s"}]}}`
    fn body_retry_after(&self, body: &str) -> Option<Duration> {
        let v: Value = serde_json::from_str(body).ok()?;
        v["error"]["details"].as_array()?.iter().find_map(|d| d["retryDelay"].as_str().and_then(parse_duration_text))
    }
}
