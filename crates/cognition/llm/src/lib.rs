//! Model clients for Deft's agent: Anthropic Messages, OpenAI-compatible chat completions
//! (OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio), Google Gemini, a scripted
//! provider for tests and demos, and a recorder that turns a real session into a script.
//!
//! The key design decision is **one provider-neutral conversation, converted by pure code
//! into each provider's documented wire format, over thin serde types and reqwest**,
//! rather than a multi-provider framework. The agent needs what such frameworks tend to
//! drop: a screenshot inside a tool result, token log-probabilities and several samples
//! for its confidence scoring, thinking blocks sent back unchanged across tool turns,
//! prompt-cache breakpoints. Owning the conversion makes each of these a few lines that
//! are tested against the provider's documented JSON (over real sockets, on loopback),
//! and where a format cannot carry something, its `wire.rs` says what and how it is
//! approximated. Every conversion is property-tested: any conversation converts to the
//! wire shape and parses back to itself.
//!
//! The seam is [`Model`]: `describe()` and `complete(&Request, &Call)`. [`AnyModel`] holds
//! a model chosen at runtime from a [`ProviderConfig`] ([`ProviderConfig::build`]).
//! Dropping the future of `complete` cancels the call; [`Cancel`] cancels from elsewhere.
//! Rate limits, overloads and dropped connections are retried inside with backoff,
//! honouring `retry-after`; other 4xx never are.
//!
//! This crate reads no environment variable and no file other than a script it is given:
//! keys come in through [`ProviderConfig::resolve_key`], which takes a lookup function.
//! Keys are [`Secret`]s: never printed, serialized, recorded, or quoted in an error.
//! It knows nothing of desktops: it depends on no other Deft crate.

mod anthropic;
mod call;
mod config;
mod cost;
mod error;
mod gemini;
mod http;
mod message;
mod model;
mod openai;
mod record;
mod request;
mod response;
mod retry;
pub mod script;
mod scripted;
mod secret;
mod tags;
#[cfg(test)]
mod testgen;

pub use anthropic::Anthropic;
pub use call::{Call, Cancel, Delta};
pub use config::{ProviderConfig, ProviderKind, RetryConfig};
pub use cost::{PRICES_AS_OF, Price, UsageTotals, builtin_price};
pub use error::{ErrorClass, LlmError};
pub use gemini::Gemini;
pub use message::{Arguments, Image, MediaType, Message, Opaque, Part, ResultPart, Role, ToolCall, ToolResult};
pub use model::{AnyModel, BoxFuture, DynModel, Model, ModelInfo};
pub use openai::OpenAi;
pub use record::Record;
pub use request::{Asks, Cache, Limits, Request, ToolChoice, ToolDef};
pub use response::{Choice, Response, Stop, StopReason, TokenLogprob, TopLogprob, Usage};
pub use scripted::Scripted;
pub use secret::{REDACTED, Secret};
