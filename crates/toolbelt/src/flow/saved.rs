//! An agent's run written down as a flow: each action it carried out and saw succeed,
//! aimed by name instead of the session's refs, so the task replays with no model.
//!
//! The element a call aims at is named before the call runs ([`Toolbelt::flow_aim`]): a
//! click that closes a dialog takes its button with it, and nothing could be asked of it
//! after.

use serde_json::{Map, Value};

use super::record::RecordedStep;
use crate::belt::Toolbelt;
use crate::output::ToolOutput;
use crate::params::{FindParams, TargetParams, VerifyParams};
use crate::plan::ToolCall;
use crate::spec::ToolName;
use crate::spelling::AsParams;

/// The parameter names of `T`, as its schema lists them (the one definition of them).
fn names_of<T: schemars::JsonSchema>() -> Vec<String> {
    let schema = crate::spec::schema_of::<T>();
    schema["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

impl Toolbelt {
    /// Before `call` runs: the parameters that aim at the one element it targets, by name
    /// (`None`: it targets no element, or not exactly one).
    pub async fn flow_aim(&self, call: &ToolCall) -> Option<Map<String, Value>> {
        if !call.name().acts() || call.name() == ToolName::Key {
            return None;
        }
        let args = call.args();
        let target: TargetParams = serde_json::from_value(args).ok()?;
        if target.at.is_some() || target.is_empty() {
            return None;
        }
        let find = ToolCall::Find(FindParams { target, hidden: None });
        let Ok(ToolOutput::Find(found)) = self.call(&find, &AsParams).await else { return None };
        let [only] = found.matches.as_slice() else { return None };
        super::aim::aim(self, &only.element.id.0).await.map(|(params, _)| params)
    }

    /// After `call` ran with `output`, aimed as `aim` said: its flow step, when it is an
    /// action that succeeded or a wait that was met (a flow replays what worked; failures,
    /// observations and the model's own tools are left out).
    pub fn flow_step(call: &ToolCall, aim: Option<Map<String, Value>>, output: &ToolOutput) -> Option<RecordedStep> {
        let tool = call.name();
        let Value::Object(mut params) = call.args() else { return None };
        match output {
            ToolOutput::Action(r) if r.outcome.ok => {
                // How it was verified is left to the replay's own defaults; what it must bring
                // about (`expect`) stays.
                let tuning = names_of::<VerifyParams>();
                params.retain(|k, _| k == "expect" || !tuning.contains(k));
                if let Some(aim) = aim {
                    // The element's name, role and app replace whatever aimed the call.
                    let aiming = names_of::<TargetParams>();
                    params.retain(|k, _| !aiming.contains(k));
                    params.extend(aim);
                } else if params
                    .get("target")
                    .and_then(Value::as_str)
                    .is_some_and(|t| crate::refs::parse_ref(t).is_some())
                {
                    // A ref means nothing outside its session, and its element was not named.
                    return None;
                }
                Some(RecordedStep { tool: tool.as_str(), params, expect: None })
            }
            ToolOutput::Wait(w) if w.ok => Some(RecordedStep { tool: tool.as_str(), params, expect: None }),
            _ => None,
        }
    }
}
