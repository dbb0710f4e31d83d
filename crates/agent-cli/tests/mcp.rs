//! `agent-cli mcp` driven by a real MCP client, not one written here: the official MCP
//! Python SDK (`mcp`, installed by `cargo xtask setup`), through tests/mcp/client.py, on a
//! headless desktop with the fixture app's faults on. The script checks the protocol; these
//! tests judge the app by its ground-truth log and the processes by /proc.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::system::{PIP, python_packages_dir};
use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};
use deft_harness::{Desktop, python, workspace_root};
use serde_json::Value;

use super::{BIN, Run, isolate, run, scratch};

const SETTLE: Duration = Duration::from_millis(500);

fn script() -> PathBuf {
    workspace_root().join("tests/mcp/client.py")
}

/// The client script, with the SDK on its path; on `desktop` when given, else with no
/// desktop at all.
pub fn client(desktop: Option<&Desktop>, scenario: &str, mode: &str, server_args: &[&str]) -> Command {
    for r in PIP {
        assert!(r.is_met(), "the Python package {} is not installed: run `cargo xtask setup`", r.spec());
    }
    let mut cmd = match desktop {
        Some(d) => d.command(python()),
        None => {
            let mut c = Command::new(python());
            c.env("DISPLAY", ":9999").env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus");
            c
        }
    };
    isolate(&mut cmd, &scratch("mcp-home"));
    cmd.env("PYTHONPATH", python_packages_dir()).arg(script()).args([BIN, scenario, "--mode", mode]);
    if !server_args.is_empty() {
        cmd.arg("--").args(server_args);
    }
    cmd
}

/// Run a scenario to its end: exit 0 (every protocol check passed) and its report.
#[track_caller]
pub fn scenario(desktop: Option<&Desktop>, scenario: &str, mode: &str, server_args: &[&str]) -> Value {
    let r: Run = run(client(desktop, scenario, mode, server_args));
    let head: String = r.stdout.chars().take(4000).collect();
    assert_eq!(r.code, 0, "the client's checks failed:\n{}\nstdout (head): {head}", r.stderr);
    let report: Value = r.json();
    assert!(r.stderr.contains("agent-cli mcp: session ended"), "the server logs to stderr only: {r:#?}");
    report
}

#[test]
fn the_tools_listed_over_mcp_are_the_toolbelt_s() {
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let report = scenario(None, "list", mode, &[]);
        assert_eq!(report["protocol_version"], version, "{report:#}");
        let listed = report["tools"].as_array().unwrap();
        let specs = deft_toolbelt::specs();
        // The toolbelt's tools, then a flow replayed and the agent, each as one tool.
        assert_eq!(listed.len(), specs.len() + 2);
        assert_eq!(listed[specs.len()]["name"], "run_flow");
        assert_eq!(listed[specs.len() + 1]["name"], "run_task");
        for (t, s) in listed.iter().zip(&specs) {
            assert_eq!(t["name"], s.name.as_str());
            assert_eq!(t["title"], s.title);
            assert_eq!(t["description"], s.description);
            assert_eq!(t["inputSchema"], s.input_schema, "{}: the schema went through MCP changed", s.name);
            let a = &t["annotations"];
            assert_eq!(a["readOnlyHint"], s.annotations.read_only, "{}", s.name);
            assert_eq!(a["destructiveHint"], s.annotations.destructive, "{}", s.name);
            assert_eq!(a["idempotentHint"], s.annotations.idempotent, "{}", s.name);
            assert_eq!(a["openWorldHint"], s.annotations.open_world, "{}", s.name);
        }
    }
}

