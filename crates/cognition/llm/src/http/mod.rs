//! The one place that speaks HTTP: the client (rustls on ring), the retry loop, timeouts,
//! cancellation, and turning transport failures into clear errors.

mod hints;
pub(crate) mod sse;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::time::Instant;

use crate::call::Call;
use crate::config::{ProviderConfig, ProviderKind, RetryConfig};
use crate::error::LlmError;
use crate::retry::{Backoff, retry_after, retryable_status};
use crate::secret::Secret;
pub(crate) use hints::{local_server_hint, number_after};
use sse::{SseEvent, SseParser};

/// Provider texts quoted in errors are cut to this many characters: an error page can be
/// a whole HTML document.
const DETAIL_CHARS: usize = 600;
/// Highest block, choice or tool-call index a stream may use: the index sizes a vector,
/// and a broken server sending `"index": 1e12` must get an error, not exhaust memory.
pub(crate) const MAX_STREAM_INDEX: usize = 1024;
/// Error bodies are read up to this size.
const ERROR_BODY_BYTES: usize = 64 * 1024;

/// A configured HTTP client for one provider.
pub(crate) struct Http {
    client: reqwest::Client,
    pub(crate) provider: ProviderKind,
    retry: RetryConfig,
    timeout: Duration,
    /// Only to scrub it out of provider texts; headers are built by the provider.
    key: Option<Secret>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("provider", &self.provider)
            .field("timeout", &self.timeout)
            .field("retry", &self.retry)
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// One POST: URL, headers (the key among them: never printed), JSON body.
pub(crate) struct Post {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
    pub stream: bool,
}

/// An HTTP error response, handed to the provider to classify.
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: u16,
    /// The body, key scrubbed, cut to a readable length.
    pub body: String,
    pub retry_after: Option<Duration>,
    pub url: String,
}

/// How a provider reads its error responses.
pub(crate) trait Dialect: Sync {
    /// The error for an HTTP error response, after `attempts` attempts.
    fn classify(&self, failure: &Failure, attempts: u32) -> LlmError;
    /// A wait the provider put in the body instead of a header (Gemini's `RetryInfo`).
    fn body_retry_after(&self, _body: &str) -> Option<Duration> {
        None
    }
}

