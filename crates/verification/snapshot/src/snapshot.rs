//! A snapshot of UI state: a scoped accessibility tree keyed by id, windows, region digests.

use std::collections::BTreeMap;

use deft_types::{Element, ElementId, Logical, Physical, Rect, Role};
use serde::{Deserialize, Serialize};

/// A top-level window or dialog, as the window list reports it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct WindowState {
    /// Identity, stable across reads (the window's accessible id where it has one).
    pub id: ElementId,
    /// Title.
    pub title: String,
    /// Role, e.g. `frame`, `dialog`, `alert`.
    pub role: Role,
    /// Blocks the rest of its application.
    pub modal: bool,
    /// Is the active (focused) window.
    pub active: bool,
    /// Bounds on screen, when known.
    pub bounds: Option<Rect<Logical>>,
}

impl WindowState {
    /// A plain, inactive, non-modal window with unknown bounds.
    pub fn new(id: impl Into<String>, title: impl Into<String>, role: &str) -> WindowState {
        WindowState {
            id: ElementId(id.into()),
            title: title.into(),
            role: Role::new(role),
            modal: false,
            active: false,
            bounds: None,
        }
    }

    /// A dialog-like window: a dialog-like role, or modal whatever its role.
    pub fn is_dialog(&self) -> bool {
        self.modal || self.role.is_dialog_like()
    }
}

/// A digest of the pixels of one screen region (computed elsewhere; this crate only compares).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RegionDigest {
    /// The region, in physical pixels. A snapshot holds each region at most once.
    pub rect: Rect<Physical>,
    /// A hash of its pixels, caret and other masked noise excluded by whoever computed it.
    pub digest: u64,
}

/// Sort key of a region: rectangles have no natural order, so regions sort by their edges.
pub(crate) fn region_key(r: &Rect<Physical>) -> (i32, i32, u32, u32) {
    (r.x, r.y, r.w, r.h)
}

/// One element of a snapshot with its place in the tree.
#[derive(Clone, Debug)]
pub struct SnapshotNode {
    element: Element,
    parent: Option<ElementId>,
    children: Vec<ElementId>,
}

impl SnapshotNode {
    /// The element.
    pub fn element(&self) -> &Element {
        &self.element
    }

    /// The element's id.
    pub fn id(&self) -> &ElementId {
        &self.element.id
    }

    /// The parent's id; `None` for a root of the snapshot.
    pub fn parent(&self) -> Option<&ElementId> {
        self.parent.as_ref()
    }

    /// The children's ids, in the order they were read.
    pub fn children(&self) -> &[ElementId] {
        &self.children
    }
}

/// Why a set of elements, windows and regions does not make a snapshot.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Two elements share an id.
    #[error("element {0} appears twice in the snapshot")]
    DuplicateId(ElementId),
    /// An element names a parent that is not in the snapshot.
    #[error("element {child} names parent {parent}, which is not in the snapshot")]
    DanglingParent {
        /// The element.
        child: ElementId,
        /// The parent it names.
        parent: ElementId,
    },
    /// Parent links form a cycle, so some elements are under no root.
    #[error("element {0} is its own ancestor: the parent links form a cycle")]
    Cycle(ElementId),
    /// Two windows share an id.
    #[error("window {0} appears twice in the snapshot")]
    DuplicateWindow(ElementId),
    /// The same region is digested twice.
    #[error("region {0} appears twice in the snapshot")]
    DuplicateRegion(Rect<Physical>),
    /// An encoded node names a parent that does not precede it (a corrupt encoding).
    #[error("encoded node {index} names parent {parent}, which does not precede it")]
    BadParentIndex {
        /// Position of the node in the encoding.
        index: usize,
        /// The parent position it names.
        parent: u32,
    },
}

/// UI state at one instant: a scoped accessibility subtree, the windows, and pixel digests.
///
/// Elements are keyed by id; the tree is given by parent links. Children keep the order
/// they were read in (for rendering and traversal), but that order is **not** part of the
/// state: `==` compares each id's element and parent, the windows and the regions, and
/// two snapshots whose siblings are merely reordered are equal. Windows are kept sorted by
/// id and regions by their edges, so equality and serialization are canonical.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    nodes: BTreeMap<ElementId, SnapshotNode>,
    roots: Vec<ElementId>,
    windows: Vec<WindowState>,
    regions: Vec<RegionDigest>,
}

impl PartialEq for Snapshot {
    fn eq(&self, other: &Snapshot) -> bool {
        self.nodes.len() == other.nodes.len()
            && self.windows == other.windows
            && self.regions == other.regions
            && self
                .nodes
                .values()
                .zip(other.nodes.values())
                .all(|(a, b)| a.parent == b.parent && a.element == b.element)
    }
}

impl Eq for Snapshot {}

