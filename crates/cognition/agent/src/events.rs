//! What a run publishes, step by step: on the bus (and so in the trace) and to a face's
//! display. Typed text (a password) never appears: arguments are redacted first.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One thing that happened in a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A run started or resumed.
    RunStarted {
        /// The run's id (`--resume` takes it).
        run_id: String,
        /// The goal.
        goal: String,
        /// Which model answers (`provider/model`).
        model: String,
        /// Whether this continues a paused run.
        resumed: bool,
    },
    /// Streamed reply text, as it arrives (display only; the bus gets [`AgentEvent::Thought`]).
    ThoughtDelta {
        /// Step number (1-based).
        step: u32,
        /// The new text.
        text: String,
    },
    /// The model's thought of a step, whole.
    Thought {
        /// Step number.
        step: u32,
        /// The text.
        text: String,
    },
    /// The model proposed a tool call.
    Proposed {
        /// Step number.
        step: u32,
        /// The tool.
        tool: String,
        /// Its arguments, typed text redacted for password fields.
        args: Value,
        /// The target in words, when resolved.
        target: Option<String>,
    },
    /// The executive function's score of a proposed action.
    Confidence {
        /// Step number.
        step: u32,
        /// The combined score, 0..1.
        score: f64,
        /// The model's part (log-probability, sample agreement or self-report), 0..1.
        model: Option<f64>,
        /// How the model's part was measured: `logprobs`, `samples`, `inline`, `none`.
        method: String,
        /// Elements the target could be confused with (itself included).
        candidates: usize,
        /// Whether the action can be undone.
        reversible: bool,
        /// Actions of this run that failed verification so far.
        failures: u32,
        /// The threshold in force.
        threshold: f64,
    },
    /// The policy refused a call.
    PolicyBlocked {
        /// Step number.
        step: u32,
        /// The tool.
        tool: String,
        /// Why.
        reason: String,
    },
    /// A question to the person.
    Asked {
        /// Step number.
        step: u32,
        /// The question.
        question: String,
        /// Why it was asked: `model`, `low_confidence`, `confirm`, `repeated_failure`.
        reason: String,
    },
    /// The person's answer.
    Answered {
        /// Step number.
        step: u32,
        /// The answer (`None`: it will come later, the run pauses).
        answer: Option<String>,
    },
    /// A tool ran; what it showed, in one line.
    Observation {
        /// Step number.
        step: u32,
        /// The tool.
        tool: String,
        /// For actions and waits, whether they worked.
        ok: Option<bool>,
        /// The observation in one line.
        summary: String,
        /// Time the tool took.
        elapsed_ms: u64,
    },
    /// What the agent believed differs from what was observed.
    Divergence {
        /// Step number.
        step: u32,
        /// What was believed.
        believed: String,
        /// What was observed.
        observed: String,
    },
    /// Tokens and time of a step.
    StepStats {
        /// Step number.
        step: u32,
        /// Model calls in the step (the confidence check included).
        model_calls: u32,
        /// Prompt tokens sent in the step.
        prompt_tokens: u64,
        /// Tokens generated.
        output_tokens: u64,
        /// Time waiting for the model.
        model_ms: u64,
        /// Time the tools took (the executor acting and verifying).
        tool_ms: u64,
        /// The agent's own time: everything else.
        overhead_ms: u64,
    },
    /// The run ended (or paused for an answer).
    Finished {
        /// `goal_met`, `goal_not_met`, `needs_input`, `budget`, `failed`.
        status: String,
        /// The model's summary or why it ended.
        summary: String,
        /// Steps taken.
        steps: u32,
    },
}
