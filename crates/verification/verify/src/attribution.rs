//! Which changes a read may attribute to the input: what is only texts said (and may be
//! the app moving on its own), what is only a menu closing, and what changed by itself.

use deft_snapshot::{Effect, EffectKind, FieldChange, Judgement, NoiseKind, NoiseSource, Relation};
use deft_types::{Element, ElementId};

use crate::field_changes::only_lost;
use crate::read::Reading;

/// The elements of `effects` if each is only a change of what an element says, away from
/// the target (the target's own change is its own evidence; inside a `backdrop` target, the
/// container a click on empty space lands on, nothing is its own). A text leaf that came or
/// went under one of them is part of its change (Chromium replaces a section's text node).
pub(crate) fn said_only(effects: &[&Effect], pre: &Reading, backdrop: bool) -> Vec<ElementId> {
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
            _ if e.relation == Relation::Target || (e.relation == Relation::InsideTarget && !backdrop) => {
                return Vec::new();
            }
            EffectKind::Changed { id, changes, .. } if changes.iter().all(says) => ids.push(id.clone()),
            EffectKind::Changed { .. } => return Vec::new(),
            _ => {}
        }
    }
    // A text leaf gone and another come under the same element, that element itself
    // unchanged as read: what it says changed (Chromium replaces a section's text node,
    // and a read may catch the node replaced before the section's own text).
    let parent_of_gone = |e: &Effect| match &e.kind {
        EffectKind::Gone { element, descendants: 0 } => pre.snap.node(&element.id).and_then(|n| n.parent()).cloned(),
        _ => None,
    };
    for e in effects {
        if let EffectKind::Appeared { parent: Some(p), descendants: 0, .. } = &e.kind
            && !ids.contains(p)
            && effects.iter().any(|g| parent_of_gone(g).as_ref() == Some(p))
        {
            ids.push(p.clone());
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

/// The target, gone after the input, rebuilt where it was: an element of the same role and
/// name at the same place in `post`, in words. Whichever of the two the input reached, it
/// reached the target, and the app then re-created it (a page reloading to an identical
/// page, a view re-rendered by the click): the input landed, and a second one could double
/// its effect. A target re-created elsewhere is not this: an input at its old place found
/// nothing there (a stale element).
pub(crate) fn rebuilt_in_place(target: &ElementId, pre: &Reading, post: &Reading) -> Option<String> {
    if post.element(target).is_some() {
        return None;
    }
    let was = pre.element(target)?;
    let at = was.bounds.filter(|b| b.w > 0 && b.h > 0)?;
    let twin = post
        .snap
        .nodes()
        .map(|n| n.element())
        .find(|e| e.id != was.id && e.role == was.role && e.name == was.name && e.bounds == Some(at))?;
    Some(format!("the target {} was rebuilt where it was, at {at}", twin.describe()))
}

/// Whether `e` is a backdrop: a plain container with nothing to act on (a window's panel, a
/// filler, a tool bar), which is what a click on empty space lands on. What changes inside
/// it is not its own reaction.
pub(crate) fn is_backdrop(e: &Element) -> bool {
    e.actions.is_empty()
        && !e.has(deft_types::State::Editable)
        && matches!(
            e.role.as_str(),
            "panel"
                | "filler"
                | "frame"
                | "window"
                | "layered_pane"
                | "root_pane"
                | "tool_bar"
                | "status_bar"
                | "unknown"
        )
}
