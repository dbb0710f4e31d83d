//! deft-llm's integration tests: every provider over real sockets on loopback.

mod anthropic;
mod gemini;
mod live;
mod openai;
mod scripted;
mod secrets;
mod support;
mod transport;
