//! `ProviderConfig`: which provider, model and URL, the key, timeouts, retries, price.
//!
//! Deserializable, so agent-cli embeds it as the `[model]` section of its config file.
//! This crate never reads the environment: [`ProviderConfig::resolve_key`] takes a lookup
//! function, and agent-cli passes one over `std::env::var`.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::anthropic::Anthropic;
use crate::cost::Price;
use crate::error::LlmError;
use crate::gemini::Gemini;
use crate::model::AnyModel;
use crate::openai::OpenAi;
use crate::record::Record;
use crate::scripted::Scripted;
use crate::secret::Secret;

/// The wire formats this crate speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// Anthropic Messages API.
    Anthropic,
    /// OpenAI chat completions at OpenAI.
    Openai,
    /// The same wire format at any base URL: Ollama, vLLM, llama.cpp's server, LM Studio,
    /// hosted compatible services. No key by default (local servers need none).
    OpenaiCompatible,
    /// Google Gemini `generateContent`.
    Gemini,
    /// Turns read from a file ([`crate::Scripted`]).
    Scripted,
}

impl ProviderKind {
    /// The name used in config files and messages.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Openai => "openai",
            ProviderKind::OpenaiCompatible => "openai-compatible",
            ProviderKind::Gemini => "gemini",
            ProviderKind::Scripted => "scripted",
        }
    }

    /// The conventional environment variables holding this provider's key, in the order
    /// they are consulted. Data for agent-cli and for error messages; this crate reads none.
    pub fn key_vars(self) -> &'static [&'static str] {
        match self {
            ProviderKind::Anthropic => &["ANTHROPIC_API_KEY"],
            ProviderKind::Openai => &["OPENAI_API_KEY"],
            // Google's own SDKs accept both names.
            ProviderKind::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            // Never OPENAI_API_KEY: that would send an OpenAI key to whatever server the
            // base URL names. A compatible service's key comes from `api_key_env`.
            ProviderKind::OpenaiCompatible | ProviderKind::Scripted => &[],
        }
    }

    /// Whether calls fail without a key.
    pub fn needs_key(self) -> bool {
        matches!(self, ProviderKind::Anthropic | ProviderKind::Openai | ProviderKind::Gemini)
    }

    /// The documented base URL (`None` where the user must give one).
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            ProviderKind::Anthropic => Some("https://api.anthropic.com"),
            ProviderKind::Openai => Some("https://api.openai.com/v1"),
            ProviderKind::Gemini => Some("https://generativelanguage.googleapis.com/v1beta"),
            ProviderKind::OpenaiCompatible | ProviderKind::Scripted => None,
        }
    }
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything needed to build a model client.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The wire format.
    pub provider: ProviderKind,
    /// The model name (`claude-sonnet-4-5`, `gpt-4o`, `llama3.2`, `gemini-2.5-flash`);
    /// for `scripted`, a label.
    pub model: String,
    /// Where the API is; the provider's documented URL when absent. Required for
    /// `openai-compatible` (Ollama: `http://localhost:11434/v1`).
    #[serde(default)]
    pub base_url: Option<String>,
    /// The key. Prefer the environment: [`ProviderConfig::resolve_key`] fills this from
    /// it; a key written here wins, since it was written for Deft.
    #[serde(default)]
    pub api_key: Option<Secret>,
    /// The variable holding the key, instead of the provider's conventional one
    /// (`GROQ_API_KEY` for a hosted OpenAI-compatible service, say).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// The whole call, retries and their waits included. 300 s by default: thinking
    /// models can take minutes.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// Connecting (TCP and TLS).
    #[serde(default = "default_connect_timeout_ms")]
    pub connect_timeout_ms: u64,
    /// Longest silence while a response is arriving.
    #[serde(default = "default_idle_timeout_ms")]
    pub idle_timeout_ms: u64,
    /// Retries of rate limits, overloads and dropped connections.
    #[serde(default)]
    pub retry: RetryConfig,
    /// The price to estimate cost with, instead of the built-in table (`{ input = 0,
    /// output = 0 }` for a local model).
    #[serde(default)]
    pub price: Option<Price>,
    /// An HTTP(S) proxy URL. The environment's `HTTPS_PROXY` is not read here; agent-cli
    /// may pass it.
    #[serde(default)]
    pub proxy: Option<String>,
    /// OpenAI-compatible: the name of the output limit field. OpenAI's newer models want
    /// `max_completion_tokens` (the default for `openai`); local servers know `max_tokens`
    /// (the default for `openai-compatible`).
    #[serde(default)]
    pub max_tokens_field: Option<String>,
    /// `scripted`: the file of turns.
    #[serde(default)]
    pub script: Option<PathBuf>,
    /// Append every exchange to this file, replayable with `scripted`.
    #[serde(default)]
    pub record: Option<PathBuf>,
    /// Where the key came from, for error messages; set by `resolve_key`.
    #[serde(skip)]
    pub key_source: Option<String>,
}

