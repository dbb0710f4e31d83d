//! A worker: takes its pool's tasks one at a time, holds each with a heartbeat while its
//! runner works, and ends it (acked, handed back, or failed for good) by what the runner
//! says, never acking a task it lost.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::lease::{Claim, Lease, LeaseError, claim, now_ms};
use crate::queue::{Delivery, FleetError, Queue, WorkerInfo};
use crate::record::TaskRecord;
use crate::task::{Offer, Task};

/// How a runner's work on a task ended.
#[derive(Clone, Debug, PartialEq)]
pub enum RunEnd {
    /// Every step's effect was seen.
    Done {
        /// In words.
        summary: String,
        /// The runner's whole report.
        output: serde_json::Value,
    },
    /// Not done, for good (a step failed, or could not be checked): no other attempt.
    Failed {
        /// Why, in words.
        summary: String,
        /// The runner's whole report.
        output: serde_json::Value,
    },
    /// Not done this time, for a reason another attempt may not meet (the desktop went
    /// away): handed back.
    Retry {
        /// Why, in words.
        summary: String,
    },
    /// The lease was lost mid-task: stop, write nothing, never ack.
    Lost,
    /// The task was cancelled mid-task (`lease`'s [`LeaseError::Cancelled`]): stop after
    /// the step in hand, and ack it.
    Cancelled {
        /// Who cancelled it and why, in words.
        summary: String,
    },
}

/// What runs a task on this worker's desktop.
#[async_trait]
pub trait Runner: Send + Sync {
    /// Run `task`, resuming from `resume` (the record as this attempt found it: steps done
    /// by earlier attempts, and the step one was in when it died), reporting each step
    /// through `lease` ([`Lease::started`] before acting, [`Lease::done`] once its effect
    /// was seen). A [`LeaseError::Lost`] from the lease must end the run with [`RunEnd::Lost`],
    /// a [`LeaseError::Cancelled`] with [`RunEnd::Cancelled`].
    async fn run(&self, task: &Task, resume: &TaskRecord, lease: &Lease<'_>) -> RunEnd;
}

/// One worker of a pool.
#[derive(Clone, Debug)]
pub struct Worker {
    /// Unique in the fleet.
    pub name: String,
    /// The pool it takes tasks from.
    pub pool: String,
    /// What its desktop offers.
    pub offer: Offer,
}

/// What became of one delivery.
#[derive(Clone, Debug, PartialEq)]
pub enum Served {
    /// Nothing came within the wait.
    Idle,
    /// The task had ended already; acked.
    Ended(String),
    /// This desktop cannot run it; handed back.
    Refused(String),
    /// Started too many times; failed for good.
    Exhausted(String),
    /// Run; how it ended.
    Ran(String, RunEnd),
}

/// How long a transiently failed task waits before its next delivery.
const RETRY_DELAY: Duration = Duration::from_secs(1);

impl Worker {
    /// What the registry lists for this worker.
    pub fn info(&self, running: Option<&str>) -> WorkerInfo {
        WorkerInfo {
            name: self.name.clone(),
            pool: self.pool.clone(),
            offer: self.offer.clone(),
            running: running.map(str::to_string),
            seen_ms: now_ms(),
        }
    }

    /// Take the next task (waiting up to `wait`), run it and end it.
    pub async fn serve_one(
        &self,
        queue: &dyn Queue,
        runner: &dyn Runner,
        wait: Duration,
    ) -> Result<Served, FleetError> {
        queue.advertise(&self.info(None)).await?;
        let Some(delivery) = queue.next(&self.pool, wait).await? else { return Ok(Served::Idle) };
        let delivery: Arc<dyn Delivery> = Arc::from(delivery);
        let id = delivery.task_id().to_string();
        let lease = match claim(queue, delivery.as_ref(), &self.name, &self.offer).await? {
            Claim::Held(lease) => lease,
            Claim::Ended => return Ok(Served::Ended(id)),
            Claim::Refused => return Ok(Served::Refused(id)),
            Claim::Exhausted => return Ok(Served::Exhausted(id)),
        };
        let resume = match lease.record().await {
            Ok(r) => r,
            Err(LeaseError::Lost { .. }) => return Ok(Served::Ran(id, RunEnd::Lost)),
            Err(LeaseError::Cancelled { .. }) => {
                delivery.ack().await?;
                return Ok(Served::Ended(id));
            }
            Err(LeaseError::Fleet(e)) => return Err(e),
        };
        queue.advertise(&self.info(Some(&id))).await?;
        // The heartbeat, well inside the ack wait, on a task of its own: a runner that holds
        // its thread a while (a long OCR) must not cost it the task. A beat or registry
        // write that fails is not a reason to drop a step half sent: the run goes on, and
        // its lease says at the end whether the task is still its own.
        let beat = queue.ack_wait() / 3;
        let beating = {
            let delivery = Arc::clone(&delivery);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(beat).await;
                    let _ = delivery.heartbeat().await;
                }
            })
        };
        let run = runner.run(&resume.task, &resume, &lease);
        tokio::pin!(run);
        // The registry's entries expire after its TTL (30 s by default): said well inside it.
        let say_alive = beat.min(Duration::from_secs(10));
        let end = loop {
            tokio::select! {
                end = &mut run => break end,
                _ = tokio::time::sleep(say_alive) => {
                    let _ = queue.advertise(&self.info(Some(&id))).await;
                }
            }
        };
        beating.abort();
        let written = match &end {
            RunEnd::Done { summary, output } => lease.finish(true, summary.clone(), output.clone()).await,
            RunEnd::Failed { summary, output } => lease.finish(false, summary.clone(), output.clone()).await,
            RunEnd::Retry { summary } => lease.hand_back(summary).await,
            RunEnd::Lost => return Ok(Served::Ran(id, RunEnd::Lost)),
            RunEnd::Cancelled { .. } => Ok(()),
        };
        let end = match written {
            Ok(()) => end,
            // Lost between the last step and the end: another attempt holds it and ends it.
            Err(LeaseError::Lost { .. }) => return Ok(Served::Ran(id, RunEnd::Lost)),
            // Cancelled between the last step and the end: the cancel's record stands.
            Err(LeaseError::Cancelled { why, .. }) => RunEnd::Cancelled { summary: why },
            Err(LeaseError::Fleet(e)) => return Err(e),
        };
        match &end {
            RunEnd::Done { .. } | RunEnd::Cancelled { .. } => delivery.ack().await?,
            RunEnd::Failed { .. } => delivery.give_up().await?,
            RunEnd::Retry { .. } => delivery.retry_later(RETRY_DELAY).await?,
            RunEnd::Lost => {}
        }
        queue.advertise(&self.info(None)).await?;
        Ok(Served::Ran(id, end))
    }
}
