//! Keys for a target that keeps its text inside it (Impress's title placeholder): clicked
//! into as a person does, typed only once the text inside holds the focus, never selected
//! all, and what lands there is never "put back" as if it had gone astray.

use deft_a11y::{Tree, TreeBuilder, element};
use deft_input::{Key, Recorded};
use deft_types::{Action, Selector, State, Target, TextMatch};

use super::{fixture, placed};

/// A slide with a title shape (editable, no text of its own) at (100, 100, 400, 60) and
/// the paragraph inside it at (100, 110, 200, 40): `shape` and `para` give their states,
/// `text` the paragraph's text.
fn slide(shape: &[State], para: &[State], text: &str) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "soffice"));
    let mut main = placed("main", "frame", "Untitled 1 - Impress", (0, 0, 800, 600), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let mut title = placed("title", "panel", "PresentationTitle", (100, 100, 400, 60), &[]);
    title.states.insert(State::Editable);
    title.states.insert(State::Focusable);
    title.states.extend(shape.iter().copied());
    title.child_count = 1;
    let title = b.child(main, title);
    let mut p = placed("para", "paragraph", "", (100, 110, 200, 40), &[]);
    p.text = Some(text.into());
    p.states.insert(State::Editable);
    p.states.extend(para.iter().copied());
    b.child(title, p);
    b.build()
}

fn type_into_title(text: &str) -> Action {
    let sel = Selector { name: Some(TextMatch::Exact("PresentationTitle".into())), ..Selector::default() };
    Action::Type { target: Target::Selector(sel), text: text.into() }
}

fn select_all_sent(f: &super::Fixture) -> bool {
    f.rec.lock().unwrap().calls.iter().any(|c| matches!(c, Recorded::Chord(ch) if ch.key == Key::Char('a')))
}

#[tokio::test]
async fn keys_wait_for_the_text_inside_to_open_and_a_click_that_only_selected_is_followed_by_one_more() {
    // Impress: the first click selects the shape; a click into the selected shape opens its
    // text (its prompt gone); keys typed before that landed out of order.
    let f = fixture(slide(&[], &[], "Click to add Title"), |c| c);
    f.on_click((100, 110, 200, 40), slide(&[State::Selected, State::Focused], &[], "Click to add Title"));
    f.on_click((100, 110, 200, 40), slide(&[State::Selected], &[State::Focused], ""));
    f.ui.on_text
        .lock()
        .unwrap()
        .push((deft_types::ElementId("para".into()), slide(&[State::Selected], &[State::Focused], "Hello Impress")));
    let outcome = f.exec.perform(&type_into_title("Hello Impress")).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    assert_eq!(f.clicks().len(), 2, "{outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1, "{outcome:#?}");
    assert!(!select_all_sent(&f), "{:?}", f.rec.lock().unwrap().calls);
}

#[tokio::test]
async fn a_click_that_changed_nothing_is_not_repeated_and_nothing_is_typed() {
    // The click did not land where the shape is (nothing selected, nothing opened): a
    // second click would be a blind repeat; the keys are held, and no select-all follows.
    let f = fixture(slide(&[], &[], "Click to add Title"), |c| c);
    let outcome = f.exec.perform(&type_into_title("Hello")).await;
    assert!(!outcome.ok, "{outcome:#?}");
    assert_eq!(f.clicks().len(), 1, "{outcome:#?}");
    let typed = f.rec.lock().unwrap().calls.iter().any(|c| matches!(c, Recorded::Text(_)));
    assert!(!typed, "nothing typed: {:?}", f.rec.lock().unwrap().calls);
    assert!(!select_all_sent(&f));
    let said = format!("{:?}", outcome.attempts[0].result);
    assert!(said.contains("keeps its text inside it"), "{outcome:#?}");
}

#[tokio::test]
async fn text_already_inside_is_typed_after_not_replaced_and_what_lands_there_is_never_put_back() {
    // The title holds "Agenda" and is open for editing: the keys go after its text (the
    // caret may be anywhere), and a text inside the target that the keys changed is the
    // target's, not a field they strayed into: it is not set back to what it showed.
    let f = fixture(slide(&[State::Selected], &[State::Focused], "Agenda"), |c| c);
    f.ui.on_text
        .lock()
        .unwrap()
        .push((deft_types::ElementId("para".into()), slide(&[State::Selected], &[State::Focused], "Agendx")));
    let outcome = f.exec.perform(&type_into_title(" 2026")).await;
    let end = f
        .rec
        .lock()
        .unwrap()
        .calls
        .iter()
        .any(|c| matches!(c, Recorded::Chord(ch) if ch.key == Key::Named(deft_input::NamedKey::End)));
    assert!(end, "ctrl+End before the keys: {:?}", f.rec.lock().unwrap().calls);
    assert!(f.actions().is_empty(), "nothing set through accessibility: {:?}", f.actions());
    assert!(!select_all_sent(&f), "{:?}", f.rec.lock().unwrap().calls);
    assert!(!outcome.observed.contains("taken back"), "{outcome:#?}");
    assert!(outcome.observed.contains("\"Agendx\""), "says what the text inside shows: {outcome:#?}");
}