fn default_timeout_ms() -> u64 {
    300_000
}
fn default_connect_timeout_ms() -> u64 {
    10_000
}
fn default_idle_timeout_ms() -> u64 {
    120_000
}

/// Retry settings: exponential backoff with jitter, `retry-after` honoured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryConfig {
    /// HTTP attempts per call, the first included (1: never retry).
    pub max_attempts: u32,
    /// The first backoff; each next one doubles.
    pub initial_delay_ms: u64,
    /// No backoff is longer; a `retry-after` asking for more ends the retries at once
    /// (the error says what the provider asked for).
    pub max_delay_ms: u64,
    /// Seed of the jitter, for reproducible tests; from the clock when absent.
    pub seed: Option<u64>,
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self { max_attempts: 4, initial_delay_ms: 1_000, max_delay_ms: 60_000, seed: None }
    }
}

impl ProviderConfig {
    /// A config with every default: the provider's URL, no key yet.
    pub fn new(provider: ProviderKind, model: impl Into<String>) -> Self {
        Self {
            provider,
            model: model.into(),
            base_url: None,
            api_key: None,
            api_key_env: None,
            timeout_ms: default_timeout_ms(),
            connect_timeout_ms: default_connect_timeout_ms(),
            idle_timeout_ms: default_idle_timeout_ms(),
            retry: RetryConfig::default(),
            price: None,
            proxy: None,
            max_tokens_field: None,
            script: None,
            record: None,
            key_source: None,
        }
    }

    /// The variables this config takes its key from: `api_key_env` if set, else the
    /// provider's conventional ones.
    pub fn key_vars(&self) -> Vec<String> {
        match &self.api_key_env {
            Some(v) => vec![v.clone()],
            None => self.provider.key_vars().iter().map(|v| v.to_string()).collect(),
        }
    }

    /// Fills `api_key` from `lookup` (agent-cli passes `|v| std::env::var(v).ok()`) unless
    /// the config already holds one. Empty values count as absent.
    pub fn resolve_key(&mut self, lookup: impl Fn(&str) -> Option<String>) {
        if self.api_key.as_ref().is_some_and(|k| !k.is_empty()) {
            self.key_source.get_or_insert_with(|| "api_key in the config".into());
            return;
        }
        for var in self.key_vars() {
            if let Some(value) = lookup(&var).filter(|v| !v.trim().is_empty()) {
                self.api_key = Some(Secret::new(value.trim()));
                self.key_source = Some(var);
                return;
            }
        }
    }

    /// The base URL without a trailing slash.
    pub fn base_url(&self) -> Result<String, LlmError> {
        let url = match (&self.base_url, self.provider.default_base_url()) {
            (Some(u), _) => u.clone(),
            (None, Some(u)) => u.to_string(),
            (None, None) => {
                return Err(LlmError::Config(format!(
                    "{} needs base_url: Ollama http://localhost:11434/v1, vLLM http://localhost:8000/v1, \
                     llama.cpp http://localhost:8080/v1, LM Studio http://localhost:1234/v1",
                    self.provider
                )));
            }
        };
        let url = url.trim().trim_end_matches('/').to_string();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(LlmError::Config(format!("base_url {url:?} must start with http:// or https://")));
        }
        Ok(url)
    }

    /// The key, or [`LlmError::MissingKey`] naming the variable to set.
    pub(crate) fn key(&self) -> Result<Option<Secret>, LlmError> {
        match &self.api_key {
            Some(k) if !k.is_empty() => Ok(Some(k.clone())),
            _ if self.provider.needs_key() => {
                Err(LlmError::MissingKey { provider: self.provider, env: self.env_text() })
            }
            _ => Ok(None),
        }
    }

    /// "ANTHROPIC_API_KEY", "GEMINI_API_KEY (or GOOGLE_API_KEY)", or "api_key_env".
    pub(crate) fn env_text(&self) -> String {
        let vars = self.key_vars();
        match vars.as_slice() {
            [] => "api_key_env (the variable holding the key)".into(),
            [one] => one.clone(),
            [first, rest @ ..] => format!("{first} (or {})", rest.join(", ")),
        }
    }

    /// The call timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// Checks values that would only fail later.
    pub fn check(&self) -> Result<(), LlmError> {
        if self.model.trim().is_empty() {
            return Err(LlmError::Config("model is empty: name the model to use".into()));
        }
        if self.timeout_ms == 0 || self.connect_timeout_ms == 0 || self.idle_timeout_ms == 0 {
            return Err(LlmError::Config("timeouts must be more than 0 ms".into()));
        }
        if self.retry.max_attempts == 0 {
            return Err(LlmError::Config("retry.max_attempts must be at least 1".into()));
        }
        if let Some(f) = &self.max_tokens_field
            && f != "max_tokens"
            && f != "max_completion_tokens"
        {
            return Err(LlmError::Config(format!(
                "max_tokens_field is {f:?}: use \"max_tokens\" or \"max_completion_tokens\""
            )));
        }
        if self.provider == ProviderKind::Scripted && self.script.is_none() {
            return Err(LlmError::Config("provider \"scripted\" needs script = \"path/to/turns.jsonl\"".into()));
        }
        Ok(())
    }
}

