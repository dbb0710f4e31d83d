//! What changed away from a press's target and says nothing of the press: elements that
//! only moved or resized, or went away never shown (`observe.rs` does not count them when
//! they are all that changed).

use deft_snapshot::{Effect, EffectKind, FieldChange, Relation};
use deft_types::{Element, State};

use crate::read::Reading;

/// An element away from the target (not it, in it or around it) that only moved or
/// resized, or went away without ever being shown: nothing a person would see as what a
/// press did.
pub(crate) fn far_layout(e: &Effect) -> bool {
    let away = matches!(e.relation, Relation::SameWindow | Relation::OtherWindow);
    let placed_only = |changes: &[FieldChange]| {
        changes.iter().all(|c| matches!(c, FieldChange::Bounds { old: Some(_), new: Some(_) }))
    };
    away && match &e.kind {
        EffectKind::Changed { changes, .. } => placed_only(changes),
        EffectKind::Gone { element, .. } => element.bounds.is_none() || !element.has(State::Showing),
        _ => false,
    }
}

/// The element an effect is about, in words, as `post` (or, gone, as last seen) shows it.
pub(crate) fn effect_name(e: &Effect, post: &Reading) -> Option<String> {
    match &e.kind {
        EffectKind::Changed { id, .. } => Some(post.element(id).map_or_else(|| id.to_string(), Element::describe)),
        EffectKind::Gone { element, .. } => Some(format!("{} (gone, never shown)", element.describe())),
        _ => None,
    }
}
