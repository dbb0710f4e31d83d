//! Gemini's streamed responses (`streamGenerateContent?alt=sse`) assembled into choices.

use serde_json::Value;

use super::parse::{self, GeminiDialect, WireResponse, WireUsage};
use crate::call::{Call, Delta};
use crate::error::LlmError;
use crate::http::sse::SseEvent;
use crate::http::{MAX_STREAM_INDEX, StreamSink};
use crate::message::Part;
use crate::response::{Choice, TokenLogprob};

#[derive(Default)]
struct Acc {
    parts: Vec<Part>,
    calls: usize,
    finish: Option<String>,
    logprobs: Option<Vec<TokenLogprob>>,
}

pub(crate) struct GeminiStream<'d> {
    dialect: &'d GeminiDialect,
    pub model: Option<String>,
    pub usage: Option<WireUsage>,
    pub feedback: Option<Value>,
    candidates: Vec<Acc>,
    delivered: bool,
}

fn is_thought(block: &Value) -> bool {
    block.get("thought").and_then(Value::as_bool) == Some(true)
}

impl<'d> GeminiStream<'d> {
    pub(crate) fn new(dialect: &'d GeminiDialect) -> Self {
        Self { dialect, model: None, usage: None, feedback: None, candidates: Vec::new(), delivered: false }
    }

    pub(crate) fn into_choices(self) -> Vec<Choice> {
        self.candidates
            .into_iter()
            .map(|a| {
                let calls = a.parts.iter().any(|p| matches!(p, Part::ToolCall(_)));
                Choice { stop: parse::stop(a.finish.as_deref(), calls), parts: a.parts, logprobs: a.logprobs }
            })
            .collect()
    }
}

impl StreamSink for GeminiStream<'_> {
    fn event(&mut self, event: SseEvent, call: &Call<'_>) -> Result<(), LlmError> {
        let chunk: Value = serde_json::from_str(&event.data).map_err(|e| LlmError::BadResponse {
            url: self.dialect.base_url.clone(),
            detail: format!("a stream chunk is not JSON ({e}): {:.200}", event.data),
        })?;
        if chunk.get("error").is_some() {
            return Err(self.dialect.error(200, &event.data, None, 1));
        }
        let resp: WireResponse = serde_json::from_value(chunk).map_err(|e| LlmError::BadResponse {
            url: self.dialect.base_url.clone(),
            detail: format!("a stream chunk is not a documented response ({e})"),
        })?;
        if resp.usage_metadata.is_some() {
            self.usage = resp.usage_metadata;
        }
        if resp.model_version.is_some() {
            self.model = resp.model_version;
        }
        if resp.prompt_feedback.is_some() {
            self.feedback = resp.prompt_feedback;
        }
        for c in resp.candidates {
            if c.index > MAX_STREAM_INDEX {
                return Err(LlmError::BadResponse {
                    url: self.dialect.base_url.clone(),
                    detail: format!("a stream chunk names candidate {}", c.index),
                });
            }
            if self.candidates.len() <= c.index {
                self.candidates.resize_with(c.index + 1, Acc::default);
            }
            let shown = c.index == 0;
            let acc = &mut self.candidates[c.index];
            let mut fresh = Vec::new();
            for p in c.content.map(|c| c.parts).unwrap_or_default() {
                parse::parts_of(p, &mut acc.calls, &mut fresh);
            }
            for part in fresh {
                // Text and thoughts arrive in pieces: join them to the piece before.
                let joined = match (&part, acc.parts.last_mut()) {
                    (Part::Text(t), Some(Part::Text(prev))) => {
                        prev.push_str(t);
                        true
                    }
                    (Part::Opaque(new), Some(Part::Opaque(prev)))
                        if is_thought(&new.block)
                            && is_thought(&prev.block)
                            && prev.block.get("thoughtSignature").is_none() =>
                    {
                        let text = format!(
                            "{}{}",
                            prev.block["text"].as_str().unwrap_or(""),
                            new.block["text"].as_str().unwrap_or("")
                        );
                        prev.block["text"] = Value::String(text);
                        if let Some(sig) = new.block.get("thoughtSignature") {
                            prev.block["thoughtSignature"] = sig.clone();
                        }
                        true
                    }
                    _ => false,
                };
                if !joined {
                    acc.parts.push(part.clone());
                }
                if shown {
                    match &part {
                        Part::Text(t) => call.emit(Delta::Text(t)),
                        Part::Opaque(o) if is_thought(&o.block) => {
                            call.emit(Delta::Thinking(o.block["text"].as_str().unwrap_or("")));
                        }
                        _ => continue,
                    }
                    self.delivered = true;
                }
            }
            if let Some(l) = c.logprobs_result.as_ref().and_then(parse::logprobs) {
                acc.logprobs.get_or_insert_with(Vec::new).extend(l);
            }
            if c.finish_reason.is_some() {
                acc.finish = c.finish_reason;
            }
        }
        Ok(())
    }

    /// Every candidate has its finish reason, or the prompt was blocked.
    fn is_complete(&self) -> bool {
        (!self.candidates.is_empty() && self.candidates.iter().all(|c| c.finish.is_some()))
            || (self.candidates.is_empty() && self.feedback.is_some())
    }

    fn delivered(&self) -> bool {
        self.delivered
    }

    fn reset(&mut self) {
        *self = Self::new(self.dialect);
    }
}
