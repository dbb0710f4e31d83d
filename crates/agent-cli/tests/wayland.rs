//! A Wayland session with no X display: sway on its headless backend and the GTK 3 fixture
//! as a native Wayland client, on the desktop's accessibility bus. Deft reads and finds
//! there (from the CLI and over MCP), places the toolkit's window-relative bounds where sway
//! shows the window, clicks through wlroots' virtual pointer, types through its virtual
//! keyboard (US layout; other text is set through accessibility), and captures the screen
//! through wlroots' screencopy: judged by the fixture's own log, swaymsg, grim and an
//! independent accessibility client, never by Deft's report.

use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::wayland::Sway;

use super::{BIN, Run, isolate, run, scratch};

/// agent-cli on the Wayland session: the compositor's socket, and no X display.
fn on_wayland(desktop: &Desktop, sway: &Sway, args: &[&str]) -> Run {
    on_compositor(desktop, sway.socket(), "wayland-home", args)
}

/// agent-cli on the Wayland compositor at `socket` (no X display), with a home of its own
/// named `home`.
pub(crate) fn on_compositor(desktop: &Desktop, socket: &std::path::Path, home: &str, args: &[&str]) -> Run {
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &scratch(home));
    cmd.env_remove("DISPLAY").env("WAYLAND_DISPLAY", socket).args(args);
    run(cmd)
}

/// What the fixture logged that an input would cause.
const EFFECTS: &[&str] =
    &["button_activated", "checkbox_toggled", "dialog_opened", "order_submitted", "selection_changed", "text_changed"];

