//! The middle-click paste goes only where the click lands on the field's text.

use deft_a11y::{TreeBuilder, element};
use deft_input::Recorded;
use deft_types::{Action, Selector, State, Target, TextMatch};

use super::{fixture, placed};

/// Only the paste, so that what it refuses is the whole outcome.
fn paste_only(c: crate::ExecutorConfig) -> crate::ExecutorConfig {
    let chain = "[type]\nchain = [\"middle_click_paste\"]\n";
    crate::ExecutorConfig { policies: deft_retry::PolicySet::from_toml_str(chain).unwrap(), ..c }
}

#[tokio::test]
async fn a_spin_button_is_never_pasted_into() {
    // gtk3-demo's Numeric spin button: its step buttons lie inside its bounds, past its
    // text, and a middle click there took the value from 0.00 to -100.00.
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "demo"));
    let main = b.child(app, placed("main", "frame", "Spin Buttons", (0, 0, 400, 300), &[]));
    let mut spin = placed("numeric", "spin_button", "Numeric", (10, 10, 200, 30), &[]);
    spin.text = Some("0.00".into());
    spin.value = Some("0".into());
    for s in [State::Editable, State::SingleLine, State::Showing, State::Visible, State::Enabled, State::Focusable] {
        spin.states.insert(s);
    }
    b.child(main, spin);
    let f = fixture(b.build(), paste_only);
    let sel = Selector { name: Some(TextMatch::Exact("Numeric".into())), ..Selector::default() };
    let outcome = f.exec.perform(&Action::Type { target: Target::Selector(sel), text: "42".into() }).await;
    assert!(!outcome.ok, "{outcome:#?}");
    assert!(outcome.observed.contains("not pasted into"), "{outcome:#?}");
    let calls = f.rec.lock().unwrap().calls.clone();
    assert!(!calls.iter().any(|c| matches!(c, Recorded::Paste(..) | Recorded::Button(..))), "{calls:?}");
}
