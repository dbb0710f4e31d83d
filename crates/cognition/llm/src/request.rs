//! What the agent asks a model: system prompt, conversation, tools, limits and extras.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::{Message, Part, Role};

/// One request to a model. Plain data: the same request goes to any provider, and a
/// provider that cannot honour part of it says so in its documentation (see the crate
/// README), never silently by failing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The system prompt (empty for none).
    pub system: String,
    /// The conversation so far, oldest first; it should start with a user message.
    pub messages: Vec<Message>,
    /// The tools the model may call.
    pub tools: Vec<ToolDef>,
    /// Whether and which tool the model must call.
    pub tool_choice: ToolChoice,
    /// Output limits and sampling.
    pub limits: Limits,
    /// Optional extras: log-probabilities, several samples, a thinking budget.
    pub asks: Asks,
    /// Where Anthropic prompt-cache breakpoints go (other providers cache on their own).
    pub cache: Cache,
}

impl Request {
    /// A request with a system prompt and one user message, default limits, no tools.
    pub fn new(system: impl Into<String>, user: impl Into<String>) -> Self {
        Self {
            system: system.into(),
            messages: vec![Message::user(user)],
            tools: Vec::new(),
            tool_choice: ToolChoice::Auto,
            limits: Limits::default(),
            asks: Asks::default(),
            cache: Cache::default(),
        }
    }

    /// Checks what no provider accepts, so the mistake is named here rather than in a
    /// provider's 400: tool calls outside assistant messages, tool results or images
    /// outside user messages, no samples.
    pub fn check(&self) -> Result<(), String> {
        for (i, m) in self.messages.iter().enumerate() {
            for p in &m.parts {
                let wrong = match (m.role, p) {
                    (Role::User, Part::ToolCall(_)) => Some("a tool call in a user message"),
                    (Role::Assistant, Part::ToolResult(_)) => Some("a tool result in an assistant message"),
                    (Role::Assistant, Part::Image(_)) => Some("an image in an assistant message"),
                    _ => None,
                };
                if let Some(what) = wrong {
                    return Err(format!("message {i} holds {what}"));
                }
            }
        }
        if self.asks.samples == 0 {
            return Err("asks.samples is 0: ask for at least one".into());
        }
        if let Some(i) = self.cache.through_message
            && i >= self.messages.len()
        {
            return Err(format!("cache.through_message is {i} but there are {} messages", self.messages.len()));
        }
        Ok(())
    }
}

/// A tool the model may call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    /// Its name (letters, digits, `_` and `-`: what every provider accepts).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments (an object schema).
    pub parameters: Value,
}

/// Whether the model must call a tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// The model must call some tool.
    Required,
    /// The model must not call tools.
    None,
    /// The model must call this tool.
    Tool(String),
}

/// Output limits and sampling.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Most tokens to generate (Anthropic requires a value; 4096 by default).
    pub max_tokens: u32,
    /// Sampling temperature; the provider's default when `None`.
    pub temperature: Option<f64>,
    /// Stop sequences.
    pub stop: Vec<String>,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_tokens: 4096, temperature: None, stop: Vec::new() }
    }
}

/// Optional extras; each provider's support is listed in the crate README.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Asks {
    /// Log-probabilities of the reply's tokens, with this many top alternatives per token
    /// (`Some(0)`: only the chosen tokens). OpenAI-compatible and Gemini; Anthropic has none.
    pub logprobs: Option<u8>,
    /// How many independent replies (1 by default). OpenAI `n` and Gemini
    /// `candidateCount`; for Anthropic, that many calls.
    pub samples: u32,
    /// Tokens the model may spend thinking before it answers (Anthropic extended
    /// thinking, Gemini `thinkingBudget`); ignored by OpenAI-compatible servers.
    pub thinking_budget: Option<u32>,
}

impl Default for Asks {
    fn default() -> Self {
        Self { logprobs: None, samples: 1, thinking_budget: None }
    }
}

/// Anthropic prompt-cache breakpoints. Everything before a breakpoint is cached for a few
/// minutes and costs a tenth on the next call, which is what keeps a long agent run
/// cheap: mark the stable prefix and, each turn, the newest message.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cache {
    /// A breakpoint after the tools and the system prompt.
    pub prefix: bool,
    /// A breakpoint after this message (usually the last one).
    pub through_message: Option<usize>,
}

impl Cache {
    /// Breakpoints after the prefix and after the newest of `messages` messages.
    pub fn through_newest(messages: usize) -> Self {
        Self { prefix: true, through_message: messages.checked_sub(1) }
    }
}
