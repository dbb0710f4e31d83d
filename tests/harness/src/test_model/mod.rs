//! The **test model**: a deterministic stand-in for an LLM provider, for tests, the demo
//! and the benchmarks. No hosted model is reachable from CI and no model weights may be
//! installed, so the agent is driven by this: a real HTTP server on loopback that speaks
//! a provider's real wire format (OpenAI-compatible chat completions, and Anthropic
//! Messages) and chooses each reply by reading what the agent actually sent: the goal, the
//! tools' schemas, the outlines with their refs, the results of its earlier calls, the
//! person's answers (`policy.rs`). A test chooses only the wire and the persona; it never
//! hands the model an answer. Every reply names itself `deft-test-model (test model: ...)`.

mod cache;
mod http;
mod policy;
mod reading;
mod wire;

use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use serde_json::Value;

pub use cache::Usage;
pub use policy::Persona;
pub use reading::{Task, tasks};
pub use wire::{MODEL_LABEL, Seen, Wire};

/// The model name a client should configure.
pub const MODEL_NAME: &str = "deft-test-model";

/// What the test model received, for tests that look at what the agent sent.
#[derive(Clone, Debug)]
pub struct Received {
    /// The request as read.
    pub seen: Seen,
    /// The raw body.
    pub body: Value,
    /// What it answered: the text and the tools it called.
    pub reply_text: String,
    /// Tools called in the reply.
    pub reply_tools: Vec<String>,
    /// The API key the request carried (`x-api-key` or `Authorization: Bearer`).
    pub credential: Option<String>,
    /// The prompt's tokens as the provider's cache would bill them (`cache.rs`).
    pub usage: Usage,
}

/// A running test model. Stops when dropped.
pub struct TestModel {
    addr: SocketAddr,
    wire: Wire,
    stop: Arc<AtomicBool>,
    log: Arc<Mutex<Vec<Received>>>,
    thread: Option<JoinHandle<()>>,
}

impl TestModel {
    /// Start one on a free loopback port.
    pub fn start(wire: Wire, persona: Persona) -> std::io::Result<TestModel> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(Vec::new()));
        let rng = Arc::new(Mutex::new(policy::Rng::new(0x5eed)));
        let seq = Arc::new(AtomicU64::new(0));
        let cache = Arc::new(Mutex::new(cache::PromptCache::default()));
        let (stop2, log2) = (Arc::clone(&stop), Arc::clone(&log));
        let thread = std::thread::Builder::new().name("test-model".into()).spawn(move || {
            while !stop2.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (log, rng, seq) = (Arc::clone(&log2), Arc::clone(&rng), Arc::clone(&seq));
                        let cache = Arc::clone(&cache);
                        std::thread::spawn(move || {
                            let _ = stream.set_nonblocking(false);
                            let _ = serve(
                                &stream,
                                wire,
                                persona,
                                &State { log: &log, rng: &rng, seq: &seq, cache: &cache },
                            );
                        });
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    Err(_) => break,
                }
            }
        })?;
        Ok(TestModel { addr, wire, stop, log, thread: Some(thread) })
    }

    /// The base URL a client configures: `http://127.0.0.1:PORT/v1` (OpenAI-compatible)
    /// or `http://127.0.0.1:PORT` (Anthropic).
    pub fn base_url(&self) -> String {
        match self.wire {
            Wire::OpenAi => format!("http://{}/v1", self.addr),
            Wire::Anthropic => format!("http://{}", self.addr),
        }
    }

    /// The provider name of its wire in a `[model]` section.
    pub fn provider(&self) -> &'static str {
        match self.wire {
            Wire::OpenAi => "openai-compatible",
            Wire::Anthropic => "anthropic",
        }
    }

    /// Every request so far, in order.
    pub fn received(&self) -> Vec<Received> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl Drop for TestModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// What the requests of one test model share.
struct State<'a> {
    log: &'a Mutex<Vec<Received>>,
    rng: &'a Mutex<policy::Rng>,
    seq: &'a AtomicU64,
    cache: &'a Mutex<cache::PromptCache>,
}

fn serve(stream: &std::net::TcpStream, wire: Wire, persona: Persona, state: &State<'_>) -> std::io::Result<()> {
    let State { log, rng, seq, cache } = *state;
    let req = http::read_request(stream)?;
    let want = match wire {
        Wire::OpenAi => "/v1/chat/completions",
        Wire::Anthropic => "/v1/messages",
    };
    if req.method != "POST" || !req.path.starts_with(want) {
        let body = serde_json::json!({"error": {"message": format!("the test model serves POST {want} only"), "type": "invalid_request_error"}});
        return http::respond(stream, 404, "application/json", body.to_string().as_bytes());
    }
    let body: Value = match serde_json::from_slice(&req.body) {
        Ok(v) => v,
        Err(e) => {
            let err = serde_json::json!({"error": {"message": format!("body is not JSON: {e}"), "type": "invalid_request_error"}});
            return http::respond(stream, 400, "application/json", err.to_string().as_bytes());
        }
    };
    let seen = wire::parse(wire, &body);
    let reply = {
        let mut rng = rng.lock().unwrap_or_else(PoisonError::into_inner);
        policy::reply(&seen, persona, &mut rng)
    };
    let n = seq.fetch_add(1, Ordering::SeqCst);
    let prompt_tokens = (seen.chars / 4) as u64 + 1;
    let usage = cache.lock().unwrap_or_else(PoisonError::into_inner).usage(wire, &body, prompt_tokens);
    log.lock().unwrap_or_else(PoisonError::into_inner).push(Received {
        seen: seen.clone(),
        body,
        reply_text: reply.text.clone(),
        reply_tools: reply.calls.iter().map(|(n, _)| n.clone()).collect(),
        credential: req.credential.clone(),
        usage,
    });
    if seen.stream {
        http::respond_sse(stream, &wire::stream(wire, &reply, &usage, n))
    } else {
        let out = wire::body(wire, &reply, &usage, n);
        http::respond(stream, 200, "application/json", out.to_string().as_bytes())
    }
}
