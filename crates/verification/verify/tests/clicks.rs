//! Clicks: the no-fault baseline and each pointer fault, judged by the log.

use deft_a11y::Accessibility;
use deft_harness::fixture::FixtureOptions;
use deft_types::Method;

use crate::support::*;

#[test]
fn no_fault_click_is_verified_with_one_activation() {
    let w = start(FixtureOptions::default());
    let outcome = w.perform(&click("role=push_button name=Hello"));
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert_eq!(outcome.attempts.len(), 1);
    assert_eq!(outcome.attempts[0].method, Method::CoordinateClick);
    w.app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello activated");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("button_activated", None), 1, "{:#?}", w.log());
}

/// The fallback after a dropped press on a GTK 3 button is the keyboard (focus through
/// accessibility, then Space), not `DoAction`: GTK 3 runs an action inside the call, where a
/// dialog it opened would freeze the app once Deft exits (docs/real-apps.md). The app's log
/// says which input activated it.
#[test]
fn dropped_click_falls_back_to_the_accessibility_action_with_one_order() {
    let w = start(FixtureOptions { drop_clicks: 1, ..FixtureOptions::default() });
    let outcome = w.perform(&click("role=push_button name=\"Submit order\""));
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert!(outcome.retried);
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction], "{outcome:#?}");
    w.app.wait_for(|e| e.kind == "order_submitted", WAIT).expect("an order");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("fault", None), 1, "the first click was dropped: {:#?}", w.log());
    assert_eq!(w.app.count("order_submitted", None), 1, "{:#?}", w.log());
    let via: Vec<_> = w
        .app
        .events()
        .iter()
        .filter(|e| e.kind == "button_activated")
        .filter_map(|e| e.str("via").map(String::from))
        .collect();
    assert_eq!(via, ["keyboard"], "activated from the keyboard, not by DoAction: {:#?}", w.log());
}

#[test]
fn delayed_effect_is_waited_for_never_clicked_twice() {
    let delay = std::time::Duration::from_millis(1500);
    let w = start(FixtureOptions { delay: Some(delay), ..FixtureOptions::default() });
    let outcome = w.perform(&click("role=push_button name=\"Submit order\""));
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert_eq!(outcome.attempts.len(), 1, "one input only: {outcome:#?}");
    assert!(outcome.elapsed_ms >= 1400, "the effect came after the delay: {outcome:#?}");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("order_submitted", None), 1, "{:#?}", w.log());
    assert_eq!(w.app.count("button_activated", Some("submit")), 1, "{:#?}", w.log());
}

#[test]
fn popup_is_reported_as_blocking_and_nothing_is_ordered() {
    let w = start(FixtureOptions { popup: true, ..FixtureOptions::default() });
    let outcome = w.perform(&click("role=push_button name=\"Submit order\""));
    assert!(!outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(false));
    let blocking = outcome.blocking.as_ref().expect("a blocking popup");
    assert_eq!(blocking.name, "New Event!", "{outcome:#?}");
    assert!(blocking.texts.iter().any(|t| t.contains("You have a new event")), "{outcome:#?}");
    assert_eq!(outcome.suggested_action, Some(deft_types::SuggestedAction::DismissPopupThenRetry));
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("order_submitted", None), 0, "{:#?}", w.log());
}

#[test]
fn stale_target_is_found_again_and_activated_once() {
    let w = start(FixtureOptions { stale: true, ..FixtureOptions::default() });
    let outcome = w.perform(&click("role=push_button name=\"Submit order\""));
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert!(outcome.retried, "{outcome:#?}");
    let reason = outcome.retry_reason.clone().unwrap_or_default();
    assert!(reason.contains("re-resolved"), "{outcome:#?}");
    w.app.wait_for(|e| e.kind == "order_submitted", WAIT).expect("an order");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("fault", None), 1, "{:#?}", w.log());
    assert_eq!(w.app.count("button_activated", Some("submit")), 1, "{:#?}", w.log());
}

#[test]
fn checkbox_is_toggled_exactly_once() {
    let w = start(FixtureOptions::default());
    let outcome = w.perform(&click("role=check_box name=Subscribe"));
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(true));
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    assert!(outcome.observed.contains("checked"), "{outcome:#?}");
    w.app.wait_for(|e| e.is("checkbox_toggled", Some("subscribe")), WAIT).expect("a toggle");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("checkbox_toggled", None), 1, "{:#?}", w.log());
}

