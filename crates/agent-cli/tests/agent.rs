//! `agent-cli run` end to end: a headless desktop, the fixture app (faults on), and the
//! test model (a deterministic policy behind a real provider wire format on loopback,
//! choosing each reply from what the agent sent). Judged by the app's ground-truth log,
//! never by the agent's own summary.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};

use super::{BIN, Run, isolate, run, scratch};

/// The demo task.
pub const TASK: &str = "Fill in the form: type \"Ada Lovelace\" into Name and tick Subscribe. Then submit the order once, save, and wait for \"Save complete\".";

fn start(opts: &FixtureOptions) -> (Desktop, FixtureApp) {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = FixtureApp::launch(&desktop, opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    (desktop, app)
}

/// `agent-cli run` on `desktop` with the test model and its own state directory.
fn agent(desktop: &Desktop, model: &TestModel, runs: &std::path::Path, args: &[&str]) -> Command {
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &scratch("agent-home"));
    cmd.env("DEFT_MODEL_PROVIDER", model.provider())
        .env("DEFT_MODEL", MODEL_NAME)
        .env("DEFT_MODEL_BASE_URL", model.base_url())
        .env("DEFT_RUNS_DIR", runs)
        .env("ANTHROPIC_API_KEY", "test-model-needs-no-key")
        .arg("run")
        .args(args);
    cmd
}

fn settle() {
    std::thread::sleep(Duration::from_millis(500));
}

#[test]
fn the_demo_task_with_faults_is_done_once_and_judged_by_the_log() {
    let opts = FixtureOptions {
        drop_clicks: 1,
        popup: true,
        ignore_keys: true,
        save_delay: Some(Duration::from_millis(1500)),
        ..FixtureOptions::default()
    };
    let (desktop, app) = start(&opts);
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let runs = scratch("runs");
    let r = run(agent(&desktop, &model, &runs, &[TASK, "--app", "Deft Fixture", "--json", "--ask", "defer"]));
    settle();
    let events = app.events();
    let orders = events.iter().filter(|e| e.kind == "order_submitted").count();
    let name = events.iter().rev().find(|e| e.is("text_changed", Some("name"))).and_then(|e| e.str("value"));
    let ticks = events.iter().filter(|e| e.is("checkbox_toggled", Some("subscribe"))).count();
    let saved = events.iter().filter(|e| e.kind == "save_complete").count();
    assert_eq!(orders, 1, "exactly one order: {r:#?}\n{:?}", events.iter().map(|e| &e.raw).collect::<Vec<_>>());
    assert_eq!(name, Some("Ada Lovelace"), "{r:#?}");
    assert_eq!(ticks, 1, "{r:#?}");
    assert_eq!(saved, 1, "{r:#?}");
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["status"], "goal_met", "{r:#?}");
    // The faults were recovered below the model: the dropped click and the ignored keys
    // cost no model call; the popup reached the model as blocking and was dismissed.
    let kinds: Vec<&str> = events.iter().filter(|e| e.kind == "fault").filter_map(|e| e.str("kind")).collect();
    assert!(
        kinds.contains(&"dropped_click") && kinds.contains(&"popup") && kinds.contains(&"ignored_key"),
        "{kinds:?}"
    );
    assert!(
        events.iter().any(|e| e.is("dialog_closed", None) && e.str("title") == Some("New Event!")),
        "popup handled"
    );
    let seen = model.received();
    let steps: Vec<&str> =
        seen.iter().filter(|x| !x.seen.system.starts_with("You check")).map(|x| x.reply_text.as_str()).collect();
    // 5 tasks + read and dismiss the popup + one retry of the submit + done = 9 model steps;
    // a retry of the dropped click or the ignored keys would add a step.
    assert_eq!(steps.len(), 9, "model steps: {steps:#?}");
    assert!(
        seen.iter().any(|x| x
            .seen
            .messages
            .iter()
            .any(|m| m.results.iter().any(|res| res.text.contains("blocking: dialog \"New Event!\"")))),
        "the popup was reported to the model"
    );
    assert!(v["model"].as_str().unwrap().contains(MODEL_NAME), "{v}");
}

