//! OpenAI-compatible streamed chunks assembled into choices, text shown as it comes.

use serde_json::Value;

use super::parse::{self, OpenAiDialect, WireLogprobs, WireUsage};
use crate::call::{Call, Delta};
use crate::error::LlmError;
use crate::http::sse::SseEvent;
use crate::http::{MAX_STREAM_INDEX, StreamSink};
use crate::response::{Choice, TokenLogprob, Usage};

/// One choice being assembled.
#[derive(Default)]
struct Acc {
    text: String,
    reasoning: String,
    /// (id, name, arguments text) by the delta's tool-call index.
    calls: Vec<(Option<String>, String, String)>,
    finish: Option<String>,
    logprobs: Option<Vec<TokenLogprob>>,
}

pub(crate) struct OpenAiStream<'d> {
    dialect: &'d OpenAiDialect,
    pub model: String,
    choices: Vec<Acc>,
    usage: Option<WireUsage>,
    done: bool,
    delivered: bool,
}

impl<'d> OpenAiStream<'d> {
    pub(crate) fn new(dialect: &'d OpenAiDialect) -> Self {
        Self { dialect, model: String::new(), choices: Vec::new(), usage: None, done: false, delivered: false }
    }

    pub(crate) fn usage(&self) -> Usage {
        self.usage.as_ref().map(WireUsage::to_usage).unwrap_or_default()
    }

    pub(crate) fn into_choices(self) -> Vec<Choice> {
        self.choices
            .into_iter()
            .map(|a| {
                let stop = parse::stop(a.finish.as_deref(), !a.calls.is_empty());
                Choice { parts: parse::parts(Some(a.reasoning), a.text, a.calls), stop, logprobs: a.logprobs }
            })
            .collect()
    }

    fn bad(&self, detail: String) -> LlmError {
        LlmError::BadResponse { url: format!("{}/chat/completions", self.dialect.base_url), detail }
    }

    fn choice(&mut self, index: usize) -> &mut Acc {
        if self.choices.len() <= index {
            self.choices.resize_with(index + 1, Acc::default);
        }
        &mut self.choices[index]
    }
}

impl StreamSink for OpenAiStream<'_> {
    fn event(&mut self, event: SseEvent, call: &Call<'_>) -> Result<(), LlmError> {
        if event.data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(&event.data)
            .map_err(|e| self.bad(format!("a stream chunk is not JSON ({e}): {:.200}", event.data)))?;
        if chunk.get("error").is_some() {
            return Err(self.dialect.error(200, &event.data, None, 1));
        }
        if let Some(m) = chunk["model"].as_str() {
            self.model = m.to_string();
        }
        if let Ok(u) = serde_json::from_value::<WireUsage>(chunk["usage"].clone())
            && !chunk["usage"].is_null()
        {
            self.usage = Some(u);
        }
        for c in chunk["choices"].as_array().into_iter().flatten() {
            let index = c["index"].as_u64().unwrap_or(0) as usize;
            if index > MAX_STREAM_INDEX {
                return Err(self.bad(format!("a stream chunk names choice {index}")));
            }
            let delta = &c["delta"];
            let shown = index == 0;
            let acc = self.choice(index);
            if let Some(t) = delta["content"].as_str() {
                acc.text.push_str(t);
                if shown && !t.is_empty() {
                    call.emit(Delta::Text(t));
                    self.delivered = true;
                }
            }
            let acc = self.choice(index);
            if let Some(t) = delta["reasoning_content"].as_str().or_else(|| delta["reasoning"].as_str()) {
                acc.reasoning.push_str(t);
                if shown && !t.is_empty() {
                    call.emit(Delta::Thinking(t));
                    self.delivered = true;
                }
            }
            let acc = self.choice(index);
            for tc in delta["tool_calls"].as_array().into_iter().flatten() {
                let i = tc["index"].as_u64().unwrap_or(acc.calls.len().saturating_sub(1) as u64) as usize;
                if i > MAX_STREAM_INDEX {
                    return Err(LlmError::BadResponse {
                        url: format!("{}/chat/completions", self.dialect.base_url),
                        detail: format!("a stream chunk names tool call {i}"),
                    });
                }
                if acc.calls.len() <= i {
                    acc.calls.resize_with(i + 1, || (None, String::new(), String::new()));
                }
                let slot = &mut acc.calls[i];
                if let Some(id) = tc["id"].as_str().filter(|s| !s.is_empty()) {
                    slot.0 = Some(id.to_string());
                }
                // The name comes whole in the call's first delta.
                if let Some(name) = tc["function"]["name"].as_str()
                    && slot.1.is_empty()
                {
                    slot.1 = name.to_string();
                }
                if let Some(args) = tc["function"]["arguments"].as_str() {
                    slot.2.push_str(args);
                }
            }
            if let Ok(l) = serde_json::from_value::<WireLogprobs>(c["logprobs"].clone())
                && let Some(tokens) = parse::token_logprobs(l)
            {
                acc.logprobs.get_or_insert_with(Vec::new).extend(tokens);
            }
            if let Some(f) = c["finish_reason"].as_str() {
                acc.finish = Some(f.to_string());
            }
        }
        Ok(())
    }

    /// `[DONE]`, or every choice finished (a server that omits `[DONE]`).
    fn is_complete(&self) -> bool {
        self.done || (!self.choices.is_empty() && self.choices.iter().all(|c| c.finish.is_some()))
    }

    fn delivered(&self) -> bool {
        self.delivered
    }

    fn reset(&mut self) {
        *self = Self::new(self.dialect);
    }
}
