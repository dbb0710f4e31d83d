//! A fleet of two desktops behind a real `nats-server`: a task goes to the desktop that runs
//! the app it needs, a task no desktop can run is refused at once, and a worker killed
//! (SIGKILL) mid-task is replaced by another on its desktop that goes on from the record:
//! judged by the fixture's own log, every effect exactly once.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::nats::NatsServer;
use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};

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
    spawn_worker(desktop, url, name, None)
}

/// `agent-cli worker` whose agent thinks with `model` (the test model).
fn start_agent_worker(desktop: &Desktop, url: &str, name: &str, model: &TestModel) -> Child {
    spawn_worker(desktop, url, name, Some(model))
}

fn spawn_worker(desktop: &Desktop, url: &str, name: &str, model: Option<&TestModel>) -> Child {
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &scratch("fleet-home"));
    let dir = scratch("fleet-workers").join(name);
    let _ = std::fs::create_dir_all(&dir);
    if let Some(model) = model {
        cmd.env("DEFT_MODEL_PROVIDER", model.provider())
            .env("DEFT_MODEL", MODEL_NAME)
            .env("DEFT_MODEL_BASE_URL", model.base_url())
            .env("ANTHROPIC_API_KEY", "test-model-needs-no-key");
    }
    cmd.args(["worker", "--pool", "desk", "--name", name]).args(fleet_args(url));
    cmd.arg("--trace").arg(&dir);
    let log = std::fs::File::create(dir.join("stderr.txt")).unwrap();
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
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
    // `fleet result` of a task that ended without being done exits 1, with its record.
    assert!(r.code == 0 || (r.code == 1 && extra.first() == Some(&"result")), "{r:#?}");
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

