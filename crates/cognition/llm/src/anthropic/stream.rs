//! Anthropic's server-sent events assembled into a [`Choice`], text shown as it comes.

use serde::Deserialize;
use serde_json::Value;

use super::parse::{self, AnthropicDialect, WireUsage};
use super::wire::Block;
use crate::call::{Call, Delta};
use crate::error::LlmError;
use crate::http::sse::SseEvent;
use crate::http::{MAX_STREAM_INDEX, StreamSink};
use crate::message::{Arguments, Part, ToolCall};
use crate::response::Choice;

/// The state of one streamed message.
pub(crate) struct AnthropicStream<'d> {
    dialect: &'d AnthropicDialect,
    pub model: String,
    /// Blocks by index, as JSON, with the tool input's JSON text gathered beside.
    blocks: Vec<(Value, String)>,
    done: Vec<Option<Part>>,
    stop_reason: Option<String>,
    pub usage: WireUsage,
    complete: bool,
    delivered: bool,
}

#[derive(Deserialize)]
struct Start {
    message: StartMessage,
}

#[derive(Deserialize)]
struct StartMessage {
    #[serde(default)]
    model: String,
    #[serde(default)]
    usage: WireUsage,
}

impl<'d> AnthropicStream<'d> {
    pub(crate) fn new(dialect: &'d AnthropicDialect) -> Self {
        Self {
            dialect,
            model: String::new(),
            blocks: Vec::new(),
            done: Vec::new(),
            stop_reason: None,
            usage: WireUsage::default(),
            complete: false,
            delivered: false,
        }
    }

    pub(crate) fn choice(&mut self) -> Choice {
        // Blocks never stopped (cannot happen in a complete stream) are finished as they are.
        for i in 0..self.blocks.len() {
            if self.done.get(i).is_none_or(Option::is_none) {
                self.finish_block(i);
            }
        }
        Choice {
            parts: self.done.iter_mut().filter_map(Option::take).collect(),
            stop: parse::stop(self.stop_reason.as_deref()),
            logprobs: None,
        }
    }

    fn finish_block(&mut self, i: usize) {
        let Some((block, json_text)) = self.blocks.get_mut(i) else { return };
        let block = std::mem::take(block);
        if block.is_null() {
            return; // never started, or already finished
        }
        let part = if block["type"] == "tool_use" {
            Part::ToolCall(ToolCall {
                id: block["id"].as_str().unwrap_or("").to_string(),
                name: block["name"].as_str().unwrap_or("").to_string(),
                // Empty input arrives as no deltas at all.
                arguments: Arguments::parse(json_text),
                signature: None,
            })
        } else {
            match serde_json::from_value::<Block>(block.clone()) {
                Ok(b) => parse::part(b),
                Err(_) => parse::part(Block::Other(block)),
            }
        };
        if self.done.len() <= i {
            self.done.resize_with(i + 1, || None);
        }
        self.done[i] = Some(part);
    }

    fn bad(&self, detail: String) -> LlmError {
        LlmError::BadResponse { url: format!("{}/v1/messages", self.dialect.base_url), detail }
    }
}

impl StreamSink for AnthropicStream<'_> {
    fn event(&mut self, event: SseEvent, call: &Call<'_>) -> Result<(), LlmError> {
        let data: Value = serde_json::from_str(&event.data)
            .map_err(|e| self.bad(format!("a stream event is not JSON ({e}): {:.200}", event.data)))?;
        let kind = if event.event.is_empty() { data["type"].as_str().unwrap_or("") } else { event.event.as_str() };
        let index = data["index"].as_u64().unwrap_or(0) as usize;
        if index > MAX_STREAM_INDEX {
            return Err(self.bad(format!("a stream event names block {index}")));
        }
        match kind {
            "message_start" => {
                let start: Start = serde_json::from_value(data).map_err(|e| self.bad(format!("message_start: {e}")))?;
                self.model = start.message.model;
                self.usage.merge(start.message.usage);
            }
            "content_block_start" => {
                if self.blocks.len() <= index {
                    self.blocks.resize_with(index + 1, || (Value::Null, String::new()));
                }
                let mut block = data["content_block"].clone();
                if !block.is_object() {
                    return Err(self.bad(format!("content_block_start without a block: {:.200}", event.data)));
                }
                // tool_use starts with `input: {}`; the real input comes as JSON text.
                if block["type"] == "tool_use" {
                    block["input"] = Value::Null;
                }
                self.blocks[index] = (block, String::new());
            }
            "content_block_delta" => {
                let started = self.blocks.get(index).is_some_and(|(b, _)| b.is_object());
                let Some((block, json_text)) = self.blocks.get_mut(index).filter(|_| started) else {
                    return Err(self.bad(format!("a delta for block {index}, which never started")));
                };
                let delta = &data["delta"];
                let append = |block: &mut Value, field: &str, piece: &str| {
                    let old = block[field].as_str().unwrap_or("").to_string();
                    block[field] = Value::String(old + piece);
                };
                match delta["type"].as_str().unwrap_or("") {
                    "text_delta" => {
                        let piece = delta["text"].as_str().unwrap_or("");
                        append(block, "text", piece);
                        call.emit(Delta::Text(piece));
                        self.delivered = true;
                    }
                    "thinking_delta" => {
                        let piece = delta["thinking"].as_str().unwrap_or("");
                        append(block, "thinking", piece);
                        call.emit(Delta::Thinking(piece));
                        self.delivered = true;
                    }
                    "signature_delta" => append(block, "signature", delta["signature"].as_str().unwrap_or("")),
                    "input_json_delta" => json_text.push_str(delta["partial_json"].as_str().unwrap_or("")),
                    _ => {} // citations and future deltas: not needed to continue the conversation
                }
            }
            "content_block_stop" => self.finish_block(index),
            "message_delta" => {
                if let Some(r) = data["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(r.to_string());
                }
                if let Ok(u) = serde_json::from_value::<WireUsage>(data["usage"].clone()) {
                    self.usage.merge(u);
                }
            }
            "message_stop" => self.complete = true,
            "error" => {
                let (kind, message) = (
                    data["error"]["type"].as_str().unwrap_or("").to_string(),
                    data["error"]["message"].as_str().unwrap_or("").to_string(),
                );
                return Err(self.dialect.error(200, &kind, message, None, 1));
            }
            _ => {} // ping and future events
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.complete
    }

    fn delivered(&self) -> bool {
        self.delivered
    }

    fn reset(&mut self) {
        *self = Self::new(self.dialect);
    }
}
