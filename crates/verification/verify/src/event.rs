//! The events the executor publishes on the bus: one per step, so that traces, progress
//! displays and the agent can follow an action as it happens.

use deft_retry::{Observation, Step};
use deft_types::{Action, Channel, Condition, Evidence, Outcome, TargetInfo};
use serde::{Deserialize, Serialize};

use crate::shot::FrameRecord;
use crate::wait_outcome::WaitOutcome;

/// One thing the executor did or saw. `op` numbers the executor's operations (actions and
/// waits) from 1, so the events of concurrent operations can be told apart; `at_ms` is the
/// time since that operation started.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerifyEvent {
    /// An action started.
    ActionStarted {
        /// Operation number.
        op: u64,
        /// The action, its typed text or set value replaced by its length
        /// (`deft_trace::redact::action`): the target may be a password field, which is
        /// not known yet. The outcome says what was typed where it is not a secret.
        action: Action,
        /// Whether it is verified.
        verify: bool,
        /// The explicit expectation, if any.
        expect: Option<Condition>,
    },
    /// The target was found (again).
    Resolved {
        /// Operation number.
        op: u64,
        /// Time since the operation started.
        at_ms: u64,
        /// The element, as found.
        target: TargetInfo,
        /// Through which channel it was found.
        channel: Channel,
    },
    /// An actionability check did not pass yet (the executor keeps waiting until its timeout).
    NotActionable {
        /// Operation number.
        op: u64,
        /// Time since the operation started.
        at_ms: u64,
        /// What is missing, in plain words (`not enabled`, `covered by dialog "New Event!"`).
        reason: String,
    },
    /// The retry engine ordered a step.
    Step {
        /// Operation number.
        op: u64,
        /// The step.
        step: Step,
    },
    /// The executor reported what it saw to the engine.
    Observed {
        /// Operation number.
        op: u64,
        /// The report.
        observation: Observation,
    },
    /// An input was sent.
    InputSent {
        /// Operation number.
        op: u64,
        /// Time since the operation started.
        at_ms: u64,
        /// What was sent, in plain words (`click at (180, 126)`, `a11y action "click"`).
        what: String,
    },
    /// Something was seen that supports the verdict.
    Evidence {
        /// Operation number.
        op: u64,
        /// The evidence.
        evidence: Evidence,
    },
    /// An action ended.
    ActionFinished {
        /// Operation number.
        op: u64,
        /// Its outcome.
        outcome: Outcome,
    },
    /// A wait started.
    WaitStarted {
        /// Operation number.
        op: u64,
        /// The condition.
        condition: Condition,
        /// Its timeout.
        timeout_ms: u64,
    },
    /// A frame of the screen before an input or after a verdict: its file beside the
    /// trace, or why it was not saved. Published by the frame sink once the file is whole
    /// (so after the events of the moment it shows); `op` and `attempt` place it.
    Frame(FrameRecord),
    /// A change that would verify the input is held a moment before it counts, and why: it
    /// may be the application moving by itself (a clock, a counter), which only a second
    /// change within the hold would show.
    Held {
        /// Operation number.
        op: u64,
        /// Time since the operation started.
        at_ms: u64,
        /// How long it is held at most.
        for_ms: u64,
        /// Why, in plain words.
        why: String,
    },
    /// A wait ended.
    WaitFinished {
        /// Operation number.
        op: u64,
        /// What came of it.
        outcome: WaitOutcome,
    },
}

impl VerifyEvent {
    /// The operation (one action or wait) the event belongs to.
    pub fn op(&self) -> u64 {
        match self {
            VerifyEvent::ActionStarted { op, .. }
            | VerifyEvent::Resolved { op, .. }
            | VerifyEvent::NotActionable { op, .. }
            | VerifyEvent::Step { op, .. }
            | VerifyEvent::Observed { op, .. }
            | VerifyEvent::InputSent { op, .. }
            | VerifyEvent::Evidence { op, .. }
            | VerifyEvent::ActionFinished { op, .. }
            | VerifyEvent::WaitStarted { op, .. }
            | VerifyEvent::WaitFinished { op, .. }
            | VerifyEvent::Held { op, .. } => *op,
            VerifyEvent::Frame(f) => f.op,
        }
    }
}