impl Snapshot {
    /// A builder, for snapshots written by hand (tests, fixtures).
    pub fn builder() -> SnapshotBuilder {
        SnapshotBuilder::default()
    }

    /// A snapshot from elements with their parents, windows and region digests.
    ///
    /// Elements may come in any order; siblings keep the order they come in. Fails on
    /// duplicate ids, windows or regions, on a parent that is not among the elements, and
    /// on parent links that form a cycle.
    pub fn from_parts(
        elements: impl IntoIterator<Item = (Element, Option<ElementId>)>,
        mut windows: Vec<WindowState>,
        mut regions: Vec<RegionDigest>,
    ) -> Result<Snapshot, SnapshotError> {
        windows.sort_by(|a, b| a.id.cmp(&b.id));
        if let Some(w) = windows.windows(2).find(|w| w[0].id == w[1].id) {
            return Err(SnapshotError::DuplicateWindow(w[0].id.clone()));
        }
        regions.sort_by_key(|r| region_key(&r.rect));
        if let Some(w) = regions.windows(2).find(|w| w[0].rect == w[1].rect) {
            return Err(SnapshotError::DuplicateRegion(w[0].rect));
        }

        let mut nodes = BTreeMap::new();
        let mut links = Vec::new();
        for (element, parent) in elements {
            let id = element.id.clone();
            links.push((id.clone(), parent.clone()));
            let node = SnapshotNode { element, parent, children: Vec::new() };
            if nodes.insert(id.clone(), node).is_some() {
                return Err(SnapshotError::DuplicateId(id));
            }
        }
        let mut roots = Vec::new();
        for (id, parent) in links {
            match parent {
                None => roots.push(id),
                Some(parent) => match nodes.get_mut(&parent) {
                    Some(p) => p.children.push(id),
                    None => return Err(SnapshotError::DanglingParent { child: id, parent }),
                },
            }
        }
        let snapshot = Snapshot { nodes, roots, windows, regions };
        snapshot.check_acyclic()?;
        Ok(snapshot)
    }

    /// Every element must be reachable from a root; those that are not sit on a cycle.
    fn check_acyclic(&self) -> Result<(), SnapshotError> {
        if self.preorder().count() == self.nodes.len() {
            return Ok(());
        }
        let reached: std::collections::HashSet<&ElementId> = self.preorder().map(SnapshotNode::id).collect();
        let first = self.nodes.keys().find(|id| !reached.contains(id));
        Err(SnapshotError::Cycle(first.cloned().unwrap_or_else(|| ElementId(String::new()))))
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the snapshot holds no element (it may still hold windows and regions).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The element with this id.
    pub fn get(&self, id: &ElementId) -> Option<&Element> {
        self.nodes.get(id).map(|n| &n.element)
    }

    /// The element with this id, with its place in the tree.
    pub fn node(&self, id: &ElementId) -> Option<&SnapshotNode> {
        self.nodes.get(id)
    }

    /// Whether an element with this id is in the snapshot.
    pub fn contains(&self, id: &ElementId) -> bool {
        self.nodes.contains_key(id)
    }

    /// The elements without a parent, in the order they were read.
    pub fn roots(&self) -> &[ElementId] {
        &self.roots
    }

    /// The windows, sorted by id.
    pub fn windows(&self) -> &[WindowState] {
        &self.windows
    }

    /// The window with this id.
    pub fn window(&self, id: &ElementId) -> Option<&WindowState> {
        self.windows.binary_search_by(|w| w.id.cmp(id)).ok().map(|i| &self.windows[i])
    }

    /// The region digests, sorted by their edges.
    pub fn regions(&self) -> &[RegionDigest] {
        &self.regions
    }

    /// Every node, sorted by id.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = &SnapshotNode> {
        self.nodes.values()
    }

    /// Every node in tree order: each root, then its subtree depth first, children in order.
    pub fn preorder(&self) -> Preorder<'_> {
        Preorder { snapshot: self, stack: self.roots.iter().rev().collect() }
    }

    /// The subtree under `id` (itself first) in tree order; empty when `id` is absent.
    pub fn subtree(&self, id: &ElementId) -> Preorder<'_> {
        let stack = self.nodes.get_key_value(id).map(|(k, _)| k).into_iter().collect();
        Preorder { snapshot: self, stack }
    }

    /// The ancestors of `id`, nearest first (itself excluded).
    pub fn ancestors(&self, id: &ElementId) -> impl Iterator<Item = &SnapshotNode> {
        let mut next = self.nodes.get(id).and_then(|n| n.parent.as_ref());
        std::iter::from_fn(move || {
            let node = self.nodes.get(next?)?;
            next = node.parent.as_ref();
            Some(node)
        })
    }

    pub(crate) fn node_map(&self) -> &BTreeMap<ElementId, SnapshotNode> {
        &self.nodes
    }
}