impl ProviderConfig {
    /// The model this config describes, wrapped in a recorder when `record` is set.
    pub fn build(&self) -> Result<AnyModel, LlmError> {
        self.check()?;
        let model = match self.provider {
            ProviderKind::Anthropic => AnyModel::new(Anthropic::new(self)?),
            ProviderKind::Openai | ProviderKind::OpenaiCompatible => AnyModel::new(OpenAi::new(self)?),
            ProviderKind::Gemini => AnyModel::new(Gemini::new(self)?),
            ProviderKind::Scripted => {
                AnyModel::new(Scripted::from_file(self.script.as_deref().expect("checked by check()"))?)
            }
        };
        match &self.record {
            Some(path) => Ok(AnyModel::new(Record::create(model, path)?)),
            None => Ok(model),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_from_lookup_never_from_the_process() {
        let mut c = ProviderConfig::new(ProviderKind::Gemini, "gemini-2.5-flash");
        c.resolve_key(|v| (v == "GOOGLE_API_KEY").then(|| "g-key".to_string()));
        assert_eq!(c.api_key.as_ref().map(Secret::expose), Some("g-key"));
        assert_eq!(c.key_source.as_deref(), Some("GOOGLE_API_KEY"));

        let mut c = ProviderConfig::new(ProviderKind::Anthropic, "claude-sonnet-4-5");
        c.resolve_key(|_| Some("  ".into()));
        let err = c.key().unwrap_err();
        assert_eq!(
            err.to_string(),
            "no API key for anthropic: set ANTHROPIC_API_KEY or api_key in the [model] section of the config"
        );

        let mut c = ProviderConfig::new(ProviderKind::OpenaiCompatible, "llama3.2");
        c.resolve_key(|v| panic!("a compatible server must not read {v}"));
        assert!(c.key().unwrap().is_none());
    }

    #[test]
    fn config_key_wins_over_environment() {
        let mut c = ProviderConfig::new(ProviderKind::Openai, "gpt-4o");
        c.api_key = Some(Secret::new("from-file"));
        c.resolve_key(|_| Some("from-env".into()));
        assert_eq!(c.api_key.unwrap().expose(), "from-file");
    }

    #[test]
    fn toml_section_parses_and_never_writes_the_key() {
        let c: ProviderConfig = toml::from_str(
            "provider = \"openai-compatible\"\nmodel = \"qwen2.5-vl\"\nbase_url = \"http://localhost:11434/v1/\"\n\
             api_key = \"sk-hidden\"\n[retry]\nmax_attempts = 2\n[price]\ninput = 0\noutput = 0\n",
        )
        .unwrap();
        assert_eq!(c.base_url().unwrap(), "http://localhost:11434/v1");
        assert_eq!(c.retry.max_attempts, 2);
        assert_eq!(c.retry.initial_delay_ms, 1_000);
        let out = toml::to_string(&c).unwrap();
        assert!(!out.contains("sk-hidden"), "{out}");
        assert!(out.contains("[redacted]"));
        assert!(toml::from_str::<ProviderConfig>("provider = \"anthropic\"\nmodel = \"x\"\nkey = \"y\"\n").is_err());
    }

    #[test]
    fn compatible_needs_a_base_url_and_says_which() {
        let c = ProviderConfig::new(ProviderKind::OpenaiCompatible, "llama3.2");
        let e = c.base_url().unwrap_err().to_string();
        assert!(e.contains("http://localhost:11434/v1") && e.contains("LM Studio"), "{e}");
    }
}
