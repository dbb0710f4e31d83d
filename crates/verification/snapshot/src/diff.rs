//! The state diff between two snapshots, per element id, with field-level changes.

use std::cmp::Ordering;
use std::collections::HashMap;

use deft_types::{Element, ElementId, Logical, Physical, Rect, Role, State};
use serde::{Deserialize, Serialize};

use crate::snapshot::{RegionDigest, Snapshot, SnapshotNode, WindowState, region_key};

/// An element with the parent it has (added) or had (removed).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PlacedElement {
    /// The element.
    pub element: Element,
    /// Its parent's id; `None` for a root.
    pub parent: Option<ElementId>,
}

/// One field of one element that differs, with its old and new values.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldChange {
    /// The role changed (rare: usually a widget replaced under the same id).
    Role {
        /// Before.
        old: Role,
        /// After.
        new: Role,
    },
    /// The accessible name changed.
    Name {
        /// Before.
        old: String,
        /// After.
        new: String,
    },
    /// The description changed.
    Description {
        /// Before.
        old: String,
        /// After.
        new: String,
    },
    /// The text content changed.
    Text {
        /// Before.
        old: Option<String>,
        /// After.
        new: Option<String>,
    },
    /// The value changed.
    Value {
        /// Before.
        old: Option<String>,
        /// After.
        new: Option<String>,
    },
    /// A state appeared.
    StateAdded(State),
    /// A state went away.
    StateRemoved(State),
    /// The bounds changed.
    Bounds {
        /// Before.
        old: Option<Rect<Logical>>,
        /// After.
        new: Option<Rect<Logical>>,
    },
    /// The offered actions changed.
    Actions {
        /// Before.
        old: Vec<String>,
        /// After.
        new: Vec<String>,
    },
    /// The number of children the platform reports changed.
    ChildCount {
        /// Before.
        old: u32,
        /// After.
        new: u32,
    },
    /// The element moved to another parent.
    Parent {
        /// Before.
        old: Option<ElementId>,
        /// After.
        new: Option<ElementId>,
    },
}

impl FieldChange {
    /// The field's name, as written in errors: `name`, `state`, `bounds`, ...
    pub fn field(&self) -> &'static str {
        match self {
            FieldChange::Role { .. } => "role",
            FieldChange::Name { .. } => "name",
            FieldChange::Description { .. } => "description",
            FieldChange::Text { .. } => "text",
            FieldChange::Value { .. } => "value",
            FieldChange::StateAdded(_) | FieldChange::StateRemoved(_) => "state",
            FieldChange::Bounds { .. } => "bounds",
            FieldChange::Actions { .. } => "actions",
            FieldChange::ChildCount { .. } => "child_count",
            FieldChange::Parent { .. } => "parent",
        }
    }
}

/// An element present on both sides that differs.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ElementChange {
    /// Its id.
    pub id: ElementId,
    /// Its role after the change, kept so the diff renders without the snapshots.
    pub role: Role,
    /// Its name after the change, kept so the diff renders without the snapshots.
    pub name: String,
    /// What differs, in a fixed field order; never empty.
    pub changes: Vec<FieldChange>,
}

/// A window present on both sides that differs (title, active, modal, bounds, role).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct WindowChange {
    /// Before.
    pub before: WindowState,
    /// After.
    pub after: WindowState,
}

/// A region whose digest differs, or that is digested on one side only.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RegionChange {
    /// The region.
    pub rect: Rect<Physical>,
    /// Its digest before, if it was digested.
    pub before: Option<u64>,
    /// Its digest after, if it is digested.
    pub after: Option<u64>,
}

/// What differs between two snapshots. Every list is sorted (elements and windows by id,
/// regions by edges) and each element id appears in at most one of `added`, `removed` and
/// `changed`, so the diff is canonical and its size is the number of elements that differ.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct SnapshotDiff {
    /// Elements only in the second snapshot.
    pub added: Vec<PlacedElement>,
    /// Elements only in the first snapshot, as last seen.
    pub removed: Vec<PlacedElement>,
    /// Elements in both that differ.
    pub changed: Vec<ElementChange>,
    /// Windows only in the second snapshot.
    pub windows_opened: Vec<WindowState>,
    /// Windows only in the first snapshot.
    pub windows_closed: Vec<WindowState>,
    /// Windows in both that differ.
    pub windows_changed: Vec<WindowChange>,
    /// Regions whose pixels differ.
    pub regions_changed: Vec<RegionChange>,
}

