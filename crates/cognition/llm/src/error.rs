//! `LlmError`: every way a model call fails, each worded for a user outside this repo.
//!
//! No variant holds an API key, an `Authorization` header or image bytes: the HTTP layer
//! scrubs the key out of provider texts before they reach a variant, and truncates them.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::ProviderKind;

/// Why a model call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// No key was configured for a provider that needs one.
    #[error("no API key for {provider}: set {env} or api_key in the [model] section of the config")]
    MissingKey {
        /// The provider.
        provider: ProviderKind,
        /// The environment variable(s) that would hold it.
        env: String,
    },
    /// The provider refused the key (HTTP 401, 403, or Gemini's invalid-key 400).
    #[error("{provider} rejected the API key (HTTP {status}: {detail}): {fix}")]
    InvalidKey {
        /// The provider.
        provider: ProviderKind,
        /// The HTTP status.
        status: u16,
        /// The provider's message (key scrubbed).
        detail: String,
        /// What to do, naming the variable to set.
        fix: String,
    },
    /// The model name is unknown to the provider or server.
    #[error("model '{model}' not found at {url} ({detail}): {hint}")]
    ModelNotFound {
        /// The configured model name.
        model: String,
        /// The URL that was tried.
        url: String,
        /// The provider's message.
        detail: String,
        /// How to see the available models.
        hint: String,
    },
    /// The prompt does not fit the model's context window.
    #[error("{}", context_message(*prompt_tokens, *limit, detail))]
    ContextTooLong {
        /// The prompt's size in tokens, where the provider said.
        prompt_tokens: Option<u64>,
        /// The model's context limit in tokens, where the provider said.
        limit: Option<u64>,
        /// The provider's message.
        detail: String,
    },
    /// Nothing answers at the URL: connection refused, unknown host, TLS failure.
    #[error("the server at {url} is not answering ({reason}){hint}")]
    Unreachable {
        /// The URL that was tried.
        url: String,
        /// What the connection attempt said.
        reason: String,
        /// A hint for local servers (`: is Ollama running? ...`), or empty.
        hint: String,
    },
    /// HTTP 429 on every attempt.
    #[error("{provider} rate limit (HTTP 429) after {attempts} attempt(s){}: {detail}", retry_after_text(*retry_after))]
    RateLimited {
        /// The provider.
        provider: ProviderKind,
        /// HTTP attempts made.
        attempts: u32,
        /// What the last `retry-after` asked for, if anything.
        retry_after: Option<Duration>,
        /// The provider's message.
        detail: String,
    },
    /// The provider failed or is overloaded (5xx, Anthropic 529) on every attempt.
    #[error("{provider} failed with HTTP {status} after {attempts} attempt(s){}: {detail}", retry_after_text(*retry_after))]
    Server {
        /// The provider.
        provider: ProviderKind,
        /// The last HTTP status (529: overloaded).
        status: u16,
        /// HTTP attempts made.
        attempts: u32,
        /// What the last `retry-after` asked for, if anything.
        retry_after: Option<Duration>,
        /// The provider's message.
        detail: String,
    },
    /// Any other 4xx: the request is wrong and retrying will not help.
    #[error("{provider} rejected the request (HTTP {status}): {detail}")]
    Rejected {
        /// The provider.
        provider: ProviderKind,
        /// The HTTP status.
        status: u16,
        /// The provider's message.
        detail: String,
    },
    /// The response arrived but is not what the provider documents (malformed JSON, ...).
    #[error("the response from {url} could not be read: {detail}")]
    BadResponse {
        /// The URL.
        url: String,
        /// What was wrong.
        detail: String,
    },
    /// The connection closed before the response was complete, on every attempt.
    #[error("the connection to {url} dropped before the response was complete, after {attempts} attempt(s) ({detail})")]
    Interrupted {
        /// The URL.
        url: String,
        /// HTTP attempts made.
        attempts: u32,
        /// What the transport said.
        detail: String,
    },
    /// The call's timeout passed (retries included).
    #[error("no complete response from {url} within {}s (the call's timeout)", after.as_secs_f64())]
    Timeout {
        /// The URL.
        url: String,
        /// The timeout that passed.
        after: Duration,
    },
    /// [`crate::Cancel::cancel`] was called.
    #[error("the model call was cancelled")]
    Cancelled,
    /// The request cannot be expressed (checked before sending).
    #[error("the request cannot be sent: {0}")]
    InvalidRequest(String),
    /// The provider config is incomplete or contradictory.
    #[error("model config: {0}")]
    Config(String),
    /// A script file cannot be read or parsed.
    #[error("script {}{}: {detail}", path.display(), line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Script {
        /// The file.
        path: PathBuf,
        /// The line, when the problem is on one.
        line: Option<usize>,
        /// What is wrong.
        detail: String,
    },
    /// Every turn of a script was used.
    #[error("the script {} has no turn {}: all {turns} turns were used", path.display(), turns + 1)]
    ScriptEnded {
        /// The file.
        path: PathBuf,
        /// How many turns it has.
        turns: usize,
    },
    /// The request does not contain what the script's turn expects: the script and the
    /// program drifted apart, and continuing would replay answers to other questions.
    #[error("the script {} is out of sync at turn {turn}: it expects the newest message to contain {expected:?}, which reads: {found}", path.display())]
    ScriptMismatch {
        /// The file.
        path: PathBuf,
        /// The turn (1-based).
        turn: usize,
        /// The missing substring.
        expected: String,
        /// The newest message's text (truncated).
        found: String,
    },
    /// A failure played back from a script or a recording.
    #[error("{message} (scripted)")]
    Replayed {
        /// The class of the failure it stands for.
        class: ErrorClass,
        /// Its message.
        message: String,
    },
    /// A recording cannot be written.
    #[error("cannot write the recording {}: {source}", path.display())]
    Record {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// What kind of failure: callers decide on retries and wording by class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Missing or rejected key.
    Auth,
    /// Unknown model.
    NotFound,
    /// The prompt is too long.
    ContextTooLong,
    /// Nothing answers at the URL.
    Unreachable,
    /// 429.
    RateLimited,
    /// 5xx or overloaded.
    Server,
    /// Another 4xx, or a request that cannot be sent.
    Rejected,
    /// A response that does not parse.
    BadResponse,
    /// The connection dropped mid-response.
    Interrupted,
    /// The call's timeout passed.
    Timeout,
    /// Cancelled by the caller.
    Cancelled,
    /// Config, script or recording problems.
    Setup,
}

