//! Flows replayed on the fixture app with faults on (a dropped click, a field that ignores
//! keys, a slow save), judged by the app's own log: every step's effect once, none twice; a
//! step that fails stops the flow there, and nothing after it runs; a bad flow file is
//! refused with its line before anything touches the desktop.

use std::path::{Path, PathBuf};
use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};

use super::desktop::{SETTLE, cli};
use super::scratch;

const ORDER: &str = r#"flow: Submit an order
vars:
  customer: Nobody
steps:
  - type: {target: Name, text: "{{customer}}"}
  - name: submit
    click: Submit order
    expect: text:"Order 1 submitted"
  - click: Save
  - wait_for: {condition: 'title:"Save complete"', timeout_ms: 10000}
  - click: {window: Save complete, name: OK}
"#;

pub(crate) fn write(name: &str, text: &str) -> PathBuf {
    let path = scratch("flows").join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn faulty(desktop: &Desktop) -> FixtureApp {
    let opts = FixtureOptions {
        drop_clicks: 1,
        ignore_keys: true,
        save_delay: Some(Duration::from_millis(1500)),
        ..FixtureOptions::default()
    };
    FixtureApp::launch(desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"))
}

fn names_typed(app: &FixtureApp) -> Vec<String> {
    let events = app.events();
    let changed = events.iter().filter(|e| e.is("text_changed", Some("name")));
    changed.filter_map(|e| e.str("value").map(String::from)).collect()
}

fn run_flow(desktop: &Desktop, file: &Path, extra: &[&str]) -> super::Run {
    cli(desktop, &[&["flow", "run", file.to_str().unwrap(), "--json"], extra].concat())
}

#[test]
fn a_flow_replays_through_faults_with_every_effect_once() {
    let _campaigns = super::beside_campaigns();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = faulty(&desktop);
    let file = write("order.yaml", ORDER);
    let r = run_flow(&desktop, &file, &["--var", "customer=Ada Lovelace"]);
    std::thread::sleep(SETTLE);
    let events = app.events();
    r.expect_code(0);
    let report = r.json();
    assert_eq!(report["ok"], true, "{report:#}");
    assert_eq!(report["steps"].as_array().map(Vec::len), Some(5), "{report:#}");
    assert_eq!(report["steps"][1]["line"], 6, "each step says its line: {report:#}");
    // The truth is the app's log: the name the caller gave (through set-value: the field
    // ignores keys), one order through the dropped first press, one save, its dialog closed.
    assert_eq!(names_typed(&app).last().map(String::as_str), Some("Ada Lovelace"), "{events:?}");
    let faults = |kind: &str| events.iter().filter(|e| e.kind == "fault" && e.str("kind") == Some(kind)).count();
    assert_eq!(faults("dropped_click"), 1, "{events:?}");
    assert!(faults("ignored_key") > 0, "{events:?}");
    assert_eq!(app.count("order_submitted", None), 1, "one order, no double submit: {events:?}");
    assert_eq!(app.count("button_activated", Some("save")), 1, "one save: {events:?}");
    assert_eq!(report["steps"][1]["output"]["retried"], true, "the dropped press was retried: {report:#}");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}

#[test]
fn a_step_that_fails_stops_the_flow_and_nothing_after_it_runs() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default()).expect("fixture app");
    let flow = "\
steps:
  - click: Hello
  - name: the renamed button
    click: {name: Send order, role: push_button}
  - click: Submit order
";
    let file = write("renamed.yaml", flow);
    let r = run_flow(&desktop, &file, &["--timeout", "1500"]);
    std::thread::sleep(SETTLE);
    let report = r.json();
    assert_eq!(r.code, 3, "not found, as the click verb says it: {report:#}");
    assert_eq!(report["ok"], false);
    assert_eq!(report["steps_total"], 3);
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "the third step never ran: {report:#}");
    assert_eq!((steps[0]["status"].as_str(), steps[1]["status"].as_str()), (Some("done"), Some("failed")));
    assert_eq!(steps[1]["line"], 3);
    assert_eq!(steps[1]["name"], "the renamed button");
    let observed = steps[1]["output"]["failure"]["kind"].as_str();
    assert_eq!(observed, Some("not_found"), "{report:#}");
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{:?}", app.events());
    assert_eq!(app.count("order_submitted", None), 0, "nothing after the failed step: {:?}", app.events());
    // People read where it stopped.
    let human = cli(&desktop, &["flow", "run", file.to_str().unwrap(), "--timeout", "1500"]);
    assert!(human.stdout.contains("stopped at step 2 of 3 (line 3)"), "{human:#?}");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}