/// Tree-order iterator over a snapshot's nodes; see [`Snapshot::preorder`].
pub struct Preorder<'a> {
    snapshot: &'a Snapshot,
    stack: Vec<&'a ElementId>,
}

impl<'a> Iterator for Preorder<'a> {
    type Item = &'a SnapshotNode;

    fn next(&mut self) -> Option<&'a SnapshotNode> {
        let node = self.snapshot.nodes.get(self.stack.pop()?)?;
        self.stack.extend(node.children.iter().rev());
        Some(node)
    }
}

/// Builds a [`Snapshot`] one element at a time: `Snapshot::builder().root(a).child(&a_id, b)`.
#[derive(Clone, Debug, Default)]
pub struct SnapshotBuilder {
    elements: Vec<(Element, Option<ElementId>)>,
    windows: Vec<WindowState>,
    regions: Vec<RegionDigest>,
}

impl SnapshotBuilder {
    /// Adds an element with its parent (`None` for a root).
    pub fn element(mut self, element: Element, parent: Option<ElementId>) -> Self {
        self.elements.push((element, parent));
        self
    }

    /// Adds a root element.
    pub fn root(self, element: Element) -> Self {
        self.element(element, None)
    }

    /// Adds an element under `parent`.
    pub fn child(self, parent: &ElementId, element: Element) -> Self {
        self.element(element, Some(parent.clone()))
    }

    /// Adds a window.
    pub fn window(mut self, window: WindowState) -> Self {
        self.windows.push(window);
        self
    }

    /// Adds a region digest.
    pub fn region(mut self, rect: Rect<Physical>, digest: u64) -> Self {
        self.regions.push(RegionDigest { rect, digest });
        self
    }

    /// The snapshot; see [`Snapshot::from_parts`] for what fails.
    pub fn build(self) -> Result<Snapshot, SnapshotError> {
        Snapshot::from_parts(self.elements, self.windows, self.regions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::el;

    fn id(s: &str) -> ElementId {
        ElementId(s.into())
    }

    #[test]
    fn builds_tree_in_any_order() {
        let s = Snapshot::builder()
            .child(&id("w"), el("b", "push_button", "OK"))
            .root(el("w", "frame", "Main"))
            .child(&id("w"), el("a", "label", "Hi"))
            .build()
            .unwrap();
        assert_eq!(s.roots(), &[id("w")]);
        assert_eq!(s.node(&id("w")).unwrap().children(), &[id("b"), id("a")]);
        let order: Vec<_> = s.preorder().map(|n| n.id().0.as_str()).collect();
        assert_eq!(order, ["w", "b", "a"]);
        assert_eq!(s.ancestors(&id("a")).map(|n| n.id().0.as_str()).collect::<Vec<_>>(), ["w"]);
    }

    #[test]
    fn invalid_inputs_are_named() {
        let dup = Snapshot::builder().root(el("a", "frame", "")).root(el("a", "frame", ""));
        assert_eq!(dup.build().unwrap_err(), SnapshotError::DuplicateId(id("a")));

        let dangling = Snapshot::builder().child(&id("nope"), el("a", "label", ""));
        assert_eq!(
            dangling.build().unwrap_err().to_string(),
            "element a names parent nope, which is not in the snapshot"
        );

        let cycle = Snapshot::builder()
            .root(el("r", "frame", ""))
            .child(&id("b"), el("a", "label", ""))
            .child(&id("a"), el("b", "label", ""));
        assert_eq!(cycle.build().unwrap_err(), SnapshotError::Cycle(id("a")));

        let windows =
            Snapshot::builder().window(WindowState::new("w", "A", "frame")).window(WindowState::new("w", "B", "frame"));
        assert_eq!(windows.build().unwrap_err(), SnapshotError::DuplicateWindow(id("w")));

        let regions = Snapshot::builder().region(Rect::new(0, 0, 1, 1), 1).region(Rect::new(0, 0, 1, 1), 2);
        assert!(matches!(regions.build(), Err(SnapshotError::DuplicateRegion(_))));
    }

    #[test]
    fn sibling_order_is_not_state() {
        let a = Snapshot::builder()
            .root(el("w", "frame", ""))
            .child(&id("w"), el("x", "label", "X"))
            .child(&id("w"), el("y", "label", "Y"))
            .build()
            .unwrap();
        let b = Snapshot::builder()
            .root(el("w", "frame", ""))
            .child(&id("w"), el("y", "label", "Y"))
            .child(&id("w"), el("x", "label", "X"))
            .build()
            .unwrap();
        assert_eq!(a, b);
        let c = Snapshot::builder()
            .root(el("w", "frame", ""))
            .child(&id("w"), el("x", "label", "X"))
            .root(el("y", "label", "Y"))
            .build()
            .unwrap();
        assert_ne!(a, c, "a different parent is a different state");
    }
}
