//! What an action asks that can be told of its target before anything is sent: whether
//! an expectation is the target toggle's own state, whether a value must be a number,
//! whether a tab asked for is the one shown already.

/// A control whose value is a number a person changes (a spin button, a slider): `set_value`
/// sets that number, never its text (see `send.rs`).
pub(crate) fn numeric_control(e: &deft_types::Element) -> bool {
    e.value.is_some() && matches!(e.role.as_str(), "spin_button" | "slider" | "scroll_bar" | "dial")
}

/// The state an expectation asks of the toggle `e` itself (`state:` with a selector that
/// names it: its name, and its role if one is given), when it is one a click flips.
pub(crate) fn own_toggle_state(
    c: &deft_types::Condition,
    e: &deft_types::Element,
) -> Option<(deft_types::State, bool)> {
    let deft_types::Condition::ElementState { selector, state, present } = c else { return None };
    let flips = matches!(state, deft_types::State::Checked | deft_types::State::Pressed);
    let named = selector.name.as_ref().is_some_and(|n| crate::condition::text_matches(n, &e.name));
    let same_role = selector.role.as_ref().is_none_or(|r| *r == e.role);
    let only_these = selector.text.is_none() && selector.path.is_none() && selector.id.is_none();
    (flips && named && same_role && only_these).then_some((*state, *present))
}

/// A tab already selected, clicked once with nothing else expected: its page is the one
/// shown, and a click there changes nothing (gnumeric's sheet tab took three inputs over
/// 7.4 s, then "no effect"). What was asked and what holds, for an outcome with nothing sent.
pub(crate) fn tab_shown_already(
    action: &deft_types::Action,
    e: &deft_types::Element,
    expect: Option<&deft_types::Condition>,
) -> Option<(String, String)> {
    let once = matches!(action, deft_types::Action::Click { button: deft_types::MouseButton::Left, count: 1, .. });
    let shown = e.role.as_str() == "page_tab" && e.has(deft_types::State::Selected);
    (once && shown && expect.is_none()).then(|| {
        let what = e.describe();
        (format!("{what} selected"), format!("{what} is selected already, its page shown: nothing was sent"))
    })
}

#[cfg(test)]
mod tests {
    use deft_types::{Condition, Role, Selector, State, TextMatch};

    #[test]
    fn only_an_expectation_that_names_the_toggle_itself_is_its_own_state() {
        let wrap = deft_a11y::element("w", "check_box", "Wrap");
        let state = |name: &str, role: Option<&str>, text: Option<&str>| Condition::ElementState {
            selector: Selector {
                name: Some(TextMatch::Exact(name.into())),
                role: role.map(Role::new),
                text: text.map(|t| TextMatch::Exact(t.into())),
                ..Selector::default()
            },
            state: State::Checked,
            present: true,
        };
        assert_eq!(super::own_toggle_state(&state("Wrap", None, None), &wrap), Some((State::Checked, true)));
        assert_eq!(
            super::own_toggle_state(&state("Wrap", Some("check_box"), None), &wrap),
            Some((State::Checked, true))
        );
        assert_eq!(super::own_toggle_state(&state("Other", None, None), &wrap), None);
        assert_eq!(super::own_toggle_state(&state("Wrap", Some("push_button"), None), &wrap), None);
        assert_eq!(super::own_toggle_state(&state("Wrap", None, Some("x")), &wrap), None);
    }
}
