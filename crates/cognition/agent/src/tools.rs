//! The tools the model sees: the toolbelt's specs as they are, the acting ones extended by
//! the agent's own parameters (`expected_outcome`, and `confidence` in the inline mode),
//! and the tools only the agent has (`ask_user`, `done`, `wait_for_visual_cue`), each
//! defined once here in the toolbelt's shape (name, description, schemars schema).

use deft_llm::ToolDef;
use deft_toolbelt::{ToolName, schema_of, specs};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// `ask_user`: the model asks the person a question; the answer is the next observation.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct AskUserParams {
    /// The question, short and specific; offer the options you see.
    pub question: String,
}

/// `done`: the run ends.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct DoneParams {
    /// What was done and what was observed, in one or two sentences.
    pub summary: String,
    /// Whether the goal was met, judged by what the observations showed.
    pub goal_met: bool,
}

/// `wait_for_visual_cue`: wait until something described in words is on screen.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct CueParams {
    /// What to wait for, e.g. the text "Save complete" appears, the "Loading" text is gone, a dialog appears. Quote exact texts.
    pub description: String,
    /// How long to wait at most, in ms (default 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// The agent-only tools, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentTool {
    /// Ask the person.
    AskUser,
    /// End the run.
    Done,
    /// Wait for a described cue.
    WaitForVisualCue,
}

impl AgentTool {
    /// Every agent-only tool, in the order the model sees them (after the toolbelt's).
    pub const ALL: [AgentTool; 3] = [AgentTool::WaitForVisualCue, AgentTool::AskUser, AgentTool::Done];

    /// The name in tool calls.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentTool::AskUser => "ask_user",
            AgentTool::Done => "done",
            AgentTool::WaitForVisualCue => "wait_for_visual_cue",
        }
    }

    /// The tool of this name.
    pub fn parse(name: &str) -> Option<AgentTool> {
        AgentTool::ALL.into_iter().find(|t| t.as_str() == name.trim())
    }

    /// Its definition for the model.
    pub fn def(self) -> ToolDef {
        let (description, parameters) = match self {
            AgentTool::AskUser => (
                "Ask the person a question when the goal is unclear or you are stuck; their answer is the next observation. Questions per task are limited.",
                schema_of::<AskUserParams>(),
            ),
            AgentTool::Done => (
                "End the task: say what was done and whether the goal was met, judged by what the observations showed.",
                schema_of::<DoneParams>(),
            ),
            AgentTool::WaitForVisualCue => (
                "Wait until a described cue is on screen. Texts and elements are checked through accessibility and OCR (cheap); other descriptions go to a vision model only when the pixels changed. Reports which channel saw it.",
                schema_of::<CueParams>(),
            ),
        };
        ToolDef { name: self.as_str().into(), description: description.into(), parameters }
    }
}

/// The parameter every acting tool gains: what the model expects to see afterwards.
pub const EXPECTED_OUTCOME: &str = "expected_outcome";
/// The parameter acting tools gain in the inline confidence mode.
pub const CONFIDENCE: &str = "confidence";

/// The extra parameters, as JSON Schema properties.
fn extensions(inline_confidence: bool) -> Vec<(&'static str, Value)> {
    let mut v = vec![(
        EXPECTED_OUTCOME,
        json!({"type": "string", "description": "What should be on screen afterwards, in words (quote exact texts); checked after the action."}),
    )];
    if inline_confidence {
        v.push((
            CONFIDENCE,
            json!({"type": "number", "description": "Your confidence 0.0-1.0 that this is the right action on the right element for the goal."}),
        ));
    }
    v
}

/// Every tool the model is offered: the toolbelt's specs (acting ones with the agent's
/// extra parameters), then the agent-only tools. Not `doctor`: the agent runs on a
/// desktop it already connected to, and every definition costs tokens on every request.
pub fn tool_defs(inline_confidence: bool) -> Vec<ToolDef> {
    let mut defs: Vec<ToolDef> = specs()
        .into_iter()
        .filter(|s| offered(s.name))
        .map(|s| {
            let mut parameters = s.input_schema;
            if s.name.acts()
                && let Some(props) = parameters.get_mut("properties").and_then(Value::as_object_mut)
            {
                for (k, v) in extensions(inline_confidence) {
                    props.insert(k.to_string(), v);
                }
            }
            ToolDef { name: s.name.as_str().into(), description: s.description.into(), parameters }
        })
        .collect();
    defs.extend(AgentTool::ALL.iter().map(|t| t.def()));
    defs
}

/// Whether the model is offered the toolbelt's tool `name`.
fn offered(name: ToolName) -> bool {
    name != ToolName::Doctor
}

/// Every tool name the model may call, for messages about an unknown one.
pub fn all_names() -> Vec<&'static str> {
    ToolName::ALL
        .iter()
        .filter(|t| offered(**t))
        .map(|t| t.as_str())
        .chain(AgentTool::ALL.iter().map(|t| t.as_str()))
        .collect()
}

/// The agent's own parameters of an acting call, taken out of its arguments so that the
/// rest parses as the toolbelt's tool call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extras {
    /// What the model expects to see afterwards.
    pub expected_outcome: Option<String>,
    /// The model's own confidence (inline mode).
    pub confidence: Option<f64>,
}

/// Splits the agent's extra parameters from `args` (an object; anything else is left as is).
pub fn take_extras(args: &mut Value) -> Extras {
    let Some(obj) = args.as_object_mut() else { return Extras::default() };
    let expected_outcome =
        obj.remove(EXPECTED_OUTCOME).and_then(|v| v.as_str().map(|s| s.trim().to_string())).filter(|s| !s.is_empty());
    let confidence = obj.remove(CONFIDENCE).and_then(|v| match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    Extras { expected_outcome, confidence: confidence.map(|c| c.clamp(0.0, 1.0)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_tools_have_object_schemas_with_their_fields() {
        let done = AgentTool::Done.def();
        assert_eq!(done.parameters["type"], "object");
        let req: Vec<&str> = done.parameters["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(req, ["summary", "goal_met"]);
        let cue = AgentTool::WaitForVisualCue.def();
        assert!(cue.parameters["properties"]["timeout_ms"].is_object());
        assert!(cue.parameters.get("$schema").is_none());
    }

    #[test]
    fn extras_come_out_of_the_arguments() {
        let mut args = json!({"target": "e5", "expected_outcome": " Orders: 1 ", "confidence": "0.7"});
        let x = take_extras(&mut args);
        assert_eq!(args, json!({"target": "e5"}));
        assert_eq!(x.expected_outcome.as_deref(), Some("Orders: 1"));
        assert_eq!(x.confidence, Some(0.7));
        let mut args = json!({"confidence": 7});
        assert_eq!(take_extras(&mut args).confidence, Some(1.0));
    }
}
