//! Applying a diff to the snapshot it was taken from: the inverse of `diff`, checked strictly.

use std::collections::HashMap;

use deft_types::{Element, ElementId, Physical, Rect};

use crate::diff::{ElementChange, FieldChange, SnapshotDiff};
use crate::snapshot::{RegionDigest, Snapshot, SnapshotError, WindowState, region_key};

/// Why a diff does not apply to a snapshot: it was taken from another one.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum ApplyError {
    /// The diff removes or changes an element the snapshot does not have.
    #[error("element {0} is not in the snapshot the diff is applied to")]
    MissingElement(ElementId),
    /// The diff adds an element the snapshot already has.
    #[error("element {0} is already in the snapshot the diff is applied to")]
    AlreadyPresent(ElementId),
    /// An old value in the diff does not match the snapshot.
    #[error("element {id}: the diff's old {field} does not match the snapshot")]
    Conflict {
        /// The element.
        id: ElementId,
        /// The field, as [`FieldChange::field`] names it.
        field: &'static str,
    },
    /// A window the diff closes or changes is missing or different, or one it opens exists.
    #[error("window {0} does not match the diff")]
    WindowConflict(ElementId),
    /// A region's old digest does not match the snapshot.
    #[error("region {0} does not match the diff")]
    RegionConflict(Rect<Physical>),
    /// The result is not a valid snapshot (e.g. a move made a cycle).
    #[error("the diff makes an invalid snapshot: {0}")]
    Invalid(#[from] SnapshotError),
}

/// The snapshot `diff` leads to from `base`: `apply(a, &diff(a, b)) == Ok(b)`.
///
/// Strict: every old value in the diff must match `base`, so applying a diff to another
/// snapshot than the one it was taken from fails instead of making a plausible mix.
/// Surviving siblings keep their order in `base`; added and moved elements come after them.
pub fn apply(base: &Snapshot, diff: &SnapshotDiff) -> Result<Snapshot, ApplyError> {
    let mut removed = HashMap::with_capacity(diff.removed.len());
    for r in &diff.removed {
        match base.node(&r.element.id) {
            None => return Err(ApplyError::MissingElement(r.element.id.clone())),
            Some(n) if n.element() != &r.element || n.parent() != r.parent.as_ref() => {
                return Err(ApplyError::Conflict { id: r.element.id.clone(), field: "element" });
            }
            Some(_) => removed.insert(&r.element.id, ()),
        };
    }
    let changed: HashMap<&ElementId, &ElementChange> = diff.changed.iter().map(|c| (&c.id, c)).collect();
    for c in &diff.changed {
        if !base.contains(&c.id) || removed.contains_key(&c.id) {
            return Err(ApplyError::MissingElement(c.id.clone()));
        }
    }

    let mut elements = Vec::with_capacity(base.len() + diff.added.len());
    for node in base.preorder() {
        if removed.contains_key(node.id()) {
            continue;
        }
        let mut element = node.element().clone();
        let mut parent = node.parent().cloned();
        if let Some(change) = changed.get(node.id()) {
            for field in &change.changes {
                apply_field(&mut element, &mut parent, field)
                    .map_err(|field| ApplyError::Conflict { id: change.id.clone(), field })?;
            }
        }
        elements.push((element, parent));
    }
    for a in &diff.added {
        if base.contains(&a.element.id) {
            return Err(ApplyError::AlreadyPresent(a.element.id.clone()));
        }
        elements.push((a.element.clone(), a.parent.clone()));
    }

    let windows = apply_windows(base.windows(), diff)?;
    let regions = apply_regions(base.regions(), diff)?;
    Ok(Snapshot::from_parts(elements, windows, regions)?)
}