#[test]
fn on_sway_deft_reads_clicks_types_and_captures_through_wlroots_protocols() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let sway = desktop.start_sway().unwrap_or_else(|e| panic!("sway did not start: {e}"));
    let opts = FixtureOptions { env: sway.client_env(), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    // A Wayland client for sure: the X server beside it has no window of it.
    let on_x = desktop.command("xdotool").args(["search", "--name", "Deft Fixture"]).output().unwrap();
    assert!(on_x.stdout.is_empty(), "the app opened an X window: {on_x:?}");

    // The doctor: a wlroots session, what it offers, every part connected, the app readable.
    let r = on_wayland(&desktop, &sway, &["doctor", "--json"]);
    r.expect_code(0);
    let v = r.json();
    let session = &v["parts"][0];
    assert_eq!(session["part"], "session", "{r:#?}");
    let detail = session["detail"].as_str().unwrap();
    assert!(detail.contains("a wlroots compositor") && detail.contains("zwlr_virtual_pointer_manager_v1"), "{r:#?}");
    assert_eq!(session["ok"], true, "{r:#?}");
    let part = |name: &str| v["parts"].as_array().unwrap().iter().find(|p| p["part"] == name).cloned().unwrap();
    assert_eq!(part("accessibility bus")["ok"], true, "{r:#?}");
    // Window geometry comes from sway's IPC: the fixture's window is the one listed.
    let geometry = part("window geometry");
    assert_eq!(geometry["ok"], true, "{r:#?}");
    assert_eq!(geometry["detail"], "1 top-level windows (sway's IPC)", "{r:#?}");
    let input = part("input");
    assert_eq!(input["ok"], true, "{r:#?}");
    let detail = input["detail"].as_str().unwrap();
    assert!(detail.contains("zwlr_virtual_pointer_v1") && detail.contains("zwp_virtual_keyboard_v1"), "{r:#?}");
    let capture = part("capture");
    assert_eq!(capture["ok"], true, "{r:#?}");
    assert_eq!(capture["detail"], "wlr-screencopy", "{r:#?}");
    let listed = v["applications"].as_array().unwrap().iter().find(|a| a["pid"] == app.pid()).cloned();
    assert_eq!(listed.map(|a| a["readable"].clone()), Some(true.into()), "{r:#?}");

    // Reading and finding work: accessibility does not care about the display server. The
    // toolkit gives bounds relative to its window; they are placed where sway shows the
    // window, as swaymsg (sway's own client) reads it, plus where the app drew the button.
    let r = on_wayland(&desktop, &sway, &["find", "--name", "Submit order", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["count"], 1, "{r:#?}");
    let (ox, oy) = content_origin(&sway, app.pid());
    let submit = app.ready().widget("submit");
    let want = serde_json::json!([ox + submit.x, oy + submit.y, submit.w, submit.h]);
    assert_eq!(v["matches"][0]["bounds"], want, "{r:#?}");

    // Waiting only reads: it works too.
    let r = on_wayland(&desktop, &sway, &["wait", "--name", "Submit order", "--timeout", "5000", "--json"]);
    r.expect_code(0);

    // A verified click through the virtual pointer: the app logs it once, from the pointer.
    let r = on_wayland(&desktop, &sway, &["click", "--name", "Hello", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["verified"], true, "{r:#?}");
    app.wait_for(|e| e.kind == "button_activated", Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
    std::thread::sleep(Duration::from_millis(500));
    let clicks: Vec<_> = app.events().into_iter().filter(|e| e.kind == "button_activated").collect();
    assert_eq!(clicks.len(), 1, "one click: {clicks:?}");
    assert_eq!(clicks[0].widget.as_deref(), Some("hello"), "{clicks:?}");
    assert_eq!(clicks[0].raw["via"], "pointer", "{clicks:?}");

    // Text through the virtual keyboard: one key at a time, shifted where it must be.
    let r = on_wayland(&desktop, &sway, &["type", "--name", "Name", "--text", "Ada", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["verified"], true, "{r:#?}");
    assert_eq!(v["attempts"][0]["method"], "keystrokes", "{r:#?}");
    let typed: Vec<String> = app
        .events()
        .into_iter()
        .filter(|e| e.is("text_changed", Some("name")))
        .map(|e| e.raw["value"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(typed, ["A", "Ad", "Ada"], "each key once");

    // A character the US layout has no key for: no key is sent, the text is set whole.
    let r = on_wayland(&desktop, &sway, &["type", "--name", "Email", "--text", "café", "--verify", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["verified"], true, "{r:#?}");
    let email: Vec<String> = app
        .events()
        .into_iter()
        .filter(|e| e.is("text_changed", Some("email")))
        .map(|e| e.raw["value"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(email, ["café"], "set once, never half typed");

    // The window's screenshot through wlroots' screencopy: where sway shows the window's
    // content, and in each still widget the same pixels grim (an independent wlroots
    // screenshot client) copies there; the password field masked in Deft's alone. (Not the
    // whole window: a spinner turns, a focus ring fades, the button under the pointer
    // lights up, between the two captures.)
    let dir = scratch("wayland-shot");
    let shot = dir.join("deft.png");
    let r = on_wayland(&desktop, &sway, &["screenshot", "--window", "Deft Fixture", "-o", &shot.display().to_string()]);
    r.expect_code(0);
    let (x, y, w, h) = content_rect(&sway, app.pid());
    let truth = dir.join("grim.png");
    let grim = desktop
        .command("grim")
        .env("WAYLAND_DISPLAY", sway.socket())
        .args(["-g", &format!("{x},{y} {w}x{h}")])
        .arg(&truth)
        .output()
        .unwrap();
    assert!(grim.status.success(), "grim failed: {grim:?}");
    let (ours, theirs) = (rgb_of(&shot), rgb_of(&truth));
    assert_eq!((ours.0, ours.1), (w, h), "the window's content, as sway places it");
    assert_eq!((theirs.0, theirs.1), (w, h));
    let differing = |name: &str| {
        let r = app.ready().widget(name);
        let mut n = 0;
        for py in r.y..r.y + r.h {
            for px in r.x..r.x + r.w {
                let at = (py as usize * w as usize + px as usize) * 3;
                n += usize::from(ours.2[at..at + 3] != theirs.2[at..at + 3]);
            }
        }
        n
    };
    for still in ["submit", "save", "subscribe"] {
        assert_eq!(differing(still), 0, "{still}: Deft's pixels differ from grim's");
    }
    assert!(differing("password") > 1000, "the password field is masked in Deft's screenshot, not in grim's");

    // Over MCP (the official Python SDK's client): the tools are listed and `find` works,
    // the toolbelt connected with accessibility alone.
    let mut client = super::mcp::client(Some(&desktop), "list", "auto", &[]);
    client.env_remove("DISPLAY").env("WAYLAND_DISPLAY", sway.socket());
    let r = run(client);
    assert_eq!(r.code, 0, "the MCP client's checks failed on Wayland: {r:#?}");

    // Nothing else reached the app, and it still answers an independent accessibility client.
    std::thread::sleep(Duration::from_millis(500));
    let effects: Vec<_> = app.events().into_iter().filter(|e| EFFECTS.contains(&e.kind.as_str())).collect();
    assert_eq!(effects.len(), 5, "the click and the two texts' changes, nothing else: {effects:?}");
    app.check_alive(&desktop, Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
}

/// Two windows of one process with the same title and size, at different places: GTK 4
/// gives positions relative to its window, and nothing in sway's list tells which of the
/// two a button is in. Deft must not guess (a click placed by the wrong one lands on
/// whatever lies there): the button gets no bounds, the read says why, no pointer input is
/// sent, and the click goes through the accessibility action, once (the app's log).
#[test]
fn on_sway_a_window_that_cannot_be_told_from_its_twin_gets_no_pointer_input() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let sway = desktop.start_sway().unwrap_or_else(|e| panic!("sway did not start: {e}"));
    let opts = FixtureOptions {
        toolkit: deft_harness::fixture::Toolkit::Gtk4,
        env: sway.client_env(),
        extra_args: vec!["--twin-window".into()],
        ..FixtureOptions::default()
    };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    app.wait_for(|e| e.kind == "twin_shown", Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
    // sway centres both fixed-size windows at one place (then either gives the same
    // offset, and that is no ambiguity): move one aside.
    let views = views_of(&sway, app.pid());
    assert_eq!(views.len(), 2, "two windows of the app: {views:?}");
    let moved = std::process::Command::new("swaymsg")
        .env("SWAYSOCK", sway.ipc())
        .arg(format!("[con_id={}] move position 420 160", views[1]))
        .output()
        .unwrap();
    assert!(moved.status.success(), "swaymsg: {moved:?}");

    let r = on_wayland(&desktop, &sway, &["find", "--name", "Hello", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["count"], 1, "{r:#?}");
    assert_eq!(v["matches"][0]["bounds"], serde_json::Value::Null, "no place is guessed: {r:#?}");
    let problems = v["problems"].as_array().cloned().unwrap_or_default();
    assert!(
        problems.iter().any(|p| p.as_str().is_some_and(|p| p.contains("2 windows of its process have that title"))),
        "the read says why: {r:#?}"
    );

    let r = on_wayland(&desktop, &sway, &["click", "--name", "Hello", "--verify", "--json"]);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(v["verified"], true, "{r:#?}");
    assert_eq!(v["attempts"][0]["method"], "coordinate_click", "{r:#?}");
    let refused = v["attempts"][0]["result"]["failed"]["message"].as_str().unwrap_or_default();
    assert!(refused.contains("so none was sent"), "the pointer was not used: {r:#?}");
    let last = v["attempts"].as_array().unwrap().last().cloned().unwrap();
    assert_eq!(last["method"], "a11y_action", "{r:#?}");
    app.wait_for(|e| e.kind == "button_activated", Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
    std::thread::sleep(Duration::from_millis(500));
    let effects: Vec<_> = app.events().into_iter().filter(|e| EFFECTS.contains(&e.kind.as_str())).collect();
    assert_eq!(effects.len(), 1, "Hello once, nothing else: {effects:?}");
    assert_eq!(effects[0].widget.as_deref(), Some("hello"), "{effects:?}");
    app.check_alive(&desktop, Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
}

/// A Wayland compositor that offers no protocol Deft can send input through (weston; GNOME
/// and KDE look like that to Deft today): the doctor says what is missing, reading and
/// finding work (with no bounds: nothing says where the window is), and every action is
/// refused before anything is sent, naming what is missing. Judged by the app's log.
#[test]
fn on_a_compositor_without_an_input_backend_nothing_is_sent_and_the_refusal_says_why() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let weston = desktop.start_weston().unwrap_or_else(|e| panic!("weston did not start: {e}"));
    let opts = FixtureOptions { env: weston.client_env(), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let cli = |args: &[&str]| on_compositor(&desktop, weston.socket(), "weston-home", args);

    let r = cli(&["doctor", "--json"]);
    let v = r.json();
    let part = |name: &str| v["parts"].as_array().unwrap().iter().find(|p| p["part"] == name).cloned().unwrap();
    let input = part("input");
    assert_eq!(input["ok"], false, "{r:#?}");
    let why = input["detail"].as_str().unwrap_or_default();
    assert!(why.contains("offers no virtual pointer"), "the doctor names what is missing: {r:#?}");
    assert_eq!(part("accessibility bus")["ok"], true, "{r:#?}");

    // Found, with no place on screen: nothing says where the window is.
    let r = cli(&["find", "--name", "Hello", "--json"]);
    r.expect_code(0);
    assert_eq!(r.json()["matches"][0]["bounds"], serde_json::Value::Null, "{r:#?}");

    // Every action is refused before anything is sent, saying what is missing: a key, a
    // click at a point, a click on the button, typing.
    for args in [
        &["key", "F2", "--json"][..],
        &["click", "--at", "60,60", "--json"],
        &["click", "--name", "Hello", "--verify", "--json"],
        &["type", "--name", "Name", "--text", "Ada", "--verify", "--json"],
    ] {
        let r = cli(args);
        r.expect_code(7);
        let message = r.json()["error"]["message"].as_str().unwrap_or_default().to_string();
        assert!(message.contains("offers no virtual pointer") && message.contains("actions do not"), "{r:#?}");
    }

    std::thread::sleep(Duration::from_millis(500));
    let effects: Vec<_> = app.events().into_iter().filter(|e| EFFECTS.contains(&e.kind.as_str())).collect();
    assert!(effects.is_empty(), "nothing reached the app: {effects:?}");
    app.check_alive(&desktop, Duration::from_secs(10)).unwrap_or_else(|e| panic!("{e}"));
}

/// The container ids of the views of process `pid` in sway's tree, in its order.
fn views_of(sway: &Sway, pid: u32) -> Vec<i64> {
    let out =
        std::process::Command::new("swaymsg").env("SWAYSOCK", sway.ipc()).args(["-t", "get_tree"]).output().unwrap();
    let tree: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("swaymsg: {e}: {out:?}"));
    fn walk(node: &serde_json::Value, pid: u32, out: &mut Vec<i64>) {
        if node["pid"] == pid {
            out.extend(node["id"].as_i64());
        }
        for c in node["nodes"].as_array().into_iter().chain(node["floating_nodes"].as_array()).flatten() {
            walk(c, pid, out);
        }
    }
    let mut ids = Vec::new();
    walk(&tree, pid, &mut ids);
    ids
}

/// Where sway shows the content of the window of process `pid`, read with swaymsg: the
/// container's rect plus the window's rect inside it (x, y, width, height).
fn content_rect(sway: &Sway, pid: u32) -> (i32, i32, u32, u32) {
    let out =
        std::process::Command::new("swaymsg").env("SWAYSOCK", sway.ipc()).args(["-t", "get_tree"]).output().unwrap();
    let tree: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("swaymsg: {e}: {out:?}"));
    fn find(node: &serde_json::Value, pid: u32) -> Option<(i32, i32, u32, u32)> {
        if node["pid"] == pid {
            let at = |r: &serde_json::Value, k: &str| r[k].as_i64().unwrap() as i32;
            let (rect, inner) = (&node["rect"], &node["window_rect"]);
            let (w, h) = (at(inner, "width") as u32, at(inner, "height") as u32);
            return Some((at(rect, "x") + at(inner, "x"), at(rect, "y") + at(inner, "y"), w, h));
        }
        let children = node["nodes"].as_array().into_iter().chain(node["floating_nodes"].as_array()).flatten();
        children.into_iter().find_map(|c| find(c, pid))
    }
    find(&tree, pid).unwrap_or_else(|| panic!("no window of pid {pid} in sway's tree"))
}

pub(crate) fn content_origin(sway: &Sway, pid: u32) -> (i32, i32) {
    let (x, y, _, _) = content_rect(sway, pid);
    (x, y)
}

/// A PNG's width, height and RGB pixels (alpha dropped).
pub(crate) fn rgb_of(file: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(file).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("{}: {other:?} pixels", file.display()),
    };
    let rgb = buf[..info.buffer_size()].chunks_exact(step).flat_map(|p| [p[0], p[1], p[2]]).collect();
    (info.width, info.height, rgb)
}

/// The reduced fault campaign (every fault of the fixture app once, agent-cli with
/// `--verify`) with a port of the fixture app as a native Wayland client on sway: the same
/// promise as on X11, judged by the app's own log.
fn campaign_on_sway(toolkit: deft_harness::fixture::Toolkit) {
    let _alone = super::beside_campaigns();
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let sway = desktop.start_sway().unwrap_or_else(|e| panic!("sway did not start: {e}"));
    campaign_in(&desktop, &sway.client_env(), toolkit, "sway");
}

/// The reduced fault campaign with `toolkit`'s port as a native Wayland client of the
/// compositor `env` names (the session `session` in docs/EVIDENCE.md): run, recorded as
/// evidence, and judged to end right.
pub(crate) fn campaign_in(
    desktop: &Desktop,
    env: &[(String, String)],
    toolkit: deft_harness::fixture::Toolkit,
    session: &str,
) {
    use deft_harness::campaign::{self, Driver};
    let driver = Driver::AgentCli { binary: std::path::PathBuf::from(BIN), verify: true };
    let scenarios = campaign::on_toolkit(campaign::fault_scenarios(), toolkit);
    let scenarios = campaign::on_wayland(scenarios, env);
    let report =
        campaign::run(desktop, &scenarios, &driver).unwrap_or_else(|e| panic!("the campaign did not run: {e}"));
    let table = format!("{}\n{}", report.markdown(), report.failures_markdown());
    let what = format!("{} on {session}", toolkit.label());
    println!("{what}:\n{table}");
    deft_harness::evidence::record(&report, session).unwrap_or_else(|e| panic!("recording the evidence: {e}"));
    super::campaign::ends_right(&report, &table, &what);
}

#[test]
fn on_sway_every_fault_once_on_gtk3() {
    campaign_on_sway(deft_harness::fixture::Toolkit::Gtk3);
}

#[test]
fn on_sway_every_fault_once_on_qt5() {
    campaign_on_sway(deft_harness::fixture::Toolkit::Qt5);
}

#[test]
fn on_sway_every_fault_once_on_qt6() {
    campaign_on_sway(deft_harness::fixture::Toolkit::Qt6);
}

#[test]
fn on_sway_every_fault_once_on_gtk4() {
    campaign_on_sway(deft_harness::fixture::Toolkit::Gtk4);
}

// The browsers on sway: Chromium once clicked "Hello" a second time here (its held button
// is drawn too faintly for a pressed look, and the unchanged-look rule took that as a press
// that never arrived); a faint look now counts as the press reaching the browser (press.rs,
// `FAINT_SHARE`). Chromium stays out of `cargo xtask ci` for one known flake (about 1 run in
// 12): the stale "Submit order" verified by its re-created half, the removed one still in
// Chromium's tree and, asked what is at its place, still answering (watch.rs `target_left`);
// run with `--ignored`.
#[test]
#[ignore = "a known flake on sway: see the comment above"]
fn on_sway_every_fault_once_on_chromium() {
    campaign_on_sway(deft_harness::fixture::Toolkit::Chromium);
}

#[test]
fn on_sway_every_fault_once_on_firefox() {
    campaign_on_sway(deft_harness::fixture::Toolkit::Firefox);
}
