//! Keys for text found only on the screen (OCR): a point, not a field. The chain never
//! selects all or pastes there, clicks into it before typing, and types nothing where
//! accessibility shows a label or a control at that point.

use deft_input::Recorded;
use deft_types::{Action, Point, Rect, Target, TextMatch};

use super::{fixture, ui};

/// Text found only on the screen (OCR) is a point, not a field: the chain never selects
/// all there, which could replace the text of whatever field holds the focus.
#[tokio::test]
async fn a_text_target_found_only_on_screen_is_never_selected_all() {
    let f = fixture(ui("Ready", false, None), |c| c);
    f.text.0.lock().unwrap().push(("Canvas field".into(), Rect::new(200, 150, 90, 20)));
    let action = Action::Type { target: Target::Text(TextMatch::Contains("Canvas field".into())), text: "abc".into() };
    let outcome = f.exec.perform(&action).await;
    // Nothing can read the typed text back there: the keys go once, and the outcome says
    // they cannot be verified (no select-all, no paste, no second typing).
    assert!(outcome.ok && outcome.verified == Some(false), "{outcome:#?}");
    assert!(outcome.observed.contains("cannot be verified"), "{outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    let select_all = f
        .rec
        .lock()
        .unwrap()
        .calls
        .iter()
        .any(|c| matches!(c, Recorded::Chord(ch) if ch.key == deft_input::Key::Char('a')));
    assert!(!select_all, "no ctrl+a sent: {:?}", f.rec.lock().unwrap().calls);
    assert!(!f.rec.lock().unwrap().calls.iter().any(|c| matches!(c, Recorded::Paste(..))));
    // The keys went where a click on the text put the focus (nothing accessible is there).
    assert_eq!(f.clicks().first(), Some(&Point::new(245, 160)), "{:?}", f.rec.lock().unwrap().calls);
}

/// Text found only on the screen where accessibility shows a label (the text beside a
/// field): keys there would go wherever the focus is, and a click could act on what is
/// there, so nothing is clicked or typed.
#[tokio::test]
async fn keys_for_screen_text_on_a_label_are_refused() {
    let f = fixture(ui("Ready", false, None), |c| c);
    f.text.0.lock().unwrap().push(("Name:".into(), Rect::new(10, 100, 60, 30)));
    let action = Action::Type { target: Target::Text(TextMatch::Contains("Name:".into())), text: "abc".into() };
    let outcome = f.exec.perform(&action).await;
    assert!(!outcome.ok, "{outcome:#?}");
    let keys = match outcome.attempts.first().map(|a| &a.result) {
        Some(deft_types::AttemptResult::Failed { message, .. }) => message.clone(),
        other => panic!("the keys were not refused: {other:?}"),
    };
    assert!(keys.contains("where accessibility shows label \"Ready\", not a text field"), "{keys}");
    let calls = f.rec.lock().unwrap().calls.clone();
    assert!(!calls.iter().any(|c| matches!(c, Recorded::Text(_) | Recorded::Button(..))), "{calls:?}");
}
