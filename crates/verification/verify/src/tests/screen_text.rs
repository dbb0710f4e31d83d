//! Keys for text found only on the screen (OCR): a point, not a field. The chain never
//! selects all or pastes there, clicks into it before typing, and types nothing where
//! accessibility shows a label or a control at that point.

use deft_a11y::{TreeBuilder, element};
use deft_input::Recorded;
use deft_types::{Action, MouseButton, Point, Rect, Target, TextMatch};

use super::{fixture, placed, ui};
use crate::ExecutorConfig;

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

/// A text target whose control joins the accessibility tree a moment after its label is
/// painted (a fresh Firefox page): accessibility gets a grace before the screen is read, so
/// the control is acted on, not a point on its label (where keys found nothing to focus).
#[tokio::test]
async fn a_text_target_waits_for_accessibility_before_reading_the_screen() {
    let f = fixture(ui("Ready", false, None), |c| ExecutorConfig { actionability_timeout_ms: 3000, ..c });
    f.text.0.lock().unwrap().push(("Later:".into(), Rect::new(200, 150, 60, 20)));
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let main = b.child(app, placed("main", "frame", "Main", (0, 0, 400, 300), &[]));
    b.child(main, placed("later", "push_button", "Later", (200, 200, 80, 30), &["click"]));
    let built = b.build();
    let fake = f.ui.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        fake.fake.set_tree(built);
    });
    let action = Action::Click {
        target: Target::Text(TextMatch::Contains("Later".into())),
        button: MouseButton::Left,
        count: 1,
    };
    let outcome = f.exec.perform(&action).await;
    assert_eq!(outcome.target.as_ref().map(|t| t.name.as_str()), Some("Later"), "{outcome:#?}");
    assert_eq!(f.clicks().first(), Some(&Point::new(240, 215)), "the button's centre, not the label's");
}
