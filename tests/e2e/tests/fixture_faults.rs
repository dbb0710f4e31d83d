//! The fixture app really misbehaves, and its log tells the truth: each fault, and the
//! no-fault baselines, driven by xdotool and pyatspi (never by Deft) and judged by the log.

use std::time::{Duration, Instant};

use deft_harness::fixture::{Event, FixtureApp, FixtureOptions, Rect};

use crate::drivers::*;

fn is_activation(e: &Event) -> bool {
    e.kind == "button_activated" || e.kind == "order_submitted" || e.kind == "checkbox_toggled"
}

fn rect_of(e: &Event, field: &str) -> Rect {
    Rect::from_json(&e.raw[field]).unwrap_or_else(|| panic!("no {field} rect in {}", e.raw))
}

// ------------------------------------------------------------------ baselines (no fault)

#[test]
fn ready_bounds_match_the_accessibility_tree() {
    let (desktop, app) = start(FixtureOptions::default());
    let ready = app.ready();
    for id in ["hello", "submit", "subscribe", "save", "name", "email", "color", "items"] {
        assert!(ready.widget(id).w > 0 && ready.widget(id).h > 0, "{id} has no size");
        assert!(ready.window.contains(ready.widget(id).center()), "{id} lies outside the window");
    }
    // The log's root coordinates are the ones an accessibility client sees.
    let dump = a11y_dump(&desktop);
    for (id, name) in [("hello", "Hello"), ("submit", "Submit order"), ("subscribe", "Subscribe"), ("name", "Name")] {
        let node = dump
            .iter()
            .find(|n| n["name"] == name && n["states"].as_array().is_some_and(|s| s.iter().any(|s| s == "showing")))
            .unwrap_or_else(|| panic!("{name} not in the accessibility tree"));
        assert_eq!(Rect::from_json(&node["extents"]), Some(ready.widget(id)), "bounds of {name}");
    }
}

#[test]
fn click_hello_logs_one_activation() {
    let (desktop, app) = start(FixtureOptions::default());
    click(&desktop, app.ready().widget("hello").center());
    expect(&app, "Hello activated", |e| e.is("button_activated", Some("hello")));
    assert_nothing_within(&app, "second activation", QUIET, is_activation);
    assert_eq!(app.count("button_activated", None), 1);
}

#[test]
fn checkbox_toggles_by_click_and_by_action() {
    let (desktop, app) = start(FixtureOptions::default());
    let subscribe = app.ready().widget("subscribe").center();
    click(&desktop, subscribe);
    let on = expect(&app, "checkbox on", |e| e.is("checkbox_toggled", Some("subscribe")));
    assert_eq!(on.raw["active"], true);
    click(&desktop, subscribe);
    expect(&app, "checkbox off", |e| e.is("checkbox_toggled", Some("subscribe")) && e.raw["active"] == false);
    a11y_click(&desktop, "Subscribe");
    expect(&app, "checkbox on again", |e| {
        e.is("checkbox_toggled", Some("subscribe")) && e.t > on.t && e.raw["active"] == true
    });
    assert_nothing_within(&app, "extra toggle", QUIET, is_activation);
    assert_eq!(app.count("checkbox_toggled", None), 3);
}

#[test]
fn save_shows_saving_then_a_dialog() {
    let save_delay = Duration::from_millis(2500);
    let (desktop, app) = start(FixtureOptions { save_delay: Some(save_delay), ..FixtureOptions::default() });
    click(&desktop, app.ready().widget("save").center());
    let started = expect(&app, "save_started", |e| e.kind == "save_started");

    // While saving, the button says so and is insensitive (the busy state).
    let dump = a11y_dump(&desktop);
    assert!(app.count("save_complete", None) == 0, "the dump took longer than the save delay");
    let saving = dump.iter().find(|n| n["name"] == "Saving...").expect("a 'Saving...' button while saving");
    assert!(
        !saving["states"].as_array().unwrap().iter().any(|s| s == "sensitive"),
        "Saving... is insensitive: {saving}"
    );

    let complete = expect(&app, "save_complete", |e| e.kind == "save_complete");
    assert!(complete.t - started.t >= save_delay.as_millis() as f64 - 1.0, "saved too early");
    expect(&app, "the dialog", |e| e.kind == "dialog_opened" && e.str("title") == Some("Save complete"));
    let ready =
        expect(&app, "the dialog's geometry", |e| e.kind == "dialog_ready" && e.str("title") == Some("Save complete"));
    click(&desktop, Rect::from_json(&ready.raw["widgets"]["ok"]).expect("ok bounds").center());
    let closed = expect(&app, "the dialog closed", |e| e.kind == "dialog_closed");
    assert_eq!((closed.str("title"), closed.str("response")), (Some("Save complete"), Some("ok")));
}

