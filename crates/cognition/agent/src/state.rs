//! A run's state, whole: what a paused run saves (as JSON, by the face) and resumes from
//! in another process, with the same refs naming the same elements.

use std::collections::BTreeMap;

use deft_llm::UsageTotals;
use serde::{Deserialize, Serialize};

use crate::ask::Question;
use crate::belief::Belief;
use crate::calibrate::Record;
use crate::config::AgentConfig;
use crate::desktop::SavedRef;
use crate::world::{Turn, World};

/// The format version of a saved run.
pub const STATE_VERSION: u32 = 2;

/// Tokens and time of one step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StepStats {
    /// The step.
    pub step: u32,
    /// Model calls (the step's reply, confidence checks, vision looks).
    pub model_calls: u32,
    /// Prompt tokens sent (cached ones included).
    pub prompt_tokens: u64,
    /// Tokens generated.
    pub output_tokens: u64,
    /// Characters of the observations the step produced (what the next request adds).
    pub observation_chars: usize,
    /// Time waiting for the model.
    pub model_ms: u64,
    /// Time the tools took (acting, verifying, waiting for the app).
    pub tool_ms: u64,
    /// Time waiting for the person.
    pub ask_ms: u64,
    /// The agent's own time: everything else (prompts, policy and candidate reads, rendering).
    pub overhead_ms: u64,
    /// Tool calls the step ran.
    pub actions: u32,
}

/// What a paused question is about, so that its answer lands where it belongs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PendingKind {
    /// The model's own `ask_user`: the answer is its result.
    ModelAsked,
    /// A confirmation: `yes` runs the call (already resolved and checked), anything else does not.
    Confirm {
        /// The call to run on `yes`.
        call: deft_llm::ToolCall,
    },
    /// A low-confidence action held back.
    LowConfidence {
        /// The call, run on `yes` when its target was unique.
        call: deft_llm::ToolCall,
        /// Whether the target was unique.
        unique: bool,
        /// The score, for the calibration record.
        score: f64,
        /// The model's part.
        model: Option<f64>,
        /// How it was measured.
        method: String,
        /// Candidates.
        candidates: usize,
        /// Words that name the proposed element (its ref, its context), to tell from the
        /// answer whether the guess was right.
        proposed_marks: Vec<String>,
    },
    /// The same action failed again and again.
    RepeatedFailure,
}

/// A question waiting for its answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    /// The question.
    pub question: Question,
    /// The step so far: the reply, and results of the calls before this one.
    pub turn: Turn,
    /// The call (by index in the reply) the question is about.
    pub call_index: usize,
    /// What the answer is for.
    pub kind: PendingKind,
    /// The tool call in words, for the observation.
    pub words: String,
}

/// Everything a run knows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// [`STATE_VERSION`].
    pub version: u32,
    /// The run's id.
    pub run_id: String,
    /// The goal.
    pub goal: String,
    /// The model that ran it (`provider/model`): a resume needs the same one.
    pub model: String,
    /// The settings it was started with, kept whole: a resume can only tighten them
    /// (`AgentConfig::tightened`).
    pub config: AgentConfig,
    /// The application shown to the model at the start (`None`: the whole desktop).
    pub scope: Option<String>,
    /// The face's question channel, by name, for the face to restore on resume.
    pub ask_channel: Option<String>,
    /// The world model.
    pub world: World,
    /// The belief state.
    pub belief: Belief,
    /// Steps taken.
    pub step: u32,
    /// Questions asked (confirmations included).
    pub questions: u32,
    /// Actions that failed verification.
    pub failures: u32,
    /// The person's answers, in order.
    pub answers: Vec<String>,
    /// Failing actions by signature, with how often they failed.
    pub failing: BTreeMap<String, u32>,
    /// Tokens and cost so far.
    pub usage: UsageTotals,
    /// Wall time spent before this process (a paused run's waiting time is not counted).
    pub elapsed_ms: u64,
    /// The refs shown, to restore on resume.
    pub refs: Vec<SavedRef>,
    /// The question the run paused on.
    pub pending: Option<Pending>,
    /// Per-step tokens and time.
    pub stats: Vec<StepStats>,
    /// Replies without a tool call, in a row.
    pub idle_replies: u32,
    /// Model calls of the run.
    pub model_calls: u32,
    /// Vision calls of the run.
    pub vision_calls: u32,
    /// Calls the policy refused.
    pub policy_blocks: u32,
    /// (confidence, outcome) pairs of this process's part of the run (reported, not saved).
    #[serde(skip)]
    pub records: Vec<Record>,
}

impl RunState {
    /// A new run.
    pub fn new(run_id: String, goal: String, model: String, config: AgentConfig, world: World) -> RunState {
        RunState {
            version: STATE_VERSION,
            run_id,
            goal,
            model,
            config,
            scope: None,
            ask_channel: None,
            world,
            belief: Belief::default(),
            step: 0,
            questions: 0,
            failures: 0,
            answers: Vec::new(),
            failing: BTreeMap::new(),
            usage: UsageTotals::default(),
            elapsed_ms: 0,
            refs: Vec::new(),
            pending: None,
            stats: Vec::new(),
            idle_replies: 0,
            model_calls: 0,
            vision_calls: 0,
            policy_blocks: 0,
            records: Vec::new(),
        }
    }
}
