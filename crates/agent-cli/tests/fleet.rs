//! A fleet of two desktops behind a real `nats-server`: a task goes to the desktop that runs
//! the app it needs, a task no desktop can run is refused at once, and a worker killed
//! (SIGKILL) mid-task is replaced by another on its desktop that goes on from the record:
//! judged by the fixture's own log, every effect exactly once.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::nats::NatsServer;

use super::desktop::{SETTLE, cli};
use super::{BIN, isolate, scratch};

/// The order, its save (slow: the worker is killed while it waits for it), the dialog closed.
const ORDER: &str = r#"flow: Submit and save an order
steps:
  - type: {target: Name, text: Ada Lovelace}
    expect: value:name=Name="Ada Lovelace"
  - click: Submit order
    expect: text:"Order 1 submitted"
  - click: Save
    expect: text:"Saving"
  - wait_for: {condition: 'title:"Save complete"', timeout_ms: 30000}
  - click: {window: Save complete, name: OK}
    expect: gone:name=OK
"#;

/// Seconds a worker may stop answering before its task goes to another.
const ACK_WAIT: &str = "2";

fn fleet_args(url: &str) -> Vec<String> {
    vec!["--fleet".into(), url.into(), "--ack-wait".into(), ACK_WAIT.into()]
}

fn start_worker(desktop: &Desktop, url: &str, name: &str) -> Child {
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &scratch("fleet-home"));
    cmd.args(["worker", "--pool", "desk", "--name", name]).args(fleet_args(url));
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    cmd.spawn().unwrap_or_else(|e| panic!("cannot start a worker: {e}"))
}

/// `agent-cli fleet ...` as JSON.
fn fleet(desktop: &Desktop, url: &str, extra: &[&str]) -> serde_json::Value {
    let mut args: Vec<String> = ["fleet"].iter().map(|s| s.to_string()).collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(fleet_args(url));
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = cli(desktop, &args);
    r.expect_code(0);
    r.json()
}

/// Waits until `done` holds of the fleet's view, or panics with the last view.
fn until(
    what: &str,
    limit: Duration,
    mut view: impl FnMut() -> serde_json::Value,
    done: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let start = Instant::now();
    loop {
        let v = view();
        if done(&v) {
            return v;
        }
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}; last: {v:#}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_task_goes_to_the_desktop_with_its_app_and_outlives_its_worker_being_killed() {
    let _campaigns = super::beside_campaigns();
    let nats = NatsServer::start();
    let url = nats.url.clone();
    let with_app = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let bare = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { save_delay: Some(Duration::from_secs(6)), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&with_app, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));

    let mut first = start_worker(&with_app, &url, "with-app-1");
    let mut other = start_worker(&bare, &url, "bare");
    until(
        "both workers in the registry",
        Duration::from_secs(60),
        || fleet(&bare, &url, &[]),
        |v| v["workers"].as_array().is_some_and(|w| w.len() == 2),
    );

    // No desktop runs this app: refused at once, with what each desktop lacks.
    let flow = scratch("fleet").join("order.yaml");
    std::fs::write(&flow, ORDER).unwrap();
    let flow = flow.to_str().unwrap();
    let mut submit: Vec<String> =
        ["submit", flow, "--pool", "desk", "--needs", "app=Nowhere"].iter().map(|s| s.to_string()).collect();
    submit.extend(fleet_args(&url));
    let r = cli(&bare, &submit.iter().map(String::as_str).collect::<Vec<_>>());
    r.expect_code(3);
    assert!(
        r.stderr.contains("no matching worker in pool \"desk\"")
            && r.stderr.contains("bare lacks Nowhere running (it runs no application"),
        "{r:#?}"
    );

    // The order needs the fixture: only the first desktop runs it.
    let mut submit: Vec<String> = ["submit", flow, "--pool", "desk", "--needs", "app=deft-fixture", "--id", "order1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    submit.extend(fleet_args(&url));
    let r = cli(&bare, &submit.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(r.code, 0, "{r:#?}\nthe registry: {:#}", fleet(&bare, &url, &[])["workers"]);

    // Killed while it waits for the save (step 4 in flight, steps 1-3 done).
    let view = || fleet(&bare, &url, &["result", "order1"]);
    until("the worker waiting for the save", Duration::from_secs(60), view, |v| {
        v["in_flight"] == 3 && v["done"].as_array().is_some_and(|d| d.len() == 3)
    });
    first.kill().unwrap();
    first.wait().unwrap();
    let mut second = start_worker(&with_app, &url, "with-app-2");

    let record =
        until("the task done", Duration::from_secs(90), view, |v| v["state"] == "done" || v["state"] == "failed");
    std::thread::sleep(SETTLE);
    let events = app.events();
    assert_eq!(record["state"], "done", "{record:#}\n{events:?}");
    let workers: Vec<&str> =
        record["attempts"].as_array().unwrap().iter().filter_map(|a| a["worker"].as_str()).collect();
    assert_eq!(workers, ["with-app-1", "with-app-2"], "{record:#}");
    assert!(record["attempts"][0]["ended"].as_str().unwrap().contains("stopped answering"), "{record:#}");
    let step4 = record["done"].as_array().unwrap().iter().find(|d| d["step"] == 3).unwrap();
    assert_eq!(step4["attempt"], 2, "the wait went on in the second attempt: {record:#}");
    // The truth is the app's log: each effect once, none twice.
    assert_eq!(app.count("order_submitted", None), 1, "{events:?}");
    assert_eq!(app.count("save_started", None), 1, "{events:?}");
    assert_eq!(app.count("save_complete", None), 1, "{events:?}");
    assert_eq!(app.count("dialog_closed", None), 1, "{events:?}");
    let typed: Vec<_> =
        events.iter().filter(|e| e.is("text_changed", Some("name"))).filter_map(|e| e.str("value")).collect();
    assert_eq!(typed.last().copied(), Some("Ada Lovelace"), "{events:?}");
    app.check_alive(&with_app, Duration::from_secs(5)).expect("the app still answers");

    for w in [&mut second, &mut other] {
        let _ = w.kill();
        let _ = w.wait();
    }
}
