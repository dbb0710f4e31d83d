//! Replaying a flow: each step through the toolbelt as any call is, verified, in order,
//! stopping at the first that fails.

use std::ops::ControlFlow;
use std::time::Instant;

use serde::Serialize;

use super::{Flow, OnFail};
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
            let report = StepReport {
                step: i + 1,
                line: step.line,
                name: step.name.clone(),
                tool: step.call.name().as_str().to_string(),
                asked,
                status,
                elapsed_ms: ms(t),
                output,
                error,
            };
            let go_on = each(&report);
            steps.push(report);
            if (status != StepStatus::Done && step.on_fail == OnFail::Stop) || go_on.is_break() {
                break;
            }
        }
        let ok = steps.len() == flow.steps.len() && steps.iter().all(|s| s.status == StepStatus::Done);
        FlowReport { flow: flow.name.clone(), ok, steps_total: flow.steps.len(), steps, elapsed_ms: ms(started) }
    }
}

fn ms(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX)
}
