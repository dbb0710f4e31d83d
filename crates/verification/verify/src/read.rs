//! Reading UI state: an accessibility tree, and the snapshot the state diff works on.

use std::collections::HashSet;

use deft_a11y::Tree;
use deft_snapshot::{Snapshot, WindowState};
use deft_types::{Element, ElementId, Role, State};

/// One read of the UI: the tree as the backend gave it and its snapshot.
#[derive(Clone, Debug)]
pub(crate) struct Reading {
    pub tree: Tree,
    pub snap: Snapshot,
}

impl Reading {
    pub fn new(tree: Tree) -> Reading {
        let snap = to_snapshot(&tree);
        Reading { tree, snap }
    }

    /// The element with this id, as read.
    pub fn element(&self, id: &ElementId) -> Option<&Element> {
        self.snap.get(id)
    }
}

/// Roles whose windows and elements come and go with the pointer, never as an effect.
fn is_transient_role(role: &Role) -> bool {
    matches!(role.as_str(), "tool_tip" | "tooltip")
}

/// The snapshot of a tree: every element keyed by id with its parent, and the top-level
/// windows. Tooltips are left out: one appears when the pointer rests on a widget, whether
/// or not a click did anything, and must never pass for an effect.
pub(crate) fn to_snapshot(tree: &Tree) -> Snapshot {
    let mut skip = vec![false; tree.len()];
    let mut seen = HashSet::new();
    let mut elements = Vec::with_capacity(tree.len());
    let mut windows = Vec::new();
    for (i, node) in tree.nodes.iter().enumerate() {
        // Parents come before children, so a skipped parent is known here.
        let parent_skipped = node.parent.is_some_and(|p| skip[p]);
        if parent_skipped || is_transient_role(&node.element.role) || !seen.insert(node.element.id.clone()) {
            skip[i] = true;
            continue;
        }
        let parent = node.parent.map(|p| tree.nodes[p].element.id.clone());
        if node.window.is_some() && node.path.is_empty() {
            let e = &node.element;
            windows.push(WindowState {
                id: e.id.clone(),
                title: e.name.clone(),
                role: e.role.clone(),
                modal: e.has(State::Modal),
                active: e.has(State::Active),
                bounds: e.bounds,
            });
        }
        elements.push((node.element.clone(), parent));
    }
    // The tree is well formed by construction (parents first, ids unique here), so this
    // cannot fail; an empty snapshot is the cautious answer if it ever did.
    Snapshot::from_parts(elements, windows, Vec::new()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use deft_a11y::{TreeBuilder, element};

    use super::*;

    #[test]
    fn windows_are_listed_and_tooltips_left_out() {
        let mut b = TreeBuilder::new();
        let app = b.app(element("a", "application", "demo"));
        let w = b.child(app, element("w", "frame", "Main"));
        b.child(w, element("b", "push_button", "OK"));
        let tip = b.child(app, element("t", "tool_tip", "Press me"));
        b.child(tip, element("tl", "label", "Press me"));
        let snap = to_snapshot(&b.build());
        assert_eq!(snap.len(), 3);
        assert_eq!(snap.windows().iter().map(|w| w.title.as_str()).collect::<Vec<_>>(), ["Main"]);
        assert!(!snap.contains(&ElementId("tl".into())));
    }
}