#[test]
fn typing_logs_text_and_password_length_only() {
    let (desktop, app) = start(FixtureOptions::default());
    click(&desktop, app.ready().widget("name").center());
    type_text(&desktop, "hello");
    expect(&app, "name = hello", |e| e.is("text_changed", Some("name")) && e.str("value") == Some("hello"));
    click(&desktop, app.ready().widget("password").center());
    type_text(&desktop, "secret");
    let last = expect(&app, "password of 6", |e| e.is("text_changed", Some("password")) && e.raw["length"] == 6);
    assert!(last.raw.get("value").is_none(), "the password itself is never logged: {}", last.raw);
}

#[test]
fn list_and_dropdown_selection_are_logged() {
    let (desktop, app) = start(FixtureOptions::default());
    click(&desktop, app.ready().widget("item_3").center());
    expect(&app, "Item 3 selected", |e| e.is("selection_changed", Some("items")) && e.str("value") == Some("Item 3"));
    a11y_click(&desktop, "Green");
    expect(&app, "Green selected", |e| e.is("selection_changed", Some("color")) && e.str("value") == Some("Green"));
}

#[test]
fn loading_panel_shows_content_after_loading() {
    let loading = Duration::from_millis(5000);
    let (desktop, app) = start(FixtureOptions { loading: Some(loading), ..FixtureOptions::default() });
    let names = |dump: &[serde_json::Value]| {
        dump.iter().filter_map(|n| n["name"].as_str().map(str::to_string)).collect::<Vec<_>>()
    };
    let before = names(&a11y_dump(&desktop));
    assert!(app.count("loading_done", None) == 0, "the dump took longer than the loading time");
    assert!(before.iter().any(|n| n == "Loading...") && !before.iter().any(|n| n == "Content ready"), "{before:?}");
    let done = expect(&app, "loading_done", |e| e.kind == "loading_done");
    let started = expect(&app, "started", |e| e.kind == "started");
    assert!(done.t - started.t >= loading.as_millis() as f64, "loading ended early");
    assert!(names(&a11y_dump(&desktop)).iter().any(|n| n == "Content ready"));
}

#[test]
fn sigterm_exits_cleanly_and_logs_exit() {
    let (_desktop, app) = start(FixtureOptions::default());
    let status = app.shutdown().expect("shutdown");
    assert!(status.success(), "exit status {status}");
    let last = app.events().pop().expect("a log");
    assert_eq!((last.kind.as_str(), last.str("reason")), ("exit", Some("SIGTERM")));
}

// ------------------------------------------------------------------ faults

#[test]
fn dropped_click_first_press_is_swallowed_second_lands() {
    let (desktop, app) = start(FixtureOptions { drop_clicks: 1, ..FixtureOptions::default() });
    let submit = app.ready().widget("submit").center();
    click(&desktop, submit);
    let fault = expect_fault(&app, "dropped_click");
    assert_eq!(fault.widget.as_deref(), Some("submit"));
    assert_nothing_within(&app, "activation from a dropped click", QUIET, is_activation);

    click(&desktop, submit);
    expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_nothing_within(&app, "a second activation", QUIET, is_activation);
    assert_eq!(app.count("button_activated", Some("submit")), 1);
    assert_eq!(app.count("fault", None), 1);
}

