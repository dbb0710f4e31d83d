//! The fixture app's ports (GTK 4, Qt 5, Qt 6, the web page in Chromium and Firefox)
//! really misbehave like the GTK3 app, and their logs tell the truth: each fault driven by
//! xdotool and pyatspi (never by Deft), judged by the log, one desktop per toolkit.
//!
//! Where a toolkit's accessibility cannot do what the fault's recovery needs (GTK 4's check
//! box has no action; Chromium's text fields have no EditableText; Firefox's accepts a
//! set-text and changes nothing), the test asserts what the toolkit does, so that the
//! campaign's results per toolkit can be read against it.

use std::process::Output;
use std::time::{Duration, Instant};

use deft_harness::fixture::{Event, FixtureApp, FixtureOptions, Rect, Toolkit, a11y_ports_script, press_probe_script};
use deft_harness::{Desktop, python};

use crate::drivers::{QUIET, WAIT, assert_nothing_within, expect, expect_fault, last_text, start_desktop, type_text};

/// What a toolkit's accessibility offers for the faults' recovery paths, as measured.
struct Expect {
    /// The check box has an accessibility action (GTK 4.8's lists none).
    checkbox_action: bool,
    /// What an AT-SPI set-text on the Name field does.
    set_text: SetText,
    /// The state a push button reports while the pointer button is held on it.
    press_state: Option<&'static str>,
}

#[derive(Debug, PartialEq)]
enum SetText {
    /// EditableText sets the value.
    Works,
    /// The field has no EditableText (the driver finds none: exit 3).
    NoEditableText,
    /// setTextContents returns true and the value stays as it was.
    NoEffect,
}

fn expectations(t: Toolkit) -> Expect {
    match t {
        Toolkit::Gtk3 => Expect { checkbox_action: true, set_text: SetText::Works, press_state: Some("armed") },
        Toolkit::Gtk4 => Expect { checkbox_action: false, set_text: SetText::Works, press_state: None },
        Toolkit::Qt5 | Toolkit::Qt6 => {
            Expect { checkbox_action: true, set_text: SetText::Works, press_state: Some("pressed") }
        }
        Toolkit::Chromium => Expect { checkbox_action: true, set_text: SetText::NoEditableText, press_state: None },
        Toolkit::Firefox => Expect { checkbox_action: true, set_text: SetText::NoEffect, press_state: None },
    }
}

fn is_activation(e: &Event) -> bool {
    e.kind == "button_activated" || e.kind == "order_submitted" || e.kind == "checkbox_toggled"
}

/// Move the pointer to `(x, y)` and click button 1. From the screen's corner first:
/// `xdotool mousemove --sync` to where the pointer already is waits for a motion that
/// never comes (15 s here).
fn click(desktop: &Desktop, (x, y): (i32, i32)) {
    let out = desktop
        .command("timeout")
        .arg("30")
        .arg("xdotool")
        .args(["mousemove", "0", "0", "mousemove", "--sync", &x.to_string(), &y.to_string(), "click", "1"])
        .output()
        .expect("xdotool");
    assert!(out.status.success(), "xdotool click at {x},{y}: {}", String::from_utf8_lossy(&out.stderr));
}

fn launch(desktop: &Desktop, t: Toolkit, opts: FixtureOptions) -> FixtureApp {
    let opts = FixtureOptions { toolkit: t, ..opts };
    FixtureApp::launch(desktop, &opts).unwrap_or_else(|e| panic!("{t:?} fixture did not start: {e}"))
}

