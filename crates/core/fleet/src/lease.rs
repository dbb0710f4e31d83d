//! Submitting, claiming and holding a task, on top of any [`Queue`]: every change to a
//! task's record is a compare-and-set that first checks who holds it, so a worker that lost
//! the task (it stopped answering and the task went to another) has its late progress and
//! result refused, never written over the new holder's.

use std::time::Duration;

use crate::queue::{Delivery, FleetError, Queue, Revision};
use crate::record::{Attempt, StepDone, TaskRecord, TaskResult, TaskState, TraceRef};
use crate::task::{Offer, Task, check_name};

/// How long a task handed back by a desktop that cannot run it waits before its next
/// delivery (so the pool's other workers get it first).
pub const REFUSAL_DELAY: Duration = Duration::from_millis(200);

/// Why a task was not submitted.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// No live worker of the pool can run it.
    #[error("no matching worker in pool {pool:?}: {why}")]
    NoMatchingWorker {
        /// The pool asked for.
        pool: String,
        /// Each worker and what it lacks, or that the pool has none.
        why: String,
    },
    /// The queue or store failed, or the id is taken.
    #[error(transparent)]
    Fleet(#[from] FleetError),
}

/// Queue `task` for its pool, after checking that a live worker there can run it: a task
/// no desktop can run is refused at once, not left waiting for ever.
pub async fn submit(queue: &dyn Queue, task: Task) -> Result<(), SubmitError> {
    check_name("task id", &task.id)?;
    check_name("pool", &task.pool)?;
    if u64::from(task.max_attempts) >= queue.max_deliver() || task.max_attempts == 0 {
        return Err(FleetError::Invalid(format!(
            "max_attempts {}: give 1 to {} (the queue delivers a task at most {} times)",
            task.max_attempts,
            queue.max_deliver().saturating_sub(1),
            queue.max_deliver()
        ))
        .into());
    }
    if let Some(why) = unrunnable(queue, &task).await? {
        return Err(SubmitError::NoMatchingWorker { pool: task.pool.clone(), why });
    }
    let (id, pool) = (task.id.clone(), task.pool.clone());
    let record = encode(&TaskRecord::queued(task))?;
    queue.create(&key(&id), record).await.map_err(|e| match e {
        FleetError::Exists(_) => FleetError::Exists(format!("a task with id {id:?}")),
        e => e,
    })?;
    queue.publish(&pool, &id).await?;
    Ok(())
}

/// Why no live worker of `task`'s pool can run it (each and what it lacks), or `None` when
/// one can.
async fn unrunnable(queue: &dyn Queue, task: &Task) -> Result<Option<String>, FleetError> {
    let workers = queue.workers().await?;
    let in_pool: Vec<_> = workers.iter().filter(|w| w.pool == task.pool).collect();
    if in_pool.iter().any(|w| w.offer.unmet(&task.needs).is_empty()) {
        return Ok(None);
    }
    Ok(Some(if in_pool.is_empty() {
        let mut pools: Vec<&str> = workers.iter().map(|w| w.pool.as_str()).collect();
        pools.sort();
        pools.dedup();
        let live = match pools.is_empty() {
            true => String::new(),
            false => format!("; the pools with live workers: {}", pools.join(", ")),
        };
        format!("the pool has no live worker (start one with `agent-cli worker --pool {}`){live}", task.pool)
    } else {
        in_pool
            .iter()
            .map(|w| format!("{} lacks {}", w.name, w.offer.unmet(&task.needs).join(" and ")))
            .collect::<Vec<_>>()
            .join("; ")
    }))
}

/// The store key of a task's record.
pub fn key(id: &str) -> String {
    format!("task.{id}")
}

/// A task's record, if it has one.
pub async fn record(queue: &dyn Queue, id: &str) -> Result<Option<TaskRecord>, FleetError> {
    Ok(read(queue, id).await?.map(|(r, _)| r))
}

/// Every task's record.
pub async fn records(queue: &dyn Queue) -> Result<Vec<TaskRecord>, FleetError> {
    let mut all = Vec::new();
    for k in queue.keys().await? {
        if let Some(id) = k.strip_prefix("task.")
            && let Some(r) = record(queue, id).await?
        {
            all.push(r);
        }
    }
    all.sort_by_key(|r| r.task.submitted_ms);
    Ok(all)
}

