//! Per-call options: a text sink for streaming, a cancellation handle, a timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

/// What may vary from one call to the next without changing the request: where streamed
/// text goes, how to cancel, how long to wait. `Call::default()` streams nothing, cannot be
/// cancelled other than by dropping the future, and uses the configured timeout.
#[derive(Clone, Copy, Default)]
pub struct Call<'a> {
    /// Receives text as it arrives, where the provider streams (Anthropic, OpenAI-compatible,
    /// Gemini); a provider that does not stream delivers the whole text once at the end.
    pub on_delta: Option<&'a (dyn Fn(Delta<'_>) + Send + Sync)>,
    /// Ends the call with [`crate::LlmError::Cancelled`] when cancelled. Dropping the
    /// call's future cancels too (the connection is closed); this handle is for a caller
    /// that cannot drop it, such as another task.
    pub cancel: Option<&'a Cancel>,
    /// Overrides the configured timeout of the whole call, retries included.
    pub timeout: Option<Duration>,
}

impl std::fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("on_delta", &self.on_delta.is_some())
            .field("cancel", &self.cancel)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl<'a> Call<'a> {
    /// Sends streamed text to `sink`.
    pub fn streaming(sink: &'a (dyn Fn(Delta<'_>) + Send + Sync)) -> Self {
        Self { on_delta: Some(sink), ..Self::default() }
    }

    pub(crate) fn emit(&self, delta: Delta<'_>) {
        if let Some(sink) = self.on_delta {
            sink(delta);
        }
    }
}

/// A piece of streamed output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delta<'a> {
    /// Reply text (the agent's "Thought" as it is written).
    Text(&'a str),
    /// Reasoning the provider shows (Anthropic thinking, Gemini thoughts).
    Thinking(&'a str),
}

/// A cancellation handle: clone it, give a clone to the call, call [`Cancel::cancel`].
#[derive(Clone, Default)]
pub struct Cancel(Arc<Inner>);

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl Cancel {
    /// A handle not yet cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels every call holding this handle (now and later).
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::SeqCst)
    }

    /// Completes once cancelled.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.0.notify.notified();
            tokio::pin!(notified);
            // Registered before the check, so a cancel between the check and the await
            // still wakes us.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cancel({})", if self.is_cancelled() { "cancelled" } else { "live" })
    }
}
