//! The seam to the person: a question goes out, an answer (or "later") comes back. Faces
//! implement it: a dialog on the desktop, a terminal prompt, or deferring to an outer
//! agent through a `needs_input` result. Asking never hangs the loop: an asker that cannot
//! reach anyone says so, and the run pauses or carries on without the action.

use serde::{Deserialize, Serialize};

use crate::desktop::BoxFuture;

/// Why the agent asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskReason {
    /// The model called `ask_user`.
    Model,
    /// The executive function scored the proposed action below the threshold.
    LowConfidence,
    /// The action is on the policy's confirmation list.
    Confirm,
    /// The same action failed again and again.
    RepeatedFailure,
    /// A step of a flow failed, and the flow says `on_fail: ask` (asked by the face that
    /// replays flows, through the same channels).
    FlowStepFailed,
}

impl AskReason {
    /// Its serde name.
    pub fn as_str(self) -> &'static str {
        match self {
            AskReason::Model => "model",
            AskReason::LowConfidence => "low_confidence",
            AskReason::Confirm => "confirm",
            AskReason::RepeatedFailure => "repeated_failure",
            AskReason::FlowStepFailed => "flow_step_failed",
        }
    }
}

/// A question for the person.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// The run it belongs to (for `--resume`).
    pub run_id: String,
    /// The step that asks.
    pub step: u32,
    /// The question, in plain words.
    pub text: String,
    /// Why it is asked.
    pub reason: AskReason,
    /// Short answers that would do (`yes`, `no`, a candidate), possibly empty.
    pub options: Vec<String>,
}

/// What came back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The person's answer.
    Text(String),
    /// Nobody can answer now: the run pauses with a `needs_input` result and resumes with
    /// the answer later.
    Later,
    /// The question could not be put (no channel, the dialog failed); the run goes on
    /// without the action and the model is told why.
    Unavailable(String),
}

/// Where questions go.
pub trait Asker: Send + Sync {
    /// Put `question` to the person.
    fn ask<'a>(&'a self, question: &'a Question) -> BoxFuture<'a, Answer>;
}

/// An asker that answers every question with the same [`Answer`] (tests, and runs that
/// must never ask).
#[derive(Clone, Debug)]
pub struct FixedAnswer(pub Answer);

impl Asker for FixedAnswer {
    fn ask<'a>(&'a self, _question: &'a Question) -> BoxFuture<'a, Answer> {
        let a = self.0.clone();
        Box::pin(async move { a })
    }
}

/// Whether an answer consents (`yes`, `y`, `ok`, `confirm`, `go ahead`, `proceed`).
pub fn is_yes(answer: &str) -> bool {
    let a = answer.trim().trim_end_matches(['.', '!']).to_lowercase();
    matches!(
        a.as_str(),
        "yes" | "y" | "ok" | "okay" | "confirm" | "confirmed" | "go ahead" | "proceed" | "do it" | "sure"
    ) || a.starts_with("yes,")
        || a.starts_with("yes ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_means_yes() {
        for y in ["yes", "Y", "OK.", "Yes, do it", "go ahead"] {
            assert!(is_yes(y), "{y}");
        }
        for n in ["no", "", "yesterday", "not sure", "nope"] {
            assert!(!is_yes(n), "{n}");
        }
    }
}
