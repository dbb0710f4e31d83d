//! A GNOME session with no X display, and the GTK 3 fixture as a native Wayland client on
//! the desktop's accessibility bus. First bare mutter headless (its virtual monitor,
//! PipeWire for its screen casts), where nothing places windows; then GNOME Shell headless
//! with Deft's Shell extension, which places them. Deft sends keys and pointer input through mutter's
//! RemoteDesktop D-Bus API (the harness holds a session of its own as the keyboard a
//! person at the desktop has: a headless mutter with no keyboard focuses no window); GNOME tells no client where its windows are, so nothing is
//! pressed at a guessed place (the pointer methods are refused before anything is sent and
//! the button is pressed through accessibility), and the screen is captured through mutter's
//! screen cast (PipeWire), with a password field that cannot be placed masking it all.
//! Judged by the fixture's own log, never by Deft's report.

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};

use super::scratch;
use super::wayland::on_compositor;

/// What the fixture logged that an input would cause.
const EFFECTS: &[&str] =
    &["button_activated", "checkbox_toggled", "dialog_opened", "order_submitted", "selection_changed", "text_changed"];

#[test]
fn on_bare_mutter_deft_types_and_presses_through_its_remote_desktop_and_never_guesses_a_place() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let mutter = desktop.start_mutter().unwrap_or_else(|e| panic!("mutter did not start: {e}"));
    let cli = |args: &[&str]| on_compositor(&desktop, mutter.socket(), "gnome-home", args);
    let dir = scratch("gnome-shot");
    let shot = |name: &str| {
        let file = dir.join(name);
        let r = cli(&["screenshot", "-o", &file.display().to_string(), "--json"]);
        r.expect_code(0);
        (super::wayland::rgb_of(&file), r)
    };

    // The empty desktop through mutter's screen cast: the whole monitor, not a mask.
    let ((w, h, empty), r) = shot("empty.png");
    assert_eq!((w, h), (1280, 800), "{r:#?}");
    assert!(empty.chunks(3).any(|p| p != [48, 48, 48]), "real pixels: {r:#?}");

    let opts = FixtureOptions { env: mutter.client_env(), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let effects = || -> Vec<deft_harness::fixture::Event> {
        app.events().into_iter().filter(|e| EFFECTS.contains(&e.kind.as_str())).collect()
    };

    let r = cli(&["doctor", "--json"]);
    let v = r.json();
    let part = |name: &str| v["parts"].as_array().unwrap().iter().find(|p| p["part"] == name).cloned().unwrap();
    let session = part("session")["detail"].as_str().unwrap_or_default().to_string();
    assert!(session.contains("GNOME's mutter"), "the doctor names the compositor: {r:#?}");
    let input = part("input");
    assert_eq!(input["ok"], true, "{r:#?}");
    assert!(input["detail"].as_str().unwrap_or_default().contains("RemoteDesktop"), "{r:#?}");
    assert_eq!(part("window geometry")["ok"], false, "GNOME keeps its window list to itself: {r:#?}");
    assert_eq!(part("capture")["ok"], true, "{r:#?}");
    assert_eq!(part("capture")["detail"], "mutter-screencast", "{r:#?}");

    // The app's password field is shown, and nothing says where: the whole image is its
    // area, painted over, and the result says why (never a password on a saved image).
    let ((w, h, masked), r) = shot("masked.png");
    assert_eq!((w, h), (1280, 800), "{r:#?}");
    assert!(masked.chunks(3).all(|p| p == [48, 48, 48]), "all painted over: {r:#?}");
    assert!(r.json()["note"].as_str().unwrap_or_default().contains("painted over"), "{r:#?}");

    // Found, with no place on screen: GTK's extents are window-relative on Wayland.
    let r = cli(&["find", "--name", "Hello", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["matches"][0]["bounds"], serde_json::Value::Null, "{r:#?}");

    // Typed through mutter's keyboard, key by key (the app logs each), at the first try.
    let r = cli(&["type", "--name", "Name", "--text", "Ada L.", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["verified"], true, "{r:#?}");
    assert_eq!(v["attempts"].as_array().map(Vec::len), Some(1), "{r:#?}");
    assert_eq!(v["attempts"][0]["method"], "keystrokes", "{r:#?}");
    app.wait_for(|e| e.is("text_changed", Some("name")) && e.raw["value"] == "Ada L.", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}: {r:#?}"));
    let typed: Vec<_> = app.events().into_iter().filter(|e| e.is("text_changed", Some("name"))).collect();
    assert_eq!(typed.len(), 6, "one change per key, none twice: {typed:?}");

    // Chords through mutter's keyboard: select all, delete; the field is empty.
    for chord in ["ctrl+a", "BackSpace"] {
        cli(&["key", chord, "--json"]).expect_code(0);
    }
    app.wait_for(|e| e.is("text_changed", Some("name")) && e.raw["value"] == "", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));

    // A character not every layout has is never typed as keys (GNOME would drop it without
    // a word): the whole text is set through accessibility, with no half typed first.
    let r = cli(&["type", "--name", "Email", "--text", "Zoë", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["verified"], true, "{r:#?}");
    app.wait_for(|e| e.is("text_changed", Some("email")) && e.raw["value"] == "Zoë", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}: {r:#?}"));
    let email: Vec<_> = app.events().into_iter().filter(|e| e.is("text_changed", Some("email"))).collect();
    assert_eq!(email.len(), 1, "set whole, nothing typed before: {email:?}");

    // Pressed: never at a guessed place; through accessibility, once.
    let before = effects().len();
    let r = cli(&["click", "--name", "Hello", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["verified"], true, "{r:#?}");
    let refused = v["attempts"][0]["result"]["failed"]["message"].as_str().unwrap_or_default();
    assert!(refused.contains("so none was sent"), "the pointer was not used: {r:#?}");
    app.wait_for(|e| e.is("button_activated", Some("hello")), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    std::thread::sleep(Duration::from_millis(500));
    let after: Vec<_> = effects().split_off(before);
    assert_eq!(after.len(), 1, "Hello once, nothing else: {after:?}");

    app.check_alive(&desktop, Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
}

/// GNOME Shell with Deft's extension: the windows are placed, so an element's bounds are
/// where the screen shows it. A press goes through mutter's pointer at the first try and
/// lands (the app logs a pointer activation), text is typed with Shift held as its own
/// key, and a screenshot masks the password field alone.
#[test]
fn on_gnome_shell_deft_places_windows_and_presses_with_the_pointer() {
    let _alone = super::apart_from_campaigns();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let shell = desktop.start_gnome_shell().unwrap_or_else(|e| panic!("GNOME Shell did not start: {e}"));
    let cli = |args: &[&str]| on_compositor(&desktop, shell.socket(), "gnome-shell-home", args);
    let opts = FixtureOptions { env: shell.client_env(), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));

    let r = cli(&["doctor", "--json"]);
    let v = r.json();
    let part = |name: &str| v["parts"].as_array().unwrap().iter().find(|p| p["part"] == name).cloned().unwrap();
    assert_eq!(part("window geometry")["ok"], true, "{r:#?}");
    assert!(part("window geometry")["detail"].as_str().unwrap_or_default().contains("GNOME Shell extension"), "{r:#?}");

    let r = cli(&["find", "--name", "Hello", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["matches"][0]["bounds"].as_array().map(Vec::len), Some(4), "placed: {r:#?}");
    assert_eq!(
        v["problems"].as_array().map(Vec::len).unwrap_or(0),
        0,
        "nothing unplaced, the Shell's own UI neither: {r:#?}"
    );

    let r = cli(&["click", "--name", "Hello", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["verified"], true, "{r:#?}");
    assert_eq!(v["attempts"][0]["method"], "coordinate_click", "{r:#?}");
    let hello = app
        .wait_for(|e| e.is("button_activated", Some("hello")), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hello.raw["via"], "pointer", "the pointer landed on the button: {hello:?}\n{r:#?}");

    let text = "Ada L., 42!";
    let r = cli(&["type", "--name", "Name", "--text", text, "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(
        (v["verified"].clone(), v["attempts"][0]["method"].clone()),
        (true.into(), "keystrokes".into()),
        "{r:#?}"
    );
    app.wait_for(|e| e.is("text_changed", Some("name")) && e.raw["value"] == text, Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}: {r:#?}"));
    let typed: Vec<_> = app.events().into_iter().filter(|e| e.is("text_changed", Some("name"))).collect();
    assert_eq!(typed.len(), text.chars().count(), "one change per key, each right: {typed:?}");

    // The password field alone is painted over, where the screen shows it.
    let file = scratch("gnome-shell-shot").join("shot.png");
    let r = cli(&["screenshot", "-o", &file.display().to_string(), "--json"]);
    r.expect_code(0);
    let masked = r.json()["masked"].clone();
    assert_eq!(masked.as_array().map(Vec::len), Some(1), "{r:#?}");
    let [x, y, w, h] = [0, 1, 2, 3].map(|i| masked[0][i].as_i64().unwrap() as usize);
    assert_eq!((w, h), (180, 36), "the fixture's password field: {r:#?}");
    let (width, _, rgb) = super::wayland::rgb_of(&file);
    let at = |px: usize, py: usize| &rgb[(py * width as usize + px) * 3..][..3];
    assert_eq!(at(x + w / 2, y + h / 2), [48, 48, 48], "the mask is where the field is");
    assert!(rgb.chunks(3).filter(|p| *p != [48, 48, 48]).count() > 500_000, "the rest is the screen");

    // The overview open (as the Super key opens it) lies over every window: nothing is
    // placed, and no press is aimed at a window's old place until the window is brought
    // back (as a click on it in the overview would); then Submit order is pressed once,
    // by the pointer.
    desktop.set_overview(true);
    let start = std::time::Instant::now();
    while desktop.overview_active() != Some(true) {
        assert!(start.elapsed() < Duration::from_secs(10), "the overview did not open");
        std::thread::sleep(Duration::from_millis(50));
    }
    let r = cli(&["find", "--name", "Hello", "--json"]);
    let v = r.json();
    assert!(v["matches"][0]["bounds"].is_null(), "not placed under the overview: {r:#?}");
    assert!(v["problems"].to_string().contains("overview"), "the reason said: {r:#?}");
    let r = cli(&["click", "--name", "Submit order", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    let first = (v["verified"].clone(), v["attempts"][0]["method"].clone());
    assert_eq!(first, (true.into(), "coordinate_click".into()), "{r:#?}");
    assert!(v["evidence"].to_string().contains("restored window"), "{r:#?}");
    let submit = app
        .wait_for(|e| e.is("button_activated", Some("submit")), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(submit.raw["via"], "pointer", "pressed once the window was back: {submit:?}\n{r:#?}");
    assert_eq!(desktop.overview_active(), Some(false), "the overview closed to bring the window back");

    // Keys for the app under the overview would go to the overview's search: its window
    // is brought back first, then Return presses Submit order (it kept the focus).
    desktop.set_overview(true);
    let start = std::time::Instant::now();
    while desktop.overview_active() != Some(true) {
        assert!(start.elapsed() < Duration::from_secs(10), "the overview did not open again");
        std::thread::sleep(Duration::from_millis(50));
    }
    let r = cli(&["key", "Return", "--app", "deft-fixture", "--verify", "--json"]);
    r.expect_code(0);
    assert!(r.json()["evidence"].to_string().contains("restored window"), "{r:#?}");
    app.wait_for_count(2, |e| e.is("button_activated", Some("submit")), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("Return never reached the app ({e}): {r:#?}"));
    assert_eq!(desktop.overview_active(), Some(false), "the overview closed for the keys");

    std::thread::sleep(Duration::from_millis(500));
    let effects: Vec<_> = app.events().into_iter().filter(|e| EFFECTS.contains(&e.kind.as_str())).collect();
    // Hello, the keys, Submit order's activation and its order, twice.
    assert_eq!(effects.len(), 1 + text.chars().count() + 4, "each once, nothing else: {effects:?}");
    app.check_alive(&desktop, Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
}

/// The reduced fault campaign (every fault of the fixture app once, agent-cli with
/// `--verify`) with a port of the fixture app as a native Wayland client on GNOME Shell with
/// Deft's extension; judged by the app's own log.
fn campaign_on_gnome(toolkit: deft_harness::fixture::Toolkit) {
    let _alone = super::apart_from_campaigns();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let shell = desktop.start_gnome_shell().unwrap_or_else(|e| panic!("GNOME Shell did not start: {e}"));
    super::wayland::campaign_in(&desktop, &shell.client_env(), toolkit, "GNOME");
}

// Under two busy loops, GTK 3, Qt 5 and Qt 6 once had a silent failure each here: a
// dropped press taken as received from its look, the frames of GNOME's screen cast too slow
// to compare (and on GTK 3 the misreported place verified by the other button's effect).
// Since a look is evidence only where frames are fast (`Capture::watches_presses`), each
// passed under the same load (docs/BENCHMARKS.md, "Fault campaign on GNOME").
#[test]
fn on_gnome_every_fault_once_on_gtk3() {
    campaign_on_gnome(deft_harness::fixture::Toolkit::Gtk3);
}

// GTK 4 on GNOME: 1 silent failure and 2 double effects in 19 actions (2026-11-28), judged
// by looks from frames too slow to see a press; with looks no longer evidence there, 0 silent
// and 1 double: GTK 4 says nothing of a held button, so a press that showed no effect
// ("Hello" clicked twice, the second time changing nothing) had no witness at all, and the
// chain sent the accessibility action after the 3 s window. Since a press nothing could
// watch is never followed by another input (`Signals::press_unwatched`): 0 silent, 0 double,
// every recoverable fault recovered, and "Hello" twice ends exit 1 saying whether the press
// arrived cannot be told (its one activation logged): honest, but the campaign asks for
// "ok" there. Out of `cargo xtask ci` until a witness exists on GNOME (frames that do not lag
// a press); run with `--ignored`.
#[test]
#[ignore = "GTK 4 on GNOME: a second press of Hello ends 'cannot be told' (exit 1), no witness there; see above"]
fn on_gnome_every_fault_once_on_gtk4() {
    campaign_on_gnome(deft_harness::fixture::Toolkit::Gtk4);
}

#[test]
fn on_gnome_every_fault_once_on_qt5() {
    campaign_on_gnome(deft_harness::fixture::Toolkit::Qt5);
}

#[test]
fn on_gnome_every_fault_once_on_qt6() {
    campaign_on_gnome(deft_harness::fixture::Toolkit::Qt6);
}

// The browsers on GNOME: 0 silent failures and 0 double effects, but a page field that
// swallows key events ("ignored keys") is not recovered there: on X11 and sway Deft pastes
// the text with a middle click through the primary selection, and on GNOME it has no way to
// set that selection yet (mutter offers no data-control protocol), so the type fails
// clearly. Out of `cargo xtask ci` until it is recovered; run with `--ignored`.
#[test]
#[ignore = "a field that swallows keys is not recovered on GNOME yet: see the comment above"]
fn on_gnome_every_fault_once_on_firefox() {
    campaign_on_gnome(deft_harness::fixture::Toolkit::Firefox);
}

#[test]
#[ignore = "a field that swallows keys is not recovered on GNOME yet: see the comment above"]
fn on_gnome_every_fault_once_on_chromium() {
    campaign_on_gnome(deft_harness::fixture::Toolkit::Chromium);
}

/// FeatherPad (Qt 5) as a native Wayland client on GNOME Shell, where it draws its own
/// title bar above its contents and gives its places relative to the contents: through
/// its menu bar, File, then "Save As" in the popup menu, then its dialog. Placed from the
/// window's top instead, the menu bar's presses landed on the title bar and "Save As" on
/// the entry above it. Judged by the file FeatherPad wrote.
#[test]
fn on_gnome_shell_featherpad_saves_through_its_menu_bar() {
    use deft_harness::apps::CorpusApp;
    if let Some(why) = CorpusApp::FeatherPad.missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let _alone = super::apart_from_campaigns();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let shell = desktop.start_gnome_shell().unwrap_or_else(|e| panic!("GNOME Shell did not start: {e}"));
    let cli = |args: &[&str]| on_compositor(&desktop, shell.socket(), "gnome-featherpad-home", args);
    let dir = scratch("gnome-featherpad");
    let file = dir.join("menu-note.txt");
    let mut app = desktop
        .command(CorpusApp::FeatherPad.program())
        .envs(shell.client_env())
        .envs([("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"), ("QT_ACCESSIBILITY", "1")])
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("FeatherPad did not start: {e}"));
    cli(&["wait", "app=featherpad role=menu name=File", "--timeout", "60000"]).expect_code(0);
    let act = |args: &[&str]| cli(&[args, &["--app", "featherpad", "--verify", "--json"][..]].concat());
    // The editor has the keyboard focus when FeatherPad opens.
    cli(&["type", "--text", "menu qt", "--verify"]).expect_code(0);
    let r = act(&["click", "--role", "menu", "--name", "File"]);
    r.expect_code(0);
    assert_eq!(r.json()["attempts"][0]["method"], "coordinate_click", "pressed where it is shown: {r:#?}");
    let r = act(&["click", "--role", "menu_item", "--name", "Save As"]);
    r.expect_code(0);
    let dialog = ["--window", "Save as..."];
    let set = ["set-value", "--role", "text", "--name", "File name:", "--value", file.to_str().unwrap()];
    act(&[&set[..], &dialog[..]].concat()).expect_code(0);
    act(&[&["click", "--role", "push_button", "--name", "Save"][..], &dialog[..]].concat()).expect_code(0);
    let saved = super::real_apps::saved(&file, "FeatherPad");
    assert_eq!(String::from_utf8_lossy(&saved).trim_end(), "menu qt", "Save As chose, not its neighbour: {r:#?}");
    assert!(app.try_wait().ok().flatten().is_none(), "FeatherPad still runs");
    let _ = app.kill();
    let _ = app.wait();
}
