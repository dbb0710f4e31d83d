//! Counters the bus keeps so that lag is reported, never hidden: totals and per subscriber.

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use serde::Serialize;

/// Counters shared by a bus and its subscriptions (subscriptions must not keep the bus's
/// sender alive, so these live apart from it).
#[derive(Debug, Default)]
pub(crate) struct BusCounters {
    /// Events published so far; equals the `seq` of the last published event.
    pub(crate) published: AtomicU64,
    /// Lag surfaced to subscribers, plus lag of dropped subscriptions that was never surfaced.
    pub(crate) lagged: AtomicU64,
    /// Live subscriptions; lets `publish` skip building an envelope nobody will read.
    pub(crate) live: AtomicUsize,
}

/// Counters of one subscription, shared with the bus for [`Bus::stats`](crate::Bus::stats).
#[derive(Debug)]
pub(crate) struct SubscriberCounters {
    pub(crate) id: u64,
    pub(crate) name: String,
    /// `published` when the subscription was made: it sees events with `seq > start`.
    pub(crate) start: u64,
    /// Envelopes taken off the channel, including those a filter then skipped.
    pub(crate) received: AtomicU64,
    /// Missed events already reported to the subscriber as `Received::Lagged`.
    pub(crate) lagged: AtomicU64,
}

impl SubscriberCounters {
    /// Reads `(received, surfaced lag)`; done before reading `published` so that
    /// `published` is never the older value.
    pub(crate) fn load(&self) -> (u64, u64) {
        (self.received.load(Ordering::Acquire), self.lagged.load(Ordering::Acquire))
    }

    /// Splits what this subscriber has not yet received into events still buffered for it
    /// and events already overwritten (lag it will be told about on its next read).
    /// Returns the stats and the part of the lag not yet surfaced.
    pub(crate) fn stats(
        &self,
        (received, surfaced): (u64, u64),
        published: u64,
        capacity: usize,
    ) -> (SubscriberStats, u64) {
        let outstanding = published.saturating_sub(self.start).saturating_sub(received).saturating_sub(surfaced);
        let overwritten = outstanding.saturating_sub(capacity as u64);
        let stats = SubscriberStats {
            id: self.id,
            name: self.name.clone(),
            received,
            lagged: surfaced + overwritten,
            pending: outstanding - overwritten,
        };
        (stats, overwritten)
    }
}

/// A snapshot of a bus's counters. Exact when no publish or read is in flight; while
/// they are, a count may be off by the events in flight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BusStats {
    /// Events published since the bus was created (with or without subscribers).
    pub published: u64,
    /// Events each subscriber's buffer holds before the oldest is overwritten.
    pub capacity: usize,
    /// Events missed by any subscriber, including subscriptions since dropped.
    pub total_lagged: u64,
    /// Live subscriptions, oldest first.
    pub subscribers: Vec<SubscriberStats>,
}

/// The counters of one live subscription. For every subscription,
/// `received + lagged + pending` equals the events published since it subscribed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SubscriberStats {
    /// Unique per bus, in subscription order.
    pub id: u64,
    /// The name given at subscription.
    pub name: String,
    /// Events taken off its buffer (a filtered subscription counts the ones it skipped too).
    pub received: u64,
    /// Events it missed because its buffer was full, whether or not it has read the
    /// `Lagged` report yet.
    pub lagged: u64,
    /// Events buffered for it and not yet received.
    pub pending: u64,
}

impl fmt::Display for BusStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "published {}, lagged {} in total, {} subscriber(s)",
            self.published,
            self.total_lagged,
            self.subscribers.len()
        )?;
        for s in &self.subscribers {
            write!(f, "; {}#{}: received {}, lagged {}, pending {}", s.name, s.id, s.received, s.lagged, s.pending)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(start: u64, read: (u64, u64), published: u64, expected: (u64, u64, u64)) {
        let c = SubscriberCounters {
            id: 0,
            name: "t".into(),
            start,
            received: AtomicU64::new(0),
            lagged: AtomicU64::new(0),
        };
        let (s, _) = c.stats(read, published, 4);
        assert_eq!((s.received, s.lagged, s.pending), expected);
    }

    #[test]
    fn unread_overflow_counts_as_lag() {
        check(0, (0, 0), 10, (0, 6, 4));
    }

    #[test]
    fn surfaced_lag_is_not_counted_twice() {
        // Read the Lagged{6} report and one event: 3 still buffered.
        check(0, (1, 6), 10, (1, 6, 3));
    }

    #[test]
    fn events_before_subscription_are_not_counted() {
        check(5, (2, 0), 10, (2, 0, 3));
    }
}
