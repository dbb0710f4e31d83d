//! What an element's changes say, taken together: it vanished where it stood, came back
//! there, only lost things, or switched other controls on or off.

use deft_snapshot::{Effect, EffectKind, FieldChange};
use deft_types::State;

/// Whether an element's changes say only that it vanished where it stood: off screen or
/// hidden, its text, value, name and actions gone with it. Firefox does that to a whole page
/// the moment a modal `<dialog>` opens over it, and exposes the dialog a read or two later:
/// like things gone, it is confirmed before it counts as the effect. An element that was not
/// on screen before (`shown_before` false: a closed select's options) has nothing to vanish
/// from: losing its text or actions is the same emptying.
pub(crate) fn emptied(changes: &[FieldChange], shown_before: bool) -> bool {
    let vanished = !shown_before
        || changes.iter().any(|c| {
            matches!(
                c,
                FieldChange::Bounds { new: None, .. } | FieldChange::StateRemoved(State::Showing | State::Visible)
            )
        });
    vanished && only_lost(changes)
}

/// Whether an element's changes only take something away (text, value, name, actions,
/// bounds, states) and add nothing. An element whose text is blanked where it stands is
/// one: Firefox blanks some of a page's texts in place, a read before it takes the rest
/// off screen and exposes the modal `<dialog>` over it (seen under load: "Orders: 0" -> ""
/// still on screen passed the click the dialog swallowed as its effect).
pub(crate) fn only_lost(changes: &[FieldChange]) -> bool {
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|t| t.trim().is_empty());
    changes.iter().all(|c| match c {
        FieldChange::Text { new, .. } | FieldChange::Value { new, .. } => blank(new),
        FieldChange::Name { new, .. } => new.trim().is_empty(),
        FieldChange::Actions { new, .. } => new.is_empty(),
        FieldChange::Bounds { new, .. } => new.is_none(),
        FieldChange::StateRemoved(_) => true,
        _ => false,
    })
}

/// Whether an element's changes say only that it came back where it stood: on screen or
/// shown, with text, value, name and actions where it had none, nothing else changed. The
/// mirror of [`emptied`]: what a page being laid out for accessibility looks like.
pub(crate) fn filled(changes: &[FieldChange]) -> bool {
    let blank = |v: &Option<String>| v.as_deref().is_none_or(|t| t.trim().is_empty());
    let appeared = changes.iter().any(|c| {
        matches!(c, FieldChange::Bounds { old: None, .. } | FieldChange::StateAdded(State::Showing | State::Visible))
    });
    appeared
        && changes.iter().all(|c| match c {
            FieldChange::Text { old, .. } | FieldChange::Value { old, .. } => blank(old),
            FieldChange::Name { old, .. } => old.trim().is_empty(),
            FieldChange::Actions { old, .. } => old.is_empty(),
            FieldChange::Bounds { old, .. } => old.is_none(),
            FieldChange::StateAdded(_) => true,
            _ => false,
        })
}

/// Whether some of `others` (changes away from a toggle) enable or disable other controls:
/// what a switch's own effect does (xfce4-keyboard-settings' "Use system defaults" switch
/// enables the layout list), never an app's own motion (a spinner, a relayout). The toggle's
/// state may lag behind them: the input landed all the same (its state read unchanged for
/// 0.6 s, and an accessibility press sent after the click turned it back on).
pub(crate) fn dependents_switched(others: &[&Effect]) -> bool {
    let switched = |c: &FieldChange| {
        matches!(c, FieldChange::StateAdded(State::Enabled) | FieldChange::StateRemoved(State::Enabled))
    };
    others.iter().any(|e| matches!(&e.kind, EffectKind::Changed { changes, .. } if changes.iter().any(switched)))
}
