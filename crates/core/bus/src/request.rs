//! Request/reply (used by `ask_user`): one responder answers typed requests, with a timeout.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

/// How a [`RequestChannel`] behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestConfig {
    /// Requests queued for the responder before a new request waits for room (within its
    /// timeout).
    pub queue: usize,
    /// How long [`RequestChannel::request`] waits for queueing plus the reply.
    pub timeout: Duration,
}

impl Default for RequestConfig {
    fn default() -> Self {
        // Requests such as ask_user wait on a person, so the default is generous.
        Self { queue: 16, timeout: Duration::from_secs(300) }
    }
}

/// Why a request got no reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// No responder is registered, so nobody could answer; the request failed at once.
    #[error(
        "no responder is registered for these requests; register one with `RequestChannel::responder` before asking"
    )]
    NoResponder,
    /// The responder did not answer in time.
    #[error("no reply within {after:?}; the responder is busy or stuck: retry later or raise the timeout")]
    Timeout {
        /// The timeout that ran out.
        after: Duration,
    },
    /// The responder took the request and dropped it without replying.
    #[error(
        "the responder dropped the request without replying; it may have shut down, check that it is still running"
    )]
    Unanswered,
}

impl RequestError {
    /// Whether asking again may succeed without changing anything first.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::Timeout { .. })
    }
}

/// Why a responder could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    /// Another responder is registered and alive; only one answers requests.
    #[error("a responder is already registered; drop its `Requests` before registering another")]
    AlreadyRegistered,
}

struct Pending<Q, R> {
    query: Q,
    reply: oneshot::Sender<R>,
}

/// The requesting side, cheap to clone. Typed by request `Q` and reply `R`.
pub struct RequestChannel<Q, R> {
    inner: Arc<Inner<Q, R>>,
}

struct Inner<Q, R> {
    responder: Mutex<Option<mpsc::Sender<Pending<Q, R>>>>,
    config: RequestConfig,
}

impl<Q, R> Clone for RequestChannel<Q, R> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner) }
    }
}

impl<Q, R> std::fmt::Debug for RequestChannel<Q, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestChannel").field("config", &self.inner.config).finish_non_exhaustive()
    }
}

impl<Q: Send + 'static, R: Send + 'static> Default for RequestChannel<Q, R> {
    fn default() -> Self {
        Self::new(RequestConfig::default())
    }
}

impl<Q: Send + 'static, R: Send + 'static> RequestChannel<Q, R> {
    /// Creates a channel with no responder.
    pub fn new(config: RequestConfig) -> Self {
        Self { inner: Arc::new(Inner { responder: Mutex::new(None), config }) }
    }

    /// Registers the responder. Requests reach it until the returned [`Requests`] drops.
    pub fn responder(&self) -> Result<Requests<Q, R>, RegisterError> {
        let mut slot = self.inner.responder.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.as_ref().is_some_and(|tx| !tx.is_closed()) {
            return Err(RegisterError::AlreadyRegistered);
        }
        let (tx, rx) = mpsc::channel(self.inner.config.queue.max(1));
        *slot = Some(tx);
        Ok(Requests { rx })
    }

    /// Whether a responder is registered and alive.
    pub fn has_responder(&self) -> bool {
        self.sender().is_some()
    }

    /// Asks the responder and waits for its reply, up to the configured timeout.
    /// Fails at once with [`RequestError::NoResponder`] when there is none.
    /// Must run inside a tokio runtime with time enabled.
    pub async fn request(&self, query: Q) -> Result<R, RequestError> {
        self.request_within(query, self.inner.config.timeout).await
    }

    /// [`request`](Self::request) with its own timeout.
    pub async fn request_within(&self, query: Q, timeout: Duration) -> Result<R, RequestError> {
        let tx = self.sender().ok_or(RequestError::NoResponder)?;
        let (reply, answer) = oneshot::channel();
        let exchange = async move {
            tx.send(Pending { query, reply }).await.map_err(|_| RequestError::NoResponder)?;
            answer.await.map_err(|_| RequestError::Unanswered)
        };
        tokio::time::timeout(timeout, exchange).await.unwrap_or(Err(RequestError::Timeout { after: timeout }))
    }

    fn sender(&self) -> Option<mpsc::Sender<Pending<Q, R>>> {
        let slot = self.inner.responder.lock().unwrap_or_else(PoisonError::into_inner);
        slot.as_ref().filter(|tx| !tx.is_closed()).cloned()
    }
}

/// The responder's side: yields each request with the [`Responder`] that answers it.
/// Ends (`None`) when every [`RequestChannel`] handle is dropped.
pub struct Requests<Q, R> {
    rx: mpsc::Receiver<Pending<Q, R>>,
}

impl<Q, R> std::fmt::Debug for Requests<Q, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Requests").field("queued", &self.rx.len()).finish()
    }
}

impl<Q: Send + 'static, R: Send + 'static> Requests<Q, R> {
    /// Waits for the next request whose requester is still waiting; requests that already
    /// timed out are skipped (nobody should be asked a question nobody awaits).
    pub async fn next(&mut self) -> Option<(Q, Responder<R>)> {
        loop {
            let p = self.rx.recv().await?;
            if !p.reply.is_closed() {
                return Some((p.query, Responder { reply: p.reply }));
            }
        }
    }

    /// [`next`](Self::next) without waiting: `None` when nothing is queued.
    pub fn try_next(&mut self) -> Option<(Q, Responder<R>)> {
        while let Ok(p) = self.rx.try_recv() {
            if !p.reply.is_closed() {
                return Some((p.query, Responder { reply: p.reply }));
            }
        }
        None
    }

    /// [`next`](Self::next) for a responder on its own thread.
    ///
    /// # Panics
    /// When called from inside an async context; use `next` there.
    pub fn blocking_next(&mut self) -> Option<(Q, Responder<R>)> {
        loop {
            let p = self.rx.blocking_recv()?;
            if !p.reply.is_closed() {
                return Some((p.query, Responder { reply: p.reply }));
            }
        }
    }

    /// Answers every request with `handler` until all requesters are gone. Spawn the
    /// returned future (`tokio::spawn(requests.serve(f))`) to register a handler.
    pub async fn serve(mut self, mut handler: impl FnMut(Q) -> R + Send) {
        while let Some((query, responder)) = self.next().await {
            // The requester may time out while the handler runs; then nobody needs the reply.
            let _ = responder.reply(handler(query));
        }
    }
}

/// Answers one request. Dropping it unanswered fails the request with
/// [`RequestError::Unanswered`].
#[derive(Debug)]
pub struct Responder<R> {
    reply: oneshot::Sender<R>,
}

impl<R> Responder<R> {
    /// Sends the reply. Gives it back if the requester stopped waiting (timed out).
    pub fn reply(self, reply: R) -> Result<(), R> {
        self.reply.send(reply)
    }

    /// Whether the requester stopped waiting; a slow responder can check before working.
    pub fn is_abandoned(&self) -> bool {
        self.reply.is_closed()
    }
}