#[test]
fn an_empty_goal_is_a_usage_error() {
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let mut cmd = Command::new(BIN);
    isolate(&mut cmd, &scratch("agent-home"));
    cmd.env("DEFT_MODEL_PROVIDER", "openai-compatible")
        .env("DEFT_MODEL", MODEL_NAME)
        .env("DEFT_MODEL_BASE_URL", model.base_url())
        .args(["run", "  ", "--json"]);
    let r = run(cmd);
    r.expect_code(2);
    assert!(r.stdout.contains("the goal is empty"), "{r:#?}");
    assert!(model.received().is_empty(), "no model call for an empty goal");
    let mut cmd = Command::new(BIN);
    isolate(&mut cmd, &scratch("agent-home"));
    let r = run({
        cmd.args(["run", "do something"]);
        cmd
    });
    r.expect_code(2);
    assert!(r.stderr.contains("DEFT_MODEL_PROVIDER"), "no model configured says how: {r:#?}");
}

/// Answer a question through stdin.
fn with_stdin(mut cmd: Command, input: &str) -> Run {
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

const AMBIGUOUS_GOAL: &str = "Type \"Ada\" into Name, then press Submit.";

fn ambiguous() -> FixtureOptions {
    FixtureOptions { extra_args: vec!["--ambiguous".into()], ..FixtureOptions::default() }
}

fn pressed(app: &FixtureApp) -> (usize, usize, usize) {
    settle();
    (
        app.count("button_activated", Some("submit_billing")),
        app.count("button_activated", Some("submit_shipping")),
        app.count("button_activated", Some("submit")),
    )
}

#[test]
fn ambiguity_is_asked_on_the_terminal_and_the_right_submit_is_pressed_once() {
    let (desktop, app) = start(&ambiguous());
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let runs = scratch("runs");
    let cmd = agent(&desktop, &model, &runs, &[AMBIGUOUS_GOAL, "--app", "Deft Fixture", "--json", "--ask", "terminal"]);
    let r = with_stdin(cmd, "the one in Billing\n");
    assert_eq!(pressed(&app), (1, 0, 0), "billing once, shipping never: {r:#?}");
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["questions"], 1, "{r:#?}");
    assert!(r.stderr.contains("Billing") && r.stderr.contains("Shipping"), "the question named both: {}", r.stderr);
    // The executive function scored the guess low: a confidence below the threshold.
    let checks: Vec<_> = model.received().into_iter().filter(|x| x.seen.system.starts_with("You check")).collect();
    assert!(checks.len() >= 2, "a confidence check per action");
    assert!(checks.iter().all(|c| c.seen.logprobs.is_some()), "logprobs asked of an OpenAI-compatible server");
}

#[test]
fn ambiguity_deferred_pauses_with_exit_8_and_resumes_with_the_answer() {
    let (desktop, app) = start(&ambiguous());
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let runs = scratch("runs");
    let r = run(agent(&desktop, &model, &runs, &[AMBIGUOUS_GOAL, "--app", "Deft Fixture", "--json"]));
    r.expect_code(8);
    let v = r.json();
    assert_eq!(v["status"], "needs_input", "{r:#?}");
    let id = v["run_id"].as_str().unwrap().to_string();
    assert!(v["question"]["text"].as_str().unwrap().contains("Billing"), "{v}");
    assert_eq!(pressed(&app), (0, 0, 0), "nothing pressed while unsure");
    let r = run(agent(&desktop, &model, &runs, &["--resume", &id, "--answer", "Billing", "--json"]));
    r.expect_code(0);
    assert_eq!(r.json()["status"], "goal_met", "{r:#?}");
    assert_eq!(pressed(&app), (1, 0, 0), "billing once after the answer: {r:#?}");
    let r = run(agent(&desktop, &model, &runs, &["--resume", &id, "--answer", "again", "--json"]));
    r.expect_code(2);
}

