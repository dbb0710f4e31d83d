//! The envelope every published event travels in: sequence number, time, source.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// One published event with the facts the bus adds to it.
///
/// Subscribers receive envelopes behind an [`Arc`](std::sync::Arc): the bus allocates one
/// envelope per publish and every subscriber shares it, so the cost of a publish does not
/// grow with the size of the event times the number of subscribers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope<E> {
    /// Position of the event in the bus's total order: 1 for the first publish, then +1 per
    /// publish, whether or not anyone was subscribed. Gaps a subscriber sees are exactly the
    /// events it missed (reported to it as lag).
    pub seq: u64,
    /// Monotonic microseconds since the bus was created (see [`Bus::started`](crate::Bus::started)
    /// for the wall-clock origin). Never decreases along `seq`.
    pub at_us: u64,
    /// Who published the event, e.g. the crate or component name.
    pub source: Cow<'static, str>,
    /// The event itself.
    pub event: E,
}