#[test]
fn without_verify_the_click_is_plain() {
    let w = start_with(FixtureOptions::default(), |c| deft_verify::ExecutorConfig { verify: false, ..c });
    let outcome = w.perform(&click("role=push_button name=Hello"));
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, None);
    assert_eq!(outcome.attempts.len(), 1);
    assert_eq!(outcome.attempts[0].result, deft_types::AttemptResult::Sent);
    w.app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello activated");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("button_activated", None), 1, "{:#?}", w.log());
}

#[test]
fn slow_start_is_waited_for_then_the_click_lands() {
    let desktop = desktop();
    let rt = runtime();
    let exec = connect(&rt, &desktop, config(&desktop, true));
    let opts = FixtureOptions { slow_start: Some(std::time::Duration::from_millis(2500)), ..FixtureOptions::default() };
    let app = std::thread::scope(|s| {
        let launch = s.spawn(|| deft_harness::fixture::FixtureApp::launch(&desktop, &opts));
        let outcome = rt.block_on(exec.perform(&click("window=\"Deft Fixture\" role=push_button name=Hello")));
        eprintln!("{outcome:#?}");
        let app = launch.join().expect("launch thread").expect("the app started");
        assert!(outcome.ok, "{outcome:#?}");
        assert_eq!(outcome.verified, Some(true));
        app
    });
    app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello activated");
    std::thread::sleep(QUIET);
    assert_eq!(app.count("button_activated", None), 1);
    drop(exec);
}

#[test]
fn an_open_popup_blocks_the_next_click_before_any_input_or_is_dismissed_by_rule() {
    let rule = deft_verify::DismissRule {
        title: deft_types::TextMatch::Exact("New Event!".into()),
        role: None,
        button: Some("OK".into()),
    };
    let w = start(FixtureOptions { popup: true, ..FixtureOptions::default() });
    let submit = click("role=push_button name=\"Submit order\"");
    let first = w.perform(&submit);
    assert!(!first.ok && first.blocking.is_some(), "{first:#?}");
    w.app.wait_for(|e| e.kind == "dialog_ready", WAIT).expect("the popup is up");
    let presses = || w.app.count("fault", None);
    let before = presses();
    let second = w.perform(&submit);
    assert!(!second.ok, "{second:#?}");
    assert_eq!(second.blocking.as_ref().map(|b| b.name.as_str()), Some("New Event!"), "{second:#?}");
    assert_eq!(second.suggested_action, Some(deft_types::SuggestedAction::DismissPopupThenRetry));
    assert_eq!(presses(), before);
    assert_eq!(w.app.count("order_submitted", None), 0, "{:#?}", w.log());

    // The same app state, now with a rule that allows dismissing that popup.
    let exec = connect(
        &w.rt,
        &w._desktop,
        deft_verify::ExecutorConfig { dismiss_rules: vec![rule], ..config(&w._desktop, true) },
    );
    let third = w.rt.block_on(exec.perform(&submit));
    eprintln!("{third:#?}");
    assert!(third.ok, "{third:#?}");
    let closed = w.app.wait_for(|e| e.kind == "dialog_closed", WAIT).expect("the popup was dismissed");
    assert_eq!(closed.str("response"), Some("ok"));
    w.app.wait_for(|e| e.kind == "order_submitted", WAIT).expect("the order went through");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("order_submitted", None), 1, "{:#?}", w.log());
}

#[test]
fn text_and_raw_coordinate_targets() {
    let w = start(FixtureOptions::default());
    let by_text = deft_types::Action::Click {
        target: deft_types::Target::Text(deft_types::TextMatch::Exact("Hello".into())),
        button: deft_types::MouseButton::Left,
        count: 1,
    };
    let outcome = w.perform(&by_text);
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    w.app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello activated");

    let (x, y) = w.app.ready().widget("subscribe").center();
    let at_point = deft_types::Action::Click {
        target: deft_types::Target::Point(deft_types::Point::new(x, y)),
        button: deft_types::MouseButton::Left,
        count: 1,
    };
    let outcome = w.perform(&at_point);
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    w.app.wait_for(|e| e.is("checkbox_toggled", Some("subscribe")), WAIT).expect("toggled");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("button_activated", None), 1, "{:#?}", w.log());
    assert_eq!(w.app.count("checkbox_toggled", None), 1, "{:#?}", w.log());
}

