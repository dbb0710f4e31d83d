//! `run --save-flow`: the agent's desktop, with each action that worked written down as a
//! flow step (the toolbelt names its element before the call runs and makes the step after).

use std::sync::{Mutex, PoisonError};

use deft_agent::{BoxFuture, Desktop, SavedRef};
use deft_toolbelt::flow::RecordedStep;
use deft_toolbelt::{ToolCall, ToolError, ToolOutput, Toolbelt};

/// The toolbelt, keeping the steps a flow replays.
pub struct Saving<'a> {
    belt: &'a Toolbelt,
    steps: Mutex<Vec<RecordedStep>>,
}

impl<'a> Saving<'a> {
    /// Over `belt`.
    pub fn new(belt: &'a Toolbelt) -> Saving<'a> {
        Saving { belt, steps: Mutex::new(Vec::new()) }
    }

    /// The steps so far.
    pub fn steps(&self) -> Vec<RecordedStep> {
        self.steps.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl Desktop for Saving<'_> {
    fn call<'b>(&'b self, call: &'b ToolCall) -> BoxFuture<'b, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let aim = self.belt.flow_aim(call).await;
            let out = Desktop::call(self.belt, call).await;
            if let Ok(o) = &out
                && let Some(step) = Toolbelt::flow_step(call, aim, o)
            {
                self.steps.lock().unwrap_or_else(PoisonError::into_inner).push(step);
            }
            out
        })
    }

    fn saved_refs(&self) -> Vec<SavedRef> {
        self.belt.saved_refs()
    }

    fn restore_refs(&self, saved: &[SavedRef]) -> Result<(), String> {
        self.belt.restore_refs(saved)
    }
}
