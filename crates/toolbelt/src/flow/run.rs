//! Replaying a flow: each step through the toolbelt as any call is, verified, in order,
//! stopping at the first that fails.

use std::ops::ControlFlow;
use std::time::Instant;

use serde::Serialize;

use super::{Flow, FlowStep};
use crate::belt::Toolbelt;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::spelling::AsParams;

/// What became of a flow.
#[derive(Clone, Debug, Serialize)]
pub struct FlowReport {
    /// Its `flow:` name.
    pub flow: Option<String>,
    /// Every step done.
    pub ok: bool,
    /// How many steps the flow has.
    pub steps_total: usize,
    /// The steps that ran, in order; the last is the one that stopped the flow when `ok`
    /// is false.
    pub steps: Vec<StepReport>,
    /// Wall time, in ms.
    pub elapsed_ms: u64,
}

/// What became of one step.
#[derive(Clone, Debug, Serialize)]
pub struct StepReport {
    /// Its number, from 1.
    pub step: usize,
    /// Its line in the flow file.
    pub line: Option<usize>,
    /// Its `name:`.
    pub name: Option<String>,
    /// The tool it called.
    pub tool: String,
    /// The call in words (the target, the text, the condition).
    pub asked: String,
    /// Done, failed, or could not be carried out.
    pub status: StepStatus,
    /// Wall time, in ms.
    pub elapsed_ms: u64,
    /// The tool's result (an action's outcome, a wait's), as the tool returns it.
    pub output: Option<ToolOutput>,
    /// Why the call could not be carried out.
    pub error: Option<ToolError>,
    /// When the step failed and was repaired: what the repair did instead (the face that
    /// repairs says it; the step's own result stays in `output` and `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repaired: Option<Repair>,
}

/// A failed step's repair: how it went.
#[derive(Clone, Debug, Serialize)]
pub struct Repair {
    /// The step's effect holds after it (checked by its own expectation when it has one).
    pub ok: bool,
    /// The steps that did it instead, as a flow writes them.
    pub steps: Vec<serde_json::Value>,
    /// Model calls it took.
    pub model_calls: u32,
    /// Prompt tokens those calls took (input, cache reads and writes included).
    pub input_tokens: u64,
    /// Tokens the model wrote.
    pub output_tokens: u64,
    /// What the repair came to, in words (why it failed, when it did).
    pub summary: String,
}

/// A step's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Its effect was seen (an action verified, a condition met, an observation made).
    Done,
    /// The tool ran and its effect was not there: the outcome says what was expected and
    /// what was observed.
    Failed,
    /// The tool could not run (nothing matched, the desktop refused): `error` says why.
    Error,
}

impl FlowReport {
    /// The report of `flow` whose steps `steps` ran, started at `started`: ok when every
    /// step was done or repaired.
    pub fn of(flow: &Flow, steps: Vec<StepReport>, started: Instant) -> FlowReport {
        let ok = steps.len() == flow.steps.len() && steps.iter().all(StepReport::done);
        FlowReport { flow: flow.name.clone(), ok, steps_total: flow.steps.len(), steps, elapsed_ms: ms(started) }
    }
}

impl StepReport {
    /// Whether its effect is there: done, or repaired.
    pub fn done(&self) -> bool {
        self.status == StepStatus::Done || self.repaired.as_ref().is_some_and(|r| r.ok)
    }
}

impl StepStatus {
    /// The status of a tool's result.
    fn of(result: &Result<ToolOutput, ToolError>) -> StepStatus {
        match result {
            Ok(ToolOutput::Action(r)) if !r.outcome.ok => StepStatus::Failed,
            Ok(ToolOutput::Wait(w)) if !w.ok => StepStatus::Failed,
            Ok(_) => StepStatus::Done,
            Err(_) => StepStatus::Error,
        }
    }
}

impl Toolbelt {
    /// Runs `flow`'s steps in order, each verified unless it says `verify: false`, calling
    /// `each` as each step ends (a face shows progress with it, and stops the flow there with
    /// `Break`: a step is never abandoned half sent). Stops at the first step that is not
    /// done.
    pub async fn run_flow(&self, flow: &Flow, mut each: impl FnMut(&StepReport) -> ControlFlow<()>) -> FlowReport {
        let started = Instant::now();
        let mut steps = Vec::new();
        for (i, step) in flow.steps.iter().enumerate() {
            let report = self.run_flow_step(step, i + 1).await;
            let go_on = each(&report);
            let status = report.status;
            steps.push(report);
            // A step to repair stops here too: repairing takes the agent, above this crate
            // (`agent-cli flow run --repair` runs the steps one by one and repairs).
            if status != StepStatus::Done || go_on.is_break() {
                break;
            }
        }
        FlowReport::of(flow, steps, started)
    }
}

impl Toolbelt {
    /// Runs one step (number `n`, from 1), verified unless it says `verify: false`.
    pub async fn run_flow_step(&self, step: &FlowStep, n: usize) -> StepReport {
        let t = Instant::now();
        // Flows are replayed verified: a step that did nothing must stop the flow.
        let planned = step.call.plan(&AsParams, Some(self.refs()), true);
        let asked = planned.as_ref().map(|p| p.asked.clone()).unwrap_or_default();
        let result = match planned {
            Ok(plan) => self.run(plan).await,
            Err(e) => Err(e),
        };
        let status = StepStatus::of(&result);
        let (output, error) = match result {
            Ok(o) => (Some(o), None),
            Err(e) => (None, Some(e)),
        };
        StepReport {
            step: n,
            line: step.line,
            name: step.name.clone(),
            tool: step.call.name().as_str().to_string(),
            asked,
            status,
            elapsed_ms: ms(t),
            output,
            error,
            repaired: None,
        }
    }
}

fn ms(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX)
}
