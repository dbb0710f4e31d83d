//! The Google Gemini `generateContent` client.

mod parse;
mod stream;
#[cfg(test)]
mod tests;
pub(crate) mod wire;

use crate::call::{Call, Delta};
use crate::config::{ProviderConfig, ProviderKind};
use crate::cost::{Price, estimate};
use crate::error::LlmError;
use crate::http::{Http, Post, StreamSink};
use crate::model::{Model, ModelInfo};
use crate::request::Request;
use crate::response::Response;
use crate::secret::Secret;
use parse::{GeminiDialect, WireResponse};
use stream::GeminiStream;

/// Talks to `POST {base_url}/models/{model}:generateContent` (and
/// `:streamGenerateContent?alt=sse` when the call has a delta sink) with `x-goog-api-key`.
/// `samples` is `candidateCount`; log-probabilities are `responseLogprobs`/`logprobs`.
#[derive(Debug)]
pub struct Gemini {
    http: Http,
    key: Secret,
    model: String,
    url: String,
    stream_url: String,
    price: Option<Price>,
    dialect: GeminiDialect,
}

impl Gemini {
    /// A client for `cfg` (provider `gemini`); fails without a key.
    pub fn new(cfg: &ProviderConfig) -> Result<Self, LlmError> {
        cfg.check()?;
        let key =
            cfg.key()?.ok_or_else(|| LlmError::MissingKey { provider: ProviderKind::Gemini, env: cfg.env_text() })?;
        let base = cfg.base_url()?;
        let model = cfg.model.strip_prefix("models/").unwrap_or(&cfg.model).to_string();
        Ok(Self {
            http: Http::new(cfg, Some(key.clone()))?,
            key,
            url: format!("{base}/models/{model}:generateContent"),
            stream_url: format!("{base}/models/{model}:streamGenerateContent?alt=sse"),
            model: model.clone(),
            price: cfg.price,
            dialect: GeminiDialect { model, base_url: base, env: cfg.env_text(), key_source: cfg.key_source.clone() },
        })
    }
}

impl Model for Gemini {
    fn describe(&self) -> ModelInfo {
        ModelInfo { provider: ProviderKind::Gemini.name().into(), model: self.model.clone() }
    }

    async fn complete(&self, request: &Request, call: &Call<'_>) -> Result<Response, LlmError> {
        let stream = call.on_delta.is_some();
        let wire = wire::to_wire(request).map_err(LlmError::InvalidRequest)?;
        let url = if stream { &self.stream_url } else { &self.url };
        let post = Post {
            url: url.clone(),
            headers: vec![("x-goog-api-key", self.key.expose().to_string())],
            body: serde_json::to_vec(&wire).map_err(|e| LlmError::InvalidRequest(e.to_string()))?,
            stream,
        };
        let mut sink = GeminiStream::new(&self.dialect);
        let exchange =
            self.http.send(&post, &self.dialect, call, stream.then_some(&mut sink as &mut dyn StreamSink)).await?;
        let (model, usage, feedback, mut choices) = match exchange.body {
            None => (sink.model.take(), sink.usage.take(), sink.feedback.take(), sink.into_choices()),
            Some(body) => {
                let resp: WireResponse = self.http.parse_json(url, &body)?;
                let mut candidates = resp.candidates;
                candidates.sort_by_key(|c| c.index);
                let choices: Vec<_> = candidates.into_iter().map(parse::choice).collect();
                if stream && let Some(first) = choices.first() {
                    call.emit(Delta::Text(&first.text()));
                }
                (resp.model_version, resp.usage_metadata, resp.prompt_feedback, choices)
            }
        };
        let usage = usage.map(|u| u.to_usage()).unwrap_or_default();
        // No candidate at all: the prompt was blocked; a value, not an error.
        let choice = if choices.is_empty() { parse::blocked(feedback.as_ref()) } else { choices.remove(0) };
        Ok(Response {
            model: model.unwrap_or_else(|| self.model.clone()),
            choice,
            samples: choices,
            cost_usd: estimate(self.price, &self.model, &usage),
            usage,
            attempts: exchange.attempts,
        })
    }
}
