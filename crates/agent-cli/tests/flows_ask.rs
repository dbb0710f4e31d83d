//! `on_fail: ask`: a step that fails is put to the person, whose answer the flow carries out
//! without ever sending an input that could double one already made. Judged by the fixture
//! app's log: a person's own press (xdotool: real X events, not Deft's) counted once, a
//! skipped step's target never touched, a step resumed with `--from` not sent again.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};

use super::desktop::{SETTLE, cli};
use super::{BIN, Run, isolate, scratch};

/// The button the flow names was renamed in this app ("Place order"): the step fails and
/// asks; the last step names a button no version has, and asks too.
const ORDER: &str = "\
flow: Order
steps:
  - type: {target: Name, text: Ada}
  - name: submit
    click: Submit order
    expect: text:\"Order 1 submitted\"
    on_fail: ask
  - click: Hello
  - click: Print receipt
    on_fail: ask
";

fn renamed(desktop: &Desktop) -> FixtureApp {
    let opts = FixtureOptions { extra_args: vec!["--renamed".into()], ..FixtureOptions::default() };
    FixtureApp::launch(desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"))
}

fn flow_file(text: &str) -> PathBuf {
    let path = scratch("flows-ask").join("order.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A person pressing the renamed button by hand: real X events.
fn press_by_hand(desktop: &Desktop, app: &FixtureApp) {
    let (x, y) = app.ready().widget("submit").center();
    let (x, y) = (x.to_string(), y.to_string());
    let xdotool = |args: &[&str]| {
        let out = desktop.command("xdotool").args(args).output().expect("xdotool runs");
        assert!(out.status.success(), "xdotool {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    xdotool(&["mousemove", "--sync", &x, &y]);
    xdotool(&["mousedown", "1", "sleep", "0.15", "mouseup", "1"]);
    app.wait_for(|e| e.kind == "order_submitted", Duration::from_secs(10)).expect("the person's press submitted");
}

/// `flow run` answering each question on the terminal as `answer` says, given the number
/// of the question (from 0); `answer` may act on the desktop first, as a person would.
fn run_answering(desktop: &Desktop, args: &[&str], mut answer: impl FnMut(usize) -> String) -> Run {
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &scratch("flows-ask-home"));
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("agent-cli starts");
    let mut stdin = child.stdin.take().unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut err = String::new();
    let mut asked = 0;
    for line in stderr.lines() {
        let Ok(line) = line else { break };
        // The answers a question takes end it, just before its prompt.
        let is_question = line.trim_start().starts_with("(retry / done / skip / stop");
        err.push_str(&line);
        err.push('\n');
        if is_question {
            let words = answer(asked);
            asked += 1;
            writeln!(stdin, "{words}").expect("the answer is written");
        }
    }
    drop(stdin);
    let out = child.wait_with_output().expect("agent-cli ends");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: err,
    }
}

#[test]
fn a_failed_step_is_put_to_the_person_and_done_by_hand_is_checked_not_sent() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = renamed(&desktop);
    let file = flow_file(ORDER);
    let path = file.to_str().unwrap();
    let args = ["flow", "run", path, "--json", "--ask", "terminal", "--timeout", "1500"];
    let r = run_answering(&desktop, &args, |n| match n {
        // Not an answer: asked again. Then `done` before the person did it: checked, not
        // there, asked again. Then the person presses the renamed button and says done.
        0 => "maybe".into(),
        1 => "done".into(),
        2 => {
            press_by_hand(&desktop, &app);
            "done".into()
        }
        // The last step names a button no version has: go on without it.
        3 => "skip".into(),
        _ => "stop".into(),
    });
    std::thread::sleep(SETTLE);
    let events = app.events();
    let report = r.json();
    assert_eq!(r.code, 0, "{report:#}\n{}", r.stderr);
    assert_eq!((report["ok"].as_bool(), report["skipped"].as_u64()), (Some(true), Some(1)), "{report:#}");
    let step = &report["steps"][1];
    assert_eq!(step["status"], "done", "{report:#}");
    assert_eq!(step["person"]["answers"], serde_json::json!(["maybe", "done", "done"]), "{report:#}");
    assert_eq!(step["person"]["choice"], "done");
    assert!(step["person"]["failure"].as_str().unwrap_or("").contains("Submit order"), "{report:#}");
    assert!(r.stderr.contains("`maybe` is not an answer here"), "{}", r.stderr);
    assert!(r.stderr.contains("After `done`, the step still failed"), "{}", r.stderr);
    let last = &report["steps"][3];
    assert_eq!((last["status"].as_str(), last["person"]["choice"].as_str()), (Some("skipped"), Some("skip")));
    // The truth: one order, the person's (Deft never pressed the button); Hello once.
    assert_eq!(app.count("order_submitted", None), 1, "{events:?}");
    assert_eq!(app.count("button_activated", Some("submit")), 1, "only the person's press: {events:?}");
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{events:?}");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}

#[test]
fn a_deferred_question_stops_the_flow_and_from_resumes_it_without_sending_what_is_done() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = renamed(&desktop);
    let file = flow_file(ORDER);
    let path = file.to_str().unwrap();
    let r = cli(&desktop, &["flow", "run", path, "--json", "--ask", "defer", "--timeout", "1500"]);
    let report = r.json();
    assert_eq!(r.code, 8, "needs_input, as a run's deferred question: {report:#}");
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "nothing after the step that asks: {report:#}");
    let person = &steps[1]["person"];
    assert!(person["question"].as_str().unwrap_or("").starts_with("Step 2 of 4 of the flow \"Order\" (submit)"));
    assert!(person["unanswered"].as_str().unwrap_or("").contains("--from 2"), "{report:#}");
    assert_eq!(app.count("button_activated", Some("hello")), 0, "{:?}", app.events());

    // The person places the order by hand, then resumes from the step that asked: it is
    // looked for, found, and not sent; the flow goes on.
    press_by_hand(&desktop, &app);
    let r = run_answering(
        &desktop,
        &["flow", "run", path, "--json", "--ask", "terminal", "--timeout", "1500", "--from", "2"],
        |_| "skip".into(),
    );
    std::thread::sleep(SETTLE);
    let events = app.events();
    let report = r.json();
    assert_eq!(r.code, 0, "{report:#}\n{}", r.stderr);
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.first().map(|s| s["step"].as_u64()), Some(Some(2)), "from step 2: {report:#}");
    assert_eq!(steps[0]["status"], "done");
    assert_eq!(steps[0]["tool"], "wait_for", "step 2 was looked for, not sent: {report:#}");
    let typed = events.iter().filter(|e| e.is("text_changed", Some("name"))).count();
    assert!(typed > 0 && app.count("order_submitted", None) == 1, "{events:?}");
    assert_eq!(app.count("button_activated", Some("submit")), 1, "only the person's press: {events:?}");
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{events:?}");
    let before_resume = events.iter().position(|e| e.kind == "order_submitted").unwrap();
    assert!(
        !events[before_resume..].iter().any(|e| e.is("text_changed", Some("name"))),
        "step 1 was not run again: {events:?}"
    );
    // Started at step 3 (a click with no expect): whether it happened cannot be looked
    // for, so it is not sent again; the report says what to do.
    let r = cli(&desktop, &["flow", "run", path, "--from", "3", "--json"]);
    assert_eq!(r.code, 2, "{r:#?}");
    let refused = r.json()["steps"][0]["error"]["message"].as_str().unwrap_or_default().to_string();
    assert!(refused.contains("it is not sent again") && refused.contains("--from 4"), "{r:#?}");
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("hello")), 1, "Hello not pressed again: {:?}", app.events());
    let r = cli(&desktop, &["flow", "run", path, "--from", "5"]);
    assert_eq!(r.code, 2, "{r:#?}");
    assert!(r.stderr.contains("--from 5: the flow has 4 steps"), "{}", r.stderr);
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}