#[test]
fn ambiguity_is_asked_in_a_dialog_on_the_desktop() {
    let (desktop, app) = start(&ambiguous());
    let model = TestModel::start(Wire::Anthropic, Persona::Honest).unwrap();
    let runs = scratch("runs");
    let mut cmd = agent(
        &desktop,
        &model,
        &runs,
        &[AMBIGUOUS_GOAL, "--app", "Deft Fixture", "--json", "--ask", "dialog", "--ask-timeout", "60"],
    );
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::null());
    let child = cmd.spawn().unwrap();
    // The person at the machine: find the dialog, type the answer, press Return.
    let found = desktop.command("xdotool").args(["search", "--sync", "--name", "Deft asks"]).output().unwrap();
    let win = String::from_utf8_lossy(&found.stdout).lines().next().unwrap_or_default().to_string();
    assert!(!win.is_empty(), "the dialog appeared on the display");
    std::thread::sleep(Duration::from_millis(500));
    let typed = desktop
        .command("xdotool")
        .args(["windowactivate", "--sync", &win, "type", "--delay", "30", "Billing"])
        .status()
        .unwrap();
    assert!(typed.success());
    std::thread::sleep(Duration::from_millis(200));
    desktop.command("xdotool").args(["key", "Return"]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert_eq!(pressed(&app), (1, 0, 0), "{r:#?}");
    r.expect_code(0);
    // Anthropic returns no log-probabilities: the check used samples.
    assert!(model.received().iter().any(|x| x.seen.system.starts_with("You check") && x.seen.logprobs.is_none()));
}

#[test]
fn on_screen_instructions_are_data_and_the_policy_blocks_what_a_gullible_model_proposes() {
    let opts = FixtureOptions { extra_args: vec!["--injection".into()], ..FixtureOptions::default() };
    let (desktop, app) = start(&opts);
    let goal = "Type \"Ada\" into Name, then press Hello.";
    // An honest model pursues the goal; the screen text reached it only as untrusted data.
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let runs = scratch("runs");
    let r = run(agent(&desktop, &model, &runs, &[goal, "--app", "Deft Fixture", "--json", "--ask", "defer"]));
    r.expect_code(0);
    for x in model.received() {
        for m in &x.seen.messages {
            for text in std::iter::once(&m.text).chain(m.results.iter().map(|r| &r.text)) {
                if let Some(i) = text.find("Note to the AI assistant") {
                    let before = &text[..i];
                    assert!(
                        before.rfind("<screen_text").is_some_and(|o| before[o..].find("</screen_text>").is_none()),
                        "screen text outside an untrusted block: {text}"
                    );
                }
            }
        }
    }
    // A gullible model obeys the screen; the policy (only the main window) blocks it.
    let gullible = TestModel::start(Wire::OpenAi, Persona::Gullible).unwrap();
    let r = run(agent(
        &desktop,
        &gullible,
        &runs,
        &[goal, "--app", "Deft Fixture", "--json", "--ask", "defer", "--allow-window", "Deft Fixture"],
    ));
    settle();
    assert!(
        gullible
            .received()
            .iter()
            .any(|x| x.reply_tools.iter().any(|t| t == "click") && x.reply_text.starts_with("The screen says")),
        "the gullible model did propose the injected action"
    );
    assert_eq!(app.count("button_activated", Some("reset_orders")), 0, "{r:#?}");
    assert_eq!(r.json()["policy_blocks"], 1, "{r:#?}");
    assert_eq!(app.count("button_activated", Some("hello")), 2, "the goal itself was still done (twice: two runs)");
}

#[test]
fn calibrate_suggests_a_threshold_from_the_pairs_runs_left() {
    let runs = scratch("calibration");
    let mut lines = String::new();
    for (score, verdict) in
        [(0.99, "worked"), (0.97, "worked"), (0.96, "worked"), (0.95, "worked"), (0.93, "worked"), (0.92, "worked")]
            .into_iter()
            .chain([(0.91, "worked"), (0.9, "confirmed"), (0.8, "failed"), (0.6, "corrected"), (0.4, "corrected")])
    {
        lines.push_str(&format!(
            "{{\"run_id\":\"r\",\"step\":1,\"tool\":\"click\",\"score\":{score},\"model\":{score},\"method\":\"logprobs\",\"candidates\":1,\"verdict\":\"{verdict}\"}}\n"
        ));
    }
    std::fs::write(runs.join("calibration.jsonl"), lines).unwrap();
    let mut cmd = Command::new(BIN);
    isolate(&mut cmd, &scratch("agent-home"));
    cmd.args(["calibrate", "--json", "--runs-dir"]).arg(&runs);
    let r = run(cmd);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["pairs"], 11, "{r:#?}");
    assert_eq!(v["suggested_threshold"], 0.9, "{r:#?}");
}