#[test]
fn faults_over_mcp_are_recovered_and_judged_by_the_app_log() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions {
        drop_clicks: 1,
        ignore_keys: true,
        save_delay: Some(Duration::from_millis(2500)),
        ..FixtureOptions::default()
    };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let traces = scratch("mcp-trace");
    let report = scenario(Some(&desktop), "faults", "auto", &["--trace", traces.to_str().unwrap()]);
    std::thread::sleep(SETTLE);

    // The dropped click: recovered, one order.
    assert_eq!(app.count("fault", None), fault_count(&app, "dropped_click") + fault_count(&app, "ignored_key"));
    assert_eq!(fault_count(&app, "dropped_click"), 1, "{:?}", app.events());
    assert_eq!(app.count("order_submitted", None), 1, "one order, no double submit: {:?}", app.events());
    // The field that ignores keys: John, through set-value.
    assert!(fault_count(&app, "ignored_key") > 0, "{:?}", app.events());
    let names: Vec<String> = app
        .events()
        .iter()
        .filter(|e| e.is("text_changed", Some("name")))
        .filter_map(|e| e.str("value").map(String::from))
        .collect();
    assert_eq!(names.last().map(String::as_str), Some("John"), "{names:?}");
    // Save once, its dialog closed by the client.
    assert_eq!(app.count("button_activated", Some("save")), 1, "{:?}", app.events());
    assert!(app.events().iter().any(|e| e.kind == "dialog_closed"), "{:?}", app.events());
    // Nothing else was pressed.
    assert_eq!(app.count("button_activated", None), 2, "submit and save only: {:?}", app.events());

    let calls = report["calls"].as_array().unwrap();
    assert_eq!(report["screenshot"], serde_json::json!([1280, 800]), "{report:#}");
    // OCR read the button's label where the app says the button is.
    let b: Vec<i64> =
        report["ocr"][0]["bounds"].as_array().map(|a| a.iter().filter_map(Value::as_i64).collect()).unwrap_or_default();
    let submit = app.ready().widget("submit");
    let (cx, cy) = (
        b.first().copied().unwrap_or(-1) + b.get(2).copied().unwrap_or(0) / 2,
        b.get(1).copied().unwrap_or(-1) + b.get(3).copied().unwrap_or(0) / 2,
    );
    let inside = |v: i64, lo: i32, len: i32| v >= i64::from(lo) && v < i64::from(lo + len);
    assert!(
        inside(cx, submit.x, submit.w) && inside(cy, submit.y, submit.h),
        "OCR line {b:?} vs the app's button {submit:?}"
    );
    let click = calls.iter().find(|c| c["tool"] == "click").unwrap();
    let methods: Vec<&str> =
        click["structured"]["attempts"].as_array().unwrap().iter().filter_map(|a| a["method"].as_str()).collect();
    assert_eq!(methods, ["coordinate_click", "a11y_action"], "{click:#}");

    // The cancelled wait was dropped by the server: it never finished, though its timeout
    // passed before the session ended.
    let trace = read_trace(&traces);
    let never = |e: &Value| e.to_string().contains("Never shown");
    assert!(trace.iter().any(|e| e.get("wait_started").is_some_and(never)), "the wait started: {trace:?}");
    let started = trace.iter().find(|e| e.get("wait_started").is_some_and(never)).unwrap();
    let op = &started["wait_started"]["op"];
    assert!(
        !trace.iter().any(|e| e.get("wait_finished").is_some_and(|w| &w["op"] == op)),
        "the cancelled wait ran on to its timeout"
    );

    no_server_left(&desktop);
    let status = app.shutdown().expect("the app");
    assert!(status.success(), "the app was alive and exited on SIGTERM: {status:?}");
}

fn fault_count(app: &FixtureApp, kind: &str) -> usize {
    app.events().iter().filter(|e| e.kind == "fault" && e.str("kind") == Some(kind)).count()
}

/// The events of the one trace file in `dir`, unwrapped from their envelopes.
fn read_trace(dir: &Path) -> Vec<Value> {
    // Its frames go in a folder beside it.
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v.get("event").cloned().unwrap_or(v))
        .collect()
}

#[test]
fn a_popup_is_an_error_result_that_says_what_blocks() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { popup: true, ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let report = scenario(Some(&desktop), "popup", "legacy", &[]);
    std::thread::sleep(SETTLE);
    let blocked = &report["calls"][0];
    assert_eq!(blocked["is_error"], true, "{blocked:#}");
    assert_eq!(blocked["structured"]["failure"]["kind"], "blocked", "{blocked:#}");
    // Nothing was ordered while the popup was up; one order after it was dismissed.
    assert_eq!(app.count("order_submitted", None), 1, "{:?}", app.events());
    let events = app.events();
    let titles: Vec<&str> =
        events.iter().filter(|e| e.kind == "dialog_closed").filter_map(|e| e.str("title")).collect();
    assert_eq!(titles, ["New Event!"], "{:?}", app.events());
    // The click on the stale ref pressed nothing: Submit once, nothing else.
    assert_eq!(app.count("button_activated", None), 1, "{:?}", app.events());
    no_server_left(&desktop);
    assert!(app.shutdown().expect("the app").success());
}

#[test]
fn the_server_exits_cleanly_when_its_client_is_killed_mid_call() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default())
        .unwrap_or_else(|e| panic!("fixture app did not start: {e}"));

    // Mid-wait: the server stops at once (the wait only reads).
    let (pid, _) = kill_client_mid_call(&desktop, "hang-wait", "legacy");
    let code = exit_of(pid, Duration::from_secs(2)).unwrap_or_else(|| panic!("the server outlived its client"));
    assert_eq!(code, 0, "the server exits cleanly");

    // Mid-action: the action is not abandoned half sent; it runs to the end of its 3 s
    // window, then the server exits.
    let (pid, killed) = kill_client_mid_call(&desktop, "hang-action", "auto");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(exit_of(pid, Duration::ZERO), None, "the server left its action unfinished");
    let code = exit_of(pid, Duration::from_secs(15)).unwrap_or_else(|| panic!("the server outlived its client"));
    assert_eq!(code, 0, "the server exits cleanly");
    assert!(killed.elapsed() > Duration::from_millis(1500), "the action ran to its end: {:?}", killed.elapsed());
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("hello")), 1, "the click happened once: {:?}", app.events());

    no_server_left(&desktop);
    assert!(app.shutdown().expect("the app").success());
}

