//! The Anthropic Messages client.

mod parse;
mod stream;
#[cfg(test)]
mod tests;
pub(crate) mod wire;

use crate::call::Call;
use crate::config::{ProviderConfig, ProviderKind};
use crate::cost::{Price, estimate};
use crate::error::LlmError;
use crate::http::{Http, Post};
use crate::model::{Model, ModelInfo};
use crate::request::Request;
use crate::response::Response;
use crate::secret::Secret;
use parse::{AnthropicDialect, WireResponse};
use stream::AnthropicStream;

/// Talks to `POST {base_url}/v1/messages` with `x-api-key` and `anthropic-version`.
/// Streams (SSE) when the call has a delta sink. `samples > 1` makes that many calls, the
/// first one streamed. No log-probabilities: the API has none.
#[derive(Debug)]
pub struct Anthropic {
    http: Http,
    key: Secret,
    model: String,
    url: String,
    price: Option<Price>,
    dialect: AnthropicDialect,
}

impl std::fmt::Debug for AnthropicDialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicDialect").field("base_url", &self.base_url).finish_non_exhaustive()
    }
}

impl Anthropic {
    /// A client for `cfg` (provider `anthropic`); fails without a key.
    pub fn new(cfg: &ProviderConfig) -> Result<Self, LlmError> {
        cfg.check()?;
        let key = cfg
            .key()?
            .ok_or_else(|| LlmError::MissingKey { provider: ProviderKind::Anthropic, env: cfg.env_text() })?;
        // The documented base has no `/v1`; accept one written anyway.
        let base = cfg.base_url()?;
        let base = base.strip_suffix("/v1").unwrap_or(&base).to_string();
        Ok(Self {
            http: Http::new(cfg, Some(key.clone()))?,
            key,
            model: cfg.model.clone(),
            url: format!("{base}/v1/messages"),
            price: cfg.price,
            dialect: AnthropicDialect {
                model: cfg.model.clone(),
                base_url: base,
                env: cfg.env_text(),
                key_source: cfg.key_source.clone(),
            },
        })
    }

    async fn once(&self, request: &Request, call: &Call<'_>) -> Result<Response, LlmError> {
        let stream = call.on_delta.is_some();
        let wire = wire::to_wire(&self.model, request, stream).map_err(LlmError::InvalidRequest)?;
        let post = Post {
            url: self.url.clone(),
            headers: vec![
                ("x-api-key", self.key.expose().to_string()),
                ("anthropic-version", wire::VERSION.to_string()),
            ],
            body: serde_json::to_vec(&wire).map_err(|e| LlmError::InvalidRequest(e.to_string()))?,
            stream,
        };
        let mut sink = AnthropicStream::new(&self.dialect);
        let exchange = self
            .http
            .send(&post, &self.dialect, call, stream.then_some(&mut sink as &mut dyn crate::http::StreamSink))
            .await?;
        let streamed = exchange.body.is_none();
        let (model, choice, usage) = match exchange.body {
            None => (std::mem::take(&mut sink.model), sink.choice(), sink.usage.to_usage()),
            Some(body) => {
                let resp: WireResponse = self.http.parse_json(&self.url, &body)?;
                let usage = resp.usage.to_usage();
                (resp.model.clone(), parse::choice(resp), usage)
            }
        };
        if stream && !streamed {
            // A server that ignored `stream` answered whole: its text is delivered once.
            call.emit(crate::call::Delta::Text(&choice.text()));
        }
        Ok(Response { model, choice, samples: Vec::new(), usage, cost_usd: None, attempts: exchange.attempts })
    }
}

impl Model for Anthropic {
    fn describe(&self) -> ModelInfo {
        ModelInfo { provider: ProviderKind::Anthropic.name().into(), model: self.model.clone() }
    }

    async fn complete(&self, request: &Request, call: &Call<'_>) -> Result<Response, LlmError> {
        let mut response = self.once(request, call).await?;
        // The Messages API has no `n`: further samples are further calls, not streamed.
        let quiet = Call { on_delta: None, ..*call };
        for _ in 1..request.asks.samples {
            let more = self.once(request, &quiet).await?;
            response.samples.push(more.choice);
            response.usage += more.usage;
            response.attempts += more.attempts;
        }
        response.cost_usd = estimate(self.price, &self.model, &response.usage);
        Ok(response)
    }
}
