//! The backend-independent tree a snapshot returns, and the pure queries on it.
//!
//! A [`Tree`] is a flat `Vec` of [`Node`]s in tree order (depth first, parents before
//! children), each holding a [`deft_types::Element`] plus its parent and children indices
//! and its context: the application's name, the title of its top-level window, and its
//! path of child indices from that window. The context is stored on every node, so a tree
//! of one window's subtree still knows its app and window, and selectors match without
//! walking up.

use deft_types::{Element, ElementId, Logical, Point, Role, State};
use serde::{Deserialize, Serialize};

/// One element in a [`Tree`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// The element.
    pub element: Element,
    /// Index of the parent node, `None` for a root of the tree.
    pub parent: Option<usize>,
    /// Indices of the children, in order.
    pub children: Vec<usize>,
    /// Depth below the tree's root (roots are 0).
    pub depth: u32,
    /// Name of the application the element belongs to.
    pub app: String,
    /// Title of the top-level window the element is in (the window itself included);
    /// `None` for the application node.
    pub window: Option<String>,
    /// Child indices from the window down to the element (empty for the window itself).
    pub path: Vec<u32>,
    /// Relations to other elements (`labelled_by`, `label_for`, ...), when read.
    pub relations: Vec<Relation>,
}

/// A relation from one element to others.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relation {
    /// The relation in snake case, e.g. `labelled_by`.
    pub kind: String,
    /// The elements it points at.
    pub targets: Vec<ElementId>,
}

/// A snapshot of (part of) the accessibility tree.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// Every node, parents before children, siblings in order.
    pub nodes: Vec<Node>,
    /// What could not be read (an app that hung, a subtree cut at the node limit). A
    /// partial read is a value with diagnostics, not an error.
    pub problems: Vec<String>,
}

impl Tree {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree has no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node at `index`.
    pub fn node(&self, index: usize) -> &Node {
        &self.nodes[index]
    }

    /// Indices of the roots.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.nodes.iter().enumerate().filter(|(_, n)| n.parent.is_none()).map(|(i, _)| i)
    }

    /// The node with this id.
    pub fn find_id(&self, id: &ElementId) -> Option<usize> {
        self.nodes.iter().position(|n| &n.element.id == id)
    }

    /// Whether `node` is `ancestor` or lies below it.
    pub fn is_within(&self, node: usize, ancestor: usize) -> bool {
        let mut at = Some(node);
        while let Some(i) = at {
            if i == ancestor {
                return true;
            }
            at = self.nodes[i].parent;
        }
        false
    }

    /// The deepest showing element whose bounds contain `point`, looking in active
    /// windows first, then modal ones, then the others in tree order. A pure stand-in for
    /// a backend's hit test, for fakes and for checks against a snapshot.
    pub fn hit_test(&self, point: Point<Logical>) -> Option<usize> {
        let contains = |i: usize| {
            let e = &self.nodes[i].element;
            e.has(State::Showing) && e.bounds.is_some_and(|b| b.contains(point))
        };
        let mut windows: Vec<usize> = (0..self.len())
            .filter(|&i| self.nodes[i].window.is_some() && self.nodes[i].path.is_empty())
            .filter(|&i| contains(i))
            .collect();
        windows.sort_by_key(|&i| {
            let e = &self.nodes[i].element;
            (!e.has(State::Active), !e.has(State::Modal))
        });
        let mut best = *windows.first()?;
        // Descend: the last child containing the point is the one drawn on top.
        while let Some(&next) = self.nodes[best].children.iter().rev().find(|&&c| contains(c)) {
            best = next;
        }
        Some(best)
    }

    /// Append other trees' nodes, keeping each tree's internal structure.
    pub fn merge(trees: impl IntoIterator<Item = Tree>) -> Tree {
        let mut out = Tree::default();
        for tree in trees {
            let offset = out.nodes.len();
            out.nodes.extend(tree.nodes.into_iter().map(|mut n| {
                n.parent = n.parent.map(|p| p + offset);
                n.children.iter_mut().for_each(|c| *c += offset);
                n
            }));
            out.problems.extend(tree.problems);
        }
        out
    }
}

