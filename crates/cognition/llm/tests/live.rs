//! Opt-in smoke tests against a real model: skipped, with the reason printed, unless asked.
//!
//! - `DEFT_LLM_LIVE_ANTHROPIC=1` with `ANTHROPIC_API_KEY` (model: `DEFT_LLM_LIVE_MODEL`,
//!   default `claude-haiku-4-5`);
//! - `DEFT_LLM_LIVE_OPENAI=1` with `OPENAI_API_KEY` (default `gpt-4o-mini`);
//! - `DEFT_LLM_LIVE_GEMINI=1` with `GEMINI_API_KEY` or `GOOGLE_API_KEY` (default
//!   `gemini-2.5-flash`);
//! - `DEFT_LLM_LIVE_OPENAI_BASE_URL=http://127.0.0.1:11434/v1` and `DEFT_LLM_LIVE_MODEL=...`
//!   for a local OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio).
//!
//! `cargo test -p deft-llm live -- --nocapture` shows what ran. Each asks for one tool
//! call and, where the provider has them, a streamed reply.

use std::sync::Mutex;

use deft_llm::{Call, Delta, Model, ProviderConfig, ProviderKind, Request, ToolChoice, ToolDef};
use serde_json::json;

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

async fn smoke(label: &str, mut cfg: ProviderConfig) {
    // Tests may read the environment; the library never does (agent-cli passes this lookup).
    cfg.resolve_key(env);
    let model = cfg.build().unwrap_or_else(|e| panic!("{label}: {e}"));
    let mut req = Request::new("You are terse.", "Call the `say` tool with the word hello.");
    req.tools = vec![ToolDef {
        name: "say".into(),
        description: "Say a word".into(),
        parameters: json!({"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}),
    }];
    req.tool_choice = ToolChoice::Required;
    req.limits.max_tokens = 200;
    let shown = Mutex::new(String::new());
    let sink = |d: Delta<'_>| {
        if let Delta::Text(t) = d {
            shown.lock().unwrap().push_str(t);
        }
    };
    let resp = model.complete(&req, &Call::streaming(&sink)).await.unwrap_or_else(|e| panic!("{label}: {e}"));
    let call = resp.tool_calls().next().unwrap_or_else(|| panic!("{label}: no tool call in {resp:?}"));
    assert_eq!(call.name, "say", "{label}");
    println!(
        "{label}: {} called say({}), usage {:?}, cost {:?}, streamed {:?}",
        model.describe(),
        call.arguments.to_text(),
        resp.usage,
        resp.cost_usd,
        shown.lock().unwrap()
    );
}

fn skip(label: &str, how: &str) {
    println!("live {label}: skipped (set {how} to run it)");
}

#[tokio::test]
async fn live_anthropic() {
    if env("DEFT_LLM_LIVE_ANTHROPIC").is_none() {
        return skip("anthropic", "DEFT_LLM_LIVE_ANTHROPIC=1 and ANTHROPIC_API_KEY");
    }
    let model = env("DEFT_LLM_LIVE_MODEL").unwrap_or_else(|| "claude-haiku-4-5".into());
    smoke("anthropic", ProviderConfig::new(ProviderKind::Anthropic, model)).await;
}

#[tokio::test]
async fn live_openai() {
    if env("DEFT_LLM_LIVE_OPENAI").is_none() {
        return skip("openai", "DEFT_LLM_LIVE_OPENAI=1 and OPENAI_API_KEY");
    }
    let model = env("DEFT_LLM_LIVE_MODEL").unwrap_or_else(|| "gpt-4o-mini".into());
    smoke("openai", ProviderConfig::new(ProviderKind::Openai, model)).await;
}

#[tokio::test]
async fn live_gemini() {
    if env("DEFT_LLM_LIVE_GEMINI").is_none() {
        return skip("gemini", "DEFT_LLM_LIVE_GEMINI=1 and GEMINI_API_KEY");
    }
    let model = env("DEFT_LLM_LIVE_MODEL").unwrap_or_else(|| "gemini-2.5-flash".into());
    smoke("gemini", ProviderConfig::new(ProviderKind::Gemini, model)).await;
}

#[tokio::test]
async fn live_openai_compatible() {
    let (Some(base), Some(model)) = (env("DEFT_LLM_LIVE_OPENAI_BASE_URL"), env("DEFT_LLM_LIVE_MODEL")) else {
        return skip(
            "openai-compatible",
            "DEFT_LLM_LIVE_OPENAI_BASE_URL (http://127.0.0.1:11434/v1) and DEFT_LLM_LIVE_MODEL",
        );
    };
    let mut cfg = ProviderConfig::new(ProviderKind::OpenaiCompatible, model);
    cfg.base_url = Some(base);
    cfg.api_key_env = env("DEFT_LLM_LIVE_KEY_ENV");
    smoke("openai-compatible", cfg).await;
}
