//! The flags of `run` and `calibrate`, the agent's verbs.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// How `run` measures its confidence in an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConfidenceArg {
    /// A focused second call: a choice among the candidate targets plus "ask"
    Separate,
    /// The model states it in the same call (saves the round trip)
    Inline,
    /// No model-based score (only the free signals)
    Off,
}

/// Where `run`'s questions go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AskArg {
    /// A terminal when there is one, else a dialog on a desktop a person is logged in to, else needs_input
    Auto,
    /// A prompt on stderr, the answer read from stdin
    Terminal,
    /// A dialog with a text box on the desktop (zenity)
    Dialog,
    /// Stop with a needs_input result (exit 8); continue with --resume RUN --answer TEXT
    Defer,
}

/// `run`.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// The goal, in plain words
    #[arg(value_name = "GOAL", required_unless_present = "resume")]
    pub goal: Option<String>,
    /// Show the model this application at the start (else the whole desktop)
    #[arg(long, value_name = "APP")]
    pub app: Option<String>,
    /// Continue a paused run (its id, as the needs_input result gave it)
    #[arg(long, value_name = "RUN", requires = "answer", conflicts_with = "goal")]
    pub resume: Option<String>,
    /// The answer to the paused run's question
    #[arg(long, value_name = "TEXT", requires = "resume")]
    pub answer: Option<String>,
    /// Where questions go
    #[arg(long, value_enum, default_value_t = AskArg::Auto)]
    pub ask: AskArg,
    /// Seconds the dialog or terminal waits for an answer
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub ask_timeout: u64,
    /// Most model turns [agent.budget.max_steps]
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u32>,
    /// Most tokens over the run [agent.budget.max_tokens]
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Most estimated cost in USD [agent.budget.max_cost_usd]
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Most wall time in ms [agent.budget.max_wall_ms]
    #[arg(long, value_name = "MS")]
    pub max_time: Option<u64>,
    /// How confidence is measured [agent.confidence.mode]
    #[arg(long, value_enum)]
    pub confidence: Option<ConfidenceArg>,
    /// Below this confidence the agent asks (0.0-1.0) [agent.confidence.threshold]
    #[arg(long, value_name = "X")]
    pub threshold: Option<f64>,
    /// Most questions per task [agent.max_questions]
    #[arg(long, value_name = "N")]
    pub max_questions: Option<u32>,
    /// Let a reply carry a short sequence of actions [agent.multi_action]
    #[arg(long)]
    pub multi_action: bool,
    /// The model takes images [agent.vision]
    #[arg(long)]
    pub vision: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub policy: PolicyArgs,
    /// Where paused runs and calibration pairs are kept [DEFT_RUNS_DIR]
    #[arg(long, value_name = "DIR")]
    pub runs_dir: Option<PathBuf>,
    /// Record the agent's and the executor's events into this directory
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
    /// No step-by-step display on stderr
    #[arg(long, short)]
    pub quiet: bool,
    /// When the goal is met, write the actions that worked as a flow file, aimed by name,
    /// to replay with no model (`agent-cli flow run FILE`); an existing file is kept
    #[arg(long, value_name = "FLOW.yaml", conflicts_with = "resume")]
    pub save_flow: Option<PathBuf>,
}

/// `calibrate`.
#[derive(Args, Debug, Clone)]
pub struct CalibrateArgs {
    /// The share of actions run without asking that must be right (0.0-1.0)
    #[arg(long, value_name = "P", default_value_t = 0.95)]
    pub target: f64,
    /// Where the calibration pairs are [DEFT_RUNS_DIR]
    #[arg(long, value_name = "DIR")]
    pub runs_dir: Option<PathBuf>,
}

/// The action policy's flags, for `run` and for a fleet task (`submit`).
#[derive(Args, Debug, Clone, Default)]
pub struct PolicyArgs {
    /// Allow acting in this application only (repeatable) [agent.policy.apps]
    #[arg(long, value_name = "APP")]
    pub allow_app: Vec<String>,
    /// Allow acting in this window only (repeatable) [agent.policy.windows]
    #[arg(long, value_name = "TITLE")]
    pub allow_window: Vec<String>,
    /// Never send this key chord (repeatable) [agent.policy.deny_keys]
    #[arg(long, value_name = "CHORD")]
    pub deny_key: Vec<String>,
    /// Always confirm clicks on elements whose name holds this word (repeatable) [agent.policy.confirm]
    #[arg(long, value_name = "WORD")]
    pub confirm: Vec<String>,
}

impl PolicyArgs {
    /// Whether any flag was given.
    pub fn given(&self) -> bool {
        !(self.allow_app.is_empty()
            && self.allow_window.is_empty()
            && self.deny_key.is_empty()
            && self.confirm.is_empty())
    }
}
