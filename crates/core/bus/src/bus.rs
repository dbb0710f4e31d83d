//! The bus: a sync, never-blocking `publish` fanned out to bounded per-subscriber buffers.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Instant, SystemTime};

use tokio::sync::broadcast;

use crate::envelope::Envelope;
use crate::stats::{BusCounters, BusStats, SubscriberCounters};
use crate::subscription::{Filter, Subscription};

/// How a [`Bus`] is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BusConfig {
    /// Events buffered per subscriber before its oldest unread event is overwritten and
    /// counted as lag. Rounded up to a power of two (minimum 1); [`Bus::capacity`] tells the
    /// value in effect. Memory is bounded by this times the number of live envelopes.
    pub capacity: usize,
}

impl Default for BusConfig {
    fn default() -> Self {
        Self { capacity: 1024 }
    }
}

/// A typed publish/subscribe bus. Cloning is cheap and every clone publishes to the same
/// subscribers; the bus closes (subscribers drain, then see `None`) when the last clone drops.
pub struct Bus<E> {
    inner: Arc<Inner<E>>,
}

struct Inner<E> {
    tx: broadcast::Sender<Arc<Envelope<E>>>,
    /// The last `seq` handed out. Held across the send so that `seq` order is channel
    /// order, and across `subscribe` so a subscription starts at an exact `seq`.
    seq: Mutex<u64>,
    counters: Arc<BusCounters>,
    subscribers: Mutex<Vec<Weak<SubscriberCounters>>>,
    next_subscriber_id: AtomicU64,
    capacity: usize,
    started: Instant,
    started_wall: SystemTime,
}

impl<E> Clone for Bus<E> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner) }
    }
}

impl<E> std::fmt::Debug for Bus<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bus")
            .field("capacity", &self.inner.capacity)
            .field("published", &self.inner.counters.published.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<E: Send + Sync + 'static> Default for Bus<E> {
    fn default() -> Self {
        Self::new(BusConfig::default())
    }
}

