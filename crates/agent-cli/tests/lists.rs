//! A long list's row scrolled out of view, as zenity's `--list` shows sixty: GTK 3 gives
//! such a row no place at all (and calls it showing), and accessibility cannot scroll a
//! tree view's cell into view. Judged by zenity itself: the row it prints when OK is
//! pressed is the row chosen.

use std::io::Read;
use std::time::Duration;

use deft_harness::Desktop;

use super::real_apps::cli;

#[test]
fn a_row_scrolled_out_of_a_long_list_is_scrolled_to_and_chosen() {
    if !std::path::Path::new("/usr/bin/zenity").exists() {
        eprintln!("skipped: zenity is not installed (cargo xtask setup installs it)");
        return;
    }
    let desktop = Desktop::start().expect("desktop");
    let items: Vec<String> = (1..=60).map(|i| format!("item{i}")).collect();
    let mut zenity = desktop
        .command("zenity")
        .args(["--list", "--column", "Item"])
        .args(&items)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("zenity starts");
    let app = ["--app", "zenity"];
    let wait =
        cli(&desktop, &[&["wait", "--role", "push_button", "--name", "OK", "--timeout", "30000"], &app[..]].concat());
    wait.expect_code(0);
    // Before: "table_cell "item40" has no bounds on screen" after 10 s.
    let chosen = cli(&desktop, &[&["click", "--name", "item40", "--verify"], &app[..]].concat());
    chosen.expect_code(0);
    cli(&desktop, &[&["click", "--role", "push_button", "--name", "OK", "--verify"], &app[..]].concat()).expect_code(0);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while zenity.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = zenity.try_wait().unwrap();
    let mut printed = String::new();
    if let Some(out) = zenity.stdout.as_mut() {
        out.read_to_string(&mut printed).unwrap();
    }
    let _ = zenity.kill();
    assert!(status.is_some_and(|s| s.success()), "zenity ended with OK: {status:?}");
    assert_eq!(printed.trim(), "item40", "the row zenity says was chosen");
}

/// A settings page taller than its window (`tests/fixtures/scrolled/scrolled.py`): its
/// controls below the fold are scrolled into view before the click, on GTK 3 (which calls
/// them not showing, with no place and no action) and on Qt (which calls them showing, at
/// their place in the content, far below the window, inside containers all named
/// `filler`). Before: GTK 3's "not shown" after 10 s; Qt's click refused as off screen,
/// then an accessibility action in its stead. Judged by the app's log: each control
/// activated once, by the pointer.
#[test]
fn controls_scrolled_out_of_a_settings_page_are_scrolled_to_and_clicked_once() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/scrolled/scrolled.py");
    for toolkit in ["gtk3", "qt5", "qt6"] {
        let desktop = Desktop::start().expect("desktop");
        let log = super::scratch(&format!("scrolled-{toolkit}")).join("log.jsonl");
        let mut app = desktop
            .command("/usr/bin/python3")
            .arg(&script)
            .args(["--toolkit", toolkit, "--log"])
            .arg(&log)
            .spawn()
            .expect("the scrolled page starts");
        let at = ["--app", "Scrolled Settings"];
        cli(&desktop, &[&["wait", "--name", "Apply 1", "--timeout", "30000"], &at[..]].concat()).expect_code(0);
        for name in ["Apply 30", "Option 35"] {
            let r = cli(&desktop, &[&["click", "--name", name, "--verify", "--json"], &at[..]].concat());
            r.expect_code(0);
            let methods: Vec<_> =
                r.json()["attempts"].as_array().unwrap().iter().map(|a| a["method"].clone()).collect();
            assert_eq!(methods, ["coordinate_click"], "{toolkit}: {name} clicked where it shows, once: {r:#?}");
        }
        std::thread::sleep(super::desktop::SETTLE);
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|l: &serde_json::Value| l["event"] != "started")
            .collect();
        let want = [
            serde_json::json!({"event": "clicked", "row": 30}),
            serde_json::json!({"event": "toggled", "row": 35, "active": true}),
        ];
        assert_eq!(lines, want, "{toolkit}: what the app did");
        assert!(app.try_wait().ok().flatten().is_none(), "{toolkit}: the app still runs");
        let _ = app.kill();
        let _ = app.wait();
    }
}