/// What a worker may do with a delivery.
pub enum Claim<'q> {
    /// It holds the task now.
    Held(Lease<'q>),
    /// The task had ended already (a delivery whose ack was lost): acked, nothing to do.
    Ended,
    /// Its desktop cannot run the task: handed back for another worker.
    Refused,
    /// Failed for good before it ran, reported in its record: started `max_attempts` times
    /// already, or no live worker can run it any more.
    Exhausted,
}

/// Claim the task of `delivery` for `worker`, whose desktop offers `offer`.
pub async fn claim<'q>(
    queue: &'q dyn Queue,
    delivery: &dyn Delivery,
    worker: &str,
    offer: &Offer,
) -> Result<Claim<'q>, FleetError> {
    let id = delivery.task_id().to_string();
    loop {
        let Some((mut record, rev)) = read(queue, &id).await? else {
            // A message with no record was never submitted through `submit`: nothing to run.
            delivery.give_up().await?;
            return Ok(Claim::Ended);
        };
        if record.state.ended() {
            delivery.ack().await?;
            return Ok(Claim::Ended);
        }
        if !offer.unmet(&record.task.needs).is_empty() {
            // Handed back only while a live worker of the pool can run it (the rule of
            // `submit`), and within the queue's deliveries: else it would go round the
            // pool's other desktops until the queue stopped delivering it, unreported.
            let why_not = match unrunnable(queue, &record.task).await? {
                Some(why) => Some(format!("no live worker can run it any more: {why}")),
                None if delivery.delivered() + 1 >= queue.max_deliver() => Some(format!(
                    "delivered {} times, and no desktop that can run it was free to take it (the queue delivers \
                     a task at most {} times)",
                    delivery.delivered(),
                    queue.max_deliver()
                )),
                None => None,
            };
            if let Some(why) = why_not {
                record.state = TaskState::Failed;
                record.result = Some(TaskResult {
                    ok: false,
                    summary: why,
                    output: serde_json::Value::Null,
                    worker: worker.to_string(),
                    attempt: u32::try_from(record.attempts.len()).unwrap_or(u32::MAX),
                });
                match write(queue, &id, &record, rev).await {
                    Err(FleetError::Conflict) => continue,
                    r => r?,
                };
                delivery.give_up().await?;
                return Ok(Claim::Exhausted);
            }
            record.refusals += 1;
            match write(queue, &id, &record, rev).await {
                Err(FleetError::Conflict) => continue,
                r => r?,
            };
            // Longer each time (the desktop that can run it may be busy for minutes), so the
            // queue's deliveries last well beyond a long task.
            let backoff = REFUSAL_DELAY.saturating_mul(1 << delivery.delivered().min(8));
            delivery.retry_later(backoff.min(queue.ack_wait())).await?;
            return Ok(Claim::Refused);
        }
        let started = u32::try_from(record.attempts.len()).unwrap_or(u32::MAX);
        if started >= record.task.max_attempts {
            let last = record.attempts.last().cloned();
            let step = record.in_flight.map(|s| format!(" at step {}", s.saturating_add(1))).unwrap_or_default();
            let summary = format!(
                "started {started} time(s), the last by {}{step}, and never finished: no more attempts (max_attempts {})",
                last.as_ref().map(|a| a.worker.as_str()).unwrap_or("?"),
                record.task.max_attempts
            );
            record.state = TaskState::Failed;
            record.result = Some(TaskResult {
                ok: false,
                summary,
                output: serde_json::Value::Null,
                worker: worker.to_string(),
                attempt: started,
            });
            match write(queue, &id, &record, rev).await {
                Err(FleetError::Conflict) => continue,
                r => r?,
            };
            delivery.give_up().await?;
            return Ok(Claim::Exhausted);
        }
        if let Some(previous) = record.attempts.last_mut()
            && previous.ended.is_none()
        {
            previous.ended = Some(format!("its worker stopped answering (delivery {})", delivery.delivered()));
        }
        let number = started + 1;
        record.attempts.push(Attempt {
            number,
            worker: worker.to_string(),
            desktop: offer.desktop.clone(),
            started_ms: now_ms(),
            ended: None,
        });
        record.state = TaskState::Running;
        match write(queue, &id, &record, rev).await {
            Err(FleetError::Conflict) => continue,
            r => r?,
        };
        return Ok(Claim::Held(Lease { queue, id, worker: worker.to_string(), attempt: number }));
    }
}

/// A worker's hold on a task: every change it makes to the task's record goes through
/// here, and is refused with [`LeaseError::Lost`] once another attempt holds the task.
pub struct Lease<'q> {
    queue: &'q dyn Queue,
    id: String,
    worker: String,
    attempt: u32,
}