impl ErrorClass {
    /// Whether calling again later may succeed. The HTTP layer already retried these
    /// within the call's budget; an agent may still wait longer and try again.
    pub fn retryable(self) -> bool {
        matches!(self, ErrorClass::RateLimited | ErrorClass::Server | ErrorClass::Interrupted | ErrorClass::Timeout)
    }
}

impl LlmError {
    /// The class of this failure.
    pub fn class(&self) -> ErrorClass {
        match self {
            LlmError::MissingKey { .. } | LlmError::InvalidKey { .. } => ErrorClass::Auth,
            LlmError::ModelNotFound { .. } => ErrorClass::NotFound,
            LlmError::ContextTooLong { .. } => ErrorClass::ContextTooLong,
            LlmError::Unreachable { .. } => ErrorClass::Unreachable,
            LlmError::RateLimited { .. } => ErrorClass::RateLimited,
            LlmError::Server { .. } => ErrorClass::Server,
            LlmError::Rejected { .. } | LlmError::InvalidRequest(_) => ErrorClass::Rejected,
            LlmError::BadResponse { .. } => ErrorClass::BadResponse,
            LlmError::Interrupted { .. } => ErrorClass::Interrupted,
            LlmError::Timeout { .. } => ErrorClass::Timeout,
            LlmError::Cancelled => ErrorClass::Cancelled,
            LlmError::Replayed { class, .. } => *class,
            LlmError::Config(_)
            | LlmError::Script { .. }
            | LlmError::ScriptEnded { .. }
            | LlmError::ScriptMismatch { .. }
            | LlmError::Record { .. } => ErrorClass::Setup,
        }
    }

    /// The same error, counting `n` attempts (an error read from a stream event is made
    /// before the retry loop knows how many there were).
    pub(crate) fn with_attempts(mut self, n: u32) -> Self {
        if let LlmError::RateLimited { attempts, .. }
        | LlmError::Server { attempts, .. }
        | LlmError::Interrupted { attempts, .. } = &mut self
        {
            *attempts = n;
        }
        self
    }

    /// Whether calling again later may succeed (see [`ErrorClass::retryable`]).
    pub fn retryable(&self) -> bool {
        self.class().retryable()
    }
}

/// `12345` as `12,345`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn context_message(prompt: Option<u64>, limit: Option<u64>, detail: &str) -> String {
    match (prompt, limit) {
        (Some(p), Some(l)) if p > l => format!(
            "the prompt is {} tokens over the model's context limit of {} ({} tokens): shorten the conversation",
            thousands(p - l),
            thousands(l),
            thousands(p)
        ),
        (_, Some(l)) => format!("the prompt is over the model's context limit of {} tokens ({detail})", thousands(l)),
        _ => format!("the prompt is over the model's context limit ({detail})"),
    }
}

fn retry_after_text(after: Option<Duration>) -> String {
    match after {
        Some(d) => format!(" (the provider asks to retry after {:.1}s)", d.as_secs_f64()),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(12_345), "12,345");
        assert_eq!(thousands(200_000), "200,000");
        assert_eq!(thousands(1_048_576), "1,048,576");
    }

    #[test]
    fn context_too_long_says_by_how_much() {
        let e = LlmError::ContextTooLong { prompt_tokens: Some(212_345), limit: Some(200_000), detail: String::new() };
        assert_eq!(
            e.to_string(),
            "the prompt is 12,345 tokens over the model's context limit of 200,000 (212,345 tokens): shorten the conversation"
        );
        assert_eq!(e.class(), ErrorClass::ContextTooLong);
        assert!(!e.retryable());
    }
}
