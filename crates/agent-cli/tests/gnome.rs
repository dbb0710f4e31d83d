//! A GNOME session with no X display: mutter headless (its virtual monitor, PipeWire for
//! its remote desktop sessions) and the GTK 3 fixture as a native Wayland client, on the
//! desktop's accessibility bus. Deft sends keys and pointer input through mutter's
//! RemoteDesktop D-Bus API (the harness holds a session of its own as the keyboard a
//! person at the desktop has: a headless mutter with no keyboard focuses no window); GNOME tells no client where its windows are, so nothing is
//! pressed at a guessed place (the pointer methods are refused before anything is sent and
//! the button is pressed through accessibility), and the screen is captured through mutter's
//! screen cast (PipeWire), with a password field that cannot be placed masking it all.
//! Judged by the fixture's own log, never by Deft's report.

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};

use super::{BIN, isolate, run, scratch};

/// What the fixture logged that an input would cause.
const EFFECTS: &[&str] =
    &["button_activated", "checkbox_toggled", "dialog_opened", "order_submitted", "selection_changed", "text_changed"];

#[test]
fn on_gnome_deft_types_and_presses_through_mutters_remote_desktop_and_never_guesses_a_place() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let mutter = desktop.start_mutter().unwrap_or_else(|e| panic!("mutter did not start: {e}"));
    let cli = |args: &[&str]| {
        let mut cmd = desktop.command(BIN);
        isolate(&mut cmd, &scratch("gnome-home"));
        cmd.env_remove("DISPLAY").env("WAYLAND_DISPLAY", mutter.socket()).args(args);
        run(cmd)
    };
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