/// Sets one field to its new value after checking the old one; `Err` names the field.
fn apply_field(el: &mut Element, parent: &mut Option<ElementId>, change: &FieldChange) -> Result<(), &'static str> {
    fn set<T: PartialEq + Clone>(slot: &mut T, old: &T, new: &T, field: &'static str) -> Result<(), &'static str> {
        if slot != old {
            return Err(field);
        }
        *slot = new.clone();
        Ok(())
    }
    let field = change.field();
    match change {
        FieldChange::Role { old, new } => set(&mut el.role, old, new, field),
        FieldChange::Name { old, new } => set(&mut el.name, old, new, field),
        FieldChange::Description { old, new } => set(&mut el.description, old, new, field),
        FieldChange::Text { old, new } => set(&mut el.text, old, new, field),
        FieldChange::Value { old, new } => set(&mut el.value, old, new, field),
        FieldChange::StateAdded(s) => el.states.insert(*s).then_some(()).ok_or(field),
        FieldChange::StateRemoved(s) => el.states.remove(s).then_some(()).ok_or(field),
        FieldChange::Bounds { old, new } => set(&mut el.bounds, old, new, field),
        FieldChange::Actions { old, new } => set(&mut el.actions, old, new, field),
        FieldChange::ChildCount { old, new } => set(&mut el.child_count, old, new, field),
        FieldChange::Parent { old, new } => set(parent, old, new, field),
    }
}

fn apply_windows(base: &[WindowState], diff: &SnapshotDiff) -> Result<Vec<WindowState>, ApplyError> {
    let mut windows: HashMap<&ElementId, &WindowState> = base.iter().map(|w| (&w.id, w)).collect();
    for w in &diff.windows_closed {
        if windows.remove(&w.id) != Some(w) {
            return Err(ApplyError::WindowConflict(w.id.clone()));
        }
    }
    for c in &diff.windows_changed {
        match windows.get_mut(&c.before.id) {
            Some(slot) if **slot == c.before && c.after.id == c.before.id => *slot = &c.after,
            _ => return Err(ApplyError::WindowConflict(c.before.id.clone())),
        }
    }
    for w in &diff.windows_opened {
        if windows.insert(&w.id, w).is_some() {
            return Err(ApplyError::WindowConflict(w.id.clone()));
        }
    }
    Ok(windows.into_values().cloned().collect())
}

fn apply_regions(base: &[RegionDigest], diff: &SnapshotDiff) -> Result<Vec<RegionDigest>, ApplyError> {
    let mut regions: HashMap<_, RegionDigest> = base.iter().map(|r| (region_key(&r.rect), *r)).collect();
    for c in &diff.regions_changed {
        let key = region_key(&c.rect);
        if regions.get(&key).map(|r| r.digest) != c.before {
            return Err(ApplyError::RegionConflict(c.rect));
        }
        match c.after {
            Some(digest) => regions.insert(key, RegionDigest { rect: c.rect, digest }),
            None => regions.remove(&key),
        };
    }
    Ok(regions.into_values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::diff;
    use crate::test_support::{el, id};

    fn base() -> Snapshot {
        Snapshot::builder()
            .root(el("w", "frame", "Main"))
            .child(&id("w"), el("ok", "push_button", "OK"))
            .child(&id("w"), el("name", "text", ""))
            .window(WindowState::new("w", "Main", "frame"))
            .region(Rect::new(0, 0, 10, 10), 7)
            .build()
            .unwrap()
    }

    #[test]
    fn apply_inverts_diff() {
        let a = base();
        let mut field = el("name", "text", "");
        field.text = Some("John".into());
        let b = Snapshot::builder()
            .root(el("w", "frame", "Main"))
            .child(&id("w"), field)
            .child(&id("w"), el("msg", "label", "Saved"))
            .window(WindowState::new("w", "Main", "frame"))
            .window(WindowState::new("d", "Saved", "dialog"))
            .region(Rect::new(0, 0, 10, 10), 8)
            .build()
            .unwrap();
        assert_eq!(apply(&a, &diff(&a, &b)), Ok(b.clone()));
        assert_eq!(apply(&b, &diff(&b, &a)), Ok(a));
    }

    #[test]
    fn wrong_base_is_an_error() {
        let a = base();
        let mut renamed = el("ok", "push_button", "Done");
        renamed.child_count = 0;
        let b = Snapshot::builder()
            .root(el("w", "frame", "Main"))
            .child(&id("w"), renamed)
            .child(&id("w"), el("name", "text", ""))
            .window(WindowState::new("w", "Main", "frame"))
            .region(Rect::new(0, 0, 10, 10), 7)
            .build()
            .unwrap();
        let d = diff(&a, &b);
        assert_eq!(
            apply(&b, &d).unwrap_err().to_string(),
            "element ok: the diff's old name does not match the snapshot"
        );
        assert_eq!(apply(&Snapshot::default(), &d), Err(ApplyError::MissingElement(id("ok"))));
    }
}
