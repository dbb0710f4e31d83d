//! Work finishing at the click: the fixture's loading panel ends (spinner hidden, "Content
//! ready" set, laid out a frame later) around a click the app drops. Once that relayout
//! alone was reported as the click's effect (a silent failure, seen in CI). Swept over the
//! panel's end, so that some runs end it between the read before the input and the one
//! after; judged by the app's log: an order is placed exactly once, whatever the timing.

use std::time::Duration;

use deft_harness::fixture::FixtureOptions;

use crate::support::*;

#[test]
fn loading_that_ends_at_a_dropped_click_is_never_its_effect() {
    // Where the click falls on this machine: with the panel ending as the window shows,
    // how long after that the dropped press came. Then the panel is made to end from 30 ms
    // before the press to 10 ms after it, 2 ms apart (once, this caught the relayout taken
    // as the effect at the first step; the window is a frame wide).
    let first = dropped_click_with_loading(0);
    let lead = first.unwrap_or(200.0).round() as i64;
    let mut offsets = Vec::new();
    for loading_ms in (lead - 30..=lead + 10).step_by(2) {
        offsets.extend(dropped_click_with_loading(loading_ms.max(0) as u64));
    }
    eprintln!("the dropped press came this long after the panel ended (ms): {offsets:?}");
}

/// One run: the panel ends `loading_ms` after the window shows, and Submit order is clicked
/// once the app is ready (its first press dropped). Returns how long after the panel ended
/// the dropped press came, by the app's clock.
fn dropped_click_with_loading(loading_ms: u64) -> Option<f64> {
    let loading = Some(Duration::from_millis(loading_ms));
    let w = start(FixtureOptions { drop_clicks: 1, loading, ..FixtureOptions::default() });
    let outcome = w.perform(&click("role=push_button name=\"Submit order\""));
    w.app.wait_for(|e| e.kind == "loading_done", WAIT).expect("the loading panel ends");
    if outcome.ok {
        let _ = w.app.wait_for(|e| e.kind == "order_submitted", WAIT);
    }
    std::thread::sleep(QUIET);
    let first = outcome.attempts.first().and_then(|a| a.observed.clone()).unwrap_or_default();
    assert_eq!(
        (outcome.ok, w.app.count("order_submitted", None)),
        (true, 1),
        "loading {loading_ms} ms: exactly one order (the first press was dropped); the first attempt saw {first:?}; \
         {:#?}",
        w.log()
    );
    w.app.check_alive(&w._desktop, Duration::from_secs(5)).expect("the fixture still answers");
    let events = w.app.events();
    let at = |kind: &str| events.iter().find(|e| e.kind == kind).map(|e| e.t);
    Some(at("fault")? - at("loading_done")?)
}