/// Receives a streamed response's events.
pub(crate) trait StreamSink: Send {
    /// One event; text deltas go to `call`'s sink from here.
    fn event(&mut self, event: SseEvent, call: &Call<'_>) -> Result<(), LlmError>;
    /// Whether the provider's end marker was seen (else the stream was cut).
    fn is_complete(&self) -> bool;
    /// Whether any delta reached the caller: then a retry would show text twice, so a
    /// failure after it is final.
    fn delivered(&self) -> bool;
    /// Forgets a failed attempt's partial response.
    fn reset(&mut self);
}

/// What a successful exchange gives back.
pub(crate) struct Exchange {
    /// The whole body; `None` when it was streamed into the sink.
    pub body: Option<Vec<u8>>,
    pub attempts: u32,
}

/// Why one attempt failed.
enum AttemptError {
    /// Not worth another attempt.
    Final(LlmError),
    /// An error status worth another attempt.
    Status(Failure),
    /// The connection dropped before or during the response.
    Dropped(String),
    /// The stream carried a retryable error event (Anthropic's `overloaded_error`).
    Stream(LlmError),
}

impl Http {
    pub(crate) fn new(cfg: &ProviderConfig, key: Option<Secret>) -> Result<Self, LlmError> {
        // ring, not aws-lc-rs: no cmake or assembler to build; roots from the system store
        // through the platform verifier (a company's inspecting proxy CA works).
        let crypto = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = rustls_platform_verifier::Verifier::new(crypto.clone())
            .map_err(|e| LlmError::Config(format!("cannot set up TLS certificate checks: {e}")))?;
        let mut tls = rustls::ClientConfig::builder_with_provider(crypto)
            .with_safe_default_protocol_versions()
            .map_err(|e| LlmError::Config(format!("cannot set up TLS: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        // HTTP/1.1 only: one request at a time per call gains nothing from HTTP/2, and
        // leaving h2 out saves its build.
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        // No proxy from the environment: libraries read none (see ProviderConfig::proxy).
        let mut builder = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .no_proxy()
            .connect_timeout(Duration::from_millis(cfg.connect_timeout_ms))
            .read_timeout(Duration::from_millis(cfg.idle_timeout_ms))
            .user_agent(concat!("deft-llm/", env!("CARGO_PKG_VERSION")));
        if let Some(p) = &cfg.proxy {
            let proxy = reqwest::Proxy::all(p).map_err(|e| LlmError::Config(format!("proxy {p:?}: {e}")))?;
            builder = builder.proxy(proxy);
        }
        let client = builder.build().map_err(|e| LlmError::Config(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self { client, provider: cfg.provider, retry: cfg.retry.clone(), timeout: cfg.timeout(), key })
    }

    /// `text` with the key removed, trimmed and cut to [`DETAIL_CHARS`].
    pub(crate) fn clean(&self, text: &str) -> String {
        let text = match &self.key {
            Some(k) => k.scrub(text),
            None => text.to_string(),
        };
        let text = text.trim();
        match text.char_indices().nth(DETAIL_CHARS) {
            Some((i, _)) => format!("{}…", &text[..i]),
            None => text.to_string(),
        }
    }

    /// Sends `post` with retries, within the call's timeout, until cancelled.
    pub(crate) async fn send(
        &self,
        post: &Post,
        dialect: &dyn Dialect,
        call: &Call<'_>,
        sink: Option<&mut dyn StreamSink>,
    ) -> Result<Exchange, LlmError> {
        let timeout = call.timeout.unwrap_or(self.timeout);
        let deadline = Instant::now() + timeout;
        let work = tokio::time::timeout_at(deadline, self.attempts(post, dialect, call, sink, deadline));
        let timed_out = || LlmError::Timeout { url: post.url.clone(), after: timeout };
        match call.cancel {
            Some(cancel) => tokio::select! {
                r = work => r.unwrap_or_else(|_| Err(timed_out())),
                () = cancel.cancelled() => Err(LlmError::Cancelled),
            },
            None => work.await.unwrap_or_else(|_| Err(timed_out())),
        }
    }

    async fn attempts(
        &self,
        post: &Post,
        dialect: &dyn Dialect,
        call: &Call<'_>,
        mut sink: Option<&mut dyn StreamSink>,
        deadline: Instant,
    ) -> Result<Exchange, LlmError> {
        let mut backoff = Backoff::new(&self.retry);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let failed = match self.attempt(post, dialect, call, reborrow(&mut sink)).await {
                Ok(body) => return Ok(Exchange { body, attempts: attempt }),
                Err(AttemptError::Final(e)) => return Err(e),
                Err(e) => e,
            };
            let asked = match &failed {
                AttemptError::Status(f) => f.retry_after,
                _ => None,
            };
            let delivered = sink.as_deref().is_some_and(|s| s.delivered());
            let remaining = deadline.saturating_duration_since(Instant::now());
            match backoff.delay(attempt, asked, remaining) {
                Some(wait) if !delivered => {
                    tokio::time::sleep(wait).await;
                    if let Some(s) = reborrow(&mut sink) {
                        s.reset();
                    }
                }
                _ => return Err(self.final_error(failed, dialect, &post.url, attempt)),
            }
        }
    }

    fn final_error(&self, failed: AttemptError, dialect: &dyn Dialect, url: &str, attempts: u32) -> LlmError {
        match failed {
            AttemptError::Final(e) => e,
            AttemptError::Stream(e) => e.with_attempts(attempts),
            AttemptError::Status(f) => dialect.classify(&f, attempts),
            AttemptError::Dropped(detail) => LlmError::Interrupted { url: url.to_string(), attempts, detail },
        }
    }

    async fn attempt(
        &self,
        post: &Post,
        dialect: &dyn Dialect,
        call: &Call<'_>,
        sink: Option<&mut dyn StreamSink>,
    ) -> Result<Option<Vec<u8>>, AttemptError> {
        let mut req = self.client.post(&post.url).header("content-type", "application/json").body(post.body.clone());
        if post.stream {
            req = req.header("accept", "text/event-stream");
        }
        for (name, value) in &post.headers {
            req = req.header(*name, value);
        }
        let mut resp = req.send().await.map_err(|e| self.transport_error(&e, &post.url))?;
        let status = resp.status().as_u16();
        if !resp.status().is_success() {
            let asked = retry_after(|name| resp.headers().get(name).and_then(|v| v.to_str().ok()), SystemTime::now());
            let body = read_some(&mut resp, ERROR_BODY_BYTES).await;
            let body = self.clean(&String::from_utf8_lossy(&body));
            let retry_after = asked.or_else(|| dialect.body_retry_after(&body));
            let failure = Failure { status, body, retry_after, url: post.url.clone() };
            let retry = retryable_status(status) && dialect.classify(&failure, 1).retryable();
            return Err(if retry {
                AttemptError::Status(failure)
            } else {
                AttemptError::Final(dialect.classify(&failure, 1))
            });
        }
        let is_sse = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("text/event-stream"));
        match sink {
            // A server that ignores `stream: true` answers with plain JSON: parse that.
            Some(sink) if is_sse => self.read_stream(&mut resp, sink, call).await.map(|()| None),
            _ => self.read_whole(&mut resp).await.map(Some),
        }
    }

    async fn read_whole(&self, resp: &mut reqwest::Response) -> Result<Vec<u8>, AttemptError> {
        let mut body = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(bytes)) => body.extend_from_slice(&bytes),
                Ok(None) => return Ok(body),
                Err(e) => return Err(AttemptError::Dropped(self.clean(&root_cause(&e)))),
            }
        }
    }

