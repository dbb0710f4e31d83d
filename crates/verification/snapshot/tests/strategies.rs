//! Proptest strategies: random element trees, and random edits that turn one into another.

use std::collections::{BTreeMap, HashMap, HashSet};

use deft_snapshot::{RegionDigest, Snapshot, WindowState};
use deft_types::{Element, ElementId, Logical, Physical, Rect, Role, State, States};
use proptest::prelude::*;
use proptest::sample::{Index, select};

const ROLES: &[&str] =
    &["frame", "panel", "push_button", "check_box", "text", "label", "list_item", "dialog", "progress_bar"];
const NAMES: &[&str] = &[
    "",
    "OK",
    "Cancel",
    "Name",
    "Submit",
    "10:41",
    "Subscribe",
    "Saved",
    "a much longer name than forty characters, to be cut",
];
const TEXTS: &[&str] = &["", "John", "hello world", "10:42", "Loading…"];
const STATES: [State; 15] = [
    State::Enabled,
    State::Showing,
    State::Visible,
    State::Focused,
    State::Focusable,
    State::Selected,
    State::Checked,
    State::Pressed,
    State::Expanded,
    State::Expandable,
    State::Busy,
    State::Editable,
    State::SingleLine,
    State::Modal,
    State::Active,
];

/// The content of an element, without its id.
#[derive(Clone, Debug)]
pub struct Fields {
    role: &'static str,
    name: &'static str,
    description: &'static str,
    states: u16,
    bounds: Option<(i32, i32, u32, u32)>,
    text: Option<&'static str>,
    value: Option<&'static str>,
    actions: u8,
    child_count: u32,
}

fn fields() -> impl Strategy<Value = Fields> {
    (
        (select(ROLES), select(NAMES), select(TEXTS), any::<u16>()),
        (
            proptest::option::of((-20i32..2000, -20i32..2000, 0u32..400, 0u32..60)),
            proptest::option::of(select(TEXTS)),
            proptest::option::of(select(TEXTS)),
            0u8..4,
            0u32..5,
        ),
    )
        .prop_map(|((role, name, description, states), (bounds, text, value, actions, child_count))| Fields {
            role,
            name,
            description,
            states,
            bounds,
            text,
            value,
            actions,
            child_count,
        })
}

fn states(mask: u16) -> States {
    STATES.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, s)| *s).collect()
}

fn element(id: String, f: &Fields) -> Element {
    let actions = [&["click"][..], &["press"], &["click", "press"], &[]][usize::from(f.actions % 4)];
    Element {
        id: ElementId(id),
        role: Role::new(f.role),
        name: f.name.into(),
        description: f.description.into(),
        states: states(f.states),
        bounds: f.bounds.map(|(x, y, w, h)| Rect::<Logical>::new(x, y, w, h)),
        text: f.text.map(String::from),
        value: f.value.map(String::from),
        actions: actions.iter().map(|a| a.to_string()).collect(),
        child_count: f.child_count,
    }
}

/// Elements with parents, in the order siblings will have; parents may come after children.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub elements: Vec<(Element, Option<ElementId>)>,
    pub windows: Vec<WindowState>,
    pub regions: Vec<RegionDigest>,
    next_id: usize,
}

impl Model {
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::from_parts(self.elements.clone(), self.windows.clone(), self.regions.clone())
            .expect("the model keeps a valid tree")
    }

    fn fresh_id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    /// Ids of `root` and everything under it.
    fn subtree(&self, root: &ElementId) -> HashSet<ElementId> {
        let mut children: HashMap<&ElementId, Vec<&ElementId>> = HashMap::new();
        for (e, p) in &self.elements {
            if let Some(p) = p {
                children.entry(p).or_default().push(&e.id);
            }
        }
        let mut out = HashSet::new();
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            if out.insert(id.clone()) {
                stack.extend(children.get(id).into_iter().flatten());
            }
        }
        out
    }
}

/// How a node's parent is picked: mostly a random earlier node, sometimes the previous one
/// (deep chains), sometimes none (several roots).
fn tree(max: usize) -> impl Strategy<Value = Model> {
    let node = (0u8..20, any::<Index>(), fields());
    let windows = proptest::collection::vec((select(NAMES), select(ROLES), any::<bool>(), any::<bool>()), 0..4);
    let regions = proptest::collection::vec((0i32..4, 0u32..3, 0u64..3), 0..4);
    (proptest::collection::vec(node, 1..=max), windows, regions).prop_map(|(nodes, windows, regions)| {
        let mut m = Model::default();
        for (i, (mode, pick, f)) in nodes.iter().enumerate() {
            let parent = match (i, mode) {
                (0, _) | (_, 0) => None,
                (_, 1..=3) => Some(i - 1),
                _ => Some(pick.index(i)),
            };
            let parent = parent.map(|p| m.elements[p].0.id.clone());
            m.elements.push((element(format!("e{i}"), f), parent));
        }
        for (i, (title, role, modal, active)) in windows.into_iter().enumerate() {
            let mut w = WindowState::new(format!("w{i}"), title, role);
            (w.modal, w.active) = (modal, active);
            m.windows.push(w);
        }
        let mut seen = HashSet::new();
        for (x, w, digest) in regions {
            if seen.insert((x, w)) {
                m.regions.push(RegionDigest { rect: Rect::<Physical>::new(x * 100, 0, 1 + w * 40, 20), digest });
            }
        }
        m
    })
}

