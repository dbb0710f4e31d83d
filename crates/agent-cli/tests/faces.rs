//! What a new user broke through the faces (and what a target that cannot be read back
//! asks of the executor), each judged by the fixture app's ground-truth log: an unmet
//! expectation or an unreadable field never gets a second input, a confirmation or a key's
//! dialog is an effect, every timeout is a bound, `fill` replaces and `type` inserts,
//! `--yaml` is plain YAML, a password's length never shows.

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};

use super::Run;
use super::desktop::{SETTLE, cli, start};

#[test]
fn an_unmet_expectation_after_a_received_click_sends_no_second_input() {
    let (desktop, app) = start();
    // The status says "Clicked Hello" from here on: a second press changes nothing visible.
    cli(&desktop, &["click", "--name", "Hello"]).expect_code(0);
    app.wait_for(|e| e.is("button_activated", Some("hello")), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("the first click never landed ({e}): {:?}", app.events()));
    let r = cli(&desktop, &["click", "--name", "Hello", "--expect", r#"text:"Never shown""#, "--json"]);
    r.expect_code(1);
    let v = r.json();
    assert_eq!(v["ok"], false, "{r:#?}");
    let attempts = v["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 1, "one input, reported as received: {r:#?}");
    assert_eq!(attempts[0]["result"], "received", "{r:#?}");
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("hello")), 2, "exactly one activation per click: {:?}", app.events());
    app.check_alive(&desktop, Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
}

/// `text` read by a plain YAML loader (PyYAML's `safe_load`, as a Python program reads
/// `--yaml` output), as JSON.
fn safe_load(text: &str) -> serde_json::Value {
    use std::io::Write;
    let mut child = std::process::Command::new(deft_harness::python())
        .args(["-c", "import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "safe_load refused it: {}\n{text}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn yaml_output_is_plain_yaml_that_a_safe_loader_reads() {
    // A blocked click: its attempt failed with a class, once written as a `!failed` tag.
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { popup: true, ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let r = cli(&desktop, &["click", "--name", "Submit order", "--verify", "--yaml"]);
    r.expect_code(5);
    let v = safe_load(&r.stdout);
    assert_eq!(v["ok"], false, "{r:#?}");
    assert_eq!(v["attempts"][0]["result"]["failed"]["class"], "blocked", "{v:#}");
    assert_eq!(v["failure"]["kind"], "blocked", "{v:#}");
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("order_submitted", None), 0, "{:?}", app.events());
}

#[test]
fn find_never_shows_a_password_s_length() {
    let (desktop, app) = start();
    cli(&desktop, &["type", "--name", "Password", "--text", "hunter2", "--verify"]).expect_code(0);
    app.wait_for(|e| e.is("text_changed", Some("password")), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("the password was never typed ({e}): {:?}", app.events()));
    let r = cli(&desktop, &["find", "--role", "password_text", "--json"]);
    r.expect_code(0);
    let m = &r.json()["matches"][0];
    assert_eq!(m["name"], "Password", "{r:#?}");
    assert!(m["text"].is_null() && m["value"].is_null(), "neither the text nor its mask: {m:#}");
    let r = cli(&desktop, &["find", "--role", "password_text"]);
    assert!(!r.stdout.contains('●'), "{r:#?}");
}

/// Runs `args` and how long the process took, wall clock.
fn timed(desktop: &Desktop, args: &[&str]) -> (Run, Duration) {
    let t = std::time::Instant::now();
    let r = cli(desktop, args);
    (r, t.elapsed())
}

#[test]
fn every_timeout_is_a_bound() {
    // These are bounds the caller set, not speed: the limits below are the timeout plus a
    // process start and teardown with room to spare, against the 7-10 s they once took.
    let (desktop, _app) = start();
    // A wait whose text accessibility never shows reads the screen by OCR meanwhile.
    let (r, took) = timed(&desktop, &["wait", "--text", "Never shown anywhere", "--timeout", "1500", "--json"]);
    r.expect_code(6);
    assert!(r.json()["elapsed_ms"].as_u64().is_some_and(|ms| ms < 2500), "{r:#?}");
    assert!(took < Duration::from_secs(5), "a 1.5 s wait took {took:?}: {r:#?}");
    // A target that never appears: --timeout bounds the wait for it too (it was 10 s).
    let (r, took) = timed(&desktop, &["click", "--name", "No such button", "--timeout", "1500", "--verify", "--json"]);
    r.expect_code(3);
    assert!(took < Duration::from_secs(6), "a click with a 1.5 s timeout took {took:?}: {r:#?}");
}

#[test]
fn a_key_without_an_expectation_is_sent_not_failed_when_nothing_shows() {
    let (desktop, app) = start();
    let r = cli(&desktop, &["key", "F13", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!((v["ok"].as_bool(), v["verified"].as_bool()), (Some(true), Some(false)), "{r:#?}");
    assert_eq!(v["attempts"].as_array().map(Vec::len), Some(1), "sent once: {r:#?}");
    // With an expectation nothing met, it fails.
    let r = cli(&desktop, &["key", "F13", "--expect", r#"text:"Never shown""#, "--timeout", "800", "--json"]);
    r.expect_code(1);
    app.check_alive(&desktop, Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_confirmation_the_click_opened_is_its_effect_not_a_blocker() {
    // "Submit order" asks "Place the order?" in a dialog over the button. Told "blocked,
    // dismiss it and retry", an agent cancels the question and presses again.
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { extra_args: vec!["--confirm".into()], ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let r = cli(&desktop, &["click", "--name", "Submit order", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!((v["ok"].as_bool(), v["verified"].as_bool()), (Some(true), Some(true)), "{r:#?}");
    assert!(v["observed"].as_str().is_some_and(|o| o.contains("Place the order?")), "what opened: {r:#?}");
    assert!(v["blocking"].is_null() && v["suggested_action"].is_null(), "{r:#?}");
    app.wait_for(|e| e.is("dialog_opened", None) && e.str("title") == Some("Confirm order"), Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("no question ({e}): {:?}", app.events()));
    // The question is answered in the dialog, named by its title (its accessible name is
    // "Question").
    let r = cli(&desktop, &["click", "--window", "Confirm order", "--name", "OK", "--verify", "--json"]);
    r.expect_code(0);
    app.wait_for(|e| e.kind == "order_submitted", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("no order ({e}): {r:#?} {:?}", app.events()));
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("submit")), 1, "pressed once: {:?}", app.events());
    assert_eq!(app.count("order_submitted", None), 1, "{:?}", app.events());
}

/// The name field's text by the app's log, once it reads `want` (or what it last read).
fn name_reads(app: &FixtureApp, want: &str) -> String {
    let reads = |e: &deft_harness::fixture::Event| e.is("text_changed", Some("name")) && e.str("value") == Some(want);
    let _ = app.wait_for(reads, Duration::from_secs(10));
    std::thread::sleep(SETTLE);
    let events = app.events();
    let last = events.iter().rev().find(|e| e.is("text_changed", Some("name")));
    last.and_then(|e| e.str("value")).unwrap_or_default().to_string()
}

#[test]
fn fill_replaces_a_field_s_text_and_type_inserts_into_it() {
    let (desktop, app) = start();
    cli(&desktop, &["type", "--name", "Name", "--text", "carol", "--verify"]).expect_code(0);
    assert_eq!(name_reads(&app, "carol"), "carol");
    // A form filler's intent: the field holds exactly the text, whatever it held.
    let r = cli(&desktop, &["fill", "--name", "Name", "--text", "carol", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["ok"], true, "{r:#?}");
    let r = cli(&desktop, &["fill", "--name", "Name", "--text", "Ada", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(name_reads(&app, "Ada"), "Ada", "{r:#?}");
    // `type` keeps what the field holds and inserts at the caret, as it says it does.
    let r = cli(&desktop, &["type", "--name", "Name", "--text", " Lovelace", "--verify", "--json"]);
    r.expect_code(0);
    assert!(r.json()["expected"].as_str().is_some_and(|e| e.contains("inserted")), "{r:#?}");
    assert_eq!(name_reads(&app, "Ada Lovelace"), "Ada Lovelace", "{r:#?}");
    // With no target, where a person left the caret (after "Ada"), as a keyboard types.
    put_caret(&desktop, "Name", 3);
    cli(&desktop, &["type", "--text", " King", "--verify"]).expect_code(0);
    assert_eq!(name_reads(&app, "Ada King Lovelace"), "Ada King Lovelace");
    app.check_alive(&desktop, Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn text_typed_in_under_an_expectation_not_met_is_never_typed_again() {
    // Found by a new user's flow whose step typed "Ada" into a field that already held it,
    // expecting "Ada": the keys went in ("AdaAda"), and each method of the chain after them
    // emptied the field and typed it all again, 19 s in all, reported as "no change".
    let (desktop, app) = start();
    cli(&desktop, &["fill", "--name", "Name", "--text", "Ada", "--verify"]).expect_code(0);
    assert_eq!(name_reads(&app, "Ada"), "Ada");
    let r =
        cli(&desktop, &["type", "--name", "Name", "--text", "Ada", "--expect", r#"value:name=Name="Ada""#, "--json"]);
    r.expect_code(1);
    let v = r.json();
    assert_eq!(v["attempts"].as_array().map(Vec::len), Some(1), "one method, never a second: {r:#?}");
    assert!(r.stdout.contains("did what it does") && r.stdout.contains("AdaAda"), "{r:#?}");
    std::thread::sleep(SETTLE);
    let values: Vec<String> = app
        .events()
        .iter()
        .filter(|e| e.is("text_changed", Some("name")))
        .filter_map(|e| e.str("value").map(str::to_string))
        .collect();
    let typed = values.iter().position(|v| v == "AdaA").unwrap_or_else(|| panic!("the keys never went in: {values:?}"));
    assert_eq!(values[typed..], ["AdaA", "AdaAd", "AdaAda"], "typed once, never emptied: {values:?}");
    app.check_alive(&desktop, Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
}

/// Gives the fixture's field named `name` the focus and puts its caret at `offset`, as an
/// independent accessibility client (pyatspi) does: where a person's click would leave it.
fn put_caret(desktop: &Desktop, name: &str, offset: usize) {
    let out = desktop
        .command(deft_harness::python())
        .arg(deft_harness::fixture::a11y_driver_script())
        .args(["caret", name, &offset.to_string()])
        .output()
        .expect("the pyatspi driver runs");
    assert!(out.status.success(), "caret: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn typing_into_a_field_that_swallows_keys_inserts_at_its_caret_and_keeps_its_text() {
    // A document's text set whole through accessibility became one undo step that took all
    // of it back (FeatherPad, emptied by one Ctrl+Z, saved as 0 bytes): the fallback inserts.
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { extra_args: vec!["--ignore-keys".into()], ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    cli(&desktop, &["fill", "--name", "Name", "--text", "Ada Lovelace", "--verify"]).expect_code(0);
    assert_eq!(name_reads(&app, "Ada Lovelace"), "Ada Lovelace");
    put_caret(&desktop, "Name", 4);
    let r = cli(&desktop, &["type", "--text", "Zoë ", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(name_reads(&app, "Ada Zoë Lovelace"), "Ada Zoë Lovelace", "{r:#?}");
    let v = r.json();
    let last = v["attempts"].as_array().and_then(|a| a.last()).cloned().unwrap_or_default();
    assert_eq!(last["method"], "a11y_set", "{r:#?}");
    // Never emptied on the way: no text the field held was taken out and put back.
    let values: Vec<String> = app
        .events()
        .iter()
        .filter(|e| e.is("text_changed", Some("name")))
        .filter_map(|e| e.str("value").map(str::to_string))
        .collect();
    assert_eq!(values.iter().filter(|v| v.is_empty()).count(), 0, "the field was emptied: {values:?}");
    let swallowed = app.events().iter().any(|e| e.kind == "fault" && e.str("kind") == Some("ignored_key"));
    assert!(swallowed, "the keys were swallowed, so the fallback ran: {:?}", app.events());
    app.check_alive(&desktop, Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn typing_where_the_text_cannot_be_read_back_is_sent_once_and_said_so() {
    // A canvas that draws what is typed and gives accessibility no text (a terminal, a code
    // editor): "no change" there once meant "not received", and the fallbacks typed the
    // text again (a shell command run twice) or selected all and retyped (a document wiped).
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { extra_args: vec!["--notes".into()], ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let r = cli(&desktop, &["type", "--name", "Notes", "--text", "echo hi", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!((v["ok"].as_bool(), v["verified"].as_bool()), (Some(true), Some(false)), "{r:#?}");
    assert!(v["observed"].as_str().is_some_and(|o| o.contains("cannot be verified")), "says why: {r:#?}");
    assert_eq!(v["attempts"].as_array().map(Vec::len), Some(1), "one input: {r:#?}");
    // The canvas drew the keys: received, seen in its pixels (not verified: what it drew
    // cannot be read as the text).
    assert_eq!((&v["seen"], &v["seen_by"]), (&"received".into(), &"pixels".into()), "{r:#?}");
    std::thread::sleep(SETTLE);
    let events = app.events();
    let last = events.iter().rev().find(|e| e.is("text_changed", Some("notes"))).and_then(|e| e.str("value"));
    assert_eq!(last, Some("echo hi"), "typed once: {:?}", events);
    assert_eq!(app.count("key_chord", Some("notes")), 0, "no select-all or other chord: {events:?}");
    app.check_alive(&desktop, Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_dialog_a_key_opens_and_an_app_a_key_closes_are_the_key_s_effects() {
    // A key has no press for a dialog to intercept; an app told to quit did what it was
    // told. They were reported "blocked" (exit 5) and "gone" (exit 7).
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { extra_args: vec!["--confirm".into()], ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    cli(&desktop, &["click", "--name", "Hello"]).expect_code(0);
    cli(&desktop, &["key", "Tab", "--verify"]).expect_code(0);
    let r = cli(&desktop, &["key", "space", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["verified"], true, "{r:#?}");
    assert!(v["observed"].as_str().is_some_and(|o| o.contains("Place the order?")), "{r:#?}");
    app.wait_for(|e| e.is("dialog_opened", None), Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("no question ({e}): {:?}", app.events()));
    cli(&desktop, &["click", "--window", "Confirm order", "--name", "Cancel", "--verify"]).expect_code(0);
    // The window manager closes the focused window on alt+F4; the app then quits.
    let r = cli(&desktop, &["key", "alt+F4", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["verified"], true, "{r:#?}");
    // Said as soon as its window is gone (or when it left the bus, if that came first):
    // nothing is read from an app on its way out.
    let said = |o: &str| o.contains("exited after the input") || o.contains("no window of the application is left");
    assert!(v["observed"].as_str().is_some_and(said), "{r:#?}");
    app.wait_for(|e| e.kind == "exit", Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("the app did not quit ({e}): {:?}", app.events()));
    assert_eq!(app.count("order_submitted", None), 0, "{:?}", app.events());
}

#[test]
fn an_icon_button_is_found_by_the_tooltip_a_person_reads() {
    // VLC's buttons are icons with a description ("Pause the playback") and no name.
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { extra_args: vec!["--notes".into()], ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let r = cli(&desktop, &["click", "Pause the playback", "--verify", "--json"]);
    assert!(r.code == 0, "{r:#?}");
    std::thread::sleep(SETTLE);
    assert_eq!(app.count("button_activated", Some("pause")), 1, "{:?}", app.events());
    assert_eq!(app.count("button_activated", None), 1, "nothing else: {:?}", app.events());
}

#[test]
fn text_for_a_field_known_by_its_label_goes_into_the_field() {
    // GTK 2's entries have no name: `type --target "Name:"` typed at the label (issue 22,
    // class 6). The label's LABEL_FOR relation names the field a person means.
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { extra_args: vec!["--notes".into()], ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let r = cli(&desktop, &["type", "Reference:", "--text", "INV-7", "--verify", "--json"]);
    assert!(r.code == 0, "{r:#?}");
    let v = r.json();
    assert_eq!((&v["seen"], &v["seen_by"]), (&"verified".into(), &"accessibility".into()), "{r:#?}");
    let said = v["evidence"].as_array().unwrap().iter().filter_map(|e| e["what"].as_str()).collect::<Vec<_>>();
    assert!(said.iter().any(|w| w.contains("\"Reference:\" names")), "the outcome says where the text went: {said:?}");
    std::thread::sleep(SETTLE);
    let typed: Vec<_> = app.events().into_iter().filter(|e| e.is("text_changed", None)).collect();
    assert!(typed.iter().all(|e| e.is("text_changed", Some("reference"))), "only the field changed: {typed:?}");
    assert!(
        app.events().iter().any(|e| e.is("text_changed", Some("reference")) && e.raw["value"] == "INV-7"),
        "{:?}",
        app.events()
    );
    app.check_alive(&desktop, Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
}
