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
    // Its own home: galculator keeps the mode it was left in (Scientific, after this test)
    // and would start in it next time.
    let home = super::scratch("galculator-home");
    let mut app = desktop
        .command("galculator")
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .spawn()
        .expect("galculator starts");
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
    // Its display is read-only: replacing its text is refused before anything is sent (GTK
    // 3 accepted the set and changed nothing, and it was reported sent).
    let r = cli(&desktop, &["fill", "--app", "galculator", "--role", "text", "--index", "0", "--text", "42", "--json"]);
    assert_ne!(r.code, 0, "{r:#?}");
    assert!(r.json()["observed"].as_str().is_some_and(|o| o.contains("read-only")), "{r:#?}");
    assert_eq!(display(), "7659", "nothing set");

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

/// GNOME Calculator shows "*" as "×": typed "3*3" goes in and reads "3×3". The keys went
/// in; the action says so and writes nothing more (before, the text was set again over
/// what the keys had entered, 3 s later).
#[test]
fn text_gnome_calculator_shows_its_own_way_is_typed_once_and_said_so() {
    if !std::path::Path::new("/usr/bin/gnome-calculator").exists() {
        eprintln!("skipped: gnome-calculator is not installed (cargo xtask setup installs it)");
        return;
    }
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let mut app = desktop.command("gnome-calculator").spawn().expect("gnome-calculator starts");
    let field = ["--role", "text", "--name", "GtkSourceView", "--app", "gnome-calculator"];
    cli(&desktop, &[&["wait"][..], &field, &["--timeout", "30000"]].concat()).expect_code(0);
    let r = cli(&desktop, &[&["type"][..], &field, &["--text", "3*3", "--verify", "--json"]].concat());
    let v = r.json();
    assert_eq!(v["attempts"].as_array().map(Vec::len), Some(1), "typed once, nothing set after: {r:#?}");
    assert_eq!(v["ok"], false, "{r:#?}");
    let said = v["observed"].as_str().unwrap_or_default();
    assert!(said.contains("went in") && said.contains("3×3") && said.contains("not typed again"), "{r:#?}");
    let seen = dump(&desktop, "gnome-calculator");
    let text = seen.iter().find(|e| e["name"] == "GtkSourceView").and_then(|e| e["text"].as_str()).unwrap_or_default();
    assert_eq!(text, "3×3", "what the keys entered, left as it was");
    let _ = app.kill();
    let _ = app.wait();
}

/// lxterminal (GTK 3, VTE), a shell in it: a command typed is typed once, a command longer
/// than the terminal is wide too (its screen wraps it: before, "went in ... not as typed"
/// and a failure); and `fill` is refused, since the terminal does not say it is editable
/// (its ctrl+a is the line's start: "select all, type" put the new command before the old
/// one and Return ran both). Judged by what the shell wrote.
#[test]
fn a_terminal_s_commands_are_typed_once_and_never_replaced_with_select_all_keys() {
    if !std::path::Path::new("/usr/bin/lxterminal").exists() {
        eprintln!("skipped: lxterminal is not installed (cargo xtask setup installs it)");
        return;
    }
    let dir = super::scratch("lxterminal");
    let log = dir.join("d.log");
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let mut app = desktop
        .command("lxterminal")
        .arg(format!("--working-directory={}", dir.display()))
        .spawn()
        .expect("lxterminal starts");
    let terminal = ["--app", "lxterminal", "--role", "terminal"];
    cli(&desktop, &[&["wait"][..], &terminal, &["--timeout", "30000"]].concat()).expect_code(0);
    // The shell's prompt first (read by an independent client): keys typed before it may be
    // drawn twice by readline.
    let prompt = || {
        let seen = dump(&desktop, "lxterminal");
        seen.iter().any(|e| e["role"] == "terminal" && e["text"].as_str().is_some_and(|t| !t.trim().is_empty()))
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !prompt() {
        assert!(std::time::Instant::now() < deadline, "no shell prompt in lxterminal");
        std::thread::sleep(Duration::from_millis(100));
    }
    let lines =
        || -> Vec<String> { std::fs::read_to_string(&log).unwrap_or_default().lines().map(str::to_string).collect() };
    let enter_then_see = |want: usize| {
        cli(&desktop, &["key", "Return", "--app", "lxterminal"]).expect_code(0);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while lines().len() < want && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(super::desktop::SETTLE);
    };
    let long = format!("echo {} >> d.log", "a".repeat(100));
    for (n, command) in ["echo one >> d.log", long.as_str()].into_iter().enumerate() {
        let r = cli(&desktop, &[&["type"][..], &terminal, &["--text", command, "--verify", "--json"]].concat());
        r.expect_code(0);
        assert_eq!(r.json()["attempts"].as_array().map(Vec::len), Some(1), "typed once: {r:#?}");
        enter_then_see(n + 1);
    }
    assert_eq!(lines(), ["one".to_string(), "a".repeat(100)], "each command ran once, as typed");

    cli(&desktop, &[&["type"][..], &terminal, &["--text", "echo old >> d.log", "--verify"]].concat()).expect_code(0);
    let r = cli(&desktop, &[&["fill"][..], &terminal, &["--text", "echo new >> d.log", "--verify", "--json"]].concat());
    assert_ne!(r.code, 0, "{r:#?}");
    assert!(r.json()["observed"].as_str().is_some_and(|o| o.contains("does not say it is editable")), "{r:#?}");
    enter_then_see(3);
    assert_eq!(lines().last().map(String::as_str), Some("old"), "the line as it was: {:?}", lines());
    assert_eq!(lines().len(), 3, "{:?}", lines());
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    assert_eq!(files, ["d.log"], "no stray file");
    // A program reading the terminal's input gets the text and nothing else: no key to move
    // a caret (End reached `cat` as `ESC [ F`, written into the file before the text).
    cli(&desktop, &[&["type"][..], &terminal, &["--text", "cat > typed.txt", "--verify"]].concat()).expect_code(0);
    cli(&desktop, &["key", "Return", "--app", "lxterminal"]).expect_code(0);
    std::thread::sleep(super::desktop::SETTLE);
    cli(&desktop, &[&["type"][..], &terminal, &["--text", "abc", "--verify"]].concat()).expect_code(0);
    cli(&desktop, &["key", "Return", "--app", "lxterminal"]).expect_code(0);
    cli(&desktop, &["key", "ctrl+d", "--app", "lxterminal"]).expect_code(0);
    let typed = dir.join("typed.txt");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::fs::read(&typed).unwrap_or_default().len() < 4 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(std::fs::read_to_string(&typed).unwrap_or_default(), "abc\n", "what the program read");
    assert!(app.try_wait().ok().flatten().is_none(), "lxterminal still runs");
    let _ = app.kill();
    let _ = app.wait();
}