/// `agent-cli submit` of the order flow to pool `desk`.
fn submit(desktop: &Desktop, url: &str, extra: &[&str]) -> super::Run {
    let flow = scratch("fleet").join("order.yaml");
    std::fs::write(&flow, ORDER).unwrap();
    let mut args: Vec<String> =
        ["submit", flow.to_str().unwrap(), "--pool", "desk"].iter().map(|s| s.to_string()).collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(fleet_args(url));
    cli(desktop, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Until the task's worker waits for the save: step 4 in flight, steps 1-3 done.
fn until_waiting_for_the_save(view: impl FnMut() -> serde_json::Value) {
    until("the worker waiting for the save", Duration::from_secs(60), view, |v| {
        v["in_flight"] == 3 && v["done"].as_array().is_some_and(|d| d.len() == 3)
    });
}

fn order_events(app: &FixtureApp) -> [usize; 4] {
    ["order_submitted", "save_started", "save_complete", "dialog_closed"].map(|kind| app.count(kind, None))
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
    let r = submit(&bare, &url, &["--needs", "app=Nowhere"]);
    r.expect_code(3);
    assert!(
        r.stderr.contains("no matching worker in pool \"desk\"")
            && r.stderr.contains("bare lacks Nowhere running (it runs no application"),
        "{r:#?}"
    );

    // The order needs the fixture: only the first desktop runs it.
    let r = submit(&bare, &url, &["--needs", "app=deft-fixture", "--id", "order1"]);
    assert_eq!(r.code, 0, "{r:#?}\nthe registry: {:#}", fleet(&bare, &url, &[])["workers"]);

    // Killed while it waits for the save (step 4 in flight, steps 1-3 done).
    let view = || fleet(&bare, &url, &["result", "order1"]);
    until_waiting_for_the_save(view);
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
    assert_eq!(order_events(&app), [1, 1, 1, 1], "orders, saves started and done, dialogs closed: {events:?}");
    let typed: Vec<_> =
        events.iter().filter(|e| e.is("text_changed", Some("name"))).filter_map(|e| e.str("value")).collect();
    assert_eq!(typed.last().copied(), Some("Ada Lovelace"), "{events:?}");
    app.check_alive(&with_app, Duration::from_secs(5)).expect("the app still answers");

    // The second attempt's trace was kept with the record (the first's worker died: none),
    // and renders as any trace does.
    let dir = scratch("fleet-traces").join("order1");
    let _ = std::fs::remove_dir_all(&dir);
    let r = cli(&bare, &["fleet", "result", "order1", "--trace", dir.to_str().unwrap(), "--fleet", url.as_str()]);
    r.expect_code(0);
    let mut files: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    files.sort();
    assert_eq!(files, ["frames", "trace-order1-attempt2.jsonl"], "{r:#?}");
    let frames = std::fs::read_dir(dir.join("frames")).unwrap().count();
    assert!(frames >= 1, "the frames the trace refers to came with it: {r:#?}");
    let page = dir.join("report.html");
    let r = cli(&bare, &["report", dir.to_str().unwrap(), "-o", page.to_str().unwrap(), "--json"]);
    r.expect_code(0);
    let summary = r.json();
    // Attempt 2 waited for the save (the step in flight, looked for again) and clicked OK.
    assert_eq!((summary["actions"].as_u64(), summary["verified"].as_u64()), (Some(1), Some(1)), "{summary:#}");
    assert!(summary["waits_met"].as_u64().is_some_and(|w| w >= 1), "{summary:#}");
    assert!(summary["frames"].as_u64().is_some_and(|f| f >= 1), "{summary:#}");

    for w in [&mut second, &mut other] {
        let _ = w.kill();
        let _ = w.wait();
    }
}

#[test]
fn a_task_whose_desktop_died_is_done_on_another_from_the_first_step_not_seen_there() {
    let _campaigns = super::beside_campaigns();
    let nats = NatsServer::start();
    let url = nats.url.clone();
    let (one, two) = (Desktop::start(), Desktop::start());
    let (one, two) = (one.expect("desktop one starts"), two.expect("desktop two starts"));
    let opts = FixtureOptions { save_delay: Some(Duration::from_secs(6)), ..FixtureOptions::default() };
    let app_one = FixtureApp::launch(&one, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let app_two = FixtureApp::launch(&two, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));

    let mut first = start_worker(&one, &url, "one");
    until(
        "the worker in the registry",
        Duration::from_secs(60),
        || fleet(&two, &url, &[]),
        |v| v["workers"].as_array().is_some_and(|w| w.len() == 1),
    );
    submit(&two, &url, &["--id", "order2", "--redo-elsewhere"]).expect_code(0);
    let view = || fleet(&two, &url, &["result", "order2"]);
    until_waiting_for_the_save(view);
    // Desktop one's worker dies; desktop two takes the task. Nothing desktop one did shows
    // on desktop two, so every step is desktop two's to do, once.
    let mut second = start_worker(&two, &url, "two");
    first.kill().unwrap();
    first.wait().unwrap();

    let record =
        until("the task done", Duration::from_secs(90), view, |v| v["state"] == "done" || v["state"] == "failed");
    std::thread::sleep(SETTLE);
    assert_eq!(record["state"], "done", "{record:#}\n{:?}", app_two.events());
    let workers: Vec<&str> =
        record["attempts"].as_array().unwrap().iter().filter_map(|a| a["worker"].as_str()).collect();
    assert_eq!(workers, ["one", "two"], "{record:#}");
    let by_two = record["done"].as_array().unwrap().iter().filter(|d| d["attempt"] == 2).count();
    assert_eq!(by_two, 5, "every step done again on desktop two: {record:#}");
    // Each app's own log: desktop one got as far as the save (its dialog still open),
    // desktop two did the whole order once.
    assert_eq!(order_events(&app_one), [1, 1, 1, 0], "{:?}", app_one.events());
    assert_eq!(order_events(&app_two), [1, 1, 1, 1], "{:?}", app_two.events());
    app_one.check_alive(&one, Duration::from_secs(5)).expect("app one still answers");
    app_two.check_alive(&two, Duration::from_secs(5)).expect("app two still answers");
    let _ = second.kill();
    let _ = second.wait();
}

#[test]
fn a_cancelled_task_never_runs_and_a_running_one_stops_after_its_step_in_hand() {
    let _campaigns = super::beside_campaigns();
    let nats = NatsServer::start();
    let url = nats.url.clone();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { save_delay: Some(Duration::from_secs(6)), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));

    // An address that is no NATS server's is bad input, said before anything is tried.
    let r = cli(&desktop, &["fleet", "--fleet", "http://localhost:4222"]);
    r.expect_code(2);
    assert!(r.stderr.contains("nats://HOST:4222"), "{r:#?}");

    let mut worker = start_worker(&desktop, &url, "w");
    until(
        "the worker in the registry",
        Duration::from_secs(60),
        || fleet(&desktop, &url, &[]),
        |v| v["workers"].as_array().is_some_and(|w| w.len() == 1),
    );
    submit(&desktop, &url, &["--id", "first"]).expect_code(0);
    let view = || fleet(&desktop, &url, &["result", "first"]);
    until_waiting_for_the_save(view);

    // Queued behind it: waiting for it gives up in time, and says how to go on.
    let r = submit(&desktop, &url, &["--id", "second", "--wait", "--timeout", "1"]);
    r.expect_code(6);
    assert!(r.stderr.contains("task second is still queued") && r.stderr.contains("fleet cancel second"), "{r:#?}");
    let cancel = |id: &str| {
        let args = ["fleet", "cancel", id, "--why", "wrong customer", "--fleet", url.as_str(), "--json"];
        cli(&desktop, &args)
    };
    let r = cancel("second");
    r.expect_code(0);
    assert_eq!(r.json()["state"], "cancelled", "{r:#?}");
    // Running: the wait for the save (step 4) is in hand; step 5 must never come.
    cancel("first").expect_code(0);
    let record = until("the worker stopped", Duration::from_secs(60), view, |v| {
        v["attempts"][0]["ended"].as_str().is_some_and(|e| e.contains("cancelled"))
    });
    assert_eq!(record["state"], "cancelled", "{record:#}");
    assert!(record["result"]["summary"].as_str().unwrap().contains("while step 4 ran: wrong customer"), "{record:#}");
    // The worker finishes the step in hand, then stops there and acks.
    until(
        "the worker idle",
        Duration::from_secs(60),
        || fleet(&desktop, &url, &[]),
        |v| v["workers"][0]["running"].is_null(),
    );
    std::thread::sleep(SETTLE);
    assert_eq!(order_events(&app), [1, 1, 1, 0], "one order, its save, no dialog closed: {:?}", app.events());
    // Ended: nothing to cancel; unknown: not found.
    cancel("first").expect_code(0);
    let r = cli(&desktop, &["fleet", "cancel", "nope", "--fleet", url.as_str()]);
    r.expect_code(3);
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
    let _ = worker.kill();
    let _ = worker.wait();
}

#[test]
fn a_goal_is_thought_through_by_a_worker_s_agent_and_resumed_from_its_record_once() {
    let _campaigns = super::beside_campaigns();
    let nats = NatsServer::start();
    let url = nats.url.clone();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { save_delay: Some(Duration::from_secs(6)), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let goal = |id: &str| {
        let args = [
            "submit",
            "--goal",
            super::agent::TASK,
            "--app",
            "Deft Fixture",
            "--pool",
            "desk",
            "--id",
            id,
            "--fleet",
            &url,
        ];
        cli(&desktop, &args)
    };

    // A worker with no model cannot take a goal: refused at once, saying what it lacks.
    let mut plain = start_worker(&desktop, &url, "plain");
    until(
        "the worker in the registry",
        Duration::from_secs(60),
        || fleet(&desktop, &url, &[]),
        |v| v["workers"].as_array().is_some_and(|w| w.len() == 1),
    );
    let r = goal("refused");
    r.expect_code(3);
    assert!(r.stderr.contains("plain lacks a model for the agent"), "{r:#?}");
    let _ = plain.kill();
    let _ = plain.wait();

    let mut first = start_agent_worker(&desktop, &url, "agent-1", &model);
    until(
        "the agent's worker in the registry",
        Duration::from_secs(60),
        || fleet(&desktop, &url, &[]),
        |v| v["workers"].as_array().is_some_and(|w| w.iter().any(|w| w["offer"]["model"].is_string())),
    );
    goal("goal1").expect_code(0);
    // Killed after its fourth action (Save), while the save runs.
    let view = || fleet(&desktop, &url, &["result", "goal1"]);
    let record = until("four actions done", Duration::from_secs(90), view, |v| {
        v["done"].as_array().is_some_and(|d| d.len() == 4) || v["state"] == "done" || v["state"] == "failed"
    });
    assert_eq!(record["state"], "running", "{record:#}");
    first.kill().unwrap();
    first.wait().unwrap();
    let mut second = start_agent_worker(&desktop, &url, "agent-2", &model);

    let record =
        until("the task ended", Duration::from_secs(120), view, |v| v["state"] == "done" || v["state"] == "failed");
    std::thread::sleep(SETTLE);
    let events = app.events();
    assert_eq!(record["state"], "done", "{record:#}\n{events:?}");
    let workers: Vec<&str> =
        record["attempts"].as_array().unwrap().iter().filter_map(|a| a["worker"].as_str()).collect();
    assert_eq!(workers, ["agent-1", "agent-2"], "{record:#}");
    // The truth is the app's log: typed, ticked, ordered and saved once each.
    let ticks = events.iter().filter(|e| e.is("checkbox_toggled", Some("subscribe"))).count();
    assert_eq!((order_events(&app)[..3].to_vec(), ticks), (vec![1, 1, 1], 1), "{events:?}");
    // The second attempt's agent was told what the first did.
    let told = model
        .received()
        .iter()
        .any(|x| x.seen.messages.first().is_some_and(|m| m.text.contains("- done: click \"Save\" (on this desktop")));
    assert!(told, "no request carried the resume note");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
    let _ = second.kill();
    let _ = second.wait();
}