impl SnapshotDiff {
    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.element_count() == 0
            && self.windows_opened.is_empty()
            && self.windows_closed.is_empty()
            && self.windows_changed.is_empty()
            && self.regions_changed.is_empty()
    }

    /// Number of elements that differ: added, removed or changed.
    pub fn element_count(&self) -> usize {
        self.added.len() + self.removed.len() + self.changed.len()
    }

    /// The changes of one element, when it is in `changed`.
    pub fn changes_of(&self, id: &ElementId) -> Option<&ElementChange> {
        let i = self.changed.binary_search_by(|c| c.id.cmp(id)).ok()?;
        Some(&self.changed[i])
    }

    /// Whether the element was removed.
    pub fn was_removed(&self, id: &ElementId) -> bool {
        self.removed.binary_search_by(|r| r.element.id.cmp(id)).is_ok()
    }

    /// Whether the element was added.
    pub fn was_added(&self, id: &ElementId) -> bool {
        self.added.binary_search_by(|a| a.element.id.cmp(id)).is_ok()
    }
}

/// The diff from `before` to `after`: `apply(before, &diff(before, after)) == after`.
///
/// Elements are matched by id, so siblings that are only reordered do not differ. Linear
/// in the size of both snapshots (a merge of two id-sorted maps).
pub fn diff(before: &Snapshot, after: &Snapshot) -> SnapshotDiff {
    let mut out = SnapshotDiff::default();
    merge(
        before.node_map().values(),
        after.node_map().values(),
        |a, b| a.id().cmp(b.id()),
        |side| match side {
            Side::Before(n) => out.removed.push(placed(n)),
            Side::After(n) => out.added.push(placed(n)),
            Side::Both(a, b) => {
                if !same_node(a, b) {
                    out.changed.push(element_change(a, b));
                }
            }
        },
    );
    merge(
        before.windows().iter(),
        after.windows().iter(),
        |a, b| a.id.cmp(&b.id),
        |side| match side {
            Side::Before(w) => out.windows_closed.push(w.clone()),
            Side::After(w) => out.windows_opened.push(w.clone()),
            Side::Both(a, b) if a != b => {
                out.windows_changed.push(WindowChange { before: a.clone(), after: b.clone() })
            }
            Side::Both(..) => {}
        },
    );
    merge(
        before.regions().iter(),
        after.regions().iter(),
        |a, b| region_key(&a.rect).cmp(&region_key(&b.rect)),
        |side| {
            let change = |r: &RegionDigest, before, after| RegionChange { rect: r.rect, before, after };
            match side {
                Side::Before(r) => out.regions_changed.push(change(r, Some(r.digest), None)),
                Side::After(r) => out.regions_changed.push(change(r, None, Some(r.digest))),
                Side::Both(a, b) if a.digest != b.digest => {
                    out.regions_changed.push(change(a, Some(a.digest), Some(b.digest)))
                }
                Side::Both(..) => {}
            }
        },
    );
    out
}

fn placed(n: &SnapshotNode) -> PlacedElement {
    PlacedElement { element: n.element().clone(), parent: n.parent().cloned() }
}

