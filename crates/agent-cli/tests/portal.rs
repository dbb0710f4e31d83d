//! Input through the desktop portal's remote desktop (`DEFT_INPUT=portal`), on a headless
//! GNOME Shell, against a stand-in of the portal (`tests/fixtures/portal/portal_standin.py`:
//! the portal's documented D-Bus interface, every request granted, each call logged, the
//! input passed into mutter as GNOME's own portal backend does), since nobody can answer a
//! real portal's consent dialog in CI. Judged by the fixture's log and the stand-in's: the
//! click and the keys land once each, the person is asked once, and the second run starts
//! with the kept restore token and no question.

use std::process::{Child, Stdio};
use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};

use super::{BIN, Run, isolate, run, scratch};

struct StandIn {
    child: Child,
    log: std::path::PathBuf,
}

impl StandIn {
    fn start(desktop: &Desktop, dir: &std::path::Path) -> StandIn {
        let log = dir.join("portal.jsonl");
        let _ = std::fs::remove_file(&log);
        let _ = std::fs::remove_file(dir.join("tokens"));
        let script = deft_harness::workspace_root().join("tests/fixtures/portal/portal_standin.py");
        let mut child = desktop
            .command(deft_harness::python())
            .arg(script)
            .arg("--log")
            .arg(&log)
            .arg("--tokens")
            .arg(dir.join("tokens"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the portal stand-in starts");
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        std::io::BufRead::read_line(&mut out, &mut line).expect("the stand-in says it is ready");
        assert_eq!(line.trim(), "portal stand-in: ready", "{line}");
        StandIn { child, log }
    }

    /// The calls it logged.
    fn calls(&self) -> Vec<serde_json::Value> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn through_the_desktop_portal_a_click_and_keys_land_once_and_consent_is_asked_once() {
    let _alone = super::apart_from_campaigns();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let shell = desktop.start_gnome_shell().unwrap_or_else(|e| panic!("GNOME Shell did not start: {e}"));
    let dir = scratch("portal");
    let portal = StandIn::start(&desktop, &dir);
    let state = dir.join("state");
    let _ = std::fs::remove_dir_all(&state);
    let cli = |args: &[&str]| -> Run {
        let mut cmd = desktop.command(BIN);
        isolate(&mut cmd, &scratch("portal-home"));
        cmd.env_remove("DISPLAY").env("WAYLAND_DISPLAY", shell.socket());
        cmd.env("DEFT_INPUT", "portal").env("XDG_STATE_HOME", &state).args(args);
        run(cmd)
    };
    let opts = FixtureOptions { env: shell.client_env(), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));

    // The doctor asks the portal what it offers without starting a session (which would
    // show the person its dialog).
    let r = cli(&["doctor", "--json"]);
    let v = r.json();
    let input = v["parts"].as_array().unwrap().iter().find(|p| p["part"] == "input").cloned().unwrap();
    assert_eq!(input["ok"], true, "{r:#?}");
    let said = input["detail"].as_str().unwrap_or_default();
    assert!(said.contains("desktop portal's remote desktop (version 2)"), "{r:#?}");
    assert!(portal.calls().is_empty(), "the doctor started nothing: {:#?}", portal.calls());

    let r = cli(&["click", "--name", "Hello", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["verified"], true, "{r:#?}");
    let hello = app
        .wait_for(|e| e.is("button_activated", Some("hello")), Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hello.raw["via"], "pointer", "the portal's pointer landed on the button: {hello:?}\n{r:#?}");

    let r = cli(&["type", "--name", "Name", "--text", "Ada L.", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(
        (v["verified"].clone(), v["attempts"][0]["method"].clone()),
        (true.into(), "keystrokes".into()),
        "{r:#?}"
    );
    app.wait_for(|e| e.is("text_changed", Some("name")) && e.raw["value"] == "Ada L.", Duration::from_secs(10))
        .unwrap_or_else(|e| panic!("{e}: {r:#?}"));
    std::thread::sleep(Duration::from_millis(500));
    let hellos = app.events().into_iter().filter(|e| e.is("button_activated", Some("hello"))).count();
    let typed = app.events().into_iter().filter(|e| e.is("text_changed", Some("name"))).count();
    assert_eq!((hellos, typed), (1, 6), "once each: {:?}", app.events());

    // The portal: two sessions; the person asked at the first, spared at the second by the
    // restore token Deft kept (readable by this user alone).
    let calls = portal.calls();
    let starts: Vec<&str> =
        calls.iter().filter(|c| c["call"] == "Start").filter_map(|c| c["consent"].as_str()).collect();
    assert_eq!(starts, ["asked", "restored"], "{calls:#?}");
    assert!(
        calls.iter().any(|c| c["call"] == "SelectDevices" && c["persist_mode"] == 2 && c["types"] == 3),
        "keyboard and pointer, kept until revoked: {calls:#?}"
    );
    let token = state.join("deft/portal-restore-token");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&token).expect("the token is kept").permissions());
    assert_eq!(mode & 0o077, 0, "the token is this user's alone: {mode:o}");
    app.check_alive(&desktop, Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
}
