//! Flows: a task written down once as a list of tool calls, each with what it must have
//! done, replayed through the verified executor with no model.
//!
//! A flow file is YAML. Its steps are the toolbelt's own calls (the same names, parameters
//! and checks as a CLI verb, an MCP call or a model's tool call: there is no second
//! vocabulary), so everything a tool does (resolving a target, verifying the effect,
//! retrying through the fallback chain, never repeating an input whose effect may still
//! come) a replayed step does too:
//!
//! ```yaml
//! flow: Submit an order          # what the flow is for (optional)
//! vars:                          # defaults, overridden by the caller's values
//!   customer: John
//! steps:
//!   - type: {target: Name, text: "{{customer}}"}
//!     expect: value:name=Name={{customer}}
//!   - name: submit
//!     click: Submit order        # a tool's main parameter may stand alone
//!     expect: text:"Order submitted"
//!   - key: ctrl+s
//! ```
//!
//! A step is one tool key with its parameters (a mapping, or a scalar for the tool's
//! main parameter: `target`, else its one required parameter), and optionally `name`,
//! `expect` (the tool's own `expect` parameter, written beside it) and `on_fail`.
//! `{{var}}` in any text is replaced by the caller's value, else the flow's default. Actions
//! are verified unless a step says `verify: false`.
//!
//! The whole file is checked before anything runs ([`parse_flow`]): YAML, the keys, each
//! call as its tool parses and plans it, every variable given. A problem is a
//! [`FlowError`] with its line.

mod aim;
mod ask;
mod events;
mod infer;
mod parse;
mod record;
mod resume;
mod run;
mod saved;
mod write;

pub use ask::{PersonsAnswer, StepAnswer, StepQuestion};
pub use events::FlowEvent;
pub use parse::{FlowError, parse_flow};
pub use record::{RecordedStep, Recording, SECRET_VAR};
pub use resume::Looked;
pub use run::{FlowReport, Repair, StepReport, StepStatus};
pub use write::write_flow;

use crate::plan::ToolCall;

/// A checked flow, ready to run.
#[derive(Clone, Debug)]
pub struct Flow {
    /// What the flow is for (`flow:` in the file).
    pub name: Option<String>,
    /// The steps, in order.
    pub steps: Vec<FlowStep>,
}

/// One step: a tool call, where it was written, and what happens when it fails.
#[derive(Clone, Debug)]
pub struct FlowStep {
    /// Its line in the file (where its `-` is), when the file is written in block style.
    pub line: Option<usize>,
    /// Its `name:`, if it has one.
    pub name: Option<String>,
    /// The call, variables replaced.
    pub call: ToolCall,
    /// What to do when it fails.
    pub on_fail: OnFail,
}

impl FlowStep {
    /// Whether its effect can be looked for without acting: it has an `expect`, or it is a
    /// wait (its own expectation) or an observation (harmless to do again).
    pub fn checkable(&self) -> bool {
        let name = self.call.name();
        !name.acts() || name == crate::spec::ToolName::WaitFor || self.call.args().get("expect").is_some()
    }
}

/// What a failed step does to the flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFail {
    /// Stop the flow there, with the step's outcome (the default).
    Stop,
    /// Let the agent make the step's expectation hold, then go on (where a face can run
    /// the agent: `agent-cli flow run`; elsewhere it stops as `stop` does).
    Repair,
    /// Put the failed step to the person (where a face can ask one: `agent-cli flow run`'s
    /// terminal or dialog), who answers retry, done (by hand), skip, stop or repair
    /// ([`StepAnswer`]); where nobody can be asked (a fleet, or a deferred question) the
    /// flow stops there with the question in the step's report.
    Ask,
}
