//! Replaying a flow: each step through the toolbelt as any call is, verified, in order,
//! stopping at the first that fails.

use std::ops::ControlFlow;
use std::time::Instant;

use serde::Serialize;

use super::ask::PersonsAnswer;
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
    /// Steps the person answered to go on without (`on_fail: ask`).
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped: usize,
    /// Wall time, in ms.
    pub elapsed_ms: u64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
    /// When the step failed under `on_fail: ask`: what the person was asked and answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub person: Option<PersonsAnswer>,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// Its effect was seen (an action verified, a condition met, an observation made).
    Done,
    /// The tool ran and its effect was not there: the outcome says what was expected and
    /// what was observed.
    Failed,
    /// The tool could not run (nothing matched, the desktop refused): `error` says why.
    Error,
    /// It failed, and the person answered to go on without it (`on_fail: ask`).
    Skipped,
}

impl FlowReport {
    /// The report of `flow` whose steps `steps` ran (from the first, or from a later one to
    /// the end when the run started there), started at `started`: ok when every step ran to
    /// the last and each was done, repaired or skipped by the person.
    pub fn of(flow: &Flow, steps: Vec<StepReport>, started: Instant) -> FlowReport {
        let first = steps.first().map_or(1, |s| s.step);
        let ok = !steps.is_empty() && steps.len() == flow.steps.len() + 1 - first && steps.iter().all(StepReport::done);
        let skipped = steps.iter().filter(|s| s.status == StepStatus::Skipped).count();
        FlowReport {
            flow: flow.name.clone(),
            ok,
            steps_total: flow.steps.len(),
            steps,
            skipped,
            elapsed_ms: ms(started),
        }
    }

    /// When the flow stopped at a step whose `on_fail` is `ask` and nobody could be asked
    /// (`why`): the question it would have put, kept in that step's report, so whoever reads
    /// the report can answer it (run the flow again from that step, or do it by hand).
    pub fn note_unasked(&mut self, flow: &Flow, why: &str) {
        let total = self.steps_total;
        let name = self.flow.clone();
        let Some(last) = self.steps.last_mut() else { return };
        let asks = flow.steps.get(last.step.wrapping_sub(1)).is_some_and(|s| s.on_fail == super::OnFail::Ask);
        if last.done() || !asks || last.person.is_some() {
            return;
        }
        let checked = flow.steps.get(last.step.wrapping_sub(1)).is_some_and(super::FlowStep::checkable);
        let q = super::StepQuestion::of(name.as_deref(), last, total, false, checked);
        last.person = Some(PersonsAnswer {
            question: q.text,
            answers: Vec::new(),
            choice: None,
            failure: last.failure(),
            unanswered: Some(why.to_string()),
            on_their_word: false,
        });
    }
}

impl StepReport {
    /// Whether the flow goes on past it: done, repaired, or skipped by the person.
    pub fn done(&self) -> bool {
        matches!(self.status, StepStatus::Done | StepStatus::Skipped) || self.repaired.as_ref().is_some_and(|r| r.ok)
    }
}

impl StepReport {
    /// Why it failed, in words: what its action observed (with the closest candidates when
    /// nothing matched), the condition's last reading, or the error.
    pub fn failure(&self) -> String {
        match (&self.output, &self.error) {
            (Some(ToolOutput::Action(a)), _) => {
                let mut s = a.outcome.observed.clone();
                if let Some(f) = &a.outcome.failure
                    && !f.candidates.is_empty()
                    && !s.contains("closest")
                {
                    let near: Vec<String> =
                        f.candidates.iter().take(3).map(|c| format!("{} {:?}", c.role, c.name)).collect();
                    s.push_str(&format!("; closest: {}", near.join(", ")));
                }
                s
            }
            (Some(ToolOutput::Wait(w)), _) => {
                format!("the condition did not hold; last observed {}", w.outcome.last_observed)
            }
            (_, Some(e)) => e.message.clone(),
            _ => "it failed".into(),
        }
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
    pub async fn run_flow(&self, flow: &Flow, each: impl FnMut(&StepReport) -> ControlFlow<()>) -> FlowReport {
        self.run_flow_from(flow, 1, each).await
    }

    /// [`Toolbelt::run_flow`] from step `from` (from 1): the steps before it are not run,
    /// and step `from` is first looked for (its effect may be there already: it may have
    /// landed late, or the person did it) and sent only when it is not.
    pub async fn run_flow_from(
        &self,
        flow: &Flow,
        from: usize,
        mut each: impl FnMut(&StepReport) -> ControlFlow<()>,
    ) -> FlowReport {
        let started = Instant::now();
        let mut steps = Vec::new();
        for (i, step) in flow.steps.iter().enumerate().skip(from.max(1) - 1) {
            let report = self.start_flow_step(step, i + 1, i + 1 == from && from > 1).await;
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
    /// Runs step `n`, first looking for its effect when `look_first` (the run starts there
    /// again, one definition with a fleet's resumed run, `look_for_step`): when its
    /// expectation holds it is not sent; an action with no expectation, whose earlier input
    /// may have landed unseen, is not sent either (the report says why and what to do).
    pub async fn start_flow_step(&self, step: &FlowStep, n: usize, look_first: bool) -> StepReport {
        if look_first {
            match self.look_for_step(step, n).await {
                super::Looked::There(r) => return *r,
                super::Looked::NotThere => {}
                super::Looked::CannotTell(why) => {
                    let why = format!(
                        "{why}; look at the app: start the flow at the next step (--from {}) if it happened, or \
                         do it by hand",
                        n + 1
                    );
                    return StepReport {
                        step: n,
                        line: step.line,
                        name: step.name.clone(),
                        tool: step.call.name().as_str().to_string(),
                        asked: String::new(),
                        status: StepStatus::Error,
                        elapsed_ms: 0,
                        output: None,
                        error: Some(ToolError::usage(why)),
                        repaired: None,
                        person: None,
                    };
                }
            }
        }
        self.run_flow_step(step, n).await
    }

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
            person: None,
        }
    }
}

fn ms(t: Instant) -> u64 {
    u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX)
}
