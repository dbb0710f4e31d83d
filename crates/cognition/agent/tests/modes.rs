//! The loop's other modes, with a fake model and desktop: the inline confidence (no second
//! call), several actions in one step (run one by one, stopped at the first that did not
//! work), the cost and time budgets, a question the model asks itself, and keys the policy
//! denies.

use std::time::Duration;

use deft_agent::{AgentConfig, Answer, ConfidenceMode, FakeDesktop, FixedAnswer, RunStatus};
use deft_toolbelt::ToolCall;

use super::{FnModel, Reply, acted, desktop, found, is_check, last_results, no_asker, outline, run_with};

/// Clicks `args` once, then ends.
fn click_then_done(args: &'static str) -> FnModel {
    FnModel::new(move |r| {
        if r.messages.len() > 1 {
            Reply::Say("Done.", vec![("done", r#"{"summary":"ok","goal_met":true}"#)])
        } else {
            Reply::Say("Pressing Hello.", vec![("click", args)])
        }
    })
}

fn clicks(d: &FakeDesktop) -> usize {
    d.calls().iter().filter(|c| matches!(c, ToolCall::Click(_))).count()
}

#[test]
fn inline_confidence_needs_no_second_call() {
    let mut cfg = AgentConfig::default();
    cfg.confidence.mode = ConfidenceMode::Inline;
    // Sure: it runs, and no check call was made.
    let model = click_then_done(r#"{"target": "e3", "confidence": 0.97}"#);
    let d = desktop();
    let r = run_with(&model, &d, &no_asker(), &cfg, "Press Hello.");
    assert_eq!((r.status, clicks(&d)), (RunStatus::GoalMet, 1));
    assert!(!model.requests().iter().any(is_check), "inline mode makes no separate check");
    assert_eq!(r.calibration[0].method, "inline");
    // Unsure: held back and asked (the person says no), still without a check call.
    let model = click_then_done(r#"{"target": "e3", "confidence": 0.3}"#);
    let d = desktop();
    let r = run_with(&model, &d, &FixedAnswer(Answer::Text("No, not yet.".into())), &cfg, "Press Hello.");
    assert_eq!((r.questions, clicks(&d)), (1, 0), "a low stated confidence asks first");
    assert!(!model.requests().iter().any(is_check));
    // The tools the model sees carry the confidence parameter in this mode only.
    let tools = &model.requests()[0].tools;
    let click = tools.iter().find(|t| t.name == "click").unwrap();
    assert!(click.parameters.to_string().contains("\"confidence\""), "{}", click.parameters);
}

/// A desktop whose clicks do nothing visible; typing works.
fn clicks_fail() -> FakeDesktop {
    FakeDesktop::new(|call| match call {
        ToolCall::Read(_) => Ok(outline(super::OUTLINE)),
        ToolCall::Find(f) => {
            let t = f.target.target.as_deref().unwrap_or_default();
            Ok(match t {
                "e2" => found(&[("e2", "text", "Name", "Fixture")]),
                _ => found(&[("e3", "push_button", "Hello", "Fixture")]),
            })
        }
        ToolCall::Type(_) => Ok(acted(true, "Name shows Ada", "Fixture")),
        _ => Ok(acted(false, "no element of the window changed", "Fixture")),
    })
}

#[test]
fn several_actions_in_one_step_run_one_by_one_and_stop_at_the_first_failure() {
    let mut cfg = AgentConfig { multi_action: true, ..AgentConfig::default() };
    cfg.confidence.mode = ConfidenceMode::Off;
    let three = vec![
        ("type", r#"{"target": "e2", "text": "Ada"}"#),
        ("click", r#"{"target": "e3"}"#),
        ("click", r#"{"target": "e3"}"#),
    ];
    let model = FnModel::new(move |r| {
        if r.messages.len() > 1 {
            Reply::Say("Done.", vec![("done", r#"{"summary":"stopped","goal_met":false}"#)])
        } else {
            Reply::Say("Fill in, then press twice.", three.clone())
        }
    });
    // All work: three actions for one model call.
    let d = desktop();
    let r = run_with(&model, &d, &no_asker(), &cfg, "Fill in the form.");
    let acts = d.calls().iter().filter(|c| matches!(c, ToolCall::Click(_) | ToolCall::Type(_))).count();
    assert_eq!((acts, r.steps), (3, 2), "three actions in the first step, done in the second");
    assert!(model.requests()[0].system.contains("several"), "the prompt offers sequences");
    // The first click does nothing: the second is not run, and the model is told why.
    let model2 = model.clone();
    let d = clicks_fail();
    run_with(&model2, &d, &no_asker(), &cfg, "Fill in the form.");
    let typed = d.calls().iter().filter(|c| matches!(c, ToolCall::Type(_))).count();
    assert_eq!((typed, clicks(&d)), (1, 1), "stopped at the first surprise");
    let told = last_results(&model2).join("\n");
    assert!(told.contains("the sequence stopped"), "{told}");
    // One call per step when the mode is off: the extra calls are not run, and said so.
    cfg.multi_action = false;
    let d = desktop();
    run_with(&model, &d, &no_asker(), &cfg, "Fill in the form.");
    let acts = d.calls().iter().filter(|c| matches!(c, ToolCall::Click(_) | ToolCall::Type(_))).count();
    assert_eq!(acts, 1);
    assert!(last_results(&model).join("\n").contains("one tool call per step"));
}

#[test]
fn the_cost_and_time_budgets_end_the_run() {
    let reader = || FnModel::new(|_| Reply::Say("Look again.", vec![("read", "{}")]));
    let mut cfg = AgentConfig::default();
    cfg.budget.max_cost_usd = Some(0.025);
    let r = run_with(&reader().costing(Some(0.01)), &desktop(), &no_asker(), &cfg, "Keep reading.");
    assert_eq!((r.status, r.steps), (RunStatus::Budget, 3), "{}", r.summary);
    assert!(r.summary.contains("cost budget"), "{}", r.summary);
    // A model of unknown price cannot be held to a cost budget: the run says so.
    let r = run_with(&reader().costing(None), &desktop(), &no_asker(), &cfg, "Keep reading.");
    assert_eq!((r.status, r.steps), (RunStatus::Budget, 1), "{}", r.summary);
    assert!(r.summary.contains("price is unknown"), "{}", r.summary);
    // Time: each model call takes 40 ms; 100 ms of wall time allow a few steps, not 40.
    let slow = FnModel::new(|_| {
        std::thread::sleep(Duration::from_millis(40));
        Reply::Say("Look again.", vec![("read", "{}")])
    });
    let mut cfg = AgentConfig::default();
    cfg.budget.max_wall_ms = 100;
    let r = run_with(&slow, &desktop(), &no_asker(), &cfg, "Keep reading.");
    assert_eq!(r.status, RunStatus::Budget);
    assert!(r.steps < 40 && r.summary.contains("time budget"), "{} steps: {}", r.steps, r.summary);
}

#[test]
fn the_model_may_ask_and_the_answer_is_its_next_observation() {
    let model = FnModel::new(|r| {
        if r.messages.len() > 1 {
            Reply::Say("Done.", vec![("done", r#"{"summary":"asked","goal_met":true}"#)])
        } else {
            Reply::Say("Two forms; which?", vec![("ask_user", r#"{"question": "Billing or Shipping?"}"#)])
        }
    });
    let asker = FixedAnswer(Answer::Text("Billing, please.".into()));
    let r = run_with(&model, &desktop(), &asker, &AgentConfig::default(), "Submit the form.");
    assert_eq!((r.status, r.questions), (RunStatus::GoalMet, 1));
    let told = last_results(&model).join("\n");
    assert!(told.contains("Billing, please."), "{told}");
}

#[test]
fn a_key_the_policy_denies_is_never_sent() {
    let model = FnModel::new(|r| {
        if is_check(r) {
            return Reply::Letters(vec![("A", 0.99)]);
        }
        if r.messages.len() > 1 {
            Reply::Say("Done.", vec![("done", r#"{"summary":"tried","goal_met":false}"#)])
        } else {
            Reply::Say("Quit the app.", vec![("key", r#"{"keys": "Ctrl+Q"}"#)])
        }
    });
    let mut cfg = AgentConfig::default();
    cfg.policy.deny_keys = vec!["ctrl+q".into()];
    let d = desktop();
    let r = run_with(&model, &d, &no_asker(), &cfg, "Close it.");
    assert_eq!(r.policy_blocks, 1);
    assert!(!d.calls().iter().any(|c| matches!(c, ToolCall::Key(_))), "the key was never sent");
    assert!(last_results(&model).join("\n").contains("blocked by policy"));
}