#[test]
fn a_bad_flow_is_refused_with_its_line_before_anything_runs() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default()).expect("fixture app");
    let before = app.events().len();
    let cases = [
        (
            "typo.yaml",
            "steps:\n  - click: Hello\n  - clik: Submit order\n",
            "line 3 (step 2): `clik` is neither a tool",
        ),
        ("var.yaml", "steps:\n  - click: Hello\n  - type: {target: Name, text: \"{{who}}\"}\n", "--var who=VALUE"),
        ("yaml.yaml", "steps:\n  - click: {name: Hello\n", "not valid YAML"),
        (
            "type.yaml",
            "steps:\n  - click: Hello\n  - scroll: {target: Name, direction: down, amount: lots}\n",
            "line 3 (step 2): bad",
        ),
    ];
    for (name, text, says) in cases {
        let file = write(name, text);
        let r = cli(&desktop, &["flow", "run", file.to_str().unwrap()]);
        assert_eq!(r.code, 2, "{name}: {r:#?}");
        assert!(r.stderr.contains(says), "{name}: {}", r.stderr);
        assert!(r.stderr.contains(file.to_str().unwrap()), "the file is named: {}", r.stderr);
        let checked = cli(&desktop, &["flow", "check", file.to_str().unwrap()]);
        assert_eq!((checked.code, checked.stderr.contains(says)), (2, true), "{name}: {checked:#?}");
    }
    let ok = cli(&desktop, &["flow", "check", write("order.yaml", ORDER).to_str().unwrap()]);
    ok.expect_code(0);
    assert!(ok.stdout.contains("is a flow of 5 steps"), "{ok:#?}");
    std::thread::sleep(SETTLE);
    assert_eq!(app.events().len(), before, "nothing ran: {:?}", &app.events()[before..]);
}

/// `agent-cli flow record` running on a desktop, ready once it said it records.
pub(crate) struct Recording {
    child: std::process::Child,
    said: std::sync::mpsc::Receiver<String>,
    pub lines: Vec<String>,
}

impl Recording {
    pub(crate) fn start(desktop: &Desktop, file: &Path, app: &str) -> Recording {
        let mut cmd = desktop.command(super::BIN);
        super::isolate(&mut cmd, &scratch("desktop-home"));
        cmd.args(["flow", "record", file.to_str().unwrap(), "--app", app]);
        Recording::spawn(cmd)
    }

