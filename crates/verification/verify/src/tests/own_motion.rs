//! What changes by itself before the input is no evidence after it (a counter, a clock).

use deft_a11y::A11yEvent;
use deft_types::ElementId;

use super::{GO, click, fixture, ui};

/// The status label was said to change once before the input, as a slow counter would.
async fn told_status_changed(f: &super::Fixture) {
    // Listening, as it is from the first verified action on.
    drop(f.exec.waker().await);
    let element = ElementId("status".into());
    f.ui.fake.emit(A11yEvent::PropertyChanged { element, property: "accessible-name".into() });
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
}

#[tokio::test]
async fn a_label_that_changes_again_while_watched_is_no_effect_and_brings_no_second_input() {
    let f = fixture(ui("Frames: 1", false, None), |c| c);
    told_status_changed(&f).await;
    // The click is dropped; the label ticks on by itself, twice after the input.
    f.on_click(GO, ui("Frames: 2", false, None));
    let fake = f.ui.clone();
    let ticker = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(60)).await;
        fake.fake.set_tree(ui("Frames: 3", false, None));
    });
    let outcome = f.exec.perform(&click("Go")).await;
    ticker.await.expect("ticker");
    assert!(!outcome.ok, "no effect of the click was seen: {outcome:#?}");
    assert_eq!(f.clicks().len(), 1, "one input: {outcome:#?}");
    assert!(f.actions().is_empty(), "no accessibility action after it: {outcome:#?}");
    assert!(outcome.observed.contains("changes by itself"), "{outcome:#?}");
}

#[tokio::test]
async fn a_label_that_changed_once_before_and_then_holds_the_effect_verifies_it() {
    // Work that ended just before the click set the status line; the click sets it again
    // and it stays: that is the click's effect, after a short look.
    let f = fixture(ui("Loaded", false, None), |c| c);
    told_status_changed(&f).await;
    f.on_click(GO, ui("Clicked Go", false, None));
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    assert!(outcome.observed.contains("Clicked Go"), "{outcome:#?}");
}

#[tokio::test]
async fn a_count_held_as_maybe_ticking_says_why_on_the_bus() {
    // A one-shot command heard the app a moment only: the count a click moved is held a
    // slow clock's tick, and the trace (and a face's progress) says so, not a silent 1.2 s.
    let bus = deft_bus::Bus::<crate::VerifyEvent>::new(deft_bus::BusConfig { capacity: 256 });
    let mut sub = bus.subscribe("test");
    let f = fixture(ui("Frames: 1", false, None), |c| crate::ExecutorConfig { bus: Some(bus.clone()), ..c });
    drop(f.exec.waker().await);
    f.on_click(GO, ui("Frames: 2", false, None));
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let held = held(&mut sub);
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(held[0].0, 1200, "{held:?}");
    assert!(held[0].1.starts_with("only numbers changed") && held[0].1.contains("Frames: 2"), "{held:?}");
}

/// The holds the executor said on the bus: for how long, and why.
fn held(sub: &mut deft_bus::Subscription<crate::VerifyEvent>) -> Vec<(u64, String)> {
    let mut held = Vec::new();
    while let Ok(deft_bus::Received::Event(env)) = sub.try_recv() {
        if let crate::VerifyEvent::Held { for_ms, why, .. } = &env.event {
            held.push((*for_ms, why.clone()));
        }
    }
    held
}

/// A fixture whose executor says its holds on a bus, heard quiet for longer than a slow
/// clock's tick before the click, whose count the click moves.
async fn heard_long(bus: &deft_bus::Bus<crate::VerifyEvent>) -> super::Fixture {
    let f = fixture(ui("Frames: 1", false, None), |c| crate::ExecutorConfig { bus: Some(bus.clone()), ..c });
    drop(f.exec.waker().await);
    tokio::time::sleep(std::time::Duration::from_millis(1300)).await;
    f.on_click(GO, ui("Frames: 2", false, None));
    f
}

#[tokio::test]
async fn a_count_the_app_never_told_of_is_held_however_long_the_app_was_heard() {
    // Quiet heard on the bus says nothing of an element whose changes the app does not tell
    // there: its count is held a slow clock's tick, as if nothing had been heard.
    let bus = deft_bus::Bus::<crate::VerifyEvent>::new(deft_bus::BusConfig { capacity: 256 });
    let mut sub = bus.subscribe("test");
    let f = heard_long(&bus).await;
    let outcome = f.exec.perform(&click("Go")).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let held = held(&mut sub);
    assert_eq!(held.iter().map(|h| h.0).collect::<Vec<_>>(), [1200], "{held:?}");
}

#[tokio::test]
async fn a_count_the_app_told_of_right_after_a_long_quiet_is_taken_at_once() {
    // The same app heard as long, telling the count's change when the click lands: a ticker
    // would have shown itself in that quiet, so nothing is held.
    let bus = deft_bus::Bus::<crate::VerifyEvent>::new(deft_bus::BusConfig { capacity: 256 });
    let mut sub = bus.subscribe("test");
    let f = heard_long(&bus).await;
    let (fake, rec) = (f.ui.clone(), f.rec.clone());
    let teller = tokio::spawn(async move {
        while !rec.lock().unwrap().calls.iter().any(|c| matches!(c, super::Recorded::Button(..))) {
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
        let element = ElementId("status".into());
        fake.fake.emit(A11yEvent::PropertyChanged { element, property: "accessible-name".into() });
    });
    let outcome = f.exec.perform(&click("Go")).await;
    teller.await.expect("teller");
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert_eq!(held(&mut sub), [], "nothing held");
}