/// Builds a [`Tree`] from elements added under their parents, computing order, depth,
/// app, window and path. Used by backends and by tests.
#[derive(Debug, Default)]
pub struct TreeBuilder {
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    element: Element,
    parent: Option<usize>,
    children: Vec<usize>,
    relations: Vec<Relation>,
    root: Option<RootContext>,
    /// Its index in its parent when that is not its place among the children added (a
    /// container too big to read whole gives only the children on screen).
    index: Option<u32>,
}

/// An entry waiting to be placed by [`TreeBuilder::build`], with its context.
struct Pending {
    entry: usize,
    parent: Option<usize>,
    depth: u32,
    app: String,
    window: Option<String>,
    path: Vec<u32>,
}

/// Where a root that is not an application sits: its app, window and path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootContext {
    /// The application's name.
    pub app: String,
    /// The title of the window the root is in (`None` when it is an application).
    pub window: Option<String>,
    /// The root's path from its window.
    pub path: Vec<u32>,
}

/// A handle on a node being built: the index to pass as a parent.
pub type BuildId = usize;

impl TreeBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        TreeBuilder::default()
    }

    /// Add an application root: its children are its top-level windows.
    pub fn app(&mut self, element: Element) -> BuildId {
        let ctx = RootContext { app: element.name.clone(), window: None, path: Vec::new() };
        self.root(element, ctx)
    }

    /// Add a root that sits at `ctx` in its application (a window, or deeper).
    pub fn root(&mut self, element: Element, ctx: RootContext) -> BuildId {
        self.entries.push(Entry {
            element,
            parent: None,
            children: Vec::new(),
            relations: Vec::new(),
            root: Some(ctx),
            index: None,
        });
        self.entries.len() - 1
    }

    /// Add `element` as the last child of `parent`.
    pub fn child(&mut self, parent: BuildId, element: Element) -> BuildId {
        self.child_at_index(parent, element, None)
    }

    /// Add `element` as the last child of `parent`, whose child number `index` it is in
    /// the application (`None`: its place among the children added). Its path ends with
    /// that index, so a path names the same element however many of its siblings were read.
    pub fn child_at_index(&mut self, parent: BuildId, element: Element, index: Option<u32>) -> BuildId {
        let id = self.entries.len();
        self.entries.push(Entry {
            element,
            parent: Some(parent),
            children: Vec::new(),
            relations: Vec::new(),
            root: None,
            index,
        });
        self.entries[parent].children.push(id);
        id
    }

    /// Set a node's relations.
    pub fn relations(&mut self, node: BuildId, relations: Vec<Relation>) {
        self.entries[node].relations = relations;
    }

    /// The finished tree, in depth-first order. `child_count` is set from the children
    /// actually added.
    pub fn build(self) -> Tree {
        let mut entries: Vec<Option<Entry>> = self.entries.into_iter().map(Some).collect();
        let mut nodes: Vec<Node> = Vec::with_capacity(entries.len());
        let roots: Vec<usize> =
            (0..entries.len()).filter(|&i| entries[i].as_ref().is_some_and(|e| e.parent.is_none())).collect();
        let mut stack: Vec<Pending> = Vec::new();
        for &r in roots.iter().rev() {
            let ctx = entries[r].as_ref().and_then(|e| e.root.clone()).unwrap_or(RootContext {
                app: String::new(),
                window: None,
                path: Vec::new(),
            });
            stack.push(Pending { entry: r, parent: None, depth: 0, app: ctx.app, window: ctx.window, path: ctx.path });
        }
        while let Some(Pending { entry: i, parent, depth, app, window, path }) = stack.pop() {
            let Some(entry) = entries[i].take() else { continue };
            let index = nodes.len();
            if let Some(p) = parent {
                nodes[p].children.push(index);
            }
            let is_app_node = entry.root.is_some() && window.is_none();
            for (k, &c) in entry.children.iter().enumerate().rev() {
                let (child_window, child_path) = if is_app_node {
                    let title = entries[c].as_ref().map(|e| e.element.name.clone()).unwrap_or_default();
                    (Some(title), Vec::new())
                } else {
                    let mut p = path.clone();
                    p.push(entries[c].as_ref().and_then(|e| e.index).unwrap_or(k as u32));
                    (window.clone(), p)
                };
                stack.push(Pending {
                    entry: c,
                    parent: Some(index),
                    depth: depth + 1,
                    app: app.clone(),
                    window: child_window,
                    path: child_path,
                });
            }
            let mut element = entry.element;
            element.child_count = entry.children.len() as u32;
            nodes.push(Node {
                element,
                parent,
                children: Vec::new(),
                depth,
                app,
                window,
                path,
                relations: entry.relations,
            });
        }
        Tree { nodes, problems: Vec::new() }
    }
}

