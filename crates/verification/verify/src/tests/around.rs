//! A press on a label inside a button (gnome-calculator's "7": GTK 4's label, the button
//! around it unnamed) whose pointer press went nowhere: the accessibility fallback presses
//! the button around it, once; a label in no control gets no press.

use deft_a11y::{Operation, Tree, TreeBuilder, element};
use deft_types::{Action, ElementId, Method, Selector, State, Target, TextMatch};

use super::{click, fixture, placed};

/// A window with a button holding the label "7", and a label "Result" in no control;
/// `shown` is what the result label reads.
fn keypad(shown: &str) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "calc"));
    let mut main = placed("main", "frame", "Calculator", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let seven = b.child(main, placed("seven", "push_button", "", (10, 10, 60, 40), &["click"]));
    b.child(seven, placed("seven-label", "label", "7", (30, 20, 20, 20), &["clipboard.copy"]));
    b.child(main, placed("result", "label", shown, (10, 100, 200, 30), &[]));
    b.build()
}

#[tokio::test]
async fn a_label_without_a_press_is_pressed_through_the_button_around_it() {
    let f = fixture(keypad("0"), |c| c);
    // The pointer press is lost; the button's accessibility action shows 7.
    f.ui.on_action.lock().unwrap().push((ElementId("seven".into()), keypad("7")));
    let outcome = f.exec.perform(&click("7")).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let methods: Vec<Method> = outcome.attempts.iter().map(|a| a.method).collect();
    assert_eq!(methods, [Method::CoordinateClick, Method::A11yAction], "{outcome:#?}");
    let performed = f.ui.fake.performed();
    assert_eq!(performed, [(ElementId("seven".into()), Operation::Action("click".into()))], "the button, once");
}

#[tokio::test]
async fn a_named_action_on_a_label_goes_to_the_button_around_it() {
    // `action("7", name="click")`: the label has no click; the button it lies in has.
    let f = fixture(keypad("0"), |c| c);
    f.ui.on_action.lock().unwrap().push((ElementId("seven".into()), keypad("7")));
    let seven = Selector { name: Some(TextMatch::Exact("7".into())), ..Selector::default() };
    let invoke = Action::Invoke { target: Target::Selector(seven), name: "click".into() };
    let outcome = f.exec.perform(&invoke).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let performed = f.ui.fake.performed();
    assert_eq!(performed, [(ElementId("seven".into()), Operation::Action("click".into()))], "the button, once");
}
