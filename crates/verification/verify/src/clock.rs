//! Time of one operation: milliseconds since it started, on the monotonic clock.

use std::time::{Duration, Instant};

/// The clock of one action or wait. The retry engine reads no clock; this one stamps its
/// observations and carries out its `not_before_ms`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    start: Instant,
}

impl Clock {
    pub fn start() -> Clock {
        Clock { start: Instant::now() }
    }

    /// Milliseconds since the start.
    pub fn ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The instant `ms` after the start.
    pub fn at(&self, ms: u64) -> Instant {
        self.start + Duration::from_millis(ms)
    }

    /// Sleep until `ms` after the start (at once when that has passed). This carries out
    /// the engine's `not_before_ms`: a backoff or the verify delay, never a guess.
    pub async fn until(&self, ms: u64) {
        tokio::time::sleep_until(self.at(ms).into()).await;
    }
}
