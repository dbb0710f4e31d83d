//! An app with something that changes by itself (the fixture's `--ticker-ms` counter, as a
//! clock or a playback position): its changes after an input say nothing of the input.
//! Judged by the app's log.

use std::time::Duration;

use deft_harness::fixture::FixtureOptions;
use deft_types::Method;

use crate::support::*;

#[test]
fn a_counter_ticking_by_itself_never_verifies_a_dropped_click() {
    // The first press on Hello is swallowed; the only change after it is the counter's tick.
    // It once verified the click (a silent failure); the press never showed, so the chain
    // goes on to the accessibility action, and Hello is activated once.
    let w = start(FixtureOptions {
        drop_clicks: 1,
        fault_target: Some("hello".into()),
        loading: Some(Duration::from_millis(10)),
        ticker: Some(Duration::from_millis(100)),
        ..FixtureOptions::default()
    });
    w.app.wait_for(|e| e.kind == "loading_done", WAIT).expect("loaded");
    let outcome = w.perform(&click("role=push_button name=Hello"));
    eprintln!("{outcome:#?}");
    w.app.wait_for(|e| e.is("button_activated", Some("hello")), WAIT).expect("Hello activated");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("button_activated", None), 1, "{:#?}", w.log());
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction], "{outcome:#?}");
    let first = outcome.attempts[0].observed.clone().unwrap_or_default();
    assert!(!first.contains("Frames"), "the tick is no effect of the first click: {outcome:#?}");
    w.app.check_alive(&w._desktop, Duration::from_secs(5)).expect("the fixture still answers");
}

#[test]
fn a_click_whose_effect_shows_beside_a_ticking_counter_is_verified_once() {
    // The counter ticks through the whole action; Submit order's effect (the orders label,
    // the status line) is what verifies it, and it is placed once.
    let w = start(FixtureOptions {
        loading: Some(Duration::from_millis(10)),
        ticker: Some(Duration::from_millis(100)),
        ..FixtureOptions::default()
    });
    w.app.wait_for(|e| e.kind == "loading_done", WAIT).expect("loaded");
    let outcome = w.perform(&click("role=push_button name=\"Submit order\""));
    eprintln!("{outcome:#?}");
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    w.app.wait_for(|e| e.kind == "order_submitted", WAIT).expect("an order");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("order_submitted", None), 1, "{:#?}", w.log());
    w.app.check_alive(&w._desktop, Duration::from_secs(5)).expect("the fixture still answers");
}

#[test]
fn a_slow_clock_ticking_after_a_click_on_empty_space_does_not_verify_it() {
    // A media player's position ticks once a second (qmmp; VLC in the report): a
    // click on empty space, by an executor that had listened for less than a tick, was
    // "verified" by the next tick. Held for a tick, the counter is seen to move on its own:
    // no effect, and nothing sent again.
    let w = start(FixtureOptions { ticker: Some(Duration::from_millis(1000)), ..FixtureOptions::default() });
    let (x, y) = w.app.ready().widget("hello").center();
    // Between the first two rows of the fixture's layout: nothing there.
    let empty = deft_types::Action::Click {
        target: deft_types::Target::Point(deft_types::Point::new(x, y + 60)),
        button: deft_types::MouseButton::Left,
        count: 1,
    };
    let outcome = w.perform(&empty);
    assert!(outcome.verified != Some(true), "a tick is no effect of the click: {outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1, "one input: {outcome:#?}");
    w.quiet("activation", is_activation);
    assert_eq!(w.app.count("button_activated", None), 0, "{:#?}", w.log());
    w.app.check_alive(&w._desktop, Duration::from_secs(5)).expect("the fixture still answers");
}