/// A poisoned lock only means another thread panicked while holding it; the data it guards
/// (a counter, a list of weak pointers) is still consistent, and the bus must keep working.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<E: Send + Sync + 'static> Bus<E> {
    /// Creates a bus. Needs no tokio runtime.
    pub fn new(config: BusConfig) -> Self {
        Self::with_clock(config, Instant::now(), SystemTime::now())
    }

    /// A new bus for another kind of event whose [`Envelope::at_us`] counts from the same
    /// instant as `other`'s: events of the two, recorded in two traces, sort into one
    /// timeline to the microsecond (wall-clock origins written in whole milliseconds could
    /// not tell an event from one a fraction of a millisecond before it).
    pub fn on_the_clock_of<F: Send + Sync + 'static>(other: &Bus<F>, config: BusConfig) -> Self {
        Self::with_clock(config, other.inner.started, other.inner.started_wall)
    }

    fn with_clock(config: BusConfig, started: Instant, started_wall: SystemTime) -> Self {
        let capacity = config.capacity.max(1).next_power_of_two();
        let (tx, _) = broadcast::channel(capacity);
        Self {
            inner: Arc::new(Inner {
                tx,
                seq: Mutex::new(0),
                counters: Arc::default(),
                subscribers: Mutex::new(Vec::new()),
                next_subscriber_id: AtomicU64::new(0),
                capacity,
                started,
                started_wall,
            }),
        }
    }

    /// Publishes `event` to every current subscriber and returns its `seq`.
    ///
    /// Never blocks and never waits on a subscriber: a subscriber whose buffer is full loses
    /// its oldest unread event and is told how many it lost on its next read. Works with no
    /// subscribers (it then only counts the event), from any thread, with or without a
    /// tokio runtime. The only lock taken is held for the send itself, never across a wait.
    pub fn publish(&self, source: impl Into<Cow<'static, str>>, event: E) -> u64 {
        let inner = &*self.inner;
        let mut last = lock(&inner.seq);
        let seq = *last + 1;
        *last = seq;
        inner.counters.published.store(seq, Ordering::Release);
        if inner.counters.live.load(Ordering::Acquire) > 0 {
            let envelope = Envelope {
                seq,
                at_us: u64::try_from(inner.started.elapsed().as_micros()).unwrap_or(u64::MAX),
                source: source.into(),
                event,
            };
            // Fails only when the last receiver dropped since the check: nobody to tell.
            let _ = inner.tx.send(Arc::new(envelope));
        }
        seq
    }

    /// Subscribes to every event published from now on. `name` identifies the
    /// subscriber in [`Bus::stats`].
    pub fn subscribe(&self, name: impl Into<String>) -> Subscription<E> {
        self.subscribe_with(name.into(), None)
    }

    /// Subscribes to the events for which `filter` returns true. Events the filter rejects
    /// still pass through the subscriber's buffer (and count as received); lag is always
    /// reported, whether or not the missed events would have passed the filter.
    pub fn subscribe_filtered(
        &self,
        name: impl Into<String>,
        filter: impl Fn(&Envelope<E>) -> bool + Send + Sync + 'static,
    ) -> Subscription<E> {
        self.subscribe_with(name.into(), Some(Box::new(filter)))
    }

    fn subscribe_with(&self, name: String, filter: Option<Filter<E>>) -> Subscription<E> {
        let inner = &*self.inner;
        let last = lock(&inner.seq);
        let rx = inner.tx.subscribe();
        inner.counters.live.fetch_add(1, Ordering::AcqRel);
        let counters = Arc::new(SubscriberCounters {
            id: inner.next_subscriber_id.fetch_add(1, Ordering::Relaxed),
            name,
            start: *last,
            received: AtomicU64::new(0),
            lagged: AtomicU64::new(0),
        });
        drop(last);
        let mut subscribers = lock(&inner.subscribers);
        subscribers.retain(|w| w.strong_count() > 0);
        subscribers.push(Arc::downgrade(&counters));
        drop(subscribers);
        Subscription::new(rx, counters, Arc::clone(&inner.counters), inner.capacity, filter)
    }

    /// Counters: events published, lag in total and per live subscriber.
    pub fn stats(&self) -> BusStats {
        let inner = &*self.inner;
        let live: Vec<Arc<SubscriberCounters>> = {
            let mut subscribers = lock(&inner.subscribers);
            subscribers.retain(|w| w.strong_count() > 0);
            subscribers.iter().filter_map(Weak::upgrade).collect()
        };
        // Subscriber counters first, `published` last: `published` is then never the older
        // value, so a subscriber cannot appear to have received more than was published.
        let loaded: Vec<_> = live.iter().map(|c| c.load()).collect();
        let surfaced_total = inner.counters.lagged.load(Ordering::Acquire);
        let published = inner.counters.published.load(Ordering::Acquire);
        let mut unsurfaced = 0;
        let subscribers = live
            .iter()
            .zip(loaded)
            .map(|(c, read)| {
                let (stats, overwritten) = c.stats(read, published, inner.capacity);
                unsurfaced += overwritten;
                stats
            })
            .collect();
        BusStats { published, capacity: inner.capacity, total_lagged: surfaced_total + unsurfaced, subscribers }
    }

    /// Events published so far (the `seq` of the last one).
    pub fn published(&self) -> u64 {
        self.inner.counters.published.load(Ordering::Acquire)
    }

    /// Whether anyone is subscribed; lets a publisher skip building a costly event.
    pub fn has_subscribers(&self) -> bool {
        self.inner.counters.live.load(Ordering::Acquire) > 0
    }

    /// Events buffered per subscriber (the configured capacity rounded up to a power of two).
    pub fn capacity(&self) -> usize {
        self.inner.capacity
    }

    pub(crate) fn counters(&self) -> Arc<BusCounters> {
        Arc::clone(&self.inner.counters)
    }

    /// The wall-clock time of [`Envelope::at_us`] zero.
    pub fn started(&self) -> SystemTime {
        self.inner.started_wall
    }
}