#[test]
fn dropped_click_accessibility_action_still_works() {
    let (desktop, app) = start(FixtureOptions { drop_clicks: 1, ..FixtureOptions::default() });
    a11y_click(&desktop, "Submit order");
    let order = expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_eq!(order.raw["count"], 1);
    assert_nothing_within(&app, "a second activation", QUIET, is_activation);
    assert_eq!(app.count("button_activated", Some("submit")), 1);
    assert_eq!(app.count("fault", None), 0, "no pointer press, nothing dropped");
}

#[test]
fn dropped_click_on_a_checkbox() {
    let opts = FixtureOptions { drop_clicks: 1, fault_target: Some("subscribe".into()), ..FixtureOptions::default() };
    let (desktop, app) = start(opts);
    let subscribe = app.ready().widget("subscribe").center();
    click(&desktop, subscribe);
    expect_fault(&app, "dropped_click");
    assert_nothing_within(&app, "toggle from a dropped click", QUIET, is_activation);
    click(&desktop, subscribe);
    let toggled = expect(&app, "toggled", |e| e.is("checkbox_toggled", Some("subscribe")));
    assert_eq!(toggled.raw["active"], true);
}

#[test]
fn delayed_effect_arrives_after_the_delay() {
    let delay = Duration::from_millis(1200);
    let (desktop, app) = start(FixtureOptions { delay: Some(delay), ..FixtureOptions::default() });
    let clicked_at = Instant::now();
    click(&desktop, app.ready().widget("submit").center());
    let fault = expect_fault(&app, "delayed");
    let order = expect(&app, "the delayed order", |e| e.is("order_submitted", None));
    let activation = expect(&app, "the delayed activation", |e| e.is("button_activated", Some("submit")));
    assert!(
        activation.t - fault.t >= delay.as_millis() as f64 - 1.0,
        "effect {} ms after input",
        activation.t - fault.t
    );
    assert!(clicked_at.elapsed() >= delay, "effect observed before the delay passed");
    assert_eq!(order.raw["count"], 1);
    assert_nothing_within(&app, "a second activation", QUIET, is_activation);
}

#[test]
fn popup_covers_the_target_and_blocks_its_effect() {
    let (desktop, app) = start(FixtureOptions { popup: true, ..FixtureOptions::default() });
    let submit = app.ready().widget("submit").center();
    click(&desktop, submit);
    expect_fault(&app, "popup");
    expect(&app, "the popup", |e| e.kind == "dialog_opened" && e.str("title") == Some("New Event!"));
    let popup =
        expect(&app, "the popup's geometry", |e| e.kind == "dialog_ready" && e.str("title") == Some("New Event!"));
    assert!(rect_of(&popup, "window").contains(submit), "popup {} does not cover the target at {submit:?}", popup.raw);
    assert_nothing_within(&app, "an effect behind the popup", QUIET, is_activation);

    // Clicking where the target was now hits the popup.
    click(&desktop, submit);
    assert_nothing_within(&app, "an effect through the popup", QUIET, is_activation);

    click(&desktop, Rect::from_json(&popup.raw["widgets"]["ok"]).expect("ok bounds").center());
    let closed = expect(&app, "the popup closed", |e| e.kind == "dialog_closed");
    assert_eq!(closed.str("response"), Some("ok"));

    click(&desktop, submit);
    expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_nothing_within(&app, "a second activation", QUIET, is_activation);
    assert_eq!(app.count("order_submitted", None), 1);
    assert_eq!(app.count("dialog_opened", None), 1, "the popup fires once");
}

#[test]
fn popup_also_fires_on_the_accessibility_action() {
    let (desktop, app) = start(FixtureOptions { popup: true, ..FixtureOptions::default() });
    a11y_click(&desktop, "Submit order");
    let fault = expect_fault(&app, "popup");
    assert_eq!(fault.str("trigger"), Some("action"));
    expect(&app, "the popup", |e| e.kind == "dialog_opened" && e.str("title") == Some("New Event!"));
    assert_nothing_within(&app, "an effect behind the popup", QUIET, is_activation);
    a11y_click(&desktop, "OK");
    expect(&app, "the popup closed", |e| e.kind == "dialog_closed");
    a11y_click(&desktop, "Submit order");
    expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_eq!(app.count("order_submitted", None), 1);
}

