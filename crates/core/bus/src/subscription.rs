//! The receiving end: each read yields the next envelope or an exact count of missed events.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::broadcast::{self, error::RecvError};

use crate::envelope::Envelope;
use crate::stats::{BusCounters, SubscriberCounters};

pub(crate) type Filter<E> = Box<dyn Fn(&Envelope<E>) -> bool + Send + Sync>;

/// What a read from a [`Subscription`] yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received<E> {
    /// The next event, shared with the other subscribers.
    Event(Arc<Envelope<E>>),
    /// The subscriber fell behind by more than the bus capacity: this many events were
    /// overwritten before it read them. The next event follows the gap.
    Lagged {
        /// Events this subscriber will never see.
        missed: u64,
    },
}

/// Why [`Subscription::try_recv`] returned no event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TryRecvError {
    /// Nothing new yet; read again later (or use the async `recv`).
    #[error("no event is waiting; read again later or await `recv`")]
    Empty,
    /// Every `Bus` handle was dropped and all buffered events were read.
    #[error("the bus was dropped and every buffered event has been read; stop reading")]
    Closed,
}

/// A subscriber's bounded buffer of events. Dropping it unsubscribes.
pub struct Subscription<E> {
    rx: broadcast::Receiver<Arc<Envelope<E>>>,
    counters: Arc<SubscriberCounters>,
    bus: Arc<BusCounters>,
    capacity: usize,
    filter: Option<Filter<E>>,
}

impl<E> std::fmt::Debug for Subscription<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.counters.id)
            .field("name", &self.counters.name)
            .field("filtered", &self.filter.is_some())
            .finish_non_exhaustive()
    }
}

/// One raw read from the channel, before filtering.
enum Step<E> {
    Yield(Received<E>),
    Skip,
    Closed,
}

impl<E: Send + Sync + 'static> Subscription<E> {
    pub(crate) fn new(
        rx: broadcast::Receiver<Arc<Envelope<E>>>,
        counters: Arc<SubscriberCounters>,
        bus: Arc<BusCounters>,
        capacity: usize,
        filter: Option<Filter<E>>,
    ) -> Self {
        Self { rx, counters, bus, capacity, filter }
    }

    /// Waits for the next event (or lag report). Returns `None` once the bus is dropped and
    /// everything buffered has been read. Cancel-safe: dropping the future loses nothing.
    pub async fn recv(&mut self) -> Option<Received<E>> {
        loop {
            let raw = self.rx.recv().await;
            match self.step(raw) {
                Step::Yield(r) => return Some(r),
                Step::Skip => {}
                Step::Closed => return None,
            }
        }
    }

    /// Returns the next event (or lag report) if one is waiting, without waiting.
    pub fn try_recv(&mut self) -> Result<Received<E>, TryRecvError> {
        use broadcast::error::TryRecvError as T;
        loop {
            let raw = match self.rx.try_recv() {
                Ok(env) => Ok(env),
                Err(T::Lagged(n)) => Err(RecvError::Lagged(n)),
                Err(T::Closed) => Err(RecvError::Closed),
                Err(T::Empty) => return Err(TryRecvError::Empty),
            };
            match self.step(raw) {
                Step::Yield(r) => return Ok(r),
                Step::Skip => {}
                Step::Closed => return Err(TryRecvError::Closed),
            }
        }
    }

    /// Blocks the thread until the next event (or lag report); for subscribers on a
    /// dedicated thread. Returns `None` once the bus is dropped and drained.
    ///
    /// # Panics
    /// When called from inside an async context (tokio forbids blocking there); use `recv`.
    pub fn blocking_recv(&mut self) -> Option<Received<E>> {
        loop {
            let raw = self.rx.blocking_recv();
            match self.step(raw) {
                Step::Yield(r) => return Some(r),
                Step::Skip => {}
                Step::Closed => return None,
            }
        }
    }

    /// Events buffered for this subscriber and not yet read, up to the capacity.
    pub fn pending(&self) -> usize {
        self.rx.len().min(self.capacity)
    }

    /// The name given at subscription.
    pub fn name(&self) -> &str {
        &self.counters.name
    }

    fn step(&self, raw: Result<Arc<Envelope<E>>, RecvError>) -> Step<E> {
        match raw {
            Ok(env) => {
                self.counters.received.fetch_add(1, Ordering::AcqRel);
                match &self.filter {
                    Some(keep) if !keep(&env) => Step::Skip,
                    _ => Step::Yield(Received::Event(env)),
                }
            }
            Err(RecvError::Lagged(missed)) => {
                self.counters.lagged.fetch_add(missed, Ordering::AcqRel);
                self.bus.lagged.fetch_add(missed, Ordering::AcqRel);
                Step::Yield(Received::Lagged { missed })
            }
            Err(RecvError::Closed) => Step::Closed,
        }
    }
}

impl<E> Drop for Subscription<E> {
    fn drop(&mut self) {
        // Lag this subscriber incurred but never read about still belongs in the bus total.
        let overwritten = (self.rx.len() as u64).saturating_sub(self.capacity as u64);
        self.bus.lagged.fetch_add(overwritten, Ordering::AcqRel);
        self.bus.live.fetch_sub(1, Ordering::AcqRel);
    }
}
