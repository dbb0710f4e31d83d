//! Java Swing through the ATK wrapper (the Swing fixture, `tests/fixtures/swing`): the
//! verbs a user needs, each its own agent-cli process, judged by the fixture's own log and
//! by the app still running.

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::swing::SwingApp;

use super::real_apps::cli;

/// A read, a click, text into a field known only by its label, and a menu entry. Swing
/// reports a menu's entries a row above where it draws them (as jEdit's report said: "Save"
/// clicked "Close All (global)"), and the click on "Save" activated "Open" and was
/// verified by the menu closing (issue 22, class 2). The screen shows "Save" a row lower,
/// so no pointer input goes there; its accessibility action chooses it.
#[test]
fn swing_reads_clicks_types_by_label_and_chooses_the_menu_entry_it_names() {
    if let Some(why) = SwingApp::missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let mut app = SwingApp::launch(&desktop, Duration::from_secs(60)).expect("the Swing fixture starts");
    let app_name = ["--app", "Deft Swing"];
    let read = cli(&desktop, &[&["read"], &app_name[..]].concat());
    read.expect_code(0);
    assert!(read.stdout.contains("push_button \"Hello\""), "{}", read.stdout);

    cli(&desktop, &[&["click", "Hello", "--verify"], &app_name[..]].concat()).expect_code(0);
    assert_eq!(app.count("button_activated", "hello"), 1, "{:?}", app.events());

    cli(&desktop, &[&["type", "Reference:", "--text", "INV-7", "--verify"], &app_name[..]].concat()).expect_code(0);
    let typed = app.events();
    let last = typed.iter().rev().find(|e| e["event"] == "text_changed").expect("the field changed");
    assert_eq!((&last["widget"], &last["value"]), (&"reference".into(), &"INV-7".into()), "{typed:?}");

    // An entry whose effect shows nowhere (Copy): received, not verified, chosen once. The
    // menu bar stays armed after it (Swing), so the File menu then opens as the pointer
    // comes to it: a click there closed it again (verified by "the menu closed"), and
    // "Save" was not shown for the next click; now no click is sent to a menu that opened
    // on the approach.
    cli(&desktop, &[&["click", "--role", "menu", "--name", "Edit", "--verify"], &app_name[..]].concat()).expect_code(0);
    let copy = cli(
        &desktop,
        &[&["click", "--role", "menu_item", "--name", "Copy", "--verify", "--json"], &app_name[..]].concat(),
    );
    copy.expect_code(0);
    std::thread::sleep(Duration::from_millis(500));
    let copies = app.events().into_iter().filter(|e| e["event"] == "menu_activated" && e["widget"] == "copy").count();
    assert_eq!(copies, 1, "{:?}", app.events());
    let out = copy.json();
    assert_eq!((&out["seen"], &out["verified"]), (&"received".into(), &false.into()), "{out}");
    cli(&desktop, &[&["click", "--role", "menu", "--name", "File", "--verify"], &app_name[..]].concat()).expect_code(0);
    cli(&desktop, &[&["click", "--role", "menu_item", "--name", "Save", "--verify"], &app_name[..]].concat())
        .expect_code(0);
    std::thread::sleep(Duration::from_millis(500));
    let chosen: Vec<_> =
        app.events().into_iter().filter(|e| e["event"] == "menu_activated" && e["widget"] != "copy").collect();
    assert_eq!(chosen.len(), 1, "one entry chosen: {chosen:?}");
    assert_eq!(chosen[0]["widget"], "save", "the entry named, not a neighbour: {chosen:?}");

    assert!(app.running(), "the Swing fixture still runs");
}
