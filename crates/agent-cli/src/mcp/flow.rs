//! `run_flow`: a flow file (deft-toolbelt `flow`) replayed over MCP, as `agent-cli flow
//! run` replays it: every step verified, stopping at the first that fails. The flow is
//! read here (a path or the YAML itself); parsing, checking and running are the toolbelt's.

use std::collections::BTreeMap;
use std::sync::Arc;

use deft_toolbelt::flow::{Flow, FlowReport, StepStatus, parse_flow};
use deft_toolbelt::{ToolError, ToolOutput};
use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::results::outcome_text;

/// The tool's name.
pub const NAME: &str = "run_flow";

/// `run_flow`'s parameters.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunFlowParams {
    /// The flow file's path (YAML).
    #[serde(default)]
    pub file: Option<String>,
    /// Or the flow itself, as YAML: steps: [{click: Submit}, ...].
    #[serde(default)]
    pub flow: Option<String>,
    /// Values for the flow's {{variables}}.
    #[serde(default)]
    pub vars: Option<BTreeMap<String, String>>,
    /// Start at this step (from 1): the steps before it are not run, and it is sent only when
    /// its expectation does not hold already (an action with no expect is not sent again), to
    /// go on after a step that stopped the flow.
    #[serde(default)]
    pub from_step: Option<usize>,
}

/// Why a step's `on_fail: ask` is not asked over MCP: the caller is an agent with its own
/// tools and its own person.
pub const UNASKED: &str = "nobody is asked over MCP: look at the app, do or check the step (or ask your user), then call run_flow again with from_step set to this step (it is sent only if \
its expectation does not hold; a step with no expect is not sent again), or to the next one to skip it";

/// The MCP tool.
pub fn tool() -> Tool {
    let schema = match deft_toolbelt::schema_of::<RunFlowParams>() {
        Value::Object(o) => o,
        _ => Default::default(),
    };
    let title = "Run a flow";
    Tool::new(
        NAME,
        "Replay a flow (a task written down as a YAML list of these tools' calls, each with an optional expect) with \
         no model: every step verified, stopping at the first that fails; returns each step's outcome. A step \
         marked on_fail: ask stops with its question in the result; call again with from_step to go on.",
        Arc::new(schema),
    )
    .with_title(title)
    .annotate(ToolAnnotations::with_title(title).read_only(false).destructive(true).idempotent(false).open_world(true))
}

/// The flow a call names, checked before anything runs, and the step to start at.
pub fn load(args: Value) -> Result<(Flow, usize), ToolError> {
    let p: RunFlowParams =
        serde_json::from_value(if args.is_null() { Value::Object(Default::default()) } else { args })
            .map_err(|e| ToolError::usage(format!("bad arguments for `{NAME}`: {e}")))?;
    let (text, whence) = match (p.file, p.flow) {
        (Some(file), None) => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| ToolError::usage(format!("cannot read the flow file {file}: {e}")))?;
            (text, format!("{file}: "))
        }
        (None, Some(text)) => (text, String::new()),
        _ => {
            return Err(ToolError::usage(format!(
                "`{NAME}` takes one of `file` (a flow file's path) or `flow` (YAML)"
            )));
        }
    };
    let flow = parse_flow(&text, &p.vars.unwrap_or_default()).map_err(|e| ToolError::usage(format!("{whence}{e}")))?;
    let from = p.from_step.unwrap_or(1);
    if from == 0 || from > flow.steps.len() {
        return Err(ToolError::usage(format!(
            "from_step {from}: the flow has {} steps; give one of 1..={}",
            flow.steps.len(),
            flow.steps.len()
        )));
    }
    Ok((flow, from))
}

/// The result: a line per step (the action's outcome as the tool gives it), then the end.
pub fn result(r: &FlowReport) -> CallToolResult {
    let mut text = String::new();
    for s in &r.steps {
        let place = s.line.map(|l| format!(", line {l}")).unwrap_or_default();
        let name = s.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
        text.push_str(&format!("step {} of {}{place}{name}: ", s.step, r.steps_total));
        let body = match (&s.output, &s.error) {
            (Some(ToolOutput::Action(a)), _) => outcome_text(&a.outcome),
            (Some(ToolOutput::Wait(w)), _) => {
                let mark = if w.ok { "✓" } else { "✗" };
                let end = if w.ok { "met".to_string() } else { format!("not met: {}", w.outcome.last_observed) };
                format!("{mark} wait_for {}: {end} [{} ms]\n", w.expected, w.outcome.elapsed_ms)
            }
            (_, Some(e)) => format!("✗ {} {}: error ({}): {}\n", s.tool, s.asked, e.kind.as_str(), e.message),
            _ => format!("✓ {} {}\n", s.tool, s.asked),
        };
        text.push_str(&body);
        if let Some(q) = s.person.as_ref().filter(|p| p.choice.is_none()) {
            text.push_str(&format!("  it asks: {}\n  ({})\n", q.question, q.unanswered.as_deref().unwrap_or("")));
        }
    }
    let end = match (r.ok, r.steps.last()) {
        (true, _) => format!("flow done: {} of {} steps [{} ms]\n", r.steps.len(), r.steps_total, r.elapsed_ms),
        (false, Some(last)) => format!(
            "flow stopped at step {} of {}: {}\n",
            last.step,
            r.steps_total,
            if last.status == StepStatus::Failed { "its effect was not seen" } else { "it could not be carried out" }
        ),
        (false, None) => "flow stopped before its first step\n".into(),
    };
    text.push_str(&end);
    let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
    out.is_error = Some(!r.ok);
    out.structured_content = serde_json::to_value(r).ok();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_names_its_flow_once() {
        let e = load(serde_json::json!({})).unwrap_err();
        assert!(e.message.contains("one of `file`"), "{e:?}");
        let e = load(serde_json::json!({"file": "/nonexistent/flow.yaml"})).unwrap_err();
        assert!(e.message.starts_with("cannot read the flow file /nonexistent/flow.yaml"), "{e:?}");
        let e = load(serde_json::json!({"flow": "steps:\n  - clik: OK\n"})).unwrap_err();
        assert!(e.message.starts_with("line 2 (step 1): `clik`"), "{e:?}");
        let (flow, from) =
            load(serde_json::json!({"flow": "steps:\n  - click: \"{{b}}\"\n", "vars": {"b": "OK"}})).unwrap();
        assert_eq!((flow.steps.len(), from), (1, 1));
        let e = load(serde_json::json!({"flow": "steps:\n  - click: OK\n", "from_step": 2})).unwrap_err();
        assert!(e.message.contains("from_step 2: the flow has 1 steps"), "{e:?}");
    }
}
