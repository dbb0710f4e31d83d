//! The queue a fleet runs on, as a trait with two implementations of one contract: NATS
//! JetStream for many machines ([`crate::NatsQueue`]) and in-process for one
//! ([`crate::MemoryQueue`]). The contract is small on purpose (at-least-once delivery with
//! explicit acks, a store with compare-and-set, a registry whose entries expire): leases,
//! progress and the refusal of a lost worker's late result are built once on top of it
//! ([`crate::lease`]), so both implementations behave alike by construction.

use std::time::Duration;

use async_trait::async_trait;

use crate::task::Offer;

/// A version of a stored entry, for compare-and-set.
pub type Revision = u64;

/// What went wrong with the fleet's queue or store.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    /// The entry changed since it was read (another worker, a late write): read it again.
    #[error("the task's record changed under this write (another worker holds it now, or took it back)")]
    Conflict,
    /// An entry that must be new exists already.
    #[error("{0} exists already")]
    Exists(String),
    /// The queue's server could not be reached or refused a call.
    #[error("the fleet's queue: {0}")]
    Queue(String),
    /// A name or id the queue cannot carry.
    #[error("{0}")]
    Invalid(String),
    /// A stored entry could not be read.
    #[error("a stored entry could not be read ({0}): was it written by another version of Deft?")]
    Corrupt(String),
}

/// A task handed to one worker, until it acks it, hands it back, or stops answering (then
/// the queue delivers it again, to any worker of the pool).
#[async_trait]
pub trait Delivery: Send + Sync {
    /// The task's id (the message carries nothing else: the record is in the store).
    fn task_id(&self) -> &str;
    /// How many times this message has been delivered, this one included.
    fn delivered(&self) -> u64;
    /// Still working on it: do not deliver it again yet (the heartbeat).
    async fn heartbeat(&self) -> Result<(), FleetError>;
    /// Done with it for good (its record says how it ended).
    async fn ack(&self) -> Result<(), FleetError>;
    /// Deliver it again after `delay` (to any worker of the pool).
    async fn retry_later(&self, delay: Duration) -> Result<(), FleetError>;
    /// Never deliver it again (its record says why).
    async fn give_up(&self) -> Result<(), FleetError>;
}

/// A worker as the registry lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WorkerInfo {
    /// Unique in the fleet.
    pub name: String,
    /// The pool it takes tasks from.
    pub pool: String,
    /// What its desktop offers.
    pub offer: Offer,
    /// The task it runs now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<String>,
    /// When it last said it is alive, ms since the Unix epoch.
    pub seen_ms: u64,
}

/// At-least-once delivery of task ids per pool, a store of task records with
/// compare-and-set, and a registry of workers whose entries expire unless refreshed.
#[async_trait]
pub trait Queue: Send + Sync {
    /// Queue the task `id` in `pool` (its record must be stored first).
    async fn publish(&self, pool: &str, id: &str) -> Result<(), FleetError>;
    /// The next task of `pool`, waiting up to `wait` for one.
    async fn next(&self, pool: &str, wait: Duration) -> Result<Option<Box<dyn Delivery>>, FleetError>;
    /// How long a delivery may go without a heartbeat before it is delivered again.
    fn ack_wait(&self) -> Duration;
    /// Deliveries of one message at most; past them the queue stops delivering it.
    fn max_deliver(&self) -> u64;

    /// Store a new record; `Exists` when the key has one.
    async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision, FleetError>;
    /// The record stored under `key`, with its revision.
    async fn get(&self, key: &str) -> Result<Option<(Vec<u8>, Revision)>, FleetError>;
    /// Replace the record under `key` if it is still at `revision`; `Conflict` otherwise.
    async fn update(&self, key: &str, value: Vec<u8>, revision: Revision) -> Result<Revision, FleetError>;
    /// Every key in the store.
    async fn keys(&self) -> Result<Vec<String>, FleetError>;

    /// Keep `data` under `key` (a run's trace: larger than a message), replacing any; kept
    /// for [`crate::QueueConfig::blob_max_age`].
    async fn put_blob(&self, key: &str, data: Vec<u8>) -> Result<(), FleetError>;
    /// What is kept under `key`.
    async fn get_blob(&self, key: &str) -> Result<Option<Vec<u8>>, FleetError>;
    /// Whether something is kept under `key` (a frame kept once per digest is not sent
    /// again).
    async fn has_blob(&self, key: &str) -> Result<bool, FleetError>;

    /// Say that a worker is alive (its entry expires unless said again in time).
    async fn advertise(&self, worker: &WorkerInfo) -> Result<(), FleetError>;
    /// The workers alive now.
    async fn workers(&self) -> Result<Vec<WorkerInfo>, FleetError>;
}
