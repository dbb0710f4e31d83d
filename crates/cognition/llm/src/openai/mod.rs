//! The OpenAI-compatible chat-completions client (OpenAI, Ollama, vLLM, llama.cpp, LM Studio).

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
use parse::{OpenAiDialect, WireResponse};
use stream::OpenAiStream;
use wire::MaxTokensField;

/// Talks to `POST {base_url}/chat/completions`, with `Authorization: Bearer` when a key is
/// configured. Streams (SSE, with `stream_options.include_usage`) when the call has a delta
/// sink. `n`, `logprobs` and `top_logprobs` are sent only when asked for.
#[derive(Debug)]
pub struct OpenAi {
    http: Http,
    key: Option<Secret>,
    provider: ProviderKind,
    model: String,
    url: String,
    field: MaxTokensField,
    price: Option<Price>,
    dialect: OpenAiDialect,
}

impl OpenAi {
    /// A client for `cfg` (provider `openai` or `openai-compatible`).
    pub fn new(cfg: &ProviderConfig) -> Result<Self, LlmError> {
        cfg.check()?;
        let key = cfg.key()?;
        let base = cfg.base_url()?;
        let field = match (cfg.max_tokens_field.as_deref(), cfg.provider) {
            (Some("max_completion_tokens"), _) | (None, ProviderKind::Openai) => MaxTokensField::MaxCompletionTokens,
            _ => MaxTokensField::MaxTokens,
        };
        Ok(Self {
            http: Http::new(cfg, key.clone())?,
            key,
            provider: cfg.provider,
            model: cfg.model.clone(),
            url: format!("{base}/chat/completions"),
            field,
            price: cfg.price,
            dialect: OpenAiDialect {
                provider: cfg.provider,
                model: cfg.model.clone(),
                base_url: base,
                env: cfg.env_text(),
                key_source: cfg.key_source.clone(),
            },
        })
    }
}

impl Model for OpenAi {
    fn describe(&self) -> ModelInfo {
        ModelInfo { provider: self.provider.name().into(), model: self.model.clone() }
    }

    async fn complete(&self, request: &Request, call: &Call<'_>) -> Result<Response, LlmError> {
        let stream = call.on_delta.is_some();
        let wire = wire::to_wire(&self.model, request, self.field, stream).map_err(LlmError::InvalidRequest)?;
        let mut headers = Vec::new();
        if let Some(k) = &self.key {
            headers.push(("authorization", format!("Bearer {}", k.expose())));
        }
        let post = Post {
            url: self.url.clone(),
            headers,
            body: serde_json::to_vec(&wire).map_err(|e| LlmError::InvalidRequest(e.to_string()))?,
            stream,
        };
        let mut sink = OpenAiStream::new(&self.dialect);
        let exchange =
            self.http.send(&post, &self.dialect, call, stream.then_some(&mut sink as &mut dyn StreamSink)).await?;
        let (model, mut choices, usage) = match exchange.body {
            None => {
                let (model, usage) = (std::mem::take(&mut sink.model), sink.usage());
                (model, sink.into_choices(), usage)
            }
            Some(body) => {
                let resp: WireResponse = self.http.parse_json(&self.url, &body)?;
                let usage = resp.usage.as_ref().map(parse::WireUsage::to_usage).unwrap_or_default();
                let mut wire_choices = resp.choices;
                wire_choices.sort_by_key(|c| c.index);
                let choices: Vec<_> = wire_choices.into_iter().map(parse::choice).collect();
                if stream && let Some(first) = choices.first() {
                    // A server that ignored `stream` answered whole: its text is delivered once.
                    call.emit(Delta::Text(&first.text()));
                }
                (resp.model, choices, usage)
            }
        };
        if choices.is_empty() {
            return Err(LlmError::BadResponse { url: self.url.clone(), detail: "the response has no choices".into() });
        }
        let choice = choices.remove(0);
        let cost_usd = estimate(self.price, &self.model, &usage);
        Ok(Response { model, choice, samples: choices, usage, cost_usd, attempts: exchange.attempts })
    }
}