/// Why a change to a held task's record was not made.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// Another attempt holds the task now (this worker stopped answering in time, and the
    /// task went to another): stop, write nothing more, and never ack.
    #[error("task {id}: attempt {attempt} lost its lease (the task was delivered again, now held by {holder})")]
    Lost {
        /// The task.
        id: String,
        /// This attempt.
        attempt: u32,
        /// Who holds it now, in words.
        holder: String,
    },
    /// Someone cancelled the task: stop (the step in hand ran to its end), and ack it.
    #[error("task {id} was cancelled: {why}")]
    Cancelled {
        /// The task.
        id: String,
        /// Who cancelled it and why, in words.
        why: String,
    },
    /// The store failed.
    #[error(transparent)]
    Fleet(#[from] FleetError),
}

impl Lease<'_> {
    /// The task's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// This attempt's number (1 for the first start).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The record as it stands (for a runner to resume from: steps done, the step in flight).
    pub async fn record(&self) -> Result<TaskRecord, LeaseError> {
        self.change(|_| {}).await
    }

    /// About to act on step `step`: if this worker dies now, the next attempt looks before
    /// acting on it again.
    pub async fn started(&self, step: usize) -> Result<(), LeaseError> {
        self.started_with(step, None).await
    }

    /// [`Lease::started`], saying what the step is (`what`: the runner's words, for a
    /// later attempt to look for it).
    pub async fn started_with(&self, step: usize, what: Option<serde_json::Value>) -> Result<(), LeaseError> {
        let attempt = self.attempt;
        self.change(|r| {
            r.in_flight = Some(step);
            r.in_flight_by = Some(attempt);
            r.in_flight_what.clone_from(&what);
        })
        .await
        .map(drop)
    }

    /// Step `step`'s effect was seen, with this outcome.
    pub async fn done(&self, step: usize, outcome: serde_json::Value) -> Result<(), LeaseError> {
        let attempt = self.attempt;
        self.change(|r| {
            r.in_flight = None;
            r.in_flight_by = None;
            r.in_flight_what = None;
            r.done.retain(|d| d.step != step);
            r.done.push(StepDone { step, attempt, outcome: outcome.clone() });
        })
        .await
        .map(drop)
    }

    /// The task ended (`result.ok` or not, for good): written only while this attempt
    /// still holds it.
    pub async fn finish(&self, ok: bool, summary: String, output: serde_json::Value) -> Result<(), LeaseError> {
        let (worker, attempt) = (self.worker.clone(), self.attempt);
        self.change(|r| {
            r.state = if ok { TaskState::Done } else { TaskState::Failed };
            if let Some(a) = r.attempts.last_mut() {
                a.ended = Some(if ok { "done".into() } else { format!("failed: {summary}") });
            }
            r.result = Some(TaskResult {
                ok,
                summary: summary.clone(),
                output: output.clone(),
                worker: worker.clone(),
                attempt,
            });
        })
        .await
        .map(drop)
    }

    /// Keep this attempt's trace (`data`, a trace file's bytes) and its frames in the
    /// queue's blob store and list them in the record, while this attempt holds the task
    /// (before `finish`). Frames are kept by their digest: one shown by several runs once.
    /// `frames`: the frames it refers to, by their path in a trace folder, with their bytes.
    pub async fn attach_trace(&self, data: Vec<u8>, frames: Vec<(String, Vec<u8>)>) -> Result<(), LeaseError> {
        // Checked first, so a lost or cancelled attempt stores nothing.
        self.record().await?;
        let key = format!("trace.{}.{}", self.id, self.attempt);
        let bytes = data.len() as u64;
        self.queue.put_blob(&key, data).await?;
        let mut paths = Vec::new();
        for (path, png) in frames {
            // Named by its digest: one kept already (by an earlier run) is the same frame,
            // and replacing it could cut short someone reading it.
            let key = TraceRef::frame_key(&path);
            if !self.queue.has_blob(&key).await? {
                self.queue.put_blob(&key, png).await?;
            }
            paths.push(path);
        }
        let attempt = self.attempt;
        self.change(|r| {
            r.traces.retain(|t| t.attempt != attempt);
            r.traces.push(TraceRef { attempt, key: key.clone(), bytes, frames: paths.clone() });
        })
        .await
        .map(drop)
    }

    /// This attempt stops without ending the task (a transient failure): it goes back to
    /// the queue for another attempt.
    pub async fn hand_back(&self, why: &str) -> Result<(), LeaseError> {
        self.change(|r| {
            r.state = TaskState::Queued;
            if let Some(a) = r.attempts.last_mut() {
                a.ended = Some(format!("handed back: {why}"));
            }
        })
        .await
        .map(drop)
    }

    /// Apply `f` to the record if this attempt holds the task, by compare-and-set.
    async fn change(&self, f: impl Fn(&mut TaskRecord) + Send + Sync) -> Result<TaskRecord, LeaseError> {
        loop {
            let Some((mut record, rev)) = read(self.queue, &self.id).await? else {
                return Err(self.lost("nobody: its record is gone"));
            };
            if record.state == TaskState::Cancelled {
                let why = record.result.as_ref().map_or_else(String::new, |r| r.summary.clone());
                return Err(LeaseError::Cancelled { id: self.id.clone(), why });
            }
            if !record.held_by(&self.worker, self.attempt) {
                let holder = match record.lease() {
                    Some(a) => format!("{} (attempt {})", a.worker, a.number),
                    None => format!("nobody: it is {:?}", record.state).to_lowercase(),
                };
                return Err(self.lost(&holder));
            }
            f(&mut record);
            match write(self.queue, &self.id, &record, rev).await {
                Ok(_) => return Ok(record),
                // Someone wrote between the read and the write: read again, and check the
                // lease again before writing.
                Err(FleetError::Conflict) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    fn lost(&self, holder: &str) -> LeaseError {
        LeaseError::Lost { id: self.id.clone(), attempt: self.attempt, holder: holder.to_string() }
    }
}

/// The trace kept under `key` (a record's [`TraceRef::key`], or a frame's
/// [`TraceRef::frame_key`]).
pub async fn trace(queue: &dyn Queue, key: &str) -> Result<Option<Vec<u8>>, FleetError> {
    queue.get_blob(key).await
}

/// What [`cancel`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum Cancel {
    /// Cancelled now; the record as written. A worker that held it stops after its step.
    Cancelled(TaskRecord),
    /// It had ended already (done, failed, or cancelled before): left as it was.
    Ended(TaskRecord),
    /// No task has this id.
    Unknown,
}

/// Cancel task `id` (`by`: who asks, `why`: in their words, may be empty): queued, it is
/// never run (its delivery is acked when it comes); running, its worker finds out at its
/// next write to the record, after the step in hand, and stops there. A step is never cut
/// in half: the one in flight may still have its effect, which the record then does not
/// show as done.
pub async fn cancel(queue: &dyn Queue, id: &str, by: &str, why: &str) -> Result<Cancel, FleetError> {
    loop {
        let Some((mut record, rev)) = read(queue, id).await? else { return Ok(Cancel::Unknown) };
        if record.state.ended() {
            return Ok(Cancel::Ended(record));
        }
        let why = if why.trim().is_empty() { String::new() } else { format!(": {}", why.trim()) };
        let running = record.state == TaskState::Running;
        let step = record
            .in_flight
            .filter(|_| running)
            .map(|s| format!(" while step {} ran", s.saturating_add(1)))
            .unwrap_or_default();
        let attempt = u32::try_from(record.attempts.len()).unwrap_or(u32::MAX);
        if let Some(a) = record.attempts.last_mut().filter(|_| running) {
            a.ended = Some(format!("cancelled by {by}{step}"));
        }
        record.state = TaskState::Cancelled;
        record.result = Some(TaskResult {
            ok: false,
            summary: format!("cancelled by {by}{step}{why}"),
            output: serde_json::Value::Null,
            worker: by.to_string(),
            attempt,
        });
        match write(queue, id, &record, rev).await {
            Err(FleetError::Conflict) => continue,
            r => r?,
        };
        return Ok(Cancel::Cancelled(record));
    }
}

async fn read(queue: &dyn Queue, id: &str) -> Result<Option<(TaskRecord, Revision)>, FleetError> {
    let Some((bytes, rev)) = queue.get(&key(id)).await? else { return Ok(None) };
    let record = serde_json::from_slice(&bytes).map_err(|e| FleetError::Corrupt(format!("task {id}: {e}")))?;
    Ok(Some((record, rev)))
}

async fn write(queue: &dyn Queue, id: &str, record: &TaskRecord, rev: Revision) -> Result<Revision, FleetError> {
    queue.update(&key(id), encode(record)?, rev).await
}

fn encode(record: &TaskRecord) -> Result<Vec<u8>, FleetError> {
    serde_json::to_vec(record).map_err(|e| FleetError::Corrupt(e.to_string()))
}

/// Now, in ms since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
