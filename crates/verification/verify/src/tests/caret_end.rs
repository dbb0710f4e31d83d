//! Where `type` puts its text in a named target: after all of its text, not after the line
//! the caret is on (zim's page and Kate's document took the text into their first line);
//! and nothing but the text itself to a terminal, whose program reads a key as input (the
//! End key went in before the text as `ESC [ F`).

use deft_a11y::{Operation, TreeBuilder, element};
use deft_input::{Key, Modifier, NamedKey, Recorded};
use deft_types::{Action, Selector, State, Target, TextMatch};

use super::{fixture, placed};

/// A window holding one element `role` named "Doc" with `text`, editable or not.
fn one(role: &str, text: &str, editable: bool) -> deft_a11y::Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let mut main = placed("main", "frame", "Editor", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let mut doc = placed("doc", role, "Doc", (10, 10, 300, 200), &[]);
    doc.text = Some(text.into());
    doc.states.insert(State::Focusable);
    doc.states.insert(State::Focused);
    if editable {
        doc.states.insert(State::Editable);
    }
    b.child(main, doc);
    b.build()
}

fn type_into_doc(text: &str) -> Action {
    let sel = Selector { name: Some(TextMatch::Exact("Doc".into())), ..Selector::default() };
    Action::Type { target: Target::Selector(sel), text: text.into() }
}

fn end_keys(f: &super::Fixture) -> Vec<Vec<Modifier>> {
    let calls = f.rec.lock().unwrap().calls.clone();
    calls
        .into_iter()
        .filter_map(|c| match c {
            Recorded::Chord(ch) if ch.key == Key::Named(NamedKey::End) => Some(ch.modifiers),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn text_of_many_lines_gets_its_caret_after_all_of_it() {
    let f = fixture(one("text", "one\ntwo\n", true), |c| c);
    f.exec.perform(&type_into_doc("three")).await;
    let ops: Vec<_> = f.ui.fake.performed().into_iter().map(|(_, op)| op).collect();
    assert_eq!(ops.first(), Some(&Operation::CaretToEnd), "through accessibility first: {ops:?}");
    // The fake does not say where its caret is: the keys' way, to the end of all lines.
    assert_eq!(end_keys(&f), [vec![Modifier::Ctrl]], "Ctrl+End, never End alone");
}

#[tokio::test]
async fn a_terminal_gets_no_key_but_the_text() {
    let f = fixture(one("terminal", "$ ", false), |c| c);
    f.exec.perform(&type_into_doc("ls")).await;
    assert!(end_keys(&f).is_empty(), "{:?}", f.rec.lock().unwrap().calls);
    let ops: Vec<_> = f.ui.fake.performed().into_iter().map(|(_, op)| op).collect();
    assert!(!ops.contains(&Operation::CaretToEnd), "{ops:?}");
}

#[tokio::test]
async fn a_line_break_for_a_field_of_one_line_is_refused_before_anything_is_sent() {
    // Typed, a line break is the Return key: in a field of one line it submits the form.
    let mut tree = one("text", "Ada", true);
    let doc = tree.find_id(&deft_types::ElementId("doc".into())).unwrap();
    tree.nodes[doc].element.states.insert(State::SingleLine);
    let f = fixture(tree, |c| c);
    let outcome = f.exec.perform(&type_into_doc("one\ntwo")).await;
    assert!(!outcome.ok && outcome.attempts.is_empty(), "{outcome:#?}");
    assert!(outcome.observed.contains("single line"), "{outcome:#?}");
    assert!(f.rec.lock().unwrap().calls.is_empty(), "nothing sent: {:?}", f.rec.lock().unwrap().calls);
}