#[test]
fn an_expectation_replaces_any_change() {
    let w =
        start(FixtureOptions { save_delay: Some(std::time::Duration::from_millis(600)), ..FixtureOptions::default() });
    let options = deft_verify::ActionOptions {
        expect: Some(deft_types::Condition::WindowTitle(deft_types::TextMatch::Exact("Save complete".into()))),
        ..deft_verify::ActionOptions::default()
    };
    let outcome = w.rt.block_on(w.exec.perform_with(&click("role=push_button name=Save"), &options));
    eprintln!("{outcome:#?}");
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert!(outcome.observed.contains("Save complete"), "{outcome:#?}");
    assert!(outcome.blocking.is_none(), "the expected dialog is the effect, not a popup: {outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1);
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("button_activated", Some("save")), 1, "{:#?}", w.log());
}

#[test]
fn a_dropped_click_on_an_idempotent_target_falls_back_early() {
    // The app's loading panel spins for a moment after start; while anything loads the
    // engine never gives up early (it may be the input's work), so let it finish first.
    let loading = Some(std::time::Duration::from_millis(10));
    let w = start(FixtureOptions {
        drop_clicks: 1,
        fault_target: Some("hello".into()),
        loading,
        ..FixtureOptions::default()
    });
    w.app.wait_for(|e| e.kind == "loading_done", WAIT).expect("loaded");
    let options = deft_verify::ActionOptions { idempotent: true, ..deft_verify::ActionOptions::default() };
    let outcome = w.rt.block_on(w.exec.perform_with(&click("role=push_button name=Hello"), &options));
    eprintln!("{outcome:#?}");
    assert!(outcome.ok, "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction], "{outcome:#?}");
    let window = w.exec.policy(deft_types::ActionKind::Click).window_ms;
    assert!(
        outcome.attempts[0].elapsed_ms < window / 2,
        "no feedback: fell back before the window ended: {outcome:#?}"
    );
    w.app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello activated");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("button_activated", None), 1, "{:#?}", w.log());
}

#[test]
fn at_gdk_scale_2_the_first_click_lands() {
    // 800x600 logical points are 1600x1200 pixels: the screen must hold them.
    let config = deft_harness::DesktopConfig { width: 2000, height: 1400, ..deft_harness::DesktopConfig::default() };
    let desktop = deft_harness::Desktop::start_with(&config).expect("desktop");
    let opts = FixtureOptions { env: vec![("GDK_SCALE".into(), "2".into())], ..FixtureOptions::default() };
    let app = deft_harness::fixture::FixtureApp::launch(&desktop, &opts).expect("the scaled app");
    let rt = runtime();
    let exec = connect(&rt, &desktop, config_for(&desktop));
    let outcome = rt.block_on(exec.perform(&click("role=push_button name=\"Submit order\"")));
    eprintln!("{outcome:#?}");
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1, "the coordinate click landed, no fallback: {outcome:#?}");
    app.wait_for(|e| e.kind == "order_submitted", WAIT).expect("an order");
    std::thread::sleep(QUIET);
    assert_eq!(app.count("order_submitted", None), 1);
    drop(exec);
}

#[test]
fn a_second_click_whose_effect_does_not_show_is_received_not_repeated() {
    // The status already says "Clicked Hello" after the first click: the second changes
    // nothing that stays. Its pressed look shows the app got it; no fallback presses again.
    let w = start(FixtureOptions::default());
    let hello = click("role=push_button name=Hello");
    let first = w.perform(&hello);
    assert!(first.ok && first.verified == Some(true), "{first:#?}");
    w.app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello activated");
    let second = w.perform(&hello);
    assert!(second.ok, "{second:#?}");
    assert_eq!(second.verified, Some(false), "nothing visible changed: {second:#?}");
    assert_eq!(second.attempts.len(), 1, "not repeated: {second:#?}");
    assert_eq!(second.attempts[0].result, deft_types::AttemptResult::Received, "{second:#?}");
    assert!(second.evidence.iter().any(|e| e.what.contains("armed")), "the app reported the press: {second:#?}");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("button_activated", Some("hello")), 2, "{:#?}", w.log());
}

#[test]
fn a_dropped_click_on_a_button_whose_effect_does_not_show_is_made_good_once() {
    // Hello has the focus and its effect shows already; the next two presses are dropped.
    // No receipt: the click was dropped, so the accessibility action follows, and the
    // app's accepting it is the receipt: exactly one more activation.
    let w = start(FixtureOptions { drop_clicks: 2, fault_target: Some("hello".into()), ..FixtureOptions::default() });
    // The loading panel's relayout a frame after it shows "Content ready" is a change no
    // rule explains yet (see the issue note); this test is about receipt, so it waits.
    w.app.wait_for(|e| e.kind == "loading_done", WAIT).expect("loading done");
    let hello = click("role=push_button name=Hello");
    let first = w.perform(&hello);
    assert!(first.ok && first.verified == Some(true), "{first:#?}");
    w.app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello activated");
    let second = w.perform(&hello);
    assert!(second.ok, "{second:#?}");
    let methods: Vec<Method> = second.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction], "{second:#?}");
    assert_eq!(second.attempts[1].result, deft_types::AttemptResult::Received, "{second:#?}");

    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("fault", None), 2, "{:#?}", w.log());
    assert_eq!(w.app.count("button_activated", Some("hello")), 2, "{:#?}", w.log());
}