/// One random edit.
#[derive(Clone, Debug)]
pub enum Edit {
    /// Change one field of a node to that field of `Fields`.
    Change(Index, u8, Fields),
    /// Remove a node and its subtree.
    Remove(Index),
    /// Add a node under another (or as a root when the tree is empty).
    Add(Index, Fields),
    /// Move a node under another, unless that makes a cycle.
    Move(Index, Index),
    /// Rotate the element list: reorders siblings, changes no state.
    Rotate(Index),
    /// Open, close or retitle a window.
    Window(Index, &'static str),
    /// Change a region's digest.
    Region(Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<Index>(), 0u8..10, fields()).prop_map(|(i, k, f)| Edit::Change(i, k, f)),
        1 => any::<Index>().prop_map(Edit::Remove),
        2 => (any::<Index>(), fields()).prop_map(|(i, f)| Edit::Add(i, f)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Edit::Move(a, b)),
        1 => any::<Index>().prop_map(Edit::Rotate),
        1 => (any::<Index>(), select(NAMES)).prop_map(|(i, t)| Edit::Window(i, t)),
        1 => any::<Index>().prop_map(Edit::Region),
    ]
}

impl Model {
    pub fn edit(&mut self, edit: &Edit) {
        let n = self.elements.len();
        match edit {
            Edit::Change(i, kind, f) if n > 0 => {
                let new = element(String::new(), f);
                let (e, _) = &mut self.elements[i.index(n)];
                match kind {
                    0 => e.role = new.role,
                    1 => e.name = new.name,
                    2 => e.description = new.description,
                    3 => e.text = new.text,
                    4 => e.value = new.value,
                    5 => e.states = new.states,
                    6 => e.bounds = new.bounds,
                    7 => e.actions = new.actions,
                    8 => e.child_count = new.child_count,
                    // A small nudge, as layout jitter would make.
                    _ => e.bounds = e.bounds.map(|r| Rect::new(r.x + 1, r.y, r.w, r.h)),
                }
            }
            Edit::Remove(i) if n > 0 => {
                let gone = self.subtree(&self.elements[i.index(n)].0.id.clone());
                self.elements.retain(|(e, _)| !gone.contains(&e.id));
            }
            Edit::Add(i, f) => {
                let parent = (n > 0).then(|| self.elements[i.index(n)].0.id.clone());
                let id = self.fresh_id("n");
                self.elements.push((element(id, f), parent));
            }
            Edit::Move(a, b) if n > 0 => {
                let moving = self.elements[a.index(n)].0.id.clone();
                let to = self.elements[b.index(n)].0.id.clone();
                if !self.subtree(&moving).contains(&to) {
                    self.elements[a.index(n)].1 = Some(to);
                }
            }
            Edit::Rotate(i) if n > 0 => self.elements.rotate_left(i.index(n)),
            Edit::Window(i, title) => {
                let w = self.windows.len();
                match i.index(3 * w + 1) {
                    k if k < w => {
                        self.windows.remove(k);
                    }
                    k if k < 2 * w => self.windows[k - w].title = title.to_string(),
                    _ => {
                        let id = self.fresh_id("nw");
                        self.windows.push(WindowState::new(id, *title, "dialog"));
                    }
                }
            }
            Edit::Region(i) if !self.regions.is_empty() => {
                let k = i.index(self.regions.len());
                self.regions[k].digest = self.regions[k].digest.wrapping_add(1);
            }
            _ => {}
        }
    }

    /// The same state with every sibling list in a different order.
    pub fn reorder_siblings(&self) -> Model {
        let mut m = self.clone();
        m.elements.reverse();
        m
    }
}

/// A random tree of up to `max` nodes and a copy of it after up to `edits` random edits.
pub fn pair(max: usize, edits: usize) -> impl Strategy<Value = (Model, Model)> {
    (tree(max), proptest::collection::vec(edit(), 0..=edits)).prop_map(|(a, edits)| {
        let mut b = a.clone();
        for e in &edits {
            b.edit(e);
        }
        (a, b)
    })
}

/// A random tree of up to `max` nodes.
pub fn snapshot(max: usize) -> impl Strategy<Value = Model> {
    tree(max)
}

/// How many elements differ between two models: present on one side only, or with
/// another element or parent.
pub fn differing(a: &Model, b: &Model) -> usize {
    let map = |m: &Model| -> BTreeMap<ElementId, (Element, Option<ElementId>)> {
        m.elements.iter().map(|(e, p)| (e.id.clone(), (e.clone(), p.clone()))).collect()
    };
    let (a, b) = (map(a), map(b));
    let only = a.keys().filter(|k| !b.contains_key(*k)).count() + b.keys().filter(|k| !a.contains_key(*k)).count();
    only + a.iter().filter(|(k, v)| b.get(*k).is_some_and(|w| w != *v)).count()
}