/// The port-aware accessibility driver; its output, whatever its exit code.
fn a11y(desktop: &Desktop, t: Toolkit, args: &[&str]) -> Output {
    let script = a11y_ports_script();
    desktop
        .command("timeout")
        .arg("60")
        .arg(python())
        .arg(&script)
        .args(["--app", t.accessible_app(), "--timeout", "5"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("could not run {}: {e}", script.display()))
}

fn a11y_ok(desktop: &Desktop, t: Toolkit, args: &[&str]) {
    let out = a11y(desktop, t, args);
    assert!(out.status.success(), "{t:?}: a11y {args:?}: {} {}", out.status, String::from_utf8_lossy(&out.stderr));
}

fn rect_of(e: &Event, field: &str) -> Rect {
    Rect::from_json(&e.raw[field]).unwrap_or_else(|| panic!("no {field} rect in {}", e.raw))
}

fn dialog_ready(app: &FixtureApp, title: &str) -> Event {
    expect(app, &format!("{title} ready"), |e| e.kind == "dialog_ready" && e.str("title") == Some(title))
}

// ------------------------------------------------------------------ the checks

/// The logged bounds are where an accessibility client finds each widget: its extents'
/// centre lies inside the logged bounds (GTK 4's extents are window-relative and of the
/// content box, inside the CSS padding: offset by the window's origin first).
fn ready_geometry_matches_accessibility(desktop: &Desktop, t: Toolkit) {
    let app = launch(desktop, t, FixtureOptions::default());
    let ready = app.ready();
    for id in ["hello", "submit", "subscribe", "save", "name", "email", "items", "item_3"] {
        let r = ready.widget(id);
        assert!(r.w > 0 && r.h > 0 && ready.window.contains(r.center()), "{t:?}: {id} at {r:?}");
    }
    let origin = if t == Toolkit::Gtk4 { (ready.window.x, ready.window.y) } else { (0, 0) };
    let checked = [("hello", "Hello", "push button"), ("submit", "Submit order", "push button"), ("name", "Name", "")];
    for (id, name, ext) in laid_out_extents(desktop, t, &checked) {
        let (cx, cy) = ext.center();
        assert!(
            ready.widget(id).contains((cx + origin.0, cy + origin.1)),
            "{t:?}: {name}'s accessible extents {ext:?} (origin {origin:?}) are not within its logged bounds {:?}",
            ready.widget(id)
        );
    }
    let done = expect(&app, "loading_done", |e| e.kind == "loading_done");
    let started = expect(&app, "started", |e| e.kind == "started");
    assert!(done.t - started.t >= 1500.0, "{t:?}: loading ended early");
}

/// The accessible extents of each `(id, name, role)`, dumped again until every one has a
/// size: Firefox reports (-1, -1, -1, -1) for a widget its accessibility has not laid out
/// yet, which can still be the case a moment after the page logged its geometry.
fn laid_out_extents<'a>(
    desktop: &Desktop,
    t: Toolkit,
    checked: &[(&'a str, &'a str, &str)],
) -> Vec<(&'a str, &'a str, Rect)> {
    let deadline = Instant::now() + WAIT;
    loop {
        let out = a11y(desktop, t, &["dump"]);
        assert!(out.status.success(), "{t:?}: dump failed");
        let dump: Vec<serde_json::Value> =
            String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        let found: Vec<_> = checked
            .iter()
            .map(|&(id, name, role)| {
                let ext = dump
                    .iter()
                    .filter(|n| n["name"] == name && (role.is_empty() || n["role"] == role))
                    .filter_map(|n| Rect::from_json(&n["extents"]))
                    .find(|r| r.w > 0 && r.h > 0);
                (id, name, ext)
            })
            .collect();
        if found.iter().all(|(_, _, ext)| ext.is_some()) {
            return found.into_iter().map(|(id, name, ext)| (id, name, ext.expect("checked"))).collect();
        }
        let missing: Vec<_> = found.iter().filter(|(_, _, e)| e.is_none()).map(|(_, n, _)| *n).collect();
        assert!(Instant::now() < deadline, "{t:?}: no laid-out accessible for {missing:?} within {WAIT:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn plain_effects_are_logged(desktop: &Desktop, t: Toolkit) {
    let app = launch(desktop, t, FixtureOptions::default());
    click(desktop, app.ready().widget("hello").center());
    expect(&app, "Hello activated", |e| e.is("button_activated", Some("hello")));
    click(desktop, app.ready().widget("subscribe").center());
    let on = expect(&app, "checkbox on", |e| e.is("checkbox_toggled", Some("subscribe")));
    assert_eq!(on.raw["active"], true, "{t:?}");
    click(desktop, app.ready().widget("item_3").center());
    expect(&app, "Item 3 selected", |e| e.is("selection_changed", Some("items")) && e.str("value") == Some("Item 3"));
    click(desktop, app.ready().widget("password").center());
    type_text(desktop, "secret");
    let pw = expect(&app, "password of 6", |e| e.is("text_changed", Some("password")) && e.raw["length"] == 6);
    assert!(pw.raw.get("value").is_none(), "{t:?}: the password itself is logged: {}", pw.raw);
    a11y_ok(desktop, t, &["action", "Submit order"]);
    expect(&app, "an order by accessibility", |e| e.is("order_submitted", None));
    assert_nothing_within(&app, "a second activation", QUIET, is_activation);
    assert_eq!(app.count("button_activated", None), 2, "{t:?}");
    assert_eq!(app.count("fault", None), 0, "{t:?}");
}

fn save_shows_saving_then_a_dialog(desktop: &Desktop, t: Toolkit) {
    let delay = Duration::from_millis(1500);
    let app = launch(desktop, t, FixtureOptions { save_delay: Some(delay), ..FixtureOptions::default() });
    click(desktop, app.ready().widget("save").center());
    let started = expect(&app, "save_started", |e| e.kind == "save_started");
    let complete = expect(&app, "save_complete", |e| e.kind == "save_complete");
    assert!(complete.t - started.t >= delay.as_millis() as f64 - 1.0, "{t:?}: saved too early");
    let ready = dialog_ready(&app, "Save complete");
    click(desktop, Rect::from_json(&ready.raw["widgets"]["ok"]).expect("ok bounds").center());
    let closed = expect(&app, "the dialog closed", |e| e.kind == "dialog_closed");
    assert_eq!((closed.str("title"), closed.str("response")), (Some("Save complete"), Some("ok")), "{t:?}");
}

fn dropped_clicks(desktop: &Desktop, t: Toolkit) {
    // Push button: the pointer press is swallowed; the accessibility action still works.
    let app = launch(desktop, t, FixtureOptions { drop_clicks: 1, ..FixtureOptions::default() });
    click(desktop, app.ready().widget("submit").center());
    assert_eq!(expect_fault(&app, "dropped_click").widget.as_deref(), Some("submit"), "{t:?}");
    assert_nothing_within(&app, "activation from a dropped click", QUIET, is_activation);
    a11y_ok(desktop, t, &["action", "Submit order"]);
    let order = expect(&app, "the order by accessibility", |e| e.is("order_submitted", None));
    assert_eq!(order.raw["count"], 1, "{t:?}");
    click(desktop, app.ready().widget("submit").center());
    expect(&app, "the second order by pointer", |e| e.is("order_submitted", None) && e.raw["count"] == 2);
    assert_nothing_within(&app, "a third activation", QUIET, is_activation);
    assert_eq!(app.count("fault", None), 1, "{t:?}: one press dropped, nothing else");
    drop(app);

    // Check box.
    let opts = FixtureOptions { drop_clicks: 1, fault_target: Some("subscribe".into()), ..FixtureOptions::default() };
    let app = launch(desktop, t, opts);
    click(desktop, app.ready().widget("subscribe").center());
    expect_fault(&app, "dropped_click");
    assert_nothing_within(&app, "a toggle from a dropped click", QUIET, is_activation);
    let out = a11y(desktop, t, &["action", "Subscribe"]);
    if expectations(t).checkbox_action {
        assert!(out.status.success(), "{t:?}: {}", String::from_utf8_lossy(&out.stderr));
        let on = expect(&app, "toggled by accessibility", |e| e.is("checkbox_toggled", Some("subscribe")));
        assert_eq!(on.raw["active"], true, "{t:?}");
    } else {
        // GTK 4.8: the check box lists the Action interface with no action in it.
        assert_eq!(out.status.code(), Some(4), "{t:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_nothing_within(&app, "a toggle", QUIET, is_activation);
        click(desktop, app.ready().widget("subscribe").center());
        expect(&app, "toggled by the second press", |e| e.is("checkbox_toggled", Some("subscribe")));
    }
    assert_nothing_within(&app, "another toggle", QUIET, is_activation);
    assert_eq!(app.count("checkbox_toggled", None), 1, "{t:?}");
}

fn delayed_effect(desktop: &Desktop, t: Toolkit) {
    let delay = Duration::from_millis(1000);
    let app = launch(desktop, t, FixtureOptions { delay: Some(delay), ..FixtureOptions::default() });
    let clicked = Instant::now();
    click(desktop, app.ready().widget("submit").center());
    let fault = expect_fault(&app, "delayed");
    let activation = expect(&app, "the delayed activation", |e| e.is("button_activated", Some("submit")));
    assert!(activation.t - fault.t >= delay.as_millis() as f64 - 1.0, "{t:?}: {} ms", activation.t - fault.t);
    assert!(clicked.elapsed() >= delay, "{t:?}");
    // The page posts its order a moment after the activation: both are one effect.
    expect(&app, "the delayed order", |e| e.is("order_submitted", None));
    assert_nothing_within(&app, "a second activation", QUIET, is_activation);
    assert_eq!(app.count("order_submitted", None), 1, "{t:?}");
    drop(app);

    // A check box's delayed toggle, by accessibility where it has an action.
    let opts = FixtureOptions {
        delay: Some(Duration::from_millis(600)),
        fault_target: Some("subscribe".into()),
        ..FixtureOptions::default()
    };
    let app = launch(desktop, t, opts);
    click(desktop, app.ready().widget("subscribe").center());
    let fault = expect_fault(&app, "delayed");
    let on = expect(&app, "the delayed toggle", |e| e.is("checkbox_toggled", Some("subscribe")));
    assert!(on.t - fault.t >= 599.0 && on.raw["active"] == true, "{t:?}: {}", on.raw);
    assert_nothing_within(&app, "another toggle", QUIET, is_activation);
}

fn popup(desktop: &Desktop, t: Toolkit) {
    let app = launch(desktop, t, FixtureOptions { popup: true, ..FixtureOptions::default() });
    let submit = app.ready().widget("submit").center();
    click(desktop, submit);
    assert_eq!(expect_fault(&app, "popup").str("trigger"), Some("pointer_press"), "{t:?}");
    let popup = dialog_ready(&app, "New Event!");
    assert!(rect_of(&popup, "window").contains(submit), "{t:?}: popup {} does not cover {submit:?}", popup.raw);
    assert_nothing_within(&app, "an effect behind the popup", QUIET, is_activation);
    click(desktop, submit); // lands on the popup
    assert_nothing_within(&app, "an effect through the popup", QUIET, is_activation);
    click(desktop, Rect::from_json(&popup.raw["widgets"]["ok"]).expect("ok").center());
    let closed = expect(&app, "the popup closed", |e| e.kind == "dialog_closed");
    assert_eq!(closed.str("response"), Some("ok"), "{t:?}");
    click(desktop, submit);
    expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_nothing_within(&app, "a second activation", QUIET, is_activation);
    assert_eq!((app.count("order_submitted", None), app.count("dialog_opened", None)), (1, 1), "{t:?}");
    drop(app);

    // The accessibility action meets the popup too.
    let app = launch(desktop, t, FixtureOptions { popup: true, ..FixtureOptions::default() });
    a11y_ok(desktop, t, &["action", "Submit order"]);
    assert_eq!(expect_fault(&app, "popup").str("trigger"), Some("action"), "{t:?}");
    let popup = dialog_ready(&app, "New Event!");
    assert_nothing_within(&app, "an effect behind the popup", QUIET, is_activation);
    click(desktop, Rect::from_json(&popup.raw["widgets"]["ok"]).expect("ok").center());
    expect(&app, "the popup closed", |e| e.kind == "dialog_closed");
    a11y_ok(desktop, t, &["action", "Submit order"]);
    expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_eq!(app.count("order_submitted", None), 1, "{t:?}");
}

fn stale(desktop: &Desktop, t: Toolkit) {
    let app = launch(desktop, t, FixtureOptions { stale: true, ..FixtureOptions::default() });
    let old = app.ready().widget("submit");
    click(desktop, old.center());
    let fault = expect_fault(&app, "stale");
    assert_eq!(fault.widget.as_deref(), Some("submit"), "{t:?}");
    let moved = expect(&app, "the new geometry", |e| e.is("geometry", Some("submit")));
    let new = rect_of(&moved, "bounds");
    assert_eq!((new.x, new.y, new.w, new.h), (old.x, old.y + 60, old.w, old.h), "{t:?}");
    assert_nothing_within(&app, "an effect at the old position", QUIET, is_activation);
    click(desktop, new.center());
    expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_nothing_within(&app, "a second activation", QUIET, is_activation);
    assert_eq!(app.count("order_submitted", None), 1, "{t:?}");
    drop(app);

    let app = launch(desktop, t, FixtureOptions { stale: true, ..FixtureOptions::default() });
    a11y_ok(desktop, t, &["action", "Submit order"]);
    assert_eq!(expect_fault(&app, "stale").str("trigger"), Some("action"), "{t:?}");
    expect(&app, "the new geometry", |e| e.is("geometry", Some("submit")));
    assert_nothing_within(&app, "an effect on the stale element", QUIET, is_activation);
    a11y_ok(desktop, t, &["action", "Submit order"]);
    expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_eq!(app.count("order_submitted", None), 1, "{t:?}");
}

fn ignored_keys(desktop: &Desktop, t: Toolkit) {
    let app = launch(desktop, t, FixtureOptions { ignore_keys: true, ..FixtureOptions::default() });
    click(desktop, app.ready().widget("name").center());
    type_text(desktop, "abc");
    app.wait_for_count(3, |e| e.kind == "fault" && e.str("kind") == Some("ignored_key"), WAIT)
        .unwrap_or_else(|e| panic!("{t:?}: three ignored keys: {e}"));
    assert_nothing_within(&app, "a text change from keys", QUIET, |e| e.kind == "text_changed");
    let out = a11y(desktop, t, &["set-text", "Name", "set by a11y"]);
    let set = |e: &Event| e.is("text_changed", Some("name")) && e.str("value") == Some("set by a11y");
    match expectations(t).set_text {
        SetText::Works => {
            assert!(out.status.success(), "{t:?}: {}", String::from_utf8_lossy(&out.stderr));
            expect(&app, "the value set", set);
        }
        SetText::NoEditableText => {
            assert_eq!(out.status.code(), Some(3), "{t:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert_nothing_within(&app, "a text change", QUIET, |e| e.kind == "text_changed");
        }
        SetText::NoEffect => {
            assert!(out.status.success(), "{t:?}: {}", String::from_utf8_lossy(&out.stderr));
            assert_nothing_within(&app, "a text change", Duration::from_secs(1), |e| e.kind == "text_changed");
        }
    }
}

fn focus_theft(desktop: &Desktop, t: Toolkit) {
    let app = launch(desktop, t, FixtureOptions { focus_theft: Some(3), ..FixtureOptions::default() });
    click(desktop, app.ready().widget("name").center());
    type_text(desktop, "abcdef");
    expect(&app, "def in email", |e| e.is("text_changed", Some("email")) && e.str("value") == Some("def"));
    assert_eq!(expect_fault(&app, "focus_theft").str("to"), Some("email"), "{t:?}");
    assert_nothing_within(&app, "more typing", QUIET, |e| e.kind == "text_changed");
    assert_eq!(last_text(&app, "name").as_deref(), Some("abc"), "{t:?}");
    assert_eq!(last_text(&app, "email").as_deref(), Some("def"), "{t:?}");
}

fn slow_start_and_sigterm(desktop: &Desktop, t: Toolkit) {
    let slow = Duration::from_millis(2000);
    let launched = Instant::now();
    let app = launch(desktop, t, FixtureOptions { slow_start: Some(slow), ..FixtureOptions::default() });
    assert!(launched.elapsed() >= slow, "{t:?}");
    let started = expect(&app, "started", |e| e.kind == "started");
    assert!(
        app.ready().t - started.t >= slow.as_millis() as f64,
        "{t:?}: ready {} ms after start",
        app.ready().t - started.t
    );
    app.check_alive(desktop, Duration::from_secs(20)).unwrap_or_else(|e| panic!("{t:?}: {e}"));
    let status = app.shutdown().expect("shutdown");
    assert!(status.success(), "{t:?}: exit status {status}");
    let last = app.events().pop().expect("a log");
    assert_eq!((last.kind.as_str(), last.str("reason")), ("exit", Some("SIGTERM")), "{t:?}");
}

/// What a push button reports while the pointer button is held on it (the receipt the
/// executor's press watch looks for; `deft-verify/src/press.rs`), measured by
/// `press_probe.py` with pyatspi while xdotool holds the button.
fn press_signal(desktop: &Desktop, t: Toolkit) {
    let app = launch(desktop, t, FixtureOptions::default());
    let (x, y) = app.ready().widget("hello").center();
    let out = desktop
        .command("timeout")
        .arg("60")
        .arg(python())
        .arg(press_probe_script())
        .args(["--app", t.accessible_app(), "Hello", &x.to_string(), &y.to_string()])
        .output()
        .expect("press probe");
    assert!(out.status.success(), "{t:?}: {}", String::from_utf8_lossy(&out.stderr));
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).expect("probe JSON");
    let new: Vec<&str> = seen["new_while_held"].as_array().expect("states").iter().filter_map(|s| s.as_str()).collect();
    let press_states: Vec<&str> = new.iter().copied().filter(|s| matches!(*s, "armed" | "pressed")).collect();
    assert_eq!(press_states, expectations(t).press_state.into_iter().collect::<Vec<_>>(), "{t:?}: {seen}");
    expect(&app, "the held click landed", |e| e.is("button_activated", Some("hello")));
}

/// One check of a port, on its desktop.
type Check = fn(&Desktop, Toolkit);

fn check_port(t: Toolkit) {
    let desktop = start_desktop();
    let checks: [(&str, Check); 11] = [
        ("ready geometry", ready_geometry_matches_accessibility),
        ("plain effects", plain_effects_are_logged),
        ("save", save_shows_saving_then_a_dialog),
        ("dropped clicks", dropped_clicks),
        ("delayed effect", delayed_effect),
        ("popup", popup),
        ("stale", stale),
        ("ignored keys", ignored_keys),
        ("focus theft", focus_theft),
        ("slow start, SIGTERM", slow_start_and_sigterm),
        ("press signal", press_signal),
    ];
    for (name, check) in checks {
        let started = Instant::now();
        check(&desktop, t);
        println!("{t:?}: {name}: ok in {:.1?}", started.elapsed());
    }
}

#[test]
fn gtk4_port_misbehaves_as_asked_and_logs_the_truth() {
    check_port(Toolkit::Gtk4);
}

#[test]
fn qt5_port_misbehaves_as_asked_and_logs_the_truth() {
    check_port(Toolkit::Qt5);
}

#[test]
fn qt6_port_misbehaves_as_asked_and_logs_the_truth() {
    check_port(Toolkit::Qt6);
}

#[test]
fn chromium_port_misbehaves_as_asked_and_logs_the_truth() {
    check_port(Toolkit::Chromium);
}

#[test]
fn firefox_port_misbehaves_as_asked_and_logs_the_truth() {
    check_port(Toolkit::Firefox);
}

#[test]
fn gtk3_reference_reports_armed_and_answers_the_alive_check() {
    let desktop = start_desktop();
    press_signal(&desktop, Toolkit::Gtk3);
    let app = launch(&desktop, Toolkit::Gtk3, FixtureOptions::default());
    app.check_alive(&desktop, Duration::from_secs(20)).unwrap_or_else(|e| panic!("{e}"));
}