/// A bare element for building trees in tests and fakes: showing, enabled, no bounds.
pub fn element(id: &str, role: &str, name: &str) -> Element {
    Element {
        id: ElementId(id.to_string()),
        role: Role::new(role),
        name: name.to_string(),
        description: String::new(),
        states: [State::Showing, State::Visible, State::Enabled].into_iter().collect(),
        bounds: None,
        text: None,
        value: None,
        actions: Vec::new(),
        child_count: 0,
    }
}

#[cfg(test)]
mod tests {
    use deft_types::Rect;

    use super::*;

    fn sample() -> Tree {
        let mut b = TreeBuilder::new();
        let app = b.app(element("a", "application", "demo"));
        let win = b.child(app, element("w", "frame", "Main"));
        let panel = b.child(win, element("p", "panel", ""));
        b.child(panel, element("b1", "push_button", "OK"));
        b.child(panel, element("b2", "push_button", "Cancel"));
        b.child(win, element("l", "label", "Hi"));
        b.build()
    }

    #[test]
    fn builder_orders_and_sets_context() {
        let t = sample();
        let names: Vec<&str> = t.nodes.iter().map(|n| n.element.id.0.as_str()).collect();
        assert_eq!(names, ["a", "w", "p", "b1", "b2", "l"]);
        let b2 = &t.nodes[4];
        assert_eq!((b2.app.as_str(), b2.window.as_deref(), &b2.path[..]), ("demo", Some("Main"), &[0, 1][..]));
        assert_eq!(t.nodes[1].path, Vec::<u32>::new());
        assert_eq!(t.nodes[0].window, None);
        assert_eq!(t.nodes[2].element.child_count, 2);
        assert_eq!(t.nodes[2].children, [3, 4]);
        assert_eq!(t.nodes[4].depth, 3);
        assert!(t.is_within(4, 1) && !t.is_within(1, 4));
    }

    #[test]
    fn hit_test_finds_deepest_showing() {
        let mut t = sample();
        let set = |t: &mut Tree, i: usize, r: Rect<Logical>| t.nodes[i].element.bounds = Some(r);
        set(&mut t, 1, Rect::new(0, 0, 100, 100));
        set(&mut t, 2, Rect::new(0, 0, 50, 50));
        set(&mut t, 3, Rect::new(0, 0, 20, 20));
        set(&mut t, 4, Rect::new(25, 0, 20, 20));
        assert_eq!(t.hit_test(Point::new(30, 5)), Some(4));
        assert_eq!(t.hit_test(Point::new(40, 40)), Some(2));
        assert_eq!(t.hit_test(Point::new(500, 5)), None);
        t.nodes[4].element.states.remove(&State::Showing);
        assert_eq!(t.hit_test(Point::new(30, 5)), Some(2));
    }

    #[test]
    fn merge_offsets_indices() {
        let t = Tree::merge([sample(), sample()]);
        assert_eq!(t.len(), 12);
        assert_eq!(t.nodes[8].parent, Some(7));
        assert_eq!(t.nodes[8].children, [9, 10]);
        assert_eq!(t.roots().collect::<Vec<_>>(), [0, 6]);
    }
}