enum Side<'a, T> {
    Before(&'a T),
    After(&'a T),
    Both(&'a T, &'a T),
}

/// Walks two sequences sorted by `cmp` together, calling `f` once per key.
fn merge<'a, T: 'a>(
    a: impl Iterator<Item = &'a T>,
    b: impl Iterator<Item = &'a T>,
    cmp: impl Fn(&T, &T) -> Ordering,
    mut f: impl FnMut(Side<'a, T>),
) {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    loop {
        let order = match (a.peek(), b.peek()) {
            (None, None) => return,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(x), Some(y)) => cmp(x, y),
        };
        let side = match order {
            Ordering::Less => a.next().map(Side::Before),
            Ordering::Greater => b.next().map(Side::After),
            Ordering::Equal => a.next().zip(b.next()).map(|(x, y)| Side::Both(x, y)),
        };
        side.into_iter().for_each(&mut f);
    }
}

/// `a == b` for two nodes already known to share an id: the id is not compared again, and
/// cheap fields go first. Ids are long on AT-SPI and string compares dominate a diff.
fn same_node(a: &SnapshotNode, b: &SnapshotNode) -> bool {
    let (x, y) = (a.element(), b.element());
    x.child_count == y.child_count
        && x.bounds == y.bounds
        && x.states == y.states
        && x.role == y.role
        && x.name == y.name
        && x.text == y.text
        && x.value == y.value
        && x.description == y.description
        && x.actions == y.actions
        && a.parent() == b.parent()
}

fn element_change(a: &SnapshotNode, b: &SnapshotNode) -> ElementChange {
    let (x, y) = (a.element(), b.element());
    let mut changes = Vec::new();
    if x.role != y.role {
        changes.push(FieldChange::Role { old: x.role.clone(), new: y.role.clone() });
    }
    if x.name != y.name {
        changes.push(FieldChange::Name { old: x.name.clone(), new: y.name.clone() });
    }
    if x.description != y.description {
        changes.push(FieldChange::Description { old: x.description.clone(), new: y.description.clone() });
    }
    if x.text != y.text {
        changes.push(FieldChange::Text { old: x.text.clone(), new: y.text.clone() });
    }
    if x.value != y.value {
        changes.push(FieldChange::Value { old: x.value.clone(), new: y.value.clone() });
    }
    if x.states != y.states {
        changes.extend(y.states.difference(&x.states).map(|s| FieldChange::StateAdded(*s)));
        changes.extend(x.states.difference(&y.states).map(|s| FieldChange::StateRemoved(*s)));
    }
    if x.bounds != y.bounds {
        changes.push(FieldChange::Bounds { old: x.bounds, new: y.bounds });
    }
    if x.actions != y.actions {
        changes.push(FieldChange::Actions { old: x.actions.clone(), new: y.actions.clone() });
    }
    if x.child_count != y.child_count {
        changes.push(FieldChange::ChildCount { old: x.child_count, new: y.child_count });
    }
    if a.parent() != b.parent() {
        changes.push(FieldChange::Parent { old: a.parent().cloned(), new: b.parent().cloned() });
    }
    // The id is the key and equal on both sides, so some field above differed.
    debug_assert!(!changes.is_empty());
    ElementChange { id: y.id.clone(), role: y.role.clone(), name: y.name.clone(), changes }
}

/// The added (or removed) elements that are not under another added (removed) element,
/// each with how many of the others are under it. Keeps the input order.
pub(crate) fn topmost(entries: &[PlacedElement]) -> Vec<(&PlacedElement, u32)> {
    let index: HashMap<&ElementId, usize> = entries.iter().enumerate().map(|(i, e)| (&e.element.id, i)).collect();
    let top_of = |i: usize| {
        let mut top = i;
        // Entries come from one acyclic snapshot; the bound only guards hand-made diffs.
        for _ in 0..entries.len() {
            match entries[top].parent.as_ref().and_then(|p| index.get(p)) {
                Some(&p) => top = p,
                None => break,
            }
        }
        top
    };
    let tops: Vec<usize> = (0..entries.len()).map(top_of).collect();
    let mut below = vec![0u32; entries.len()];
    for (i, &top) in tops.iter().enumerate() {
        if top != i {
            below[top] += 1;
        }
    }
    entries.iter().enumerate().filter(|(i, _)| tops[*i] == *i).map(|(i, e)| (e, below[i])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{el, id};
    use deft_types::State;

    #[test]
    fn field_changes_are_listed_in_order() {
        let mut after = el("b", "check_box", "Subscribe");
        after.states.insert(State::Checked);
        after.text = Some("x".into());
        let a = Snapshot::builder().root(el("b", "check_box", "Subscribe")).build().unwrap();
        let b = Snapshot::builder().root(after).build().unwrap();
        let d = diff(&a, &b);
        assert_eq!(d.changed.len(), 1);
        assert_eq!(
            d.changed[0].changes,
            [FieldChange::Text { old: None, new: Some("x".into()) }, FieldChange::StateAdded(State::Checked)]
        );
        assert!(d.changes_of(&id("b")).is_some());
        assert!(diff(&a, &a).is_empty());
    }

    #[test]
    fn topmost_collapses_subtrees() {
        let p = |i: &str, parent: Option<&str>| PlacedElement { element: el(i, "panel", ""), parent: parent.map(id) };
        let entries = [p("a", Some("root")), p("b", Some("a")), p("c", Some("b")), p("d", None)];
        let top: Vec<_> = topmost(&entries).into_iter().map(|(e, n)| (e.element.id.0.as_str(), n)).collect();
        assert_eq!(top, [("a", 2), ("d", 0)]);
    }
}
