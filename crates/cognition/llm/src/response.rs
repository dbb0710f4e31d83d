//! What a model answers: parts, stop reason, usage, log-probabilities, extra samples.

use serde::{Deserialize, Serialize};

use crate::message::{Message, Part, Role, ToolCall};

/// A model's reply to one [`crate::Request`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The model that answered, as the provider names it (may carry a date suffix).
    pub model: String,
    /// The reply (the first sample).
    pub choice: Choice,
    /// The other samples when [`crate::Asks::samples`] asked for more than one.
    pub samples: Vec<Choice>,
    /// Tokens used by the whole call (all samples).
    pub usage: Usage,
    /// Estimated cost in US dollars, from the price table or the configured price;
    /// `None` when the model's price is unknown (not zero: unknown).
    pub cost_usd: Option<f64>,
    /// HTTP attempts the call took (1 when nothing was retried).
    pub attempts: u32,
}

impl Response {
    /// The reply text (text parts of the first sample, joined).
    pub fn text(&self) -> String {
        self.choice.text()
    }

    /// The tool calls of the first sample.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.choice.tool_calls()
    }
}

/// One sample of a reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Text, tool calls and provider blocks, in the order the model produced them. This
    /// is exactly the assistant message to append for the next turn ([`Choice::to_message`]):
    /// thinking blocks and signatures included, unchanged.
    pub parts: Vec<Part>,
    /// Why generation stopped.
    pub stop: Stop,
    /// Per-token log-probabilities, where asked for and given.
    pub logprobs: Option<Vec<TokenLogprob>>,
}

impl Choice {
    /// The text parts joined.
    pub fn text(&self) -> String {
        self.parts.iter().filter_map(|p| if let Part::Text(t) = p { Some(t.as_str()) } else { None }).collect()
    }

    /// The tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.parts.iter().filter_map(|p| if let Part::ToolCall(c) = p { Some(c) } else { None })
    }

    /// The assistant message to append to the conversation.
    pub fn to_message(&self) -> Message {
        Message { role: Role::Assistant, parts: self.parts.clone() }
    }
}

/// Why generation stopped: normalised, with the provider's own word kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stop {
    /// The normalised reason.
    pub reason: StopReason,
    /// The provider's value (`end_turn`, `tool_calls`, `STOP`, ...); empty when it gave none.
    pub raw: String,
}

impl Stop {
    pub(crate) fn new(reason: StopReason, raw: impl Into<String>) -> Self {
        Self { reason, raw: raw.into() }
    }
}

/// The normalised stop reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its turn.
    EndTurn,
    /// The model wants tool results.
    ToolUse,
    /// `max_tokens` was reached: the reply is cut.
    MaxTokens,
    /// A stop sequence matched.
    StopSequence,
    /// The provider's safety or content filter stopped it.
    ContentFilter,
    /// Anything else (see [`Stop::raw`]).
    Other,
}

/// The log-probability of one generated token, with the top alternatives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TokenLogprob {
    /// The token text.
    pub token: String,
    /// Its natural-log probability.
    pub logprob: f64,
    /// The most likely tokens at this position, most likely first.
    pub top: Vec<TopLogprob>,
}

/// One alternative at a token position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TopLogprob {
    /// The token text.
    pub token: String,
    /// Its natural-log probability.
    pub logprob: f64,
}

/// Token counts of a call, normalised across providers: `input_tokens` counts only input
/// billed at the full rate, so the four input-side counts add up to the whole prompt
/// (OpenAI and Gemini report cached tokens inside their prompt count; they are moved out).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens read without the cache.
    pub input_tokens: u64,
    /// Generated tokens, thinking included.
    pub output_tokens: u64,
    /// Prompt tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the cache (Anthropic).
    pub cache_write_tokens: u64,
}

impl Usage {
    /// The whole prompt: fresh, cached and cache-writing tokens.
    pub fn prompt_tokens(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cache_read_tokens += o.cache_read_tokens;
        self.cache_write_tokens += o.cache_write_tokens;
    }
}
