//! Apps outside the corpus, where a new user's trial found a rule that did not hold; each
//! judged by an independent accessibility client (pyatspi) and the app's own end.

use std::time::Duration;

use deft_harness::Desktop;

use super::desktop::cli;
use super::real_apps::dump;

/// galculator (GTK 3): its keys are toggle buttons that spring back, so a press never
/// changes their own state. The display changing is the press's effect: each key entered
/// once (before, every press was taken for "no change" and pressed again: "77" for 7).
/// A radio menu item's check expected: read once its menu has closed. Then ctrl+q
/// expected to leave: verified by the app's leaving, not an error.
#[test]
fn galculator_keys_are_pressed_once_its_mode_is_checked_and_its_quit_is_verified() {
    if !std::path::Path::new("/usr/bin/galculator").exists() {
        eprintln!("skipped: galculator is not installed (cargo xtask setup installs it)");
        return;
    }
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let mut app = desktop.command("galculator").spawn().expect("galculator starts");
    let ready = ["wait", "--app", "galculator", "--name", "7", "--timeout", "30000"];
    cli(&desktop, &ready).expect_code(0);
    let display = || -> String {
        let seen = dump(&desktop, "galculator");
        let text = seen.iter().find(|e| e["role"] == "text").and_then(|e| e["text"].as_str()).unwrap_or_default();
        text.split('\n').next().unwrap_or_default().trim().to_string()
    };
    for key in ["7", "6", "5"] {
        let r = cli(&desktop, &["click", "--name", key, "--app", "galculator", "--verify", "--json"]);
        r.expect_code(0);
        assert_eq!(r.json()["attempts"].as_array().map(Vec::len), Some(1), "pressed once: {r:#?}");
    }
    let r = cli(&desktop, &["action", "--name", "9", "--app", "galculator", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(display(), "7659", "each key entered once, by the display");

    // A radio menu item chosen: its check is read once its menu has closed (it is hidden
    // then), and the mode it stands for is the app's, by an independent client.
    cli(&desktop, &["click", "--name", "View", "--app", "galculator", "--verify", "--json"]).expect_code(0);
    let checked = "state:name=\"Scientific Mode\":checked";
    let r =
        cli(&desktop, &["click", "--name", "Scientific Mode", "--app", "galculator", "--expect", checked, "--json"]);
    r.expect_code(0);
    let seen = dump(&desktop, "galculator");
    let item = seen.iter().find(|e| e["name"] == "Scientific Mode");
    let on = item.and_then(|e| e["states"].as_array()).is_some_and(|s| s.iter().any(|x| x == "checked"));
    assert!(on, "Scientific Mode is checked: {item:?}");

    let r = cli(&desktop, &["key", "ctrl+q", "--app", "galculator", "--expect", "gone:app=galculator", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["verified"], true, "{r:#?}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while app.try_wait().ok().flatten().is_none() {
        assert!(std::time::Instant::now() < deadline, "galculator did not quit");
        std::thread::sleep(Duration::from_millis(100));
    }
}