/// Start `scenario`, wait until its call is in flight, SIGKILL the client, and return the
/// server's pid and when the client was killed.
fn kill_client_mid_call(desktop: &Desktop, scenario: &str, mode: &str) -> (i32, Instant) {
    let mut cmd = client(Some(desktop), scenario, mode, &[]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::inherit());
    let mut child = cmd.spawn().expect("the client");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().and_then(Result::ok);
    assert_eq!(first.as_deref(), Some("CALLING"), "the client did not get to its call");
    std::thread::sleep(Duration::from_millis(300));
    let servers = servers(desktop);
    assert_eq!(servers.len(), 1, "one server: {servers:?}");
    child.kill().expect("kill the client");
    child.wait().expect("reap the client");
    (servers[0], Instant::now())
}

/// Live `agent-cli` processes of this desktop (zombies are not alive).
fn servers(desktop: &Desktop) -> Vec<i32> {
    let marker = desktop.env().into_iter().find(|(k, _)| k == "DEFT_DESKTOP_ID").map(|(_, v)| v).unwrap();
    let needle = format!("DEFT_DESKTOP_ID={marker}");
    let bin = std::fs::canonicalize(BIN).unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == bin))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|kv| kv == needle.as_bytes()))
        })
        .filter(|pid| stat(*pid).is_some_and(|s| s.first().map(String::as_str) != Some("Z")))
        .collect()
}

/// The fields of /proc/PID/stat after the command name (state first).
fn stat(pid: i32) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = text.rsplit_once(')')?;
    Some(rest.split_whitespace().map(String::from).collect())
}

/// The exit status of `pid` once it has exited (it is our zombie: the harness is a child
/// subreaper, and the killed client was its parent), or `None` if it is still running.
fn exit_of(pid: i32, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        match stat(pid) {
            // Field 52 of stat, `exit_code`, is the status as waitpid reports it.
            Some(f) if f[0] == "Z" => return f.get(49).and_then(|s| s.parse::<i32>().ok()).map(|s| (s >> 8) & 0xff),
            None => panic!("{pid} was reaped by someone else"),
            Some(_) if start.elapsed() >= limit => return None,
            Some(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

#[track_caller]
fn no_server_left(desktop: &Desktop) {
    let start = Instant::now();
    while !servers(desktop).is_empty() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(servers(desktop), Vec::<i32>::new(), "agent-cli mcp processes left running");
}

#[test]
fn run_task_asks_through_the_client_and_the_right_submit_is_pressed_once() {
    // Two "Submit" buttons (Billing, Shipping): the agent asks which. The client answers
    // through elicitation: a server request in the 2025-11-25 era, an input-required
    // result in the 2026-07-28 era; a client without elicitation gets needs_input and
    // answers with a second call.
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    for (scenario_name, mode) in [("task-elicit", "legacy"), ("task-elicit", "auto"), ("task-defer", "auto")] {
        let opts = FixtureOptions { extra_args: vec!["--ambiguous".into()], ..FixtureOptions::default() };
        let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
        let mut cmd = client(Some(&desktop), scenario_name, mode, &[]);
        cmd.env("DEFT_MODEL_PROVIDER", model.provider())
            .env("DEFT_MODEL", MODEL_NAME)
            .env("DEFT_MODEL_BASE_URL", model.base_url())
            .env("ANTHROPIC_API_KEY", "test-model-needs-no-key");
        let r = run(cmd);
        let head: String = r.stdout.chars().take(3000).collect();
        assert_eq!(r.code, 0, "{scenario_name} ({mode}): the client's checks failed:\n{}\n{head}", r.stderr);
        std::thread::sleep(SETTLE);
        let pressed = (
            app.count("button_activated", Some("submit_billing")),
            app.count("button_activated", Some("submit_shipping")),
        );
        assert_eq!(pressed, (1, 0), "{scenario_name} ({mode}): Billing once, Shipping never: {:?}", app.events());
        let typed = app
            .events()
            .iter()
            .rev()
            .find(|e| e.is("text_changed", Some("name")))
            .and_then(|e| e.str("value").map(String::from));
        assert_eq!(typed.as_deref(), Some("Ada"), "{scenario_name} ({mode})");
        assert!(app.shutdown().expect("the app").success());
    }
    no_server_left(&desktop);
}
