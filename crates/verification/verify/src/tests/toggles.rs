//! Toggles: a toggle's state says whether a click took, unless the state it reports does
//! not follow what it draws.

use deft_types::Rect;

use super::{click, fixture, screen, ui};

#[tokio::test]
async fn a_toggle_that_draws_its_change_but_reports_none_is_received_and_never_pressed_again() {
    // evince's Night Mode (a model button in a GTK 3 popover): its check mark is drawn, its
    // reported state never follows. Read as "unchanged", it was toggled three times.
    let f = fixture(ui("Ready", false, None), |c| c);
    f.ui.on_click_paint.lock().unwrap().push((Rect::new(10, 50, 80, 30), screen(Some((14, 54, 20, 20)))));
    let outcome = f.exec.perform(&click("Subscribe")).await;
    assert!(outcome.ok && outcome.verified == Some(false), "received, not verified: {outcome:#?}");
    assert_eq!(f.clicks().len(), 1, "{outcome:#?}");
    assert!(f.actions().is_empty(), "no fallback: {outcome:#?}");
    assert!(outcome.observed.contains("state it reports"), "{outcome:#?}");
}