#[test]
fn stale_target_moves_before_the_click_lands() {
    let (desktop, app) = start(FixtureOptions { stale: true, ..FixtureOptions::default() });
    let old = app.ready().widget("submit");
    click(&desktop, old.center());
    let fault = expect_fault(&app, "stale");
    assert_eq!(fault.widget.as_deref(), Some("submit"));
    let moved = expect(&app, "the new geometry", |e| e.is("geometry", Some("submit")));
    let new = rect_of(&moved, "bounds");
    assert_eq!((new.x, new.y, new.w, new.h), (old.x, old.y + 60, old.w, old.h));
    assert_nothing_within(&app, "an effect at the old position", QUIET, is_activation);

    click(&desktop, new.center());
    expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_nothing_within(&app, "a second activation", QUIET, is_activation);
    assert_eq!(app.count("order_submitted", None), 1);
}

#[test]
fn stale_target_recreated_on_the_accessibility_action() {
    let (desktop, app) = start(FixtureOptions { stale: true, ..FixtureOptions::default() });
    a11y_click(&desktop, "Submit order");
    let fault = expect_fault(&app, "stale");
    assert_eq!(fault.str("trigger"), Some("action"));
    expect(&app, "the new geometry", |e| e.is("geometry", Some("submit")));
    assert_nothing_within(&app, "an effect on the stale element", QUIET, is_activation);
    // Re-resolving by name finds the fresh widget, which works.
    a11y_click(&desktop, "Submit order");
    expect(&app, "one order", |e| e.is("order_submitted", None));
    assert_eq!(app.count("order_submitted", None), 1);
}

#[test]
fn ignored_keys_leave_the_field_unchanged_but_set_text_works() {
    let (desktop, app) = start(FixtureOptions { ignore_keys: true, ..FixtureOptions::default() });
    click(&desktop, app.ready().widget("name").center());
    type_text(&desktop, "abc");
    app.wait_for_count(3, |e| e.kind == "fault" && e.str("kind") == Some("ignored_key"), WAIT)
        .expect("three ignored keys");
    assert_nothing_within(&app, "a text change from keys", QUIET, |e| e.kind == "text_changed");
    assert_eq!(last_text(&app, "name"), None);

    a11y_set_text(&desktop, "Name", "set by a11y");
    expect(&app, "the value set", |e| e.is("text_changed", Some("name")) && e.str("value") == Some("set by a11y"));
}

#[test]
fn focus_theft_sends_the_rest_of_the_typing_elsewhere() {
    let (desktop, app) = start(FixtureOptions { focus_theft: Some(3), ..FixtureOptions::default() });
    click(&desktop, app.ready().widget("name").center());
    type_text(&desktop, "abcdef");
    expect(&app, "def in email", |e| e.is("text_changed", Some("email")) && e.str("value") == Some("def"));
    let theft = expect_fault(&app, "focus_theft");
    assert_eq!(theft.str("to"), Some("email"));
    assert_nothing_within(&app, "more typing", QUIET, |e| e.kind == "text_changed");
    assert_eq!(last_text(&app, "name").as_deref(), Some("abc"));
    assert_eq!(last_text(&app, "email").as_deref(), Some("def"));
}

#[test]
fn slow_start_shows_the_window_late() {
    let slow = Duration::from_millis(2500);
    let desktop = start_desktop();
    let launched = Instant::now();
    let app = FixtureApp::launch(&desktop, &FixtureOptions { slow_start: Some(slow), ..FixtureOptions::default() })
        .expect("the harness waits for a slow app");
    assert!(launched.elapsed() >= slow);
    let started = expect(&app, "started", |e| e.kind == "started");
    assert!(app.ready().t - started.t >= slow.as_millis() as f64, "ready {} ms after start", app.ready().t - started.t);
}
