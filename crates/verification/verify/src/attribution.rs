//! Which changes a read may attribute to the input: what is only texts said (and may be
//! the app moving on its own), what is only a menu closing, and what changed by itself.

use deft_snapshot::{Effect, EffectKind, FieldChange, Judgement, NoiseKind, NoiseSource, Relation};
use deft_types::{Element, ElementId};

use crate::observe::only_lost;
use crate::read::Reading;

/// The elements of `effects` if each is only a change of what an element says, away from
/// the target (the target's own change is its own evidence). A text leaf that came or went
/// under one of them is part of its change (Chromium replaces a section's text node).
pub(crate) fn said_only(effects: &[&Effect], pre: &Reading) -> Vec<ElementId> {
    let says = |c: &FieldChange| {
        matches!(
            c,
            FieldChange::Text { .. }
                | FieldChange::Name { .. }
                | FieldChange::Value { .. }
                | FieldChange::Description { .. }
        )
    };
    let mut ids = Vec::new();
    for e in effects {
        match &e.kind {
            _ if matches!(e.relation, Relation::Target | Relation::InsideTarget) => return Vec::new(),
            EffectKind::Changed { id, changes, .. } if changes.iter().all(says) => ids.push(id.clone()),
            EffectKind::Changed { .. } => return Vec::new(),
            _ => {}
        }
    }
    let leaf_of_said = |e: &Effect| match &e.kind {
        EffectKind::Changed { .. } => true,
        EffectKind::Appeared { parent: Some(p), descendants: 0, .. } => ids.contains(p),
        EffectKind::Gone { element, descendants: 0 } => {
            pre.snap.node(&element.id).and_then(|n| n.parent()).is_some_and(|p| ids.contains(p))
        }
        _ => false,
    };
    if effects.iter().all(|e| leaf_of_said(e)) { ids } else { Vec::new() }
}

/// Whether an effect is a menu going away around its chosen entry: the entry, what it is
/// in or what is in it, hidden, emptied or gone.
pub(crate) fn menu_closing(e: &Effect) -> bool {
    let around = matches!(e.relation, Relation::Target | Relation::InsideTarget | Relation::ContainsTarget);
    around
        && match &e.kind {
            EffectKind::Gone { .. } | EffectKind::WindowClosed(_) => true,
            EffectKind::Changed { changes, .. } => only_lost(changes),
            _ => false,
        }
}

/// How many elements that change by themselves a report names.
const OWN_MOTION_SHOWN: usize = 3;

/// The elements whose changes the judgement kept apart as changing by themselves, in words
/// (`label "Uptime 13 s"`), or `None`.
pub(crate) fn own_motion(j: &Judgement, post: &Reading) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    for n in &j.noise {
        if let (NoiseKind::ChangesByItself, NoiseSource::Field { id, .. }) = (n.kind, &n.source) {
            let name = post.snap.get(id).map_or_else(|| id.to_string(), Element::describe);
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    if names.is_empty() {
        return None;
    }
    let more = names.len().saturating_sub(OWN_MOTION_SHOWN);
    names.truncate(OWN_MOTION_SHOWN);
    let list = names.join(", ");
    let also = if more > 0 { format!(" and {more} more") } else { String::new() };
    Some(format!("{list}{also}, which changed by itself before the input too"))
}
