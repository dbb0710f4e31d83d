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