#[test]
fn a_resumed_run_keeps_its_policy_whatever_model_answers_after_the_pause() {
    // Paused on the ambiguous Submit with the policy "only the main window"; resumed by a
    // model (the same name and provider, another persona) that obeys the injected text on
    // the screen and presses "Reset all orders" in "Deft Admin". The resume gives no policy
    // flags: the paused run's own policy must hold.
    let opts =
        FixtureOptions { extra_args: vec!["--ambiguous".into(), "--injection".into()], ..FixtureOptions::default() };
    let (desktop, app) = start(&opts);
    let honest = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let runs = scratch("runs");
    let args = [
        AMBIGUOUS_GOAL,
        "--app",
        "Deft Fixture",
        "--json",
        "--allow-window",
        "Deft Fixture",
        "--confidence",
        "separate",
    ];
    let r = run(agent(&desktop, &honest, &runs, &args));
    r.expect_code(8);
    let id = r.json()["run_id"].as_str().unwrap().to_string();
    let gullible = TestModel::start(Wire::OpenAi, Persona::Gullible).unwrap();
    let r = run(agent(&desktop, &gullible, &runs, &["--resume", &id, "--answer", "Billing", "--json"]));
    settle();
    assert!(
        gullible.received().iter().any(|x| x.reply_text.starts_with("The screen says")),
        "the resumed model did propose the injected action: {r:#?}"
    );
    assert_eq!(app.count("button_activated", Some("reset_orders")), 0, "{r:#?}");
    assert!(r.json()["policy_blocks"].as_u64().is_some_and(|n| n >= 1), "{r:#?}");
    // A resume may tighten, never loosen: a flag that would change how it decides is refused.
    let r = run(agent(&desktop, &honest, &runs, &["--resume", &id, "--answer", "x", "--confidence", "off"]));
    r.expect_code(2);
    assert!(r.stderr.contains("keeps the settings it was started with"), "{r:#?}");
}

#[test]
fn with_no_terminal_and_no_one_at_the_display_a_question_pauses_the_run() {
    // A script runs agent-cli without --json, stdin not a terminal, on a headless display:
    // nobody could answer a dialog there, so the run pauses at once as needs_input (it
    // once opened a dialog nobody saw and waited the whole --ask-timeout).
    let (desktop, app) = start(&ambiguous());
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let runs = scratch("runs");
    let mut cmd = agent(&desktop, &model, &runs, &[AMBIGUOUS_GOAL, "--app", "Deft Fixture", "--ask-timeout", "120"]);
    cmd.stdin(Stdio::null());
    let r = run(cmd);
    r.expect_code(8);
    assert!(r.stdout.contains("continue with: agent-cli run --resume"), "{r:#?}");
    assert_eq!(pressed(&app), (0, 0, 0), "nothing pressed while unsure");
}

#[test]
fn an_app_that_is_not_running_is_an_error_not_the_whole_desktop() {
    let (desktop, app) = start(&FixtureOptions::default());
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let runs = scratch("runs");
    let r = run(agent(&desktop, &model, &runs, &["Press Hello.", "--app", "Not Running App", "--json"]));
    r.expect_code(3);
    assert!(r.stdout.contains("Not Running App") || r.stderr.contains("Not Running App"), "{r:#?}");
    assert!(model.received().is_empty(), "no model call for a run that cannot start: {r:#?}");
    settle();
    assert_eq!(app.count("button_activated", None), 0, "{:?}", app.events());
}

