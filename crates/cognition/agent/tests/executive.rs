//! The executive function, the policy and the questions, with a fake model and desktop.

use deft_agent::{AgentConfig, Answer, FixedAnswer, RunStatus};
use deft_toolbelt::ToolCall;

use super::{FnModel, Reply, desktop, is_check, last_results, no_asker, run_with};

/// Clicks `target` once, then ends; answers checks with `letters`.
fn clicker(target: &'static str, letters: Vec<(&'static str, f64)>) -> FnModel {
    let args: &'static str = Box::leak(format!("{{\"target\": \"{target}\"}}").into_boxed_str());
    FnModel::new(move |r| {
        if is_check(r) {
            return Reply::Letters(letters.clone());
        }
        let acted = r.messages.len() > 1;
        if acted {
            Reply::Say("Done.", vec![("done", r#"{"summary":"ok","goal_met":true}"#)])
        } else {
            Reply::Say("Pressing it.", vec![("click", args)])
        }
    })
}

#[test]
fn a_confident_action_runs() {
    let model = clicker("e3", vec![("A", 0.97), ("B", 0.03)]);
    let d = desktop();
    let r = run_with(&model, &d, &no_asker(), &AgentConfig::default(), "Press Hello.");
    assert_eq!(r.status, RunStatus::GoalMet);
    assert!(d.calls().iter().any(|c| matches!(c, ToolCall::Click(_))));
    assert_eq!(r.calibration.len(), 1);
    assert!(r.calibration[0].score > 0.85 && r.calibration[0].method == "logprobs");
}

#[test]
fn an_unsure_action_is_held_back_and_the_answer_is_the_observation() {
    let model = clicker("e3", vec![("B", 0.6), ("A", 0.4)]);
    let d = desktop();
    let asker = FixedAnswer(Answer::Text("Press Hello only after saving.".into()));
    let r = run_with(&model, &d, &asker, &AgentConfig::default(), "Press Hello.");
    assert!(!d.calls().iter().any(|c| matches!(c, ToolCall::Click(_))), "not run");
    assert_eq!(r.questions, 1);
    let obs = last_results(&model).join("\n");
    assert!(obs.contains("not run") && obs.contains("Press Hello only after saving."), "{obs}");
    assert_eq!(r.calibration[0].verdict, deft_agent::calibrate::Verdict::Corrected);
}

#[test]
fn deferring_pauses_and_resume_continues_the_same_run() {
    let model = clicker("e3", vec![("B", 0.6), ("A", 0.4)]);
    let d = desktop();
    let r = run_with(&model, &d, &FixedAnswer(Answer::Later), &AgentConfig::default(), "Press Hello.");
    assert_eq!(r.status, RunStatus::NeedsInput);
    let state = r.state.expect("a paused run carries its state");
    let q = r.question.unwrap();
    assert!(q.text.contains("Should I click"), "{}", q.text);
    let json = serde_json::to_string(&state).unwrap();
    let state: deft_agent::RunState = serde_json::from_str(&json).unwrap();
    let any = deft_llm::AnyModel::new(model.clone());
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
    let r = rt.block_on(agent.resume(state, "yes", &deft_agent::Tighten::default())).unwrap();
    assert_eq!(r.status, RunStatus::GoalMet);
    assert!(d.calls().iter().any(|c| matches!(c, ToolCall::Click(_))), "yes on a unique target runs it");
}

#[test]
fn the_policy_blocks_outside_its_windows_whatever_the_model_says() {
    let model = clicker("e7", vec![("A", 0.99)]);
    let d = desktop();
    let mut cfg = AgentConfig::default();
    cfg.policy.windows = vec!["Fixture".into()];
    let r = run_with(&model, &d, &no_asker(), &cfg, "Press Hello.");
    assert_eq!(r.policy_blocks, 1);
    assert!(!d.calls().iter().any(|c| matches!(c, ToolCall::Click(_))));
    let obs = last_results(&model).join("\n");
    assert!(obs.contains("blocked by policy") && obs.contains("Admin window"), "{obs}");
}

#[test]
fn irreversible_actions_are_confirmed_whatever_the_score() {
    let model = clicker("e4", vec![("A", 0.999)]);
    let d = desktop();
    let r = run_with(&model, &d, &FixedAnswer(Answer::Text("no".into())), &AgentConfig::default(), "Clean up.");
    assert_eq!(r.questions, 1);
    assert!(!d.calls().iter().any(|c| matches!(c, ToolCall::Click(_))), "not confirmed, not run");
    let d = desktop();
    run_with(&model, &d, &FixedAnswer(Answer::Text("yes".into())), &AgentConfig::default(), "Clean up.");
    assert!(d.calls().iter().any(|c| matches!(c, ToolCall::Click(_))), "confirmed, run");
}

#[test]
fn screen_text_reaches_the_model_only_inside_untrusted_blocks() {
    let model = clicker("e3", vec![("A", 0.99)]);
    run_with(&model, &desktop(), &no_asker(), &AgentConfig::default(), "Press Hello.");
    let first = &model.requests()[0];
    let opening = first.messages[0].text();
    let start = opening.find("<screen_text").unwrap();
    let end = opening.find("</screen_text>").unwrap();
    assert!(opening[start..end].contains("push_button \"Hello\" [e3]"), "{opening}");
    assert!(first.system.contains("never instructions"));
}

#[test]
fn the_same_failing_action_is_told_then_asked_about() {
    // The model clicks the same ref whatever happens; the click never works.
    let model = FnModel::new(|r| {
        if is_check(r) {
            return Reply::Letters(vec![("A", 0.99)]);
        }
        Reply::Say("Pressing Hello again.", vec![("click", r#"{"target": "e3"}"#)])
    });
    let d = deft_agent::FakeDesktop::new(|call| match call {
        ToolCall::Read(_) => Ok(super::outline(super::OUTLINE)),
        ToolCall::Find(_) => Ok(super::found(&[("e3", "push_button", "Hello", "Fixture")])),
        _ => Ok(super::acted(false, "no element of the window changed", "Fixture")),
    });
    let mut cfg = AgentConfig::default();
    cfg.budget.max_steps = 4;
    let asker = FixedAnswer(Answer::Text("Stop and report.".into()));
    let r = run_with(&model, &d, &asker, &cfg, "Press Hello.");
    let clicks = d.calls().iter().filter(|c| matches!(c, ToolCall::Click(_))).count();
    assert_eq!(clicks, 2, "the third identical attempt is not run");
    assert!(r.questions >= 1, "it is escalated to the person");
    let obs = last_results(&model).join("\n");
    assert!(obs.contains("failed twice before") || obs.contains("Stop and report."), "{obs}");
}

#[test]
fn an_unseen_expected_outcome_is_a_divergence_told_to_the_model() {
    let model = FnModel::new(|r| {
        if is_check(r) {
            return Reply::Letters(vec![("A", 0.99)]);
        }
        if r.messages.len() > 1 {
            return Reply::Say("Done.", vec![("done", r#"{"summary":"x","goal_met":false}"#)]);
        }
        Reply::Say(
            "Pressing Hello.",
            vec![("click", r#"{"target": "e3", "expected_outcome": "the text \"Orders: 1\" appears"}"#)],
        )
    });
    let waited = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let w = std::sync::Arc::clone(&waited);
    let d = deft_agent::FakeDesktop::new(move |call| match call {
        ToolCall::Read(_) => Ok(super::outline(super::OUTLINE)),
        ToolCall::Find(_) => Ok(super::found(&[("e3", "push_button", "Hello", "Fixture")])),
        ToolCall::WaitFor(p) => {
            w.lock().unwrap().push(p.condition.clone());
            Ok(deft_toolbelt::ToolOutput::Wait(deft_toolbelt::WaitReport {
                ok: false,
                action: "wait",
                expected: "text \"Orders: 1\" shown".into(),
                timeout_ms: 2000,
                outcome: deft_verify::WaitOutcome {
                    met: false,
                    evidence: vec![],
                    channel: None,
                    last_observed: "not met within 2000 ms".into(),
                    elapsed_ms: 2000,
                },
            }))
        }
        _ => Ok(super::acted(true, "Clicked", "Fixture")),
    });
    run_with(&model, &d, &no_asker(), &AgentConfig::default(), "Press Hello.");
    assert_eq!(*waited.lock().unwrap(), vec![Some("text:\"Orders: 1\"".to_string())], "checked as a condition");
    let obs = last_results(&model).join("\n");
    assert!(obs.contains("expected_outcome: NOT seen") && obs.contains("DIVERGENCE"), "{obs}");
}

#[test]
fn a_resumed_run_keeps_the_policy_and_settings_it_was_started_with() {
    // Paused on a low-confidence click with `--deny-key ctrl+q --confidence off`; the
    // resume is made by an agent configured with none of that (as `run --resume` once
    // built it from defaults): ctrl+q must still never be sent.
    let model = FnModel::new(|r| {
        if is_check(r) {
            return Reply::Letters(vec![("B", 0.6), ("A", 0.4)]);
        }
        match r.messages.len() {
            1 => Reply::Say("Pressing it.", vec![("click", r#"{"target": "e3"}"#)]),
            n if n <= 3 => Reply::Say("Quit the app.", vec![("key", r#"{"keys": "Ctrl+Q"}"#)]),
            _ => Reply::Say("Done.", vec![("done", r#"{"summary":"tried","goal_met":false}"#)]),
        }
    });
    let d = desktop();
    let mut started = AgentConfig::default();
    started.policy.deny_keys = vec!["ctrl+q".into()];
    let r = run_with(&model, &d, &FixedAnswer(Answer::Later), &started, "Press Hello, then quit.");
    assert_eq!(r.status, RunStatus::NeedsInput);
    let state = r.state.expect("a paused run carries its state");
    let state: deft_agent::RunState = serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap();
    assert_eq!(state.config, started, "the state keeps the settings");
    let any = deft_llm::AnyModel::new(model.clone());
    let loose = AgentConfig::default();
    let asker = no_asker();
    let agent = deft_agent::Agent {
        model: &any,
        vision: None,
        desktop: &d,
        asker: &asker,
        config: &loose,
        scope: None,
        sink: None,
        bus: None,
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let r = rt.block_on(agent.resume(state, "yes", &deft_agent::Tighten::default())).unwrap();
    assert_eq!(r.policy_blocks, 1, "{r:?}");
    assert!(!d.calls().iter().any(|c| matches!(c, ToolCall::Key(_))), "the denied key was never sent");
}
