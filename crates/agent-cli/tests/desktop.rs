//! On a real headless desktop with the fixture app: observe verbs, and actions judged by
//! the app's ground-truth log (never by agent-cli's own report).

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};

use super::{BIN, Run, isolate, run, scratch};

pub fn start() -> (Desktop, FixtureApp) {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default())
        .unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    (desktop, app)
}

pub fn cli(desktop: &Desktop, args: &[&str]) -> Run {
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &scratch("desktop-home"));
    cmd.args(args);
    run(cmd)
}

/// Give a late effect time to reach the log before counting.
pub const SETTLE: Duration = Duration::from_millis(500);

#[test]
fn read_find_and_screenshot() {
    let (desktop, app) = start();

    let r = cli(&desktop, &["read", "--app", "Deft Fixture", "--json"]);
    r.expect_code(0);
    assert!(r.stdout.contains("\"Submit order\""), "{r:#?}");
    let v = r.json();
    assert!(v["count"].as_u64().unwrap() > 10, "{r:#?}");
    let r = cli(&desktop, &["read", "--window", "Deft Fixture", "--depth", "1"]);
    r.expect_code(0);
    assert!(r.stdout.starts_with("frame \"Deft Fixture\""), "{}", r.stdout);

    let r = cli(&desktop, &["find", "--name", "Submit order", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["count"], 1, "{r:#?}");
    assert_eq!(v["matches"][0]["role"], "push_button");
    let bounds = &v["matches"][0]["bounds"];
    let want = app.ready().widget("submit");
    assert_eq!((bounds[2].as_u64(), bounds[3].as_u64()), (Some(want.w as u64), Some(want.h as u64)), "{v}");
    // The selector it prints picks exactly that element.
    let sel = v["matches"][0]["selector"].as_str().unwrap().to_string();
    let r = cli(&desktop, &["find", &sel, "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["matches"][0]["name"], "Submit order", "{r:#?}");
    // Short ids as `read` prints them work with --id.
    let id = v["matches"][0]["id"].as_str().unwrap();
    let short = id.rsplit('/').next().unwrap();
    let r = cli(&desktop, &["find", "--id", short, "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["matches"][0]["id"], id, "{r:#?}");

    let r = cli(&desktop, &["find", "--role", "push_button"]);
    r.expect_code(0);
    assert!(r.stdout.contains("Hello") && r.stdout.contains("Submit order"), "{}", r.stdout);
    let r = cli(&desktop, &["find", "--name", "Sumbit order"]);
    r.expect_code(3);
    assert!(r.stderr.contains("Submit order"), "closest candidates should be listed: {r:#?}");

    let dir = scratch("shots");
    let screen = dir.join("screen.png");
    let r = cli(&desktop, &["screenshot", "-o", screen.to_str().unwrap(), "--json"]);
    r.expect_code(0);
    assert_eq!(png_size(&screen), (1280, 800));
    let window = dir.join("window.png");
    cli(&desktop, &["screenshot", "-o", window.to_str().unwrap(), "--window", "Deft Fixture"]).expect_code(0);
    assert_eq!(png_size(&window), (app.ready().window.w as u32, app.ready().window.h as u32));
    let region = dir.join("region.png");
    cli(&desktop, &["screenshot", "-o", region.to_str().unwrap(), "--region", "10,20,30,40"]).expect_code(0);
    assert_eq!(png_size(&region), (30, 40));
}

fn png_size(path: &std::path::Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{} is not a PNG", path.display());
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn ambiguous_and_missing_targets_exit_4_and_3() {
    let (desktop, app) = start();
    let r = cli(&desktop, &["click", "--role", "push_button", "--json"]);
    r.expect_code(4);
    let v = r.json();
    let names: Vec<&str> =
        v["failure"]["candidates"].as_array().unwrap().iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(names.contains(&"Hello") && names.contains(&"Submit order"), "{r:#?}");
    let r = cli(&desktop, &["click", "--name", "Sumbit order", "--timeout", "1500"]);
    r.expect_code(3);
    assert!(r.stdout.contains("Submit order"), "the closest should be listed: {r:#?}");
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", None), 0, "nothing may be clicked: {:?}", app.events());
}

#[test]
fn click_activates_exactly_once() {
    let (desktop, app) = start();
    let r = cli(&desktop, &["click", "--name", "Hello"]);
    r.expect_code(0);
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{r:#?} {:?}", app.events());

    let r = cli(&desktop, &["click", "--name", "Submit order", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["ok"], true, "{r:#?}");
    assert_eq!(v["verified"], true, "{r:#?}");
    assert_eq!(v["action"], "click");
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("order_submitted", None), 1, "no double submit: {:?}", app.events());
}

#[test]
fn type_into_a_field_by_its_label() {
    let (desktop, app) = start();
    let r = cli(&desktop, &["type", "--target", "Name", "--text", "John"]);
    r.expect_code(0);
    let changed = app
        .wait_for(|e| e.is("text_changed", Some("name")) && e.str("value") == Some("John"), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("the name field never read John ({e}): {r:#?} {:?}", app.events()));
    assert_eq!(changed.str("value"), Some("John"));
}

#[test]
fn expect_wait_and_trace() {
    let (desktop, app) = start();
    let traces = scratch("traces");
    let r = cli(
        &desktop,
        &[
            "click",
            "--name",
            "Save",
            "--expect",
            r#"exists:role=dialog name="Save complete""#,
            "--trace",
            traces.to_str().unwrap(),
            "--json",
        ],
    );
    r.expect_code(0);
    let v = r.json();
    assert_eq!((v["ok"].as_bool(), v["verified"].as_bool()), (Some(true), Some(true)), "{r:#?}");
    assert!(r.stderr.contains("trace: recording the bus to"), "{r:#?}");
    // One trace file (its frames go in a folder beside it).
    let files: Vec<_> = std::fs::read_dir(&traces)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(traces.join("frames").is_dir(), "the frames folder beside the trace");
    let trace = std::fs::read_to_string(&files[0]).unwrap();
    assert!(trace.contains("\"action_finished\""), "{trace}");
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("save")), 1, "{:?}", app.events());

    let r = cli(&desktop, &["wait", r#"title:"Save complete""#, "--timeout", "5000"]);
    r.expect_code(0);
    assert!(r.stdout.starts_with("✓ a window whose title contains \"Save complete\" is shown"), "{r:#?}");
    let r = cli(&desktop, &["wait", "--text", "Never shown", "--timeout", "500", "--json"]);
    r.expect_code(6);
    let v = r.json();
    assert_eq!((v["ok"].as_bool(), v["met"].as_bool()), (Some(false), Some(false)), "{r:#?}");
    assert!(v["last_observed"].as_str().is_some_and(|s| !s.is_empty()), "{r:#?}");
}

#[test]
fn ocr_reads_the_fixture() {
    let (desktop, _app) = start();
    let r = cli(&desktop, &["ocr", "--window", "Deft Fixture", "--json"]);
    r.expect_code(0);
    let v = r.json();
    let texts: Vec<&str> = v["lines"].as_array().unwrap().iter().filter_map(|l| l["text"].as_str()).collect();
    assert!(texts.contains(&"Submit order") && texts.contains(&"Hello"), "{texts:?}");
    let r = cli(&desktop, &["ocr", "--find", "submit order"]);
    r.expect_code(0);
    assert!(r.stdout.contains("Submit order"), "{r:#?}");
    let r = cli(&desktop, &["ocr", "--window", "Deft Fixture", "--find", "Nowhere to be seen"]);
    r.expect_code(3);
}

#[test]
fn app_named_by_its_window_title_is_waited_for_while_it_starts() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    // The click is issued before the app exists; `--app` names the window title, which
    // can only be told from an application name once the window is there.
    let run = std::thread::scope(|s| {
        let click = s.spawn(|| cli(&desktop, &["click", "--app", "Deft Fixture", "--name", "Hello", "--verify"]));
        let opts = FixtureOptions { slow_start: Some(Duration::from_millis(1500)), ..FixtureOptions::default() };
        let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
        (click.join().expect("the cli thread"), app)
    });
    let (r, app) = run;
    r.expect_code(0);
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{r:#?} {:?}", app.events());
}

#[test]
fn an_app_without_accessibility_is_clicked_by_the_text_ocr_reads() {
    // The fixture with GTK's accessibility bridge off: the tree has nothing, so `--text`
    // is found on screen by OCR (the real models), the click lands at the text, and the
    // pixels around it verify the effect. Judged by the app's log.
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { env: vec![("NO_AT_BRIDGE".into(), "1".into())], ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let r = cli(&desktop, &["click", "--text", "Hello", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["ok"], true, "{r:#?}");
    assert_eq!(v["verified"], true, "{r:#?}");
    let channels: Vec<&str> =
        v["evidence"].as_array().into_iter().flatten().filter_map(|e| e["channel"].as_str()).collect();
    assert!(channels.contains(&"pixels"), "verified by the pixels: {r:#?}");
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{r:#?} {:?}", app.events());
    assert_eq!(app.count("button_activated", None), 1, "nothing else was clicked: {:?}", app.events());
}

#[test]
fn a_click_on_text_read_on_screen_whose_effect_does_not_show_is_sent_once() {
    // xcalc (no accessibility): "sin" of 0 shows 0, and falling back pressed it twice. Here
    // the fixture with its accessibility off: Hello when the status already says "Clicked
    // Hello" changes nothing that stays, which the pixels cannot tell from a lost click.
    // Judged by the app's log: one activation per click.
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { env: vec![("NO_AT_BRIDGE".into(), "1".into())], ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    cli(&desktop, &["click", "--text", "Hello", "--verify"]).expect_code(0);
    app.wait_for(|e| e.is("button_activated", Some("hello")), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("the first click never landed ({e}): {:?}", app.events()));
    std::thread::sleep(SETTLE);
    let r = cli(&desktop, &["click", "--text", "Hello", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["attempts"].as_array().map(Vec::len), Some(1), "one input: {r:#?}");
    if v["verified"] == false {
        let observed = v["observed"].as_str().unwrap_or_default();
        assert!(observed.contains("cannot be verified"), "said so: {r:#?}");
    }
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("hello")), 2, "one activation per click: {:?}", app.events());
    app.check_running().unwrap_or_else(|e| panic!("{e}"));
}

/// The fields of an outcome that say what happened (not how long it took).
fn gist(o: &serde_json::Value) -> serde_json::Value {
    let attempts: Vec<serde_json::Value> =
        o["attempts"].as_array().unwrap().iter().map(|a| serde_json::json!([a["method"], a["result"]])).collect();
    let candidates: Vec<serde_json::Value> = o["failure"]["candidates"]
        .as_array()
        .map(|c| c.iter().map(|c| c["name"].clone()).collect())
        .unwrap_or_default();
    serde_json::json!({
        "ok": o["ok"], "action": o["action"], "verified": o["verified"],
        "target": [o["target"]["role"], o["target"]["name"], o["target"]["app"], o["target"]["window"]],
        "attempts": attempts, "failure": o["failure"]["kind"], "candidates": candidates,
    })
}

#[test]
fn the_cli_and_the_toolbelt_give_the_same_outcome() {
    // The toolbelt runs on this thread as agent-cli's runs on its main thread (8 MiB of
    // stack): a test thread has 2, less than a debug build's action needs.
    let same = std::thread::Builder::new().stack_size(8 << 20).spawn(same_outcome_through_cli_and_toolbelt);
    same.unwrap().join().unwrap_or_else(|e| std::panic::resume_unwind(e));
}

fn same_outcome_through_cli_and_toolbelt() {
    use deft_toolbelt::{AsParams, BeltSettings, ToolCall, ToolOutput, Toolbelt};
    let (desktop, app) = start();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let config =
        deft_toolbelt::ExecutorConfig { actionability_timeout_ms: 1500, ..deft_toolbelt::ExecutorConfig::default() };
    let on = deft_toolbelt::DesktopConfig {
        display: Some(desktop.display().to_string()),
        session_bus: Some(desktop.bus_address().to_string()),
        ..Default::default()
    };
    let settings = BeltSettings { changes_after_action: None, ..BeltSettings::for_models() };
    let belt = rt.block_on(Toolbelt::connect(config, on, settings)).unwrap();
    let api = |args: serde_json::Value| {
        let call = ToolCall::parse("click", args).unwrap();
        match rt.block_on(belt.call(&call, &AsParams)).unwrap() {
            ToolOutput::Action(r) => serde_json::to_value(&r.outcome).unwrap(),
            other => panic!("{other:?}"),
        }
    };

    // A check box: each click has its own visible effect (checked, then unchecked).
    let via_api = api(serde_json::json!({"name": "Subscribe", "verify": true}));
    let r = cli(&desktop, &["click", "--name", "Subscribe", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(gist(&r.json()), gist(&via_api), "CLI {:#?}\nAPI {via_api:#}", r.json());
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("checkbox_toggled", None), 2, "{:?}", app.events());

    let via_api = api(serde_json::json!({"name": "Sumbit order", "verify": true}));
    let r = cli(&desktop, &["click", "--name", "Sumbit order", "--verify", "--timeout", "1500", "--json"]);
    r.expect_code(3);
    assert_eq!(gist(&r.json()), gist(&via_api), "CLI {:#?}\nAPI {via_api:#}", r.json());
    assert_eq!(via_api["failure"]["kind"], "not_found");
    assert_eq!(via_api["failure"]["candidates"][0]["name"], "Submit order", "{via_api:#}");
}

#[test]
fn doctor_names_each_part_each_app_with_its_toolkit_and_the_fix_for_an_app_off_the_bus() {
    // Two fixture apps: one on the accessibility bus, one with GTK's bridge off, which shows
    // a window Deft can only see the pixels of. Judged against the apps' own pids.
    let (desktop, on_bus) = start();
    let opts = FixtureOptions { env: vec![("NO_AT_BRIDGE".into(), "1".into())], ..FixtureOptions::default() };
    let off_bus = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let r = cli(&desktop, &["doctor", "--json"]);
    r.expect_code(0);
    let v = r.json();
    let parts: Vec<(&str, bool)> = v["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["part"].as_str().unwrap(), p["ok"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        parts,
        [("session", true), ("input", true), ("capture", true), ("window geometry", true), ("accessibility bus", true)],
        "{r:#?}"
    );
    let app_of = |pid: u32| {
        v["applications"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["pid"] == pid)
            .cloned()
            .unwrap_or_else(|| panic!("{pid} not listed: {r:#?}"))
    };
    let readable = app_of(on_bus.pid());
    assert_eq!(readable["readable"], true, "{readable}");
    assert_eq!(readable["toolkit"].as_str().map(str::to_lowercase).as_deref(), Some("gtk"), "{readable}");
    let blind = app_of(off_bus.pid());
    assert_eq!(blind["readable"], false, "{blind}");
    assert!(blind["problem"].as_str().unwrap().contains("not on the accessibility bus"), "{blind}");
    assert!(blind["fix"].as_str().unwrap().contains("QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"), "{blind}");
    // The people's form says the same in lines.
    let human = cli(&desktop, &["doctor"]);
    human.expect_code(0);
    assert!(human.stdout.contains("accessibility bus  ok"), "{human:#?}");
    // It only looked: both apps still answer.
    on_bus.check_alive(&desktop, Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
    off_bus.check_running().unwrap_or_else(|e| panic!("{e}"));

    // A display that does not exist: the session fails, once, with the fix, and exit 7.
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &scratch("desktop-home"));
    cmd.env("DISPLAY", ":4242").args(["doctor", "--json"]);
    let bad = run(cmd);
    bad.expect_code(7);
    let v = bad.json();
    assert_eq!(v["parts"][0]["part"], "session");
    assert_eq!(v["parts"][0]["ok"], false, "{bad:#?}");
    assert!(v["parts"][0]["detail"].as_str().unwrap().contains(":4242, which does not answer"), "{bad:#?}");
    assert!(v["parts"][0]["fix"].as_str().unwrap().contains("Xvfb"), "{bad:#?}");
    assert_eq!(v["parts"][1]["detail"], "not on this session (see the session's line)", "{bad:#?}");
}
