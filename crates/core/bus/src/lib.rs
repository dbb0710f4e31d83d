//! Deft's event bus: typed events, publish/subscribe, request/reply and trace recording.
//!
//! # The key decision: publishing never waits, and lag is counted instead
//!
//! Every layer of Deft publishes what it does, and nothing may depend on a subscriber
//! being present or quick: a verified click must take the same time and give the same
//! outcome whether the trace recorder, a progress display and an MCP client are all
//! listening or none is. So [`Bus::publish`] is a plain synchronous call that never awaits
//! and never blocks on a subscriber, and each subscriber gets a *bounded* buffer (a
//! `tokio::sync::broadcast` ring). A subscriber that falls behind does not slow the
//! publisher or grow memory: its oldest unread events are overwritten. That loss is never
//! silent: its next read yields [`Received::Lagged`] with the exact number missed, and
//! [`Bus::stats`] reports published, per-subscriber and total lag, with
//! `received + lagged + pending == published since subscribing` for every subscriber.
//!
//! Events are generic (`Bus<E>`); higher crates define the event enums, and this crate
//! depends on no other Deft crate. Each event travels in an [`Envelope`] with a `seq`
//! that is global per bus and strictly increasing, shared (behind an `Arc`) by all
//! subscribers.
//!
//! Request/reply ([`RequestChannel`]) is separate and typed by request and reply: a
//! request with no responder fails at once rather than hanging, and every request has a
//! timeout. The [`TraceRecorder`] appends one JSON line per event from its own thread,
//! written through per event so that a killed process leaves a readable trace; lag shows
//! up in the trace as `{"lagged": n}` lines.
//!
//! ```
//! use deft_bus::{Bus, BusConfig, Received};
//!
//! let bus = Bus::<&str>::new(BusConfig { capacity: 2 });
//! let mut sub = bus.subscribe("progress");
//! for word in ["a", "b", "c"] {
//!     bus.publish("example", word); // never blocks, even though nobody reads yet
//! }
//! assert_eq!(sub.try_recv(), Ok(Received::Lagged { missed: 1 }));
//! let Ok(Received::Event(env)) = sub.try_recv() else { panic!() };
//! assert_eq!((env.seq, env.event), (2, "b"));
//! assert_eq!(bus.stats().total_lagged, 1);
//! ```

mod bus;
mod envelope;
mod request;
mod stats;
mod subscription;
mod trace;

pub use bus::{Bus, BusConfig};
pub use envelope::Envelope;
pub use request::{RegisterError, RequestChannel, RequestConfig, RequestError, Requests, Responder};
pub use stats::{BusStats, SubscriberStats};
pub use subscription::{Received, Subscription, TryRecvError};
pub use trace::{
    Trace, TraceDiagnostic, TraceError, TraceProblem, TraceRecord, TraceRecorder, TraceSummary, TraceWriter,
    WrittenLine, read_trace,
};