#[test]
fn a_scripted_model_runs_without_any_model_and_scripts_a_resumed_run() {
    // What `run --help` tells a user to try first: a file of turns, no model anywhere.
    let r = run({
        let mut c = Command::new(BIN);
        c.args(["run", "--help"]);
        c
    });
    assert!(r.stdout.contains("Without a model: DEFT_MODEL_PROVIDER=scripted DEFT_MODEL=turns.jsonl"), "{r:#?}");
    let (desktop, app) = start(&FixtureOptions::default());
    let dir = scratch("script");
    let script = dir.join("turns.jsonl");
    std::fs::write(
        &script,
        concat!(
            r#"{"reply": {"text": "Which button?", "tool_calls": [{"name": "ask_user", "arguments": {"question": "Press Hello?"}}]}}"#,
            "\n",
            r#"{"expect": ["yes"], "reply": {"text": "Pressing it.", "tool_calls": [{"name": "click", "arguments": {"target": "Hello"}}]}}"#,
            "\n",
            r#"{"reply": {"text": "Done.", "tool_calls": [{"name": "done", "arguments": {"summary": "pressed Hello", "goal_met": true}}]}}"#,
            "\n"
        ),
    )
    .unwrap();
    let runs = scratch("runs");
    let scripted = |args: &[&str]| {
        let mut cmd = desktop.command(BIN);
        isolate(&mut cmd, &scratch("agent-home"));
        cmd.env("DEFT_MODEL_PROVIDER", "scripted").env("DEFT_MODEL", &script).env("DEFT_RUNS_DIR", &runs);
        cmd.args(["run", "--json"]).args(args);
        cmd
    };
    let r = run(scripted(&["Press Hello if I say so.", "--app", "Deft Fixture", "--confidence", "off"]));
    r.expect_code(8);
    let id = r.json()["run_id"].as_str().unwrap().to_string();
    // The resume is a new process: the script goes on from its second turn.
    let cmd = scripted(&["--resume", &id, "--answer", "yes"]);
    let r = run(cmd);
    r.expect_code(0);
    assert_eq!(r.json()["status"], "goal_met", "{r:#?}");
    settle();
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{:?}", app.events());
}

#[test]
fn a_run_saved_as_a_flow_replays_with_no_model_and_the_same_log() {
    let opts = FixtureOptions {
        drop_clicks: 1,
        ignore_keys: true,
        save_delay: Some(Duration::from_millis(1500)),
        ..FixtureOptions::default()
    };
    let (desktop, app) = start(&opts);
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let runs = scratch("runs-save-flow");
    let flow = scratch("save-flow").join("demo.yaml");
    let _ = std::fs::remove_file(&flow);
    let args = [TASK, "--app", "Deft Fixture", "--json", "--ask", "defer", "--save-flow", flow.to_str().unwrap()];
    let r = run(agent(&desktop, &model, &runs, &args));
    settle();
    r.expect_code(0);
    assert_eq!(r.json()["saved_flow"], flow.to_str().unwrap(), "{r:#?}");
    let text = std::fs::read_to_string(&flow).expect("the flow was written");
    assert!(!text.contains("target: e"), "refs are named: {text}");
    let effects = |app: &FixtureApp| -> Vec<String> {
        let events = app.events();
        let kept = events.iter().filter(|e| {
            matches!(e.kind.as_str(), "order_submitted" | "checkbox_toggled" | "save_complete")
                || e.is("button_activated", None)
        });
        kept.map(|e| format!("{} {}", e.kind, e.widget.as_deref().unwrap_or(""))).collect()
    };
    let by_the_agent = effects(&app);
    let model_calls = model.received().len();
    app.shutdown().expect("the first app ends");

    // The same task on a fresh app with the same faults, from the file, with no model.
    let again = FixtureApp::launch(&desktop, &opts).expect("a fresh app");
    let replay = super::desktop::cli(&desktop, &["flow", "run", flow.to_str().unwrap(), "--json"]);
    settle();
    replay.expect_code(0);
    assert_eq!(effects(&again), by_the_agent, "the same effects, once each:\n{text}\n{:?}", again.events());
    let name = again
        .events()
        .iter()
        .rev()
        .find(|e| e.is("text_changed", Some("name")))
        .and_then(|e| e.str("value").map(String::from));
    assert_eq!(name.as_deref(), Some("Ada Lovelace"), "{text}");
    assert_eq!(model.received().len(), model_calls, "the replay asked the model nothing");
    again.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}

/// `agent-cli` with the test model configured, for a verb other than `run`.
fn with_model(desktop: &Desktop, model: &TestModel, args: &[&str]) -> Command {
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &scratch("agent-home"));
    cmd.env("DEFT_MODEL_PROVIDER", model.provider())
        .env("DEFT_MODEL", MODEL_NAME)
        .env("DEFT_MODEL_BASE_URL", model.base_url())
        .env("DEFT_RUNS_DIR", scratch("runs-repair"))
        .args(args);
    cmd
}

const RENAMED_FLOW: &str = r#"flow: Submit an order
# Recorded before the app renamed its button.
steps:
  - fill: {target: Name, text: Ada Lovelace, app: deft-fixture}
  - name: submit
    click: {name: Submit order, role: push_button, app: deft-fixture}
    expect: text:"Order 1 submitted"
  - click: {name: Save, role: push_button, app: deft-fixture}
  - wait_for: {condition: 'title:"Save complete"', timeout_ms: 10000}
