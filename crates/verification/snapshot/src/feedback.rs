//! Immediate feedback: the cheap early sign that an input reached its target.

use deft_types::{ElementId, State};
use serde::{Deserialize, Serialize};

use crate::diff::{FieldChange, SnapshotDiff};

/// States whose appearance on the target shows the input arrived, even before any effect.
pub const FEEDBACK_STATES: [State; 3] = [State::Pressed, State::Focused, State::Busy];

/// Signs that the application reacted to an input, short of an effect.
///
/// The executor reads this a frame or two after acting: with feedback it waits out the
/// verification window (a delayed effect is not a missed click); without any, it may fall
/// back to the next method early.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct ImmediateFeedback {
    /// [`FEEDBACK_STATES`] that appeared on the target, in state order.
    pub target_states: Vec<State>,
    /// Other elements that became busy.
    pub busy: Vec<ElementId>,
}

/// The feedback in `diff` for an input sent to `target`, or `None` when there is none.
pub fn immediate_feedback(diff: &SnapshotDiff, target: &ElementId) -> Option<ImmediateFeedback> {
    let mut feedback = ImmediateFeedback::default();
    for change in &diff.changed {
        for field in &change.changes {
            let FieldChange::StateAdded(state) = field else { continue };
            if &change.id == target && FEEDBACK_STATES.contains(state) {
                feedback.target_states.push(*state);
            } else if &change.id != target && *state == State::Busy {
                feedback.busy.push(change.id.clone());
            }
        }
    }
    feedback.busy.extend(diff.added.iter().filter(|a| a.element.has(State::Busy)).map(|a| a.element.id.clone()));
    feedback.busy.sort();
    let none = feedback.target_states.is_empty() && feedback.busy.is_empty();
    (!none).then_some(feedback)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::diff;
    use crate::snapshot::Snapshot;
    use crate::test_support::el;

    #[test]
    fn pressed_and_busy_are_feedback_checked_is_not() {
        let before = Snapshot::builder().root(el("b", "push_button", "Go")).root(el("w", "frame", "")).build().unwrap();
        let mut pressed = el("b", "push_button", "Go");
        pressed.states.extend([State::Pressed, State::Checked]);
        let mut busy = el("w", "frame", "");
        busy.states.insert(State::Busy);
        let after = Snapshot::builder().root(pressed).root(busy).build().unwrap();
        let target = ElementId("b".into());
        let fb = immediate_feedback(&diff(&before, &after), &target).unwrap();
        assert_eq!(fb.target_states, [State::Pressed]);
        assert_eq!(fb.busy, [ElementId("w".into())]);
        assert_eq!(immediate_feedback(&diff(&before, &before), &target), None);
    }
}
