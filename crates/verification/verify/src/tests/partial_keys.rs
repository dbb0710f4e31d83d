//! A keyboard that can type only some characters (one layout: no key for 'é') refuses the
//! whole text before the first key: nothing is typed, focused or selected, and the chain
//! sets the text whole through accessibility. The first-key watch once sent 'c' of "café"
//! alone, the rest failed, and the retries typed 'c' again.

use deft_a11y::{TreeBuilder, element};
use deft_input::Recorded;
use deft_types::{Action, Selector, State, Target, TextMatch};

use super::{fixture, placed};

#[tokio::test]
async fn a_text_the_keyboard_cannot_type_whole_is_set_whole_and_no_key_is_sent() {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let main = b.child(app, placed("main", "frame", "Form", (0, 0, 400, 300), &[]));
    let mut email = placed("email", "text", "Email", (10, 10, 200, 30), &[]);
    email.text = Some(String::new());
    for s in [State::Editable, State::SingleLine, State::Showing, State::Visible, State::Enabled, State::Focusable] {
        email.states.insert(s);
    }
    email.states.insert(State::Focused);
    b.child(main, email);
    let f = fixture(b.build(), |c| c);
    *f.ui.no_key_for.lock().unwrap() = Some('é');
    let sel = Selector { name: Some(TextMatch::Exact("Email".into())), ..Selector::default() };
    let outcome = f.exec.perform(&Action::Type { target: Target::Selector(sel), text: "café".into() }).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
    let calls = f.rec.lock().unwrap().calls.clone();
    assert!(
        !calls.iter().any(|c| matches!(c, Recorded::Text(_) | Recorded::Chord(_) | Recorded::Button(..))),
        "no key, chord or click was sent: {calls:?}"
    );
    let set: Vec<_> = f.ui.fake.performed().into_iter().map(|(_, op)| op).collect();
    assert_eq!(set, [deft_a11y::Operation::InsertText { at: 0, text: "café".into() }], "inserted once, whole");
}
