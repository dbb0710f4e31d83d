//! A control a person drags, set from outside.
//!
//! Setting a slider's value through accessibility changes the control, not necessarily
//! what it controls: an application may follow only a person's drag, wheel or keys on it
//! (Qt's `sliderMoved` and `actionTriggered`, which a media player listens to so that the
//! player's own updates do not feed back) and never hear a value set from outside. qmmp's
//! volume slider read back 30 while qmmp's volume stayed 80; VLC's seek slider moved and
//! VLC never seeked. The value reading back is receipt: the control took it. Whether the
//! application acted on it shows nowhere accessibility looks, so the action is `received`,
//! never `verified` and never repeated, and says how to make sure (an expectation that
//! shows the effect, or the wheel over the slider, which the application does follow).

use deft_types::{Action, Element, Method};

/// Controls whose value a person changes by dragging, the wheel or keys, and an
/// application may follow only through those (a spin button is typed into and commits
/// what it holds, so it is not one).
const DRAGGED: [&str; 3] = ["slider", "dial", "scroll_bar"];

/// Whether this input set a dragged control's value through accessibility.
pub(crate) fn applies(action: &Action, target: Option<&Element>, method: Method) -> bool {
    method == Method::A11ySet
        && matches!(action, Action::SetValue { .. })
        && target.is_some_and(|e| DRAGGED.contains(&e.role.as_str()))
}

/// The receipt told for such a set, from what was read back.
pub(crate) fn received(held: &str) -> String {
    format!(
        "{held}, set through accessibility; whether the application acted on it does not show (an application may \
         follow only a person's drag, wheel or keys on it): give --expect for what should change, or scroll over it \
         with the wheel"
    )
}

#[cfg(test)]
mod tests {
    use deft_types::{Action, Target};

    use super::*;

    fn on(role: &str) -> Element {
        let mut e = deft_a11y::element("v", role, "Volume");
        e.value = Some("80".into());
        e
    }

    #[test]
    fn only_a_dragged_control_set_through_accessibility_is_receipt() {
        let set = Action::SetValue { target: Target::Focused, value: "30".into() };
        assert!(applies(&set, Some(&on("slider")), Method::A11ySet));
        assert!(applies(&set, Some(&on("dial")), Method::A11ySet));
        assert!(!applies(&set, Some(&on("spin_button")), Method::A11ySet), "a spin button commits what it holds");
        assert!(!applies(&set, Some(&on("slider")), Method::FocusSelectAllKeystrokes), "keys are a person's input");
        let typed = Action::Type { target: Target::Focused, text: "30".into() };
        assert!(!applies(&typed, Some(&on("slider")), Method::A11ySet));
    }
}
