//! Deft's fleet: many desktops, one queue.
//!
//! A task (a flow, a goal; the fleet never looks inside) is submitted to a pool after a
//! check that a live worker there can run it; a worker of the pool takes it, holds it with
//! a heartbeat, records each step before acting on it and once its effect was seen, and
//! ends it. A worker that dies mid-task stops beating: the queue delivers the task again,
//! and the next attempt starts from the record: steps done are not done again, and the
//! step in flight is looked at before anything is sent (the runner's verification decides
//! whether its effect is already there). Delivery is at least once; effects are at most
//! once, because a Deft action can look before it acts.
//!
//! The queue is a trait ([`Queue`]) with two implementations of one contract: NATS
//! JetStream ([`NatsQueue`]: a work-queue stream per fleet, a durable pull consumer per
//! pool, key-value buckets for records and the worker registry) and in-process
//! ([`MemoryQueue`]). Leases, progress and the refusal of a lost worker's late writes are
//! built once, above the trait ([`lease`]).

pub mod config;
pub mod lease;
mod memory;
mod nats;
pub mod queue;
pub mod record;
pub mod task;
pub mod worker;

pub use config::QueueConfig;
pub use lease::{Cancel, Claim, Lease, LeaseError, SubmitError, cancel, submit};
pub use memory::MemoryQueue;
pub use nats::{NatsOptions, NatsQueue};
pub use queue::{Delivery, FleetError, Queue, Revision, WorkerInfo};
pub use record::{Attempt, StepDone, TaskRecord, TaskResult, TaskState, TraceRef};
pub use task::{Needs, Offer, Task, check_name};
pub use worker::{RunEnd, Runner, Served, Worker};
