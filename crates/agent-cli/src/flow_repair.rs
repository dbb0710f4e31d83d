//! `flow run --repair`: a failed step put to the agent (deft-agent's `repair_goal`), which
//! works until that step's effect holds; its actions that worked become the step's
//! replacement, which `--update` writes back into the file in place of that step alone.

use std::time::Duration;

use deft_agent::{Agent, FailedStep, RunStatus, repair_goal};
use deft_llm::AnyModel;
use deft_toolbelt::flow::{FlowStep, RecordedStep, Repair, StepReport};
use deft_toolbelt::{AsParams, ToolCall, ToolOutput, Toolbelt, WaitParams};
use serde_json::Value;

use crate::config::Config;
use crate::exit::CliError;
use crate::run::saving::Saving;

/// How long the step's expectation is given to show after the repair said it is done.
const EXPECTATION_AFTER_REPAIR: Duration = Duration::from_secs(3);

/// The agent that repairs, set up once for the flow.
pub struct Repairer {
    model: AnyModel,
    agent: deft_agent::AgentConfig,
    asker: crate::run::ask::Channel,
}

impl Repairer {
    /// From the configuration's model and `[agent]` section; no model is a usage error
    /// said before anything runs.
    pub fn new(config: &Config, json: bool) -> Result<Repairer, CliError> {
        let env = |k: &str| std::env::var(k).ok();
        let provider = crate::run::model_config(config.model.as_ref(), &env)
            .map_err(|e| CliError::usage(format!("--repair needs a model: {}", e.message)))?;
        let model = provider.build().map_err(|e| CliError::usage(format!("--repair: {e}")))?;
        let agent = config.agent.as_ref().map(|s| s.0.clone()).unwrap_or_default();
        let display = env("DISPLAY").filter(|d| !d.is_empty());
        let asker = crate::run::ask::Channel::choose(crate::cli::AskArg::Auto, json, display, Duration::from_secs(300));
        Ok(Repairer { model, agent, asker })
    }

    /// Repairs `step` (number `report.step` of `total`), which failed as `report` says,
    /// after the steps `done`: the repair (`ok` when the step's effect holds after it), and
    /// its steps as a flow writes them.
    pub async fn repair(
        &self,
        belt: &Toolbelt,
        flow: Option<&str>,
        done: &[StepReport],
        step: &FlowStep,
        report: &StepReport,
        total: usize,
    ) -> (Repair, Vec<RecordedStep>) {
        let args = step.call.args();
        let expect = args.get("expect").and_then(Value::as_str).map(String::from);
        let failed = FailedStep {
            flow: flow.map(String::from),
            done: done.iter().map(|s| format!("{} {}", s.tool, s.asked)).collect(),
            step: report.step,
            total,
            asked: format!("{} {}", report.tool, report.asked),
            expect: expect.clone(),
            failure: report.failure(),
        };
        let goal = repair_goal(&failed);
        let saving = Saving::new(belt);
        let scope = args.get("app").and_then(Value::as_str).map(String::from);
        let agent = Agent {
            model: &self.model,
            vision: Some(&self.model),
            desktop: &saving,
            asker: &self.asker,
            config: &self.agent,
            scope,
            sink: None,
            bus: None,
        };
        let run_id = format!("repair-{}-step-{}", std::process::id(), report.step);
        let failed = |summary: String, model_calls: u32| {
            (
                Repair { ok: false, steps: Vec::new(), model_calls, input_tokens: 0, output_tokens: 0, summary },
                Vec::new(),
            )
        };
        let run = match agent.run(&goal, &run_id).await {
            Ok(run) => run,
            Err(e) => return failed(format!("the agent could not run: {e}"), 0),
        };
        let mut steps = saving.steps();
        if run.status != RunStatus::GoalMet {
            let why = format!("the agent ended {}: {}", run.status.as_str(), run.summary);
            return failed(why, run.model_calls);
        }
        if steps.is_empty() {
            return failed(format!("the agent did nothing that worked: {}", run.summary), run.model_calls);
        }
        // The step's own expectation is the judge, not the agent's word.
        if let Some(condition) = &expect {
            let wait = ToolCall::WaitFor(WaitParams {
                condition: Some(condition.clone()),
                timeout_ms: Some(EXPECTATION_AFTER_REPAIR.as_millis() as u64),
                ..WaitParams::default()
            });
            match belt.call(&wait, &AsParams).await {
                Ok(ToolOutput::Wait(w)) if w.ok => {}
                Ok(ToolOutput::Wait(w)) => {
                    let why = format!(
                        "after the repair the step's expectation {condition} did not hold: {}",
                        w.outcome.last_observed
                    );
                    return failed(why, run.model_calls);
                }
                other => {
                    return failed(format!("the step's expectation could not be checked: {other:?}"), run.model_calls);
                }
            }
            if let Some(last) = steps.last_mut() {
                last.expect = Some(condition.clone());
            }
        }
        let written: Vec<Value> = steps.iter().map(step_value).collect();
        let u = &run.usage.usage;
        let repair = Repair {
            ok: true,
            steps: written,
            model_calls: run.model_calls,
            input_tokens: u.prompt_tokens(),
            output_tokens: u.output_tokens,
            summary: run.summary,
        };
        (repair, steps)
    }
}