#[test]
fn a_press_that_never_shows_on_a_focused_button_falls_back_early() {
    // Submit order's press is watched (a button; it also has the keyboard focus). The app
    // swallows the press and, answering while the button is held, never reports it armed;
    // GTK is a toolkit that would have: dropped, so the accessibility action follows at the
    // early checkpoint instead of after the whole window.
    let w = start(FixtureOptions { drop_clicks: 1, ..FixtureOptions::default() });
    // Once the app's loading panel is done: while an app shows it is busy, a press that never
    // showed does not lift the wait (its answer to the ping came when GTK read the events,
    // not when it dispatched them: under load the press was still queued, and a second one
    // submitted a second order). That case waits the window: the next test.
    w.app.wait_for(|e| e.kind == "loading_done", std::time::Duration::from_secs(20)).expect("the loading panel ends");
    let submit = sel("role=push_button name=\"Submit order\"");
    let found = w.rt.block_on(deft_a11y::find(w.exec.a11y(), &submit, &deft_a11y::SnapshotOptions::default()));
    let id = found.expect("Submit order is there").element().id.clone();
    w.rt.block_on(w.exec.a11y().focus(&id)).expect("focus through accessibility");
    let outcome = w.perform(&click("role=push_button name=\"Submit order\""));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction], "{outcome:#?}");
    let reason = outcome.retry_reason.clone().unwrap_or_default();
    assert!(reason.contains("showed no sign of being received"), "{outcome:#?}");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("order_submitted", None), 1, "{:#?}", w.log());
}

#[test]
fn a_press_that_never_shows_while_the_app_is_busy_waits_the_window_before_another() {
    // The same dropped press, while the app's loading panel still works: the app may be
    // busy with the press itself, so the accessibility action comes only after the window.
    let w = start(FixtureOptions { drop_clicks: 1, ..FixtureOptions::default() });
    let outcome = w.perform(&click("role=push_button name=\"Submit order\""));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction], "{outcome:#?}");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("order_submitted", None), 1, "{:#?}", w.log());
}

#[test]
fn a_check_box_rebuilt_under_the_pointer_is_found_again_and_toggled_once() {
    // The pointer goes onto the target before the checks, so the check box that is
    // re-created on hover is seen gone before any click, found again, and toggled once
    // (a toggle that vanished mid-click could not be clicked again: it might undo it).
    let w = start(FixtureOptions { stale: true, fault_target: Some("subscribe".into()), ..FixtureOptions::default() });
    let outcome = w.perform(&click("role=check_box name=Subscribe"));
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("fault", None), 1, "{:#?}", w.log());
    assert_eq!(w.app.count("checkbox_toggled", Some("subscribe")), 1, "{:#?}", w.log());
}
