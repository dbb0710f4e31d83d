//! LLM clients (Anthropic, OpenAI-compatible, Gemini) and a scripted provider.
//!
//! Not built yet. The only crate that speaks HTTP to model providers.