    async fn read_stream(
        &self,
        resp: &mut reqwest::Response,
        sink: &mut dyn StreamSink,
        call: &Call<'_>,
    ) -> Result<(), AttemptError> {
        let mut parser = SseParser::default();
        let mut events = Vec::new();
        let deliver = |events: &mut Vec<SseEvent>, sink: &mut dyn StreamSink| -> Result<(), AttemptError> {
            for ev in events.drain(..) {
                sink.event(ev, call)
                    .map_err(|e| if e.retryable() { AttemptError::Stream(e) } else { AttemptError::Final(e) })?;
            }
            Ok(())
        };
        loop {
            match resp.chunk().await {
                Ok(Some(bytes)) => {
                    parser.feed(&bytes, &mut events);
                    deliver(&mut events, sink)?;
                }
                Ok(None) => break,
                Err(e) => return Err(AttemptError::Dropped(self.clean(&root_cause(&e)))),
            }
        }
        parser.finish(&mut events);
        deliver(&mut events, sink)?;
        if sink.is_complete() {
            Ok(())
        } else {
            Err(AttemptError::Dropped("the stream ended before the provider's end marker".into()))
        }
    }

    fn transport_error(&self, e: &reqwest::Error, url: &str) -> AttemptError {
        let reason = self.clean(&root_cause(e));
        if e.is_connect() {
            // Nothing listens, the host is unknown, or TLS failed: another attempt in a
            // second would meet the same, so say so now.
            AttemptError::Final(LlmError::Unreachable { url: url.to_string(), reason, hint: local_server_hint(url) })
        } else {
            // Connected, then reset or closed before a response: worth another attempt.
            AttemptError::Dropped(reason)
        }
    }
}

/// A shorter-lived `&mut` to the sink (`as_deref_mut` cannot shorten the trait object's
/// lifetime, which `&mut` keeps invariant).
fn reborrow<'s>(sink: &'s mut Option<&mut dyn StreamSink>) -> Option<&'s mut dyn StreamSink> {
    match sink {
        Some(s) => Some(&mut **s),
        None => None,
    }
}

/// The innermost cause of a transport error ("Connection refused (os error 111)"),
/// which says more than reqwest's outer "error sending request".
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

/// Up to `limit` bytes of the body; what arrived if the connection drops.
async fn read_some(resp: &mut reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match resp.chunk().await {
            Ok(Some(bytes)) => body.extend_from_slice(&bytes),
            _ => break,
        }
    }
    body.truncate(limit);
    body
}

impl Http {
    /// Parses a whole JSON response body, or says what was wrong with it.
    pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(&self, url: &str, body: &[u8]) -> Result<T, LlmError> {
        serde_json::from_slice(body).map_err(|e| LlmError::BadResponse {
            url: url.to_string(),
            detail: self.clean(&format!(
                "not the documented JSON ({e}); the body begins: {:.200}",
                String::from_utf8_lossy(body)
            )),
        })
    }
}