/// A step as a flow writes it (for the report).
fn step_value(s: &RecordedStep) -> Value {
    let mut m = serde_json::Map::new();
    m.insert(s.tool.into(), Value::Object(s.params.clone()));
    if let Some(e) = &s.expect {
        m.insert("expect".into(), Value::String(e.clone()));
    }
    Value::Object(m)
}

/// `text` (a flow file) with the step that starts on `line` (1-based, its `-`) replaced by
/// `steps`, at its indentation, keeping its `name:`; every other line as it was. The step
/// ends where the next one starts (`next`), or at the file's end.
pub fn replace_step(
    text: &str,
    line: usize,
    next: Option<usize>,
    name: Option<&str>,
    steps: &[RecordedStep],
) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = line.saturating_sub(1).min(lines.len());
    let end = next.map_or(lines.len(), |n| n.saturating_sub(1)).clamp(start, lines.len());
    // Trailing blank lines and comments stay with what follows.
    let mut end_kept = end;
    while end_kept > start + 1 && lines[end_kept - 1].trim().is_empty() {
        end_kept -= 1;
    }
    let indent = lines.get(start).map_or(0, |l| l.len() - l.trim_start().len());
    let values: Vec<Value> = steps.iter().map(step_value).collect();
    let yaml = serde_norway::to_string(&Value::Array(values)).unwrap_or_default();
    let mut new: Vec<String> = yaml.lines().map(String::from).collect();
    // The step keeps its name, written first as the author wrote it.
    if let (Some(n), Some(first)) = (name, new.first_mut()) {
        let named = serde_norway::to_string(n).map(|s| s.trim().to_string()).unwrap_or_else(|_| format!("{n:?}"));
        *first = format!("  {}", first.trim_start_matches('-').trim_start());
        new.insert(0, format!("- name: {named}"));
    }
    let pad = " ".repeat(indent);
    let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
    out.extend(new.iter().map(|l| format!("{pad}{l}")));
    out.extend(lines[end_kept..].iter().map(|l| l.to_string()));
    let mut text_out = out.join("\n");
    if text.ends_with('\n') {
        text_out.push('\n');
    }
    text_out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_the_repaired_step_is_rewritten() {
        let text = "flow: order\n# the order\nsteps:\n  - type: {target: Name, text: Ada}\n  - name: submit\n    click: Submit order   # the button\n    expect: text:\"Order 1 submitted\"\n\n  - key: ctrl+s\n";
        let new = RecordedStep {
            tool: "click",
            params: json!({"name": "Place order", "role": "push_button"}).as_object().cloned().unwrap(),
            expect: Some("text:\"Order 1 submitted\"".into()),
        };
        let out = replace_step(text, 5, Some(9), Some("submit"), &[new]);
        assert_eq!(
            out,
            "flow: order\n# the order\nsteps:\n  - type: {target: Name, text: Ada}\n  - name: submit\n    click:\n      name: Place order\n      role: push_button\n    expect: text:\"Order 1 submitted\"\n\n  - key: ctrl+s\n"
        );
        let flow = deft_toolbelt::flow::parse_flow(&out, &Default::default()).unwrap();
        assert_eq!(flow.steps.len(), 3);
    }
}
