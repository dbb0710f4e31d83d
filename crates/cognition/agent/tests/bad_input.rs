//! Bad input: each a clear observation back to the model or a clear error, never a panic
//! or a hang.

use deft_agent::{AgentConfig, RunStatus};
use deft_toolbelt::{ToolCall, ToolError, ToolErrorKind};

use super::{FnModel, Reply, desktop, last_results, no_asker, run_with};

fn once(first: Reply) -> FnModel {
    let first = std::sync::Mutex::new(Some(first));
    FnModel::new(move |_| {
        first
            .lock()
            .unwrap()
            .take()
            .unwrap_or(Reply::Say("Stop.", vec![("done", r#"{"summary":"stopped","goal_met":false}"#)]))
    })
}

#[test]
fn an_empty_goal_is_an_error_before_any_call() {
    let model = once(Reply::Say("x", vec![]));
    let any = deft_llm::AnyModel::new(model.clone());
    let d = desktop();
    let cfg = AgentConfig::default();
    let asker = no_asker();
    let agent = deft_agent::Agent {
        model: &any,
        vision: None,
        desktop: &d,
        asker: &asker,
        config: &cfg,
        scope: None,
        sink: None,
        bus: None,
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let e = rt.block_on(agent.run("   ", "r")).unwrap_err();
    assert!(e.to_string().contains("the goal is empty"), "{e}");
    assert!(model.requests().is_empty() && d.calls().is_empty());
}

#[test]
fn a_reply_without_a_tool_call_is_told_and_three_in_a_row_end_the_run() {
    let model = FnModel::new(|_| Reply::Say("I think the form is fine.", vec![]));
    let r = run_with(&model, &desktop(), &no_asker(), &AgentConfig::default(), "Press Hello.");
    assert_eq!(r.status, RunStatus::Failed);
    assert!(r.summary.contains("3 times"), "{}", r.summary);
    assert_eq!(model.requests().len(), 3);
    let last = last_results(&model);
    assert!(last.iter().any(|t| t.contains("without calling a tool")), "{last:?}");
}

#[test]
fn an_unknown_tool_is_an_observation_listing_the_tools() {
    let model = once(Reply::Say("Teleport.", vec![("teleport", "{}")]));
    let r = run_with(&model, &desktop(), &no_asker(), &AgentConfig::default(), "Press Hello.");
    assert_eq!(r.status, RunStatus::GoalNotMet);
    let obs = last_results(&model).join("\n");
    assert!(obs.contains("there is no tool `teleport`") && obs.contains("ask_user") && obs.contains("click"), "{obs}");
}

#[test]
fn malformed_arguments_are_an_observation_and_nothing_runs() {
    let model = once(Reply::Say("Click.", vec![("click", "{\"target\": \"e3\",")]));
    let d = desktop();
    run_with(&model, &d, &no_asker(), &AgentConfig::default(), "Press Hello.");
    let obs = last_results(&model).join("\n");
    assert!(obs.contains("not JSON") && obs.contains("nothing was done"), "{obs}");
    assert!(!d.calls().iter().any(|c| matches!(c, ToolCall::Click(_))));
    let model = once(Reply::Say("Click.", vec![("click", r#"{"target": "e3", "bogus": 1}"#)]));
    run_with(&model, &d, &no_asker(), &AgentConfig::default(), "Press Hello.");
    let obs = last_results(&model).join("\n");
    assert!(obs.contains("unknown parameter `bogus`"), "{obs}");
}

#[test]
fn a_stale_ref_is_an_observation() {
    let d = deft_agent::FakeDesktop::new(|call| match call {
        ToolCall::Read(_) => Ok(super::outline(super::OUTLINE)),
        ToolCall::Find(_) => Ok(super::found(&[("e3", "push_button", "Hello", "Fixture")])),
        _ => Err(ToolError::new(
            ToolErrorKind::StaleRef,
            "e3 (push_button \"Hello\") is stale: the element no longer exists; read again",
        )),
    });
    let model = once(Reply::Say("Click Hello.", vec![("click", r#"{"target": "e3"}"#)]));
    let mut cfg = AgentConfig::default();
    cfg.confidence.mode = deft_agent::ConfidenceMode::Off;
    run_with(&model, &d, &no_asker(), &cfg, "Press Hello.");
    let obs = last_results(&model).join("\n");
    assert!(obs.contains("status: error (stale_ref)") && obs.contains("read again"), "{obs}");
}

#[test]
fn budgets_end_the_run() {
    let model = FnModel::new(|_| Reply::Say("Look again.", vec![("read", "{}")]));
    let mut cfg = AgentConfig::default();
    cfg.budget.max_steps = 3;
    let r = run_with(&model, &desktop(), &no_asker(), &cfg, "Keep reading.");
    assert_eq!((r.status, r.steps), (RunStatus::Budget, 3));
    cfg.budget.max_steps = 40;
    cfg.budget.max_tokens = Some(250);
    let r = run_with(&model, &desktop(), &no_asker(), &cfg, "Keep reading.");
    assert_eq!(r.status, RunStatus::Budget);
    assert!(r.summary.contains("token budget"), "{}", r.summary);
}

#[test]
fn a_call_that_could_not_run_still_leaves_its_line() {
    // A click on a target no element has fails before anything runs; it once left no
    // line on the display, in the trace or in the report.
    let model = once(Reply::Say("Press it.", vec![("click", r#"{"target": "Nowhere"}"#)]));
    let any = deft_llm::AnyModel::new(model.clone());
    let d = desktop();
    let cfg = AgentConfig::default();
    let asker = no_asker();
    let seen = std::sync::Mutex::new(Vec::new());
    let sink = |e: &deft_agent::AgentEvent| seen.lock().unwrap().push(e.clone());
    let agent = deft_agent::Agent {
        model: &any,
        vision: None,
        desktop: &d,
        asker: &asker,
        config: &cfg,
        scope: None,
        sink: Some(&sink),
        bus: None,
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(agent.run("Press Nowhere.", "r")).unwrap();
    let lines: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            deft_agent::AgentEvent::Observation { tool, ok: Some(false), summary, .. } if tool == "click" => {
                Some(summary.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(lines.len(), 1, "{:?}", seen.lock().unwrap());
    assert!(!d.calls().iter().any(|c| matches!(c, ToolCall::Click(_))), "nothing was clicked");
}
