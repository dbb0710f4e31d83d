//! Recording a flow on a Wayland session (sway), where no client may watch another's
//! input: the steps are inferred from what the app reports over accessibility. The person
//! is played by sway's own seat commands (the pointer) and wtype (its own virtual
//! keyboard): neither is Deft. The recorded flow is then replayed on a fresh app there,
//! and both are judged by the fixture's log.

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::wayland::Sway;

use super::flows::{Recording, task_events};
use super::wayland::{content_origin, on_compositor};
use super::{BIN, isolate, scratch};

/// A press as a person makes it, through sway's seat: the pointer there, down, up.
fn press(sway: &Sway, app: &FixtureApp, widget: &str) {
    let (ox, oy) = content_origin(sway, app.pid());
    let (x, y) = app.ready().widget(widget).center();
    let swaymsg = |args: &[&str]| {
        let out = std::process::Command::new("swaymsg").env("SWAYSOCK", sway.ipc()).args(args).output().unwrap();
        assert!(out.status.success(), "swaymsg {args:?}: {out:?}");
    };
    swaymsg(&["seat", "-", "cursor", "set", &(ox + x).to_string(), &(oy + y).to_string()]);
    swaymsg(&["seat", "-", "cursor", "press", "button1"]);
    std::thread::sleep(Duration::from_millis(150));
    swaymsg(&["seat", "-", "cursor", "release", "button1"]);
    // A person looks before acting again.
    std::thread::sleep(Duration::from_millis(1200));
}

/// Keys as a person types them, through wtype's own virtual keyboard.
fn type_text(desktop: &Desktop, sway: &Sway, text: &str) {
    let out = desktop
        .command("wtype")
        .env_remove("DISPLAY")
        .env("WAYLAND_DISPLAY", sway.socket())
        .args(["-d", "60", text])
        .output()
        .expect("wtype runs (cargo xtask setup installs it)");
    assert!(out.status.success(), "wtype: {out:?}");
    std::thread::sleep(Duration::from_millis(1200));
}

#[test]
fn on_sway_a_flow_is_recorded_from_what_the_app_reports_and_replays_with_the_same_log() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let sway = desktop.start_sway().unwrap_or_else(|e| panic!("sway did not start: {e}"));
    let opts = FixtureOptions { env: sway.client_env(), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let file = scratch("wayland-record").join("recorded.yaml");
    let _ = std::fs::remove_file(&file);
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &scratch("wayland-record-home"));
    cmd.env_remove("DISPLAY").env("WAYLAND_DISPLAY", sway.socket());
    cmd.args(["flow", "record", file.to_str().unwrap()]);
    let recorder = Recording::spawn(cmd);
    assert!(
        recorder.lines.iter().any(|l| l.contains("the steps are inferred from what the applications report")),
        "the recording says how it records: {:#?}",
        recorder.lines
    );

    // The person: into Name, types, submits, subscribes, saves.
    press(&sway, &app, "name");
    type_text(&desktop, &sway, "Ada Lovelace");
    press(&sway, &app, "submit");
    press(&sway, &app, "subscribe");
    press(&sway, &app, "save");
    app.wait_for(|e| e.kind == "dialog_ready", Duration::from_secs(10)).expect("Save pressed");
    std::thread::sleep(Duration::from_millis(1500));
    let said = recorder.stop();
    let recorded = task_events(&app);
    assert_eq!(
        recorded,
        ["pressed submit", "order_submitted", "toggled subscribe", "pressed save"].map(String::from),
        "what the person did, by the app's log: {:?}",
        app.events()
    );
    let text = std::fs::read_to_string(&file).expect("the flow was written");
    assert!(said.contains("inferred from what the applications reported"), "{said}");
    assert!(text.contains("text: Ada Lovelace"), "the typed text: {text}");
    assert!(text.contains("name: Submit order") && text.contains("expect: text:\"Order 1 submitted\""), "{text}");
    assert!(text.contains("name: Subscribe"), "the toggle: {text}");
    assert!(text.contains("name: Save\n"), "Save by its name before the press renamed it: {text}");
    assert!(text.contains("expect: title:\"Save complete\""), "the dialog Save opened: {text}");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
    app.shutdown().expect("the recorded app ends");

    // Replayed by Deft on a fresh app on the same session: the same effects, once each.
    let again = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let r = on_compositor(&desktop, sway.socket(), "wayland-record-home", &["flow", "run", file.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{text}\n{r:#?}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(task_events(&again), recorded, "the same effects, once each: {:?}", again.events());
    again.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}
