//! Work that finished just before the input: the layout that follows it a frame later is
//! not the input's effect (the fixture's loading panel finishing as a dropped click went in
//! was once reported verified by its label moving).

use deft_a11y::{A11yEvent, Operation, Tree};
use deft_types::{AttemptResult, ElementId, Method, Rect};

use super::{GO, click, fixture, ui};

/// The window with its status label reading "Content ready", laid out at `status`.
fn laid_out(status: (i32, i32, u32, u32)) -> Tree {
    let mut tree = ui("Content ready", false, None);
    let label = tree.nodes.iter_mut().find(|n| n.element.id == ElementId("status".into())).expect("status label");
    label.element.bounds = Some(Rect::new(status.0, status.1, status.2, status.3));
    tree
}

const BEFORE: (i32, i32, u32, u32) = (10, 100, 200, 30);
const AFTER: (i32, i32, u32, u32) = (10, 100, 92, 80);

/// Clicks Go, which drops the click while the label is laid out; `told` whether the app
/// said just before that the label's text changed.
async fn dropped_click_while_laying_out(told: bool) -> (deft_types::Outcome, Vec<Operation>) {
    let f = fixture(laid_out(BEFORE), |c| c);
    // Listening, as it is from the first verified action on.
    drop(f.exec.waker().await);
    if told {
        let element = ElementId("status".into());
        f.ui.fake.emit(A11yEvent::PropertyChanged { element, property: "accessible-name".into() });
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    f.on_click(GO, laid_out(AFTER));
    f.ui.on_action.lock().unwrap().push((ElementId("go".into()), ui("Clicked Go", false, None)));
    let outcome = f.exec.perform(&click("Go")).await;
    (outcome, f.actions())
}

#[tokio::test]
async fn a_move_laying_out_text_set_before_the_input_is_no_effect() {
    let (outcome, actions) = dropped_click_while_laying_out(true).await;
    assert!(outcome.ok, "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction], "{outcome:#?}");
    assert_eq!(outcome.attempts[0].result, AttemptResult::NoChange);
    assert_eq!(actions, [Operation::Action("click".into())]);
    assert!(outcome.observed.contains("Clicked Go"), "{outcome:#?}");
    let first = outcome.attempts[0].observed.as_deref().unwrap_or_default();
    assert!(first.contains("\"Content ready\" only moved or resized, laying out"), "{outcome:#?}");
}

#[tokio::test]
async fn the_same_move_without_the_apps_word_is_not_counted_for_a_press_either() {
    // Unannounced, the settling rule does not apply (it rests on the app's events alone);
    // but an element away from the target that only moved does not say a press landed
    // (`observe.rs`): the dropped click is recovered the same way.
    let (outcome, actions) = dropped_click_while_laying_out(false).await;
    assert!(outcome.ok, "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction], "{outcome:#?}");
    assert_eq!(actions, [Operation::Action("click".into())]);
    let first = outcome.attempts[0].observed.as_deref().unwrap_or_default();
    assert!(first.contains("only moved or resized, or went unseen, away from the target"), "{outcome:#?}");
    assert!(!first.contains("laying out"), "not the settling rule's words: {outcome:#?}");
}
