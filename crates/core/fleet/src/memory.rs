//! The in-process queue: the same contract as JetStream's on one machine, for a user with
//! one desktop (no server to run) and for tests of the layer above.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::Notify;

use crate::config::QueueConfig;
use crate::queue::{Delivery, FleetError, Queue, Revision, WorkerInfo};
use crate::task::check_name;

/// A queue and store in this process's memory.
#[derive(Clone, Default)]
pub struct MemoryQueue {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    config: QueueConfig,
    state: Mutex<State>,
    arrived: Notify,
}

#[derive(Default)]
struct State {
    next_seq: u64,
    messages: Vec<Message>,
    store: HashMap<String, (Vec<u8>, Revision)>,
    revisions: Revision,
    workers: HashMap<String, (WorkerInfo, Instant)>,
    blobs: HashMap<String, Vec<u8>>,
}

struct Message {
    seq: u64,
    pool: String,
    id: String,
    delivered: u64,
    /// Handed out and not acked until then (a heartbeat moves it).
    held_until: Option<Instant>,
    /// Not to be delivered before then (a retry's delay).
    not_before: Instant,
}

impl MemoryQueue {
    /// An empty queue with `config`'s timings.
    pub fn new(config: QueueConfig) -> MemoryQueue {
        MemoryQueue { shared: Arc::new(Shared { config, ..Shared::default() }) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait]
impl Queue for MemoryQueue {
    async fn publish(&self, pool: &str, id: &str) -> Result<(), FleetError> {
        check_name("pool", pool)?;
        let mut state = self.state();
        state.next_seq += 1;
        let seq = state.next_seq;
        let message = Message {
            seq,
            pool: pool.into(),
            id: id.into(),
            delivered: 0,
            held_until: None,
            not_before: Instant::now(),
        };
        state.messages.push(message);
        drop(state);
        self.shared.arrived.notify_waiters();
        Ok(())
    }

    async fn next(&self, pool: &str, wait: Duration) -> Result<Option<Box<dyn Delivery>>, FleetError> {
        check_name("pool", pool)?;
        let until = Instant::now() + wait;
        loop {
            // Registered before looking, so a publish between the look and the wait wakes it.
            let arrived = self.shared.arrived.notified();
            let now = Instant::now();
            let mut wake = until;
            {
                let mut state = self.state();
                let max = self.shared.config.max_deliver;
                let free = |m: &Message| m.held_until.is_none_or(|t| t <= now) && m.not_before <= now;
                let found = state.messages.iter_mut().find(|m| m.pool == pool && m.delivered < max && free(m));
                if let Some(m) = found {
                    m.delivered += 1;
                    m.held_until = Some(now + self.shared.config.ack_wait);
                    let delivery =
                        MemoryDelivery { queue: self.clone(), seq: m.seq, id: m.id.clone(), delivered: m.delivered };
                    return Ok(Some(Box::new(delivery)));
                }
                for m in state.messages.iter().filter(|m| m.pool == pool && m.delivered < max) {
                    wake = wake.min(m.held_until.unwrap_or(m.not_before).max(m.not_before));
                }
            }
            if now >= until {
                return Ok(None);
            }
            let _ = tokio::time::timeout(wake.saturating_duration_since(now), arrived).await;
        }
    }

    fn ack_wait(&self) -> Duration {
        self.shared.config.ack_wait
    }

    fn max_deliver(&self) -> u64 {
        self.shared.config.max_deliver
    }

    async fn create(&self, key: &str, value: Vec<u8>) -> Result<Revision, FleetError> {
        let mut state = self.state();
        if state.store.contains_key(key) {
            return Err(FleetError::Exists(key.to_string()));
        }
        state.revisions += 1;
        let rev = state.revisions;
        state.store.insert(key.to_string(), (value, rev));
        Ok(rev)
    }

    async fn get(&self, key: &str) -> Result<Option<(Vec<u8>, Revision)>, FleetError> {
        Ok(self.state().store.get(key).cloned())
    }

    async fn update(&self, key: &str, value: Vec<u8>, revision: Revision) -> Result<Revision, FleetError> {
        let mut state = self.state();
        match state.store.get(key) {
            Some((_, rev)) if *rev == revision => {}
            _ => return Err(FleetError::Conflict),
        }
        state.revisions += 1;
        let rev = state.revisions;
        state.store.insert(key.to_string(), (value, rev));
        Ok(rev)
    }

    async fn keys(&self) -> Result<Vec<String>, FleetError> {
        Ok(self.state().store.keys().cloned().collect())
    }

    async fn put_blob(&self, key: &str, data: Vec<u8>) -> Result<(), FleetError> {
        self.state().blobs.insert(key.to_string(), data);
        Ok(())
    }

    async fn get_blob(&self, key: &str) -> Result<Option<Vec<u8>>, FleetError> {
        Ok(self.state().blobs.get(key).cloned())
    }

    async fn has_blob(&self, key: &str) -> Result<bool, FleetError> {
        Ok(self.state().blobs.contains_key(key))
    }

    async fn advertise(&self, worker: &WorkerInfo) -> Result<(), FleetError> {
        check_name("worker", &worker.name)?;
        let expires = Instant::now() + self.shared.config.worker_ttl;
        self.state().workers.insert(worker.name.clone(), (worker.clone(), expires));
        Ok(())
    }

    async fn workers(&self) -> Result<Vec<WorkerInfo>, FleetError> {
        let now = Instant::now();
        let mut state = self.state();
        state.workers.retain(|_, (_, expires)| *expires > now);
        let mut all: Vec<WorkerInfo> = state.workers.values().map(|(w, _)| w.clone()).collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(all)
    }
}

struct MemoryDelivery {
    queue: MemoryQueue,
    seq: u64,
    id: String,
    delivered: u64,
}

impl MemoryDelivery {
    fn with(&self, f: impl FnOnce(&mut Vec<Message>, usize)) {
        let mut state = self.queue.state();
        // Like JetStream's, an ack names the message, not the delivery: a late ack from a
        // worker that lost the task still acks it (the lease above keeps that from happening).
        if let Some(i) = state.messages.iter().position(|m| m.seq == self.seq) {
            f(&mut state.messages, i);
        }
        drop(state);
        self.queue.shared.arrived.notify_waiters();
    }
}

#[async_trait]
impl Delivery for MemoryDelivery {
    fn task_id(&self) -> &str {
        &self.id
    }

    fn delivered(&self) -> u64 {
        self.delivered
    }

    async fn heartbeat(&self) -> Result<(), FleetError> {
        let ack_wait = self.queue.shared.config.ack_wait;
        self.with(|ms, i| ms[i].held_until = Some(Instant::now() + ack_wait));
        Ok(())
    }

    async fn ack(&self) -> Result<(), FleetError> {
        self.with(|ms, i| drop(ms.remove(i)));
        Ok(())
    }

    async fn retry_later(&self, delay: Duration) -> Result<(), FleetError> {
        self.with(|ms, i| {
            ms[i].held_until = None;
            ms[i].not_before = Instant::now() + delay;
        });
        Ok(())
    }

    async fn give_up(&self) -> Result<(), FleetError> {
        self.ack().await
    }
}
