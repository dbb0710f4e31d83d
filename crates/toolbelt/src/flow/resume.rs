//! Resuming a flow that stopped mid-step (its worker died, its process was killed): the
//! step in flight may have landed, and sending it again could do it twice. So before it
//! runs again, its own expectation is looked for; an action with no expectation cannot be
//! told, and is not sent again.

use serde_json::json;

use super::FlowStep;
use super::run::StepReport;
use crate::belt::Toolbelt;
use crate::plan::ToolCall;
use crate::spec::ToolName;

/// How long the look waits for a step's expectation: the effect had all the time since the
/// step was sent, so a short wait only covers a read in the middle of a redraw.
pub(super) const LOOK_MS: u64 = 1000;

/// What looking for a step's effect found.
#[derive(Debug)]
pub enum Looked {
    /// Its expectation holds: the step is done, with this report of the look.
    There(Box<StepReport>),
    /// Its expectation does not hold (or it is an observation, which is harmless to do
    /// again): run it.
    NotThere,
    /// An action with no expectation: whether it landed cannot be told, so it must not be
    /// sent again. Why, in words.
    CannotTell(String),
}

impl Toolbelt {
    /// Look for the effect of step `n` (from 1), which may have landed before its run
    /// stopped, without acting.
    pub async fn look_for_step(&self, step: &FlowStep, n: usize) -> Looked {
        let name = step.call.name();
        let look = if name == ToolName::WaitFor {
            // A wait is its own expectation, looked for briefly.
            let mut args = step.call.args();
            args["timeout_ms"] = json!(LOOK_MS);
            ToolCall::parse("wait_for", args)
        } else if !name.acts() {
            // An observation changes nothing: doing it again is harmless.
            return Looked::NotThere;
        } else {
            let expect = step.call.args().get("expect").and_then(|e| e.as_str()).map(str::to_string);
            let Some(expect) = expect else {
                return Looked::CannotTell(format!(
                    "step {n} ({}) may have happened before its run stopped, and it has no `expect` to look for its \
                     effect by: it is not sent again (add an `expect` to the step so a resumed run can tell)",
                    name.as_str()
                ));
            };
            ToolCall::parse("wait_for", json!({ "condition": expect, "timeout_ms": LOOK_MS }))
        };
        let look = match look {
            Ok(call) => call,
            Err(e) => return Looked::CannotTell(format!("step {n}'s `expect` could not be looked for: {e}")),
        };
        let looked = FlowStep { line: step.line, name: step.name.clone(), call: look, on_fail: step.on_fail };
        let report = self.run_flow_step(&looked, n).await;
        if report.done() { Looked::There(Box::new(report)) } else { Looked::NotThere }
    }
}
