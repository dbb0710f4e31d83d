//! A task's record: its state, every attempt at it, the steps done and its result. One
//! entry per task in the fleet's store, changed only by compare-and-set, so two workers
//! never both think they hold it.

use serde::{Deserialize, Serialize};

use crate::task::Task;

/// Where a task stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Submitted, waiting for a worker (or for its next delivery after one died).
    Queued,
    /// A worker holds it.
    Running,
    /// It ended well; `result` says how.
    Done,
    /// It ended for good without being done; `result` says why.
    Failed,
    /// Someone cancelled it before it ended; `result` says who and why. A worker holding it
    /// stops after the step it is in (a step is never cut in half).
    Cancelled,
}

impl TaskState {
    /// Whether the task has ended (nothing will run it again).
    pub fn ended(self) -> bool {
        matches!(self, TaskState::Done | TaskState::Failed | TaskState::Cancelled)
    }
}

/// One start of a task by one worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// 1 for the first start.
    pub number: u32,
    /// The worker that holds (or held) it.
    pub worker: String,
    /// The desktop it ran on (what its worker's offer calls it): effects seen on one
    /// desktop are not seen on another, so a resumed task asks where each step was done.
    #[serde(default)]
    pub desktop: String,
    /// When it started, ms since the Unix epoch.
    pub started_ms: u64,
    /// How it ended, when its worker said so (a worker that died says nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

/// A step of the task whose effect was seen, with the attempt that saw it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepDone {
    /// The step's index in the task, from 0.
    pub step: usize,
    /// The attempt that did it (or found it already done).
    pub attempt: u32,
    /// The verified outcome, as the runner reports it.
    pub outcome: serde_json::Value,
}

/// A run's trace, kept in the queue's blob store (`Queue::get_blob`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceRef {
    /// The attempt whose run it records.
    pub attempt: u32,
    /// Its key in the blob store.
    pub key: String,
    /// Its size.
    pub bytes: u64,
    /// The frames it refers to, by their path in a trace folder (`frames/<digest>.png`),
    /// each kept under `frame.<that path>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
}

impl TraceRef {
    /// The blob store key of the frame at `path` (one of [`TraceRef::frames`]).
    pub fn frame_key(path: &str) -> String {
        format!("frame.{path}")
    }

    /// Whether `path` is a frame's path as a trace folder holds it (`frames/` and 16 hex
    /// digits, `.png`): nothing else is kept, or written where a record says.
    pub fn is_frame_path(path: &str) -> bool {
        path.strip_prefix("frames/")
            .and_then(|p| p.strip_suffix(".png"))
            .is_some_and(|d| d.len() == 16 && d.chars().all(|c| c.is_ascii_hexdigit()))
    }
}

/// How a task ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskResult {
    /// Done (every step's effect seen) or not.
    pub ok: bool,
    /// What it came to, in words.
    pub summary: String,
    /// The runner's whole report.
    #[serde(default)]
    pub output: serde_json::Value,
    /// The worker and attempt that ended it.
    pub worker: String,
    /// The attempt that ended it.
    pub attempt: u32,
}

/// Everything known of one task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task as submitted.
    pub task: Task,
    /// Where it stands.
    pub state: TaskState,
    /// Every start, in order; the last one holds the lease while the task runs.
    #[serde(default)]
    pub attempts: Vec<Attempt>,
    /// The step a worker started and has not reported done: its effect may have landed
    /// when that worker died, so the next attempt looks before acting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<usize>,
    /// The attempt that set `in_flight` (a later attempt that died before writing anything
    /// leaves it as it was: the step may have landed on that attempt's desktop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight_by: Option<u32>,
    /// What the step in flight is, in the runner's words, when its task does not say
    /// (an agent's action: the task holds a goal, not the steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight_what: Option<serde_json::Value>,
    /// Steps whose effect was seen, in order.
    #[serde(default)]
    pub done: Vec<StepDone>,
    /// Deliveries to workers whose desktop could not run it (handed back at once).
    #[serde(default)]
    pub refusals: u32,
    /// How it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<TaskResult>,
    /// The traces of the attempts that ran to an end on their worker (one that died left
    /// none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traces: Vec<TraceRef>,
}

impl TaskRecord {
    /// A new record for a task just submitted.
    pub fn queued(task: Task) -> TaskRecord {
        TaskRecord {
            task,
            state: TaskState::Queued,
            attempts: Vec::new(),
            in_flight: None,
            in_flight_by: None,
            in_flight_what: None,
            done: Vec::new(),
            refusals: 0,
            result: None,
            traces: Vec::new(),
        }
    }

    /// The lease: the attempt that holds the task now, if one does.
    pub fn lease(&self) -> Option<&Attempt> {
        if self.state == TaskState::Running { self.attempts.last() } else { None }
    }

    /// Whether `attempt` of `worker` holds the lease.
    pub fn held_by(&self, worker: &str, attempt: u32) -> bool {
        self.lease().is_some_and(|a| a.worker == worker && a.number == attempt)
    }
}
