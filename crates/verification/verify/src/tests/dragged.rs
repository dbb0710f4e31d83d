//! A slider set through accessibility: its value reading back is the control taking it,
//! not the application acting on it (qmmp's volume stayed 80 while its slider read 30).

use deft_a11y::{Tree, TreeBuilder, element};
use deft_types::{Action, ElementId, Selector, State, Target, TextMatch};

use super::{fixture, placed};

fn player(role: &str) -> Tree {
    let mut b = TreeBuilder::new();
    let app = b.app(element("app", "application", "player"));
    let mut main = placed("main", "frame", "Player", (0, 0, 400, 300), &[]);
    main.states.insert(State::Active);
    let main = b.child(app, main);
    let mut volume = placed("volume", role, "Volume", (100, 100, 100, 20), &["increase", "decrease"]);
    volume.value = Some("80".into());
    volume.states.insert(State::Focusable);
    b.child(main, volume);
    b.build()
}

fn set_volume(value: &str) -> Action {
    let sel = Selector { name: Some(TextMatch::Exact("Volume".into())), ..Selector::default() };
    Action::SetValue { target: Target::Selector(sel), value: value.into() }
}

#[tokio::test]
async fn a_slider_set_through_accessibility_is_received_once_and_never_verified_by_its_own_value() {
    let f = fixture(player("slider"), |c| c);
    let outcome = f.exec.perform(&set_volume("30")).await;
    assert!(outcome.ok, "{outcome:#?}");
    assert_eq!(outcome.verified, Some(false), "the slider's own value does not show the app acted: {outcome:#?}");
    assert_eq!(outcome.attempts.len(), 1, "never sent again: {outcome:#?}");
    assert!(outcome.observed.contains("whether the application acted on it does not show"), "{}", outcome.observed);
    let tree = f.ui.fake.tree();
    let volume = tree.find_id(&ElementId("volume".into())).map(|i| tree.nodes[i].element.value.clone());
    assert_eq!(volume, Some(Some("30".into())), "the value was set");
}

#[tokio::test]
async fn a_spin_button_set_through_accessibility_is_verified_by_its_value() {
    // A spin button commits what it holds: the application reads it from there.
    let f = fixture(player("spin_button"), |c| c);
    let outcome = f.exec.perform(&set_volume("30")).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
}

#[tokio::test]
async fn an_expectation_gives_a_slider_set_its_channel() {
    let f = fixture(player("slider"), |c| c);
    let expect = deft_a11y::selector::parse_condition("value:name=Volume=30").expect("a condition");
    let options = crate::config::ActionOptions { expect: Some(expect), ..Default::default() };
    let outcome = f.exec.perform_with(&set_volume("30"), &options).await;
    assert!(outcome.ok && outcome.verified == Some(true), "{outcome:#?}");
}
