//! The queue's timings and limits, the same for both implementations.

use std::time::Duration;

/// How the queue delivers and forgets.
#[derive(Clone, Debug)]
pub struct QueueConfig {
    /// A delivery with no heartbeat for this long is delivered again (the worker is taken
    /// for dead). Workers beat at a third of it.
    pub ack_wait: Duration,
    /// Deliveries of one message at most (refusals by desktops that cannot run it count;
    /// the task's own `max_attempts` limits the starts, and is reported when reached).
    pub max_deliver: u64,
    /// A worker that has not said it is alive for this long is gone from the registry.
    pub worker_ttl: Duration,
    /// How long runs' traces are kept (the store forgets older ones). Fixed when the store
    /// is first made on the server.
    pub blob_max_age: Duration,
}

impl Default for QueueConfig {
    fn default() -> QueueConfig {
        QueueConfig {
            ack_wait: Duration::from_secs(30),
            max_deliver: 100,
            worker_ttl: Duration::from_secs(30),
            blob_max_age: Duration::from_secs(7 * 24 * 3600),
        }
    }
}
