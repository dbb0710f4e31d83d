//! The retry decision: which failures are retried, and how long to wait. Pure: no clock,
//! no sleeping; the HTTP layer passes time in and does the waiting.

use std::time::{Duration, SystemTime};

use crate::config::RetryConfig;

/// Statuses worth another attempt: rate limits, server errors, Anthropic's 529
/// (overloaded). Never another 4xx: the same request would fail the same way.
pub(crate) fn retryable_status(status: u16) -> bool {
    status == 429 || (500..=599).contains(&status)
}

/// What the server asked for: `retry-after-ms` (OpenAI, Anthropic; milliseconds), else
/// `retry-after` as seconds or as an HTTP date (RFC 9110), measured from `now`.
pub(crate) fn retry_after<'h>(header: impl Fn(&str) -> Option<&'h str>, now: SystemTime) -> Option<Duration> {
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = header("retry-after")?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Gemini puts its wait in the error body: `RetryInfo` with `"retryDelay": "13s"`.
pub(crate) fn parse_duration_text(text: &str) -> Option<Duration> {
    let secs = text.trim().strip_suffix('s')?.parse::<f64>().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

/// Exponential backoff with jitter, bounded by attempts, by the longest delay and by the
/// time left in the call.
#[derive(Debug)]
pub(crate) struct Backoff {
    max_attempts: u32,
    initial: Duration,
    max_delay: Duration,
    rng: u64,
}

impl Backoff {
    pub(crate) fn new(cfg: &RetryConfig) -> Self {
        let seed = cfg.seed.unwrap_or_else(|| {
            SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
        });
        Self {
            max_attempts: cfg.max_attempts.max(1),
            initial: Duration::from_millis(cfg.initial_delay_ms),
            max_delay: Duration::from_millis(cfg.max_delay_ms),
            rng: seed,
        }
    }

    /// The wait before the next attempt, after `attempts_made` failed ones, or `None` to
    /// stop: attempts used up, the server asks for longer than `max_delay`, or the wait
    /// would not leave time before the call's deadline (`remaining`).
    pub(crate) fn delay(
        &mut self,
        attempts_made: u32,
        retry_after: Option<Duration>,
        remaining: Duration,
    ) -> Option<Duration> {
        if attempts_made >= self.max_attempts {
            return None;
        }
        let wait = match retry_after {
            // The server knows its own state: wait what it says, not less (an earlier
            // retry only earns another 429) and not jittered.
            Some(asked) if asked > self.max_delay => return None,
            Some(asked) => asked,
            None => {
                let exp = self.initial.saturating_mul(1u32 << (attempts_made.saturating_sub(1)).min(20));
                let cap = exp.min(self.max_delay);
                // "Equal jitter": half fixed, half random, so clients that failed together
                // do not retry together and a wait is never near zero.
                let half = cap / 2;
                half + half.mul_f64(self.next_unit())
            }
        };
        (wait < remaining).then_some(wait)
    }

    /// A number in [0, 1) from splitmix64.
    fn next_unit(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cfg(max_attempts: u32, initial: u64, max: u64) -> RetryConfig {
        RetryConfig { max_attempts, initial_delay_ms: initial, max_delay_ms: max, seed: Some(7) }
    }

    #[test]
    fn statuses() {
        for s in [429, 500, 502, 503, 504, 529] {
            assert!(retryable_status(s), "{s}");
        }
        for s in [400, 401, 403, 404, 408, 409, 413, 422] {
            assert!(!retryable_status(s), "{s}");
        }
    }

    #[test]
    fn retry_after_forms() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let h = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
        };
        assert_eq!(retry_after(h(&[("retry-after", "7")]), now), Some(Duration::from_secs(7)));
        assert_eq!(retry_after(h(&[("retry-after", "1.5")]), now), Some(Duration::from_millis(1500)));
        assert_eq!(
            retry_after(h(&[("retry-after", "Sun, 06 Nov 1994 08:49:49 GMT")]), now),
            Some(Duration::from_secs(12))
        );
        assert_eq!(retry_after(h(&[("retry-after", "Sun, 06 Nov 1994 08:49:00 GMT")]), now), Some(Duration::ZERO));
        assert_eq!(
            retry_after(h(&[("retry-after", "30"), ("retry-after-ms", "250")]), now),
            Some(Duration::from_millis(250)),
            "the precise header wins"
        );
        assert_eq!(retry_after(h(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(h(&[]), now), None);
        assert_eq!(parse_duration_text("13s"), Some(Duration::from_secs(13)));
        assert_eq!(parse_duration_text("0.5s"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration_text("13"), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_stops() {
        let mut b = Backoff::new(&cfg(4, 100, 1_000));
        let big = Duration::from_secs(3600);
        let d1 = b.delay(1, None, big).unwrap();
        let d2 = b.delay(2, None, big).unwrap();
        let d3 = b.delay(3, None, big).unwrap();
        assert!((50..=100).contains(&d1.as_millis()), "{d1:?}");
        assert!((100..=200).contains(&d2.as_millis()), "{d2:?}");
        assert!((200..=400).contains(&d3.as_millis()), "{d3:?}");
        assert_eq!(b.delay(4, None, big), None, "4 attempts made: done");
    }

    #[test]
    fn retry_after_is_honoured_or_ends_retries() {
        let mut b = Backoff::new(&cfg(5, 100, 2_000));
        let big = Duration::from_secs(3600);
        assert_eq!(b.delay(1, Some(Duration::from_millis(1_500)), big), Some(Duration::from_millis(1_500)));
        assert_eq!(b.delay(1, Some(Duration::from_secs(30)), big), None, "asks for more than max_delay");
        assert_eq!(b.delay(1, Some(Duration::from_secs(1)), Duration::from_millis(900)), None, "past the deadline");
    }

    proptest! {
        #[test]
        fn delays_are_bounded(
            max_attempts in 1u32..10, initial in 0u64..5_000, max in 0u64..60_000, seed: u64,
            made in 0u32..12, asked in proptest::option::of(0u64..120_000), remaining in 0u64..200_000,
        ) {
            let mut b = Backoff::new(&RetryConfig { max_attempts, initial_delay_ms: initial, max_delay_ms: max, seed: Some(seed) });
            let remaining = Duration::from_millis(remaining);
            let asked = asked.map(Duration::from_millis);
            match b.delay(made, asked, remaining) {
                None => {}
                Some(d) => {
                    prop_assert!(made < max_attempts, "no retry beyond max_attempts");
                    prop_assert!(d <= Duration::from_millis(max), "never longer than max_delay");
                    prop_assert!(d < remaining, "never past the deadline");
                    if let Some(a) = asked { prop_assert_eq!(d, a, "retry-after is waited exactly"); }
                }
            }
        }
    }
}
