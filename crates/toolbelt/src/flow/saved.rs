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
        match output {
            ToolOutput::Action(r) if r.outcome.ok => {
                Some(RecordedStep { tool: tool.as_str(), params: Toolbelt::aimed_params(call, aim)?, expect: None })
            }
            ToolOutput::Wait(w) if w.ok => {
                let Value::Object(params) = call.args() else { return None };
                Some(RecordedStep { tool: tool.as_str(), params, expect: None })
            }
            _ => None,
        }
    }

    /// An action's parameters as a step outside its session says them: its text, keys or
    /// value as called, aimed as `aim` says (by name), without how it was verified (`None`:
    /// it was aimed by a ref and its element not named, which means nothing elsewhere).
    pub fn aimed_params(call: &ToolCall, aim: Option<Map<String, Value>>) -> Option<Map<String, Value>> {
        let Value::Object(mut params) = call.args() else { return None };
        // How it was verified is left to the replay's own defaults; what it must bring about
        // (`expect`) stays.
        let tuning = names_of::<VerifyParams>();
        params.retain(|k, _| k == "expect" || !tuning.contains(k));
        if let Some(aim) = aim {
            // The element's name, role and app replace whatever aimed the call.
            let aiming = names_of::<TargetParams>();
            params.retain(|k, _| !aiming.contains(k));
            params.extend(aim);
        } else if params.get("target").and_then(Value::as_str).is_some_and(|t| crate::refs::parse_ref(t).is_some()) {
            return None;
        }
        Some(params)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_aimed_action_keeps_its_text_and_loses_its_ref_and_tuning() {
        let call = ToolCall::parse("type", json!({"target": "e3", "text": "Ada", "timeout_ms": 500})).unwrap();
        let aim: Map<String, Value> = serde_json::from_value(json!({"name": "Name", "role": "text"})).unwrap();
        let params = Toolbelt::aimed_params(&call, Some(aim)).unwrap();
        assert_eq!(Value::Object(params), json!({"name": "Name", "role": "text", "text": "Ada"}));
        // A ref with no name for its element means nothing outside its session.
        assert_eq!(Toolbelt::aimed_params(&call, None), None);
    }
}