    /// `flow record` as `cmd` runs it, once it says it records.
    pub(crate) fn spawn(mut cmd: std::process::Command) -> Recording {
        cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().expect("flow record starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, said) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut r = Recording { child, said, lines: Vec::new() };
        while !r.lines.iter().any(|l| l.starts_with("recording: do the task")) {
            let line = r.said.recv_timeout(Duration::from_secs(30));
            r.lines.push(line.unwrap_or_else(|_| panic!("flow record never said it records: {:?}", r.lines)));
        }
        r
    }

    /// Ctrl+C, as a person ends it; it must end cleanly. What it printed on stdout.
    pub(crate) fn stop(mut self) -> String {
        let _ = std::process::Command::new("kill").args(["-INT", &self.child.id().to_string()]).status();
        let out = self.child.wait_with_output().expect("flow record ends");
        self.lines.extend(self.said.try_iter());
        assert!(out.status.success(), "flow record: {out:?} {:#?}", self.lines);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// xdotool on `desktop`: a person's input as real X events (XTEST), not Deft's.
pub(crate) fn xdotool(desktop: &Desktop, args: &[&str]) {
    let out = desktop.command("xdotool").args(args).output().expect("xdotool runs");
    assert!(out.status.success(), "xdotool {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A press as a person makes it: the pointer there, the button down a moment, up.
pub(crate) fn press_at(desktop: &Desktop, (x, y): (i32, i32)) {
    let (x, y) = (x.to_string(), y.to_string());
    xdotool(desktop, &["mousemove", "--sync", &x, &y]);
    xdotool(desktop, &["mousedown", "1", "sleep", "0.15", "mouseup", "1"]);
}

/// The centre of the element `find` gives for `args`, once it has a place on screen (a
/// page under load is in the tree a moment before it is laid out: Firefox's field read
/// without bounds), up to 10 s.
pub(crate) fn centre_of(desktop: &Desktop, args: &[&str]) -> (i32, i32) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let r = cli(desktop, &[&["find", "--json"], args].concat());
        let b = r.json()["matches"][0]["bounds"].clone();
        let n = |i: usize| b[i].as_i64().map(|v| v as i32);
        if let (Some(x), Some(y), Some(w), Some(h)) = (n(0), n(1), n(2), n(3)) {
            return (x + w / 2, y + h / 2);
        }
        assert!(std::time::Instant::now() < until, "{args:?} has no place on screen: {r:#?}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// The events a task leaves in the app's log, in order, without the faults Deft met.
pub(crate) fn task_events(app: &FixtureApp) -> Vec<String> {
    let events = app.events();
    let mut out: Vec<String> = Vec::new();
    for e in &events {
        let what = match e.kind.as_str() {
            "order_submitted" | "dialog_closed" => e.kind.clone(),
            "button_activated" => format!("pressed {}", e.widget.as_deref().unwrap_or("?")),
            "checkbox_toggled" => format!("toggled {}", e.widget.as_deref().unwrap_or("?")),
            _ => continue,
        };
        out.push(what);
    }
    out
}

#[test]
fn a_flow_recorded_from_a_person_s_input_replays_through_faults_with_the_same_log() {
    let _campaigns = super::beside_campaigns();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default()).expect("fixture app");
    let file = scratch("flows").join("recorded.yaml");
    let _ = std::fs::remove_file(&file);
    let recorder = Recording::start(&desktop, &file, "deft-fixture");
    // The person: into Name, types, submits, saves, closes the dialog. Each a moment apart,
    // as a person's are.
    let pause = || std::thread::sleep(Duration::from_millis(1200));
    press_at(&desktop, app.ready().widget("name").center());
    pause();
    xdotool(&desktop, &["type", "--delay", "60", "Ada Lovelace"]);
    pause();
    press_at(&desktop, app.ready().widget("password").center());
    pause();
    xdotool(&desktop, &["type", "--delay", "60", "hunter2"]);
    pause();
    press_at(&desktop, app.ready().widget("submit").center());
    pause();
    press_at(&desktop, app.ready().widget("save").center());
    app.wait_for(|e| e.kind == "dialog_ready", Duration::from_secs(10)).expect("Save pressed");
    std::thread::sleep(Duration::from_millis(2000));
    let ok = centre_of(&desktop, &["--window", "Save complete", "--name", "OK"]);
    press_at(&desktop, ok);
    pause();
    recorder.stop();
    let recorded = task_events(&app);
    assert_eq!(
        recorded,
        ["pressed submit", "order_submitted", "pressed save", "dialog_closed"].map(String::from),
        "what the person did, by the app's log: {:?}",
        app.events()
    );
    let text = std::fs::read_to_string(&file).expect("the flow was written");
    assert!(text.contains("text: Ada Lovelace"), "the typed text: {text}");
    assert!(!text.contains("hunter2"), "a password is never written: {text}");
    assert!(text.contains("text: '{{secret}}'"), "the password's place is a variable: {text}");
    assert!(text.contains("name: Submit order"), "the button by its name: {text}");
    assert!(text.contains("expect: text:\"Order 1 submitted\""), "what the press changed: {text}");
    assert!(text.contains("expect: title:\"Save complete\""), "the dialog Save opened: {text}");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
    app.shutdown().expect("the recorded app ends");

    // Replayed on a fresh app that drops the first press, ignores keys and saves slowly.
    let again = faulty(&desktop);
    let r = run_flow(&desktop, &file, &[]);
    assert_eq!(r.code, 2, "the password is asked for, nothing run: {r:#?}");
    assert!(r.stderr.contains("--var secret=VALUE"), "{}", r.stderr);
    let r = run_flow(&desktop, &file, &["--var", "secret=hunter2"]);
    std::thread::sleep(SETTLE);
    assert_eq!(r.code, 0, "{text}\n{r:#?}");
    assert!(!r.stdout.contains("hunter2"), "the password is in no output: {}", r.stdout);
    assert_eq!(task_events(&again), recorded, "the same effects, once each: {:?}", again.events());
    assert_eq!(names_typed(&again).last().map(String::as_str), Some("Ada Lovelace"), "{:?}", again.events());
    again.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}

#[test]
fn a_mousepad_task_recorded_from_a_person_replays_on_a_fresh_mousepad_and_saves_the_same_text() {
    use deft_harness::apps::CorpusApp;
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let Some(mousepad) = super::real_apps::start(&desktop, CorpusApp::Mousepad) else { return };
    let dir = scratch("flows-mousepad");
    let (by_hand, by_flow) = (dir.join("by-hand.txt"), dir.join("by-flow.txt"));
    let file = dir.join("note.yaml");
    let _ = std::fs::remove_file(&file);
    let recorder = Recording::start(&desktop, &file, "mousepad");
    // The person: into the text, types, saves with ctrl+s, names the file, Return.
    let pid = mousepad.pid().to_string();
    let window = desktop.command("xdotool").args(["search", "--onlyvisible", "--pid", &pid]).output().unwrap();
    let window = String::from_utf8_lossy(&window.stdout).lines().next().expect("Mousepad's window").to_string();
    let geometry = desktop.command("xdotool").args(["getwindowgeometry", "--shell", &window]).output().unwrap();
    let g: std::collections::HashMap<String, i32> = String::from_utf8_lossy(&geometry.stdout)
        .lines()
        .filter_map(|l| l.split_once('=').and_then(|(k, v)| Some((k.to_string(), v.parse().ok()?))))
        .collect();
    press_at(&desktop, (g["X"] + g["WIDTH"] / 2, g["Y"] + g["HEIGHT"] / 2));
    let pause = |ms| std::thread::sleep(Duration::from_millis(ms));
    pause(1200);
    xdotool(&desktop, &["type", "--delay", "60", "hello flows"]);
    pause(1200);
    xdotool(&desktop, &["key", "ctrl+s"]);
    pause(2500);
    xdotool(&desktop, &["type", "--delay", "40", by_hand.to_str().unwrap()]);
    pause(1000);
    xdotool(&desktop, &["key", "Return"]);
    pause(2500);
    recorder.stop();
    let written = super::real_apps::saved(&by_hand, "Mousepad");
    assert_eq!(written, b"hello flows", "what the person saved");
    let text = std::fs::read_to_string(&file).expect("the flow was written");
    drop(mousepad);

    // A fresh Mousepad, the same flow saving under another name.
    let Some(mut again) = super::real_apps::start(&desktop, CorpusApp::Mousepad) else { return };
    let flow = write("mousepad.yaml", &text.replace(by_hand.to_str().unwrap(), by_flow.to_str().unwrap()));
    let r = cli(&desktop, &["flow", "run", flow.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{text}\n{r:#?}");
    assert_eq!(super::real_apps::saved(&by_flow, "Mousepad"), written, "the replay saved the same text: {text}");
    again.check_responsive(&desktop, Duration::from_secs(5)).expect("Mousepad still answers");
}
