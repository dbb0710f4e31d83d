//! Properties of `diff` and `apply` on random trees.

use deft_snapshot::{FieldChange, Snapshot, apply, diff};
use deft_types::{Element, ElementId};
use proptest::prelude::*;

use crate::strategies::{differing, pair, snapshot};

/// Trees up to this size; the case count is kept modest so the suite runs in seconds.
const BIG: usize = 3000;

/// Checks that one field change really holds between the two versions of an element.
fn holds(change: &FieldChange, a: &Element, pa: Option<&ElementId>, b: &Element, pb: Option<&ElementId>) -> bool {
    match change {
        FieldChange::Role { old, new } => old != new && *old == a.role && *new == b.role,
        FieldChange::Name { old, new } => old != new && *old == a.name && *new == b.name,
        FieldChange::Description { old, new } => old != new && *old == a.description && *new == b.description,
        FieldChange::Text { old, new } => old != new && *old == a.text && *new == b.text,
        FieldChange::Value { old, new } => old != new && *old == a.value && *new == b.value,
        FieldChange::StateAdded(s) => !a.has(*s) && b.has(*s),
        FieldChange::StateRemoved(s) => a.has(*s) && !b.has(*s),
        FieldChange::Bounds { old, new } => old != new && *old == a.bounds && *new == b.bounds,
        FieldChange::Actions { old, new } => old != new && *old == a.actions && *new == b.actions,
        FieldChange::ChildCount { old, new } => old != new && *old == a.child_count && *new == b.child_count,
        FieldChange::Parent { old, new } => old != new && old.as_ref() == pa && new.as_ref() == pb,
    }
}

fn check_pair(a: &Snapshot, b: &Snapshot, expected_size: usize) -> Result<(), TestCaseError> {
    let d = diff(a, b);
    prop_assert_eq!(d.element_count(), expected_size, "diff size is the number of differing elements");
    prop_assert_eq!(apply(a, &d), Ok(b.clone()), "apply(a, diff(a, b)) == b");
    prop_assert_eq!(d.is_empty(), a == b);
    for c in &d.changed {
        let (na, nb) = (a.node(&c.id).expect("in a"), b.node(&c.id).expect("in b"));
        prop_assert!(na.element() != nb.element() || na.parent() != nb.parent(), "{} does not differ", c.id);
        prop_assert!(!c.changes.is_empty());
        for f in &c.changes {
            prop_assert!(holds(f, na.element(), na.parent(), nb.element(), nb.parent()), "{:?} on {}", f, c.id);
        }
    }
    for r in &d.removed {
        prop_assert!(a.contains(&r.element.id) && !b.contains(&r.element.id));
    }
    for x in &d.added {
        prop_assert!(!a.contains(&x.element.id) && b.contains(&x.element.id));
    }
    let sorted = |ids: Vec<&ElementId>| ids.windows(2).all(|w| w[0] < w[1]);
    prop_assert!(sorted(d.added.iter().map(|x| &x.element.id).collect()));
    prop_assert!(sorted(d.removed.iter().map(|x| &x.element.id).collect()));
    prop_assert!(sorted(d.changed.iter().map(|x| &x.id).collect()));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn diff_with_itself_is_empty(m in snapshot(BIG)) {
        let s = m.snapshot();
        prop_assert!(diff(&s, &s).is_empty());
        prop_assert!(diff(&s, &s.clone()).is_empty());
        prop_assert_eq!(diff(&s, &s).to_string(), "no change");
    }

    #[test]
    fn sibling_reorder_is_no_change(m in snapshot(BIG)) {
        let (a, b) = (m.snapshot(), m.reorder_siblings().snapshot());
        prop_assert!(diff(&a, &b).is_empty());
        prop_assert_eq!(&a, &b);
    }

    #[test]
    fn big_trees_diff_apply_and_size((ma, mb) in pair(BIG, 40)) {
        let (a, b) = (ma.snapshot(), mb.snapshot());
        check_pair(&a, &b, differing(&ma, &mb))?;
        check_pair(&b, &a, differing(&mb, &ma))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn small_trees_diff_apply_and_size((ma, mb) in pair(30, 12)) {
        let (a, b) = (ma.snapshot(), mb.snapshot());
        check_pair(&a, &b, differing(&ma, &mb))?;
        check_pair(&b, &a, differing(&mb, &ma))?;
    }

    #[test]
    fn diff_of_unrelated_trees_applies((ma, _) in pair(30, 0), (mb, _) in pair(30, 0)) {
        let (a, b) = (ma.snapshot(), mb.snapshot());
        prop_assert_eq!(apply(&a, &diff(&a, &b)), Ok(b));
    }

    #[test]
    fn a_diff_applies_only_to_its_base((ma, mb) in pair(30, 6)) {
        let (a, b) = (ma.snapshot(), mb.snapshot());
        let d = diff(&a, &b);
        // Applying to the result again must not silently make a third state.
        if !d.is_empty() {
            prop_assert!(apply(&b, &d).is_err());
        }
    }
}