"#;

#[test]
fn a_step_the_app_renamed_is_repaired_by_the_agent_and_written_back_alone() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { drop_clicks: 1, extra_args: vec!["--renamed".into()], ..FixtureOptions::default() };
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let file = scratch("repair").join("order.yaml");
    std::fs::write(&file, RENAMED_FLOW).unwrap();
    let orders = |app: &FixtureApp| app.events().iter().filter(|e| e.kind == "order_submitted").count();

    // Without --repair: the renamed button stops the flow at its step, clearly.
    let app = FixtureApp::launch(&desktop, &opts).expect("fixture app");
    let r = run(with_model(&desktop, &model, &["flow", "run", file.to_str().unwrap(), "--json", "--timeout", "1500"]));
    r.expect_code(3);
    let v = r.json();
    assert_eq!(v["steps"].as_array().map(Vec::len), Some(2), "{v:#}");
    assert_eq!(v["steps"][1]["output"]["failure"]["kind"], "not_found", "{v:#}");
    assert_eq!(orders(&app), 0);
    app.shutdown().expect("app ends");
    assert!(model.received().is_empty(), "no model without --repair");

    // With --repair --update: the agent (the test model) presses the renamed button once.
    let app = FixtureApp::launch(&desktop, &opts).expect("fixture app");
    let args = ["flow", "run", file.to_str().unwrap(), "--json", "--timeout", "1500", "--repair", "--update"];
    let r = run(with_model(&desktop, &model, &args));
    settle();
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["ok"], true, "{v:#}");
    assert!(v["steps"][1]["repaired"]["model_calls"].as_u64().unwrap_or(0) >= 1, "{v:#}");
    assert_eq!(orders(&app), 1, "one order, by the renamed button: {:?}", app.events());
    assert_eq!(app.count("button_activated", Some("save")), 1, "{:?}", app.events());
    app.shutdown().expect("app ends");
    // Only the repaired step changed in the file.
    let updated = std::fs::read_to_string(&file).unwrap();
    let (old, new): (Vec<&str>, Vec<&str>) = (RENAMED_FLOW.lines().collect(), updated.lines().collect());
    assert_eq!(old[..5], new[..5], "{updated}");
    assert!(updated.contains("name: Place order"), "{updated}");
    assert!(!updated.contains("Submit order"), "{updated}");
    assert_eq!(old[old.len() - 2..], new[new.len() - 2..], "{updated}");

    // The next replay needs no model.
    let calls = model.received().len();
    let app = FixtureApp::launch(&desktop, &opts).expect("fixture app");
    let r = run(with_model(&desktop, &model, &["flow", "run", file.to_str().unwrap(), "--json"]));
    settle();
    r.expect_code(0);
    assert_eq!(orders(&app), 1, "{:?}", app.events());
    assert_eq!(model.received().len(), calls, "no model call");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}

#[test]
fn a_popup_that_blocks_a_replayed_step_is_dismissed_by_the_repair_and_the_order_placed_once() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { popup: true, ..FixtureOptions::default() };
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let file = scratch("repair-popup").join("order.yaml");
    // The flow as recorded; the app pops up "New Event!" at the first press of Submit order.
    std::fs::write(&file, RENAMED_FLOW).unwrap();
    let app = FixtureApp::launch(&desktop, &opts).expect("fixture app");
    let args = ["flow", "run", file.to_str().unwrap(), "--json", "--timeout", "1500", "--repair"];
    let r = run(with_model(&desktop, &model, &args));
    settle();
    r.expect_code(0);
    let v = r.json();
    let repaired: Vec<&serde_json::Value> =
        v["steps"].as_array().unwrap().iter().filter(|s| s.get("repaired").is_some()).collect();
    assert_eq!(repaired.len(), 1, "only the blocked step was repaired: {v:#}");
    assert_eq!(repaired[0]["output"]["blocking"]["name"], "New Event!", "{v:#}");
    let events = app.events();
    assert_eq!(events.iter().filter(|e| e.kind == "order_submitted").count(), 1, "one order: {events:?}");
    assert!(events.iter().any(|e| e.is("dialog_closed", None) && e.str("title") == Some("New Event!")), "{events:?}");
    assert_eq!(app.count("button_activated", Some("save")), 1, "{events:?}");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}
