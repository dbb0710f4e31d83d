//! The fast tree read: the skeleton from one cache call, then a walk with every call in flight.
//!
//! The walk starts at the scope's root and, for every element at once, issues the detail
//! calls it needs while it descends: extents for showing components (a hidden one has no
//! bounds, so no call), text for the Text interface, the current value for Value (the
//! selected item's name for combo boxes), actions for Action, relations only when asked.
//! An element the cache lacks costs one more round trip ([`basics`]) before its details go
//! out, and one more (`children.rs`) before its children do, only when it has any. So a read
//! takes the cache call, a round trip or two per level of uncached elements and the
//! details' round trip, however many elements there are; what remains is the
//! application's own time per call.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use deft_types::{Element, ElementId};
use futures_util::future::{BoxFuture, join_all};
use zbus::Connection;
use zbus::zvariant::OwnedObjectPath;

use super::call::{self, Fail, NULL_PATH, ROOT_PATH, iface};
use super::children;
use super::convert::{self, Ifaces, st};
use super::placement;
use super::skeleton::{Skel, Skeleton, basics};
use super::toolkit::Toolkit;
use super::{AppFacts, Inner};
use crate::backend::{Scope, SnapshotOptions};
use crate::error::A11yError;
use crate::tree::{Relation, Tree, TreeBuilder};

/// What the detail calls found for one element.
#[derive(Default)]
pub(crate) struct Details {
    pub bounds: Option<(i32, i32, i32, i32)>,
    pub text: Option<String>,
    pub value: Option<String>,
    pub actions: Vec<String>,
    pub relations: Vec<Relation>,
    /// The element vanished while being read.
    pub vanished: bool,
    /// `bounds` are relative to a window whose place on screen is unknown: they say
    /// whether it is drawn, not where (see [`placement`]).
    pub unplaced: bool,
}

/// Read the details `node` needs, all calls in flight.
///
/// Each call belongs to an interface the element lists (its `GetInterfaces`, or the cache's
/// copy of it): libatspi never calls a method of an interface an object does not list, and
/// atk-bridge answers such a call with a failed assertion, which Chromium treats as fatal.
pub(crate) async fn details(
    inner: &Inner,
    conn: &Connection,
    sk: &Skeleton,
    path: &str,
    node: &Skel,
    opts: &SnapshotOptions,
    facts: AppFacts,
) -> Result<Details, Fail> {
    let (t, bus) = (inner.timeout(), sk.bus.as_str());
    let tk = facts.toolkit;
    let may_show = tk.may_show(node.states, convert::role(node.role).as_str());
    let has_component = node.ifaces.has(Ifaces::COMPONENT);
    let extents = || async move {
        if !(may_show && has_component) {
            return Ok(None);
        }
        call::call_as::<_, (i32, i32, i32, i32)>(conn, t, bus, path, iface::COMPONENT, "GetExtents", &(0u32,))
            .await
            .map(Some)
    };
    // GTK 4 marks every element visible and tells a drawn one by its extents (GTK 2 a
    // menu's entries): ask those first, and the rest only for what is drawn (unless hidden
    // details are wanted).
    let by_extents = tk == Toolkit::Gtk4 || (tk == Toolkit::Gtk2 && !node.states.has(st::SHOWING));
    let early =
        if by_extents && may_show && has_component && !opts.hidden_details { Some(extents().await) } else { None };
    let full = opts.hidden_details
        || match &early {
            Some(Ok(e)) => e.and_then(convert::bounds).is_some(),
            Some(Err(_)) => false,
            None => may_show,
        };
    let extents = async {
        match early {
            Some(e) => e,
            None => extents().await,
        }
    };
    let password = convert::role(node.role).as_str() == "password_text";
    let text = async {
        if !(full && node.ifaces.has(Ifaces::TEXT)) {
            return Ok(None);
        }
        // A password field's text is read as its length only, one mask character per
        // character: its content never leaves the backend, and Qt answers its text with ""
        // while its count grows (KeePassXC: typed text that landed read as nothing, and the
        // password was typed again).
        if password {
            let n = call::property::<i32>(conn, t, bus, path, iface::TEXT, "CharacterCount").await?;
            return Ok(Some(crate::secret::MASK_CHAR.to_string().repeat(usize::try_from(n).unwrap_or(0))));
        }
        let end = match tk.text_needs_length() {
            true => call::property::<i32>(conn, t, bus, path, iface::TEXT, "CharacterCount").await?,
            false => -1,
        };
        call::call_as::<_, String>(conn, t, bus, path, iface::TEXT, "GetText", &(0i32, end)).await.map(Some)
    };
    let value = async {
        if !full {
            return Ok(None);
        }
        if node.ifaces.has(Ifaces::VALUE) {
            let v: f64 = call::property(conn, t, bus, path, iface::VALUE, "CurrentValue").await?;
            return Ok(Some(format_number(v)));
        }
        if convert::role(node.role).as_str() == "combo_box" && node.ifaces.has(Ifaces::SELECTION) {
            return selected_name(inner, conn, sk, path).await;
        }
        Ok(None)
    };
    let actions = async {
        if !(full && node.ifaces.has(Ifaces::ACTION)) {
            return Ok(Vec::new());
        }
        action_names(inner, conn, bus, path, facts.english).await
    };
    let relations = async {
        if !opts.relations {
            return Ok(Vec::new());
        }
        let set: Vec<(u32, Vec<(String, OwnedObjectPath)>)> =
            call::call_as(conn, t, bus, path, iface::ACCESSIBLE, "GetRelationSet", &()).await?;
        Ok(set
            .into_iter()
            .map(|(kind, targets)| Relation {
                kind: convert::relation(kind),
                targets: targets
                    .into_iter()
                    .map(|(b, p)| call::element_id(if b.is_empty() { bus } else { &b }, p.as_str()))
                    .collect(),
            })
            .collect())
    };
    let (extents, text, value, actions, relations) = tokio::join!(extents, text, value, actions, relations);
    // A failure of any call that says the object is gone marks it vanished; others fail the read.
    let mut out = Details::default();
    let mut vanished = false;
    let mut keep = |r: Result<(), Fail>| -> Result<(), Fail> {
        match r {
            Err(Fail::NoObject) => {
                vanished = true;
                Ok(())
            }
            // Some toolkits list an interface and then do not answer a call of it.
            Err(Fail::NoMethod) => Ok(()),
            other => other,
        }
    };
    keep(extents.map(|v| out.bounds = v))?;
    keep(text.map(|v| out.text = v))?;
    keep(value.map(|v| out.value = v))?;
    keep(actions.map(|v| out.actions = tk.actions(&v).into_iter().map(|(n, _)| n).collect()))?;
    keep(relations.map(|v| out.relations = v))?;
    out.vanished = vanished;
    Ok(out)
}

/// The real names of an element's actions, lowercased, in index order (what
/// [`Toolkit::actions`] normalises).
///
/// `GetActions` gives every action's localized name in one call; in an English locale that
/// is the name up to case (GTK: "Click" for `click`). Where it is not English, or a localized
/// name is empty (Chromium leaves them all empty; GTK 4 some), each name is asked for with
/// `GetName`, as libatspi does. An index whose name cannot be read keeps its localized name.
pub(crate) async fn action_names(
    inner: &Inner,
    conn: &Connection,
    bus: &str,
    path: &str,
    english: bool,
) -> Result<Vec<String>, Fail> {
    let t = inner.timeout();
    let list: Vec<(String, String, String)> =
        call::call_as(conn, t, bus, path, iface::ACTION, "GetActions", &()).await?;
    let localized: Vec<String> = list.into_iter().map(|(n, _, _)| n.to_lowercase()).collect();
    if english && localized.iter().all(|n| !n.is_empty()) {
        return Ok(localized);
    }
    real_action_names(inner, conn, bus, path, localized).await
}

/// Each action's name from `GetName`; where that fails (but the object is there), the name
/// given in `fallback` for the same index.
pub(crate) async fn real_action_names(
    inner: &Inner,
    conn: &Connection,
    bus: &str,
    path: &str,
    fallback: Vec<String>,
) -> Result<Vec<String>, Fail> {
    let t = inner.timeout();
    let names =
        join_all((0..fallback.len() as i32).map(|i| async move {
            call::call_as::<_, String>(conn, t, bus, path, iface::ACTION, "GetName", &(i,)).await
        }))
        .await;
    names
        .into_iter()
        .zip(fallback)
        .map(|(n, f)| match n {
            Ok(n) => Ok(n.to_lowercase()),
            Err(Fail::Other(_) | Fail::NoMethod) => Ok(f),
            Err(e) => Err(e),
        })
        .collect()
}

/// A combo box's value: the name of its selected item.
async fn selected_name(inner: &Inner, conn: &Connection, sk: &Skeleton, path: &str) -> Result<Option<String>, Fail> {
    let t = inner.timeout();
    let (b, p): (String, OwnedObjectPath) =
        match call::call_as(conn, t, &sk.bus, path, iface::SELECTION, "GetSelectedChild", &(0i32,)).await {
            Ok(r) => r,
            Err(Fail::Other(_)) => return Ok(None),
            Err(f) => return Err(f),
        };
    if p.as_str() == NULL_PATH {
        return Ok(None);
    }
    if let Some(n) = sk.nodes.get(p.as_str()) {
        return Ok(Some(n.name.clone()));
    }
    let bus = if b.is_empty() { sk.bus.as_str() } else { b.as_str() };
    call::property::<String>(conn, t, bus, p.as_str(), iface::ACCESSIBLE, "Name").await.map(Some)
}

/// A value as people write it: `3` rather than `3.0`, `0.25` as is.
pub(crate) fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{}", v as i64) } else { format!("{v}") }
}

/// Turn a skeleton node and its details into an element, in Deft's vocabulary, with the
/// fields that hold secrets marked (see [`crate::secret::mark`]).
pub(crate) fn element(
    bus: &str,
    path: &str,
    node: &Skel,
    d: Details,
    toolkit: Toolkit,
    secret_fields: &[String],
) -> Element {
    let mut e = plain_element(bus, path, node, d, toolkit);
    crate::secret::mark(&mut e, secret_fields);
    e
}

fn plain_element(bus: &str, path: &str, node: &Skel, d: Details, toolkit: Toolkit) -> Element {
    let bounds = d.bounds.and_then(convert::bounds);
    let name = toolkit.name(&node.name);
    let states = toolkit.states(node.states, bounds, node.ifaces.has(Ifaces::COMPONENT));
    // Drawn somewhere, so shown; but at no place input could be aimed at.
    let bounds = if d.unplaced { None } else { bounds };
    Element {
        id: call::element_id(bus, path),
        role: toolkit.role(convert::role(node.role), name, node.child_count),
        name: name.to_string(),
        description: node.description.clone(),
        states,
        bounds,
        text: d.text,
        value: d.value,
        actions: d.actions,
        child_count: node.child_count.max(0) as u32,
    }
}

/// The snapshot of `scope`.
pub(crate) async fn snapshot(inner: &Inner, scope: &Scope, opts: &SnapshotOptions) -> Result<Tree, A11yError> {
    match scope {
        Scope::All => {
            let apps: Vec<(String, OwnedObjectPath)> = call::call_as(
                &inner.bus,
                inner.timeout(),
                call::REGISTRY,
                ROOT_PATH,
                iface::ACCESSIBLE,
                "GetChildren",
                &(),
            )
            .await
            .map_err(|f| A11yError::BusUnavailable { detail: format!("the AT-SPI registry does not answer: {f}") })?;
            let reads = join_all(apps.iter().map(|(bus, _)| read(inner, bus, ROOT_PATH, opts))).await;
            let mut trees = Vec::new();
            let mut problems = Vec::new();
            for ((bus, _), r) in apps.iter().zip(reads) {
                match r {
                    Ok(t) => trees.push(t),
                    Err(e) => problems.push(format!("application {bus} was not read: {e}")),
                }
            }
            let mut tree = Tree::merge(trees);
            tree.problems.extend(problems);
            Ok(tree)
        }
        Scope::App(id) => {
            let (bus, _) = call::split_id(id)?;
            read(inner, bus, ROOT_PATH, opts).await
        }
        Scope::Subtree(id) => {
            let (bus, path) = call::split_id(id)?;
            read(inner, bus, path, opts).await
        }
    }
}

/// One element read by the walk, with its children.
struct Visited {
    path: String,
    /// Its index in its parent, when only some of the parent's children were read.
    index: Option<u32>,
    node: Skel,
    details: Details,
    children: Vec<Visited>,
}

/// What the walk of one application shares.
struct Walk<'a> {
    inner: &'a Inner,
    conn: &'a Connection,
    sk: &'a Skeleton,
    opts: &'a SnapshotOptions,
    facts: AppFacts,
    /// Elements still allowed before the node limit cuts the tree.
    budget: AtomicUsize,
    problems: Mutex<Vec<String>>,
}

impl Walk<'_> {
    fn problem(&self, p: String) {
        let mut problems = self.problems.lock().unwrap_or_else(|e| e.into_inner());
        if !problems.contains(&p) {
            problems.push(p);
        }
    }

    /// Read `path` and everything below it; `None` when it vanished meanwhile.
    fn visit(&self, path: String, index: Option<u32>) -> BoxFuture<'_, Result<Option<Visited>, A11yError>> {
        Box::pin(async move {
            let left = self.budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
            if left.is_err() {
                self.problem(format!("stopped past {} elements; the tree is cut", self.opts.max_nodes));
                return Ok(None);
            }
            let (inner, bus) = (self.inner, self.sk.bus.as_str());
            let known = self.sk.nodes.get(&path);
            // The children when already known; `None` when they must be listed.
            let (node, known_kids) = match known {
                Some(n) => (n.clone(), n.children.clone()),
                // Not cached: its basics first; its children only when it has any (most
                // uncached elements are rows and cells without children).
                None => match basics(inner, self.conn, bus, &path).await {
                    Ok(n) if n.child_count == 0 => (n, Some(Vec::new())),
                    Ok(n) => (n, None),
                    Err(Fail::NoObject) => return Ok(None),
                    Err(f) => return Err(inner.error(f, "reading an element", None, bus).await),
                },
            };
            let (kids, indices) = match known_kids {
                Some(kids) => (kids, Vec::new()),
                None => match children::list(inner, self.conn, bus, &path, node.child_count).await {
                    Ok(l) => {
                        if let Some(count) = l.shown_of {
                            self.problem(format!(
                                "{} \"{}\" has {count} children, too many to list: only the {} on screen were read",
                                convert::role(node.role),
                                node.name,
                                l.kids.len()
                            ));
                        }
                        (l.kids, l.indices)
                    }
                    Err(Fail::NoObject) => return Ok(None),
                    Err(f) => return Err(inner.error(f, "listing children", None, bus).await),
                },
            };
            let mut indices = indices.into_iter().map(|i| u32::try_from(i).ok());
            let kids: Vec<(String, Option<u32>)> =
                kids.into_iter().map(|k| (k, indices.next().flatten())).filter(|(k, _)| *k != path).collect();
            let details = details(inner, self.conn, self.sk, &path, &node, self.opts, self.facts);
            let below = join_all(kids.into_iter().map(|(k, i)| self.visit(k, i)));
            let (details, below) = tokio::join!(details, below);
            let details = match details {
                Ok(d) if d.vanished => return Ok(None),
                Ok(d) => d,
                Err(f) => return Err(inner.error(f, "reading element details", None, bus).await),
            };
            let mut children = Vec::with_capacity(below.len());
            for b in below {
                children.extend(b?);
            }
            Ok(Some(Visited { path, index, node, details, children }))
        })
    }
}

/// Read the subtree at `root` of application `bus`.
async fn read(inner: &Inner, bus: &str, root: &str, opts: &SnapshotOptions) -> Result<Tree, A11yError> {
    let conn = inner.conn_for(bus).await;
    let (sk, facts) = tokio::join!(Skeleton::load(inner, &conn, bus), inner.facts(&conn, bus));
    let mut sk = sk?;
    if root != ROOT_PATH {
        sk.ancestors(inner, &conn, root).await?;
    }
    let walk = Walk {
        inner,
        conn: &conn,
        sk: &sk,
        opts,
        facts,
        budget: AtomicUsize::new(opts.max_nodes),
        problems: Mutex::new(Vec::new()),
    };
    let Some(top) = walk.visit(root.to_string(), None).await? else {
        return Err(if root == ROOT_PATH {
            A11yError::AppGone { app: bus.to_string(), detail: "its root object vanished".into() }
        } else {
            A11yError::Stale { id: call::element_id(bus, root) }
        });
    };
    let mut problems = walk.problems.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut top = top;
    if facts.window_relative {
        place(inner, &conn, &sk, root, facts.pid, &mut top, &mut problems).await;
    }
    let mut b = TreeBuilder::new();
    let mut stack: Vec<(Option<usize>, Visited)> = vec![(None, top)];
    while let Some((parent, mut v)) = stack.pop() {
        let relations = std::mem::take(&mut v.details.relations);
        let kids = std::mem::take(&mut v.children);
        let e = element(bus, &v.path, &v.node, v.details, facts.toolkit, &inner.config.secret_fields);
        let at = match parent {
            Some(p) => b.child_at_index(p, e, v.index),
            None if root == ROOT_PATH => b.app(e),
            None => b.root(e, sk.context(root)),
        };
        b.relations(at, relations);
        stack.extend(kids.into_iter().rev().map(|k| (Some(at), k)));
    }
    let mut tree = b.build();
    problems.extend(sk.problems);
    tree.problems = problems;
    Ok(tree)
}

/// Move the bounds read under `top` (the read's root, `root`) from window-relative to the
/// screen: each window's by where that window is ([`placement`]).
async fn place(
    inner: &Inner,
    conn: &Connection,
    sk: &Skeleton,
    root: &str,
    pid: Option<u32>,
    top: &mut Visited,
    problems: &mut Vec<String>,
) {
    if root == ROOT_PATH {
        for window in &mut top.children {
            place_window(inner, pid, window, problems).await;
        }
        return;
    }
    // A read below the application: its window is the ancestor just below the root.
    let mut window = root.to_string();
    loop {
        match sk.nodes.get(&window).and_then(|n| n.parent.clone()) {
            Some(p) if p == ROOT_PATH => break,
            Some(p) => window = p,
            None => return,
        }
    }
    if window == root {
        return place_window(inner, pid, top, problems).await;
    }
    let title = sk.nodes.get(&window).map(|n| n.name.clone()).unwrap_or_default();
    match placement::window_offset(inner, conn, &sk.bus, &window, pid).await {
        Ok(Ok(offset)) => shift_all(top, offset),
        Ok(Err(why)) => unplace_all(top, &title, why, problems),
        Err(_) => unplace_all(top, &title, placement::Unplaced::NotFound, problems),
    }
}

/// Place window `window` read with its subtree, by its own name and size.
async fn place_window(inner: &Inner, pid: Option<u32>, window: &mut Visited, problems: &mut Vec<String>) {
    // A window not drawn has no place to find.
    let Some(size) = window.details.bounds.and_then(convert::bounds) else { return };
    match inner.placement.offset(pid, &window.node.name, size.w, size.h).await {
        Ok(offset) => shift_all(window, offset),
        Err(why) => {
            let title = window.node.name.clone();
            unplace_all(window, &title, why, problems);
        }
    }
}

fn shift_all(v: &mut Visited, offset: placement::Offset) {
    if let Some(b) = v.details.bounds {
        v.details.bounds = Some(placement::shifted(b, offset));
    }
    for child in &mut v.children {
        shift_all(child, offset);
    }
}

/// Drop every bound read under `v`, in window `title` whose place is unknown for `why`:
/// relative to a window that is somewhere else, they would aim the pointer at whatever
/// lies there (see [`placement`]).
fn unplace_all(v: &mut Visited, title: &str, why: placement::Unplaced, problems: &mut Vec<String>) {
    fn drop_bounds(v: &mut Visited) {
        v.details.unplaced = true;
        for child in &mut v.children {
            drop_bounds(child);
        }
    }
    drop_bounds(v);
    // Twin windows say the same: once is enough.
    let problem = placement::unplaced(title, why);
    if !problems.contains(&problem) {
        problems.push(problem);
    }
}

/// Read one element afresh (used by `element` and the hit test).
pub(crate) async fn read_one(inner: &Inner, id: &ElementId) -> Result<Element, A11yError> {
    let (bus, path) = call::split_id(id)?;
    let conn = inner.conn_for(bus).await;
    let (node, facts) = tokio::join!(basics(inner, &conn, bus, path), inner.facts(&conn, bus));
    let node = match node {
        Ok(n) => n,
        // Every accessible object has the Accessible interface: a path without it is one
        // the application no longer exports (GTK 4 unexports a destroyed widget's object),
        // so the element is gone, not lacking a feature.
        Err(call::Fail::NoMethod) => return Err(A11yError::Stale { id: id.clone() }),
        Err(f) => return Err(inner.error(f, "reading an element", Some(id), bus).await),
    };
    if node.states.has(st::DEFUNCT) {
        return Err(A11yError::Stale { id: id.clone() });
    }
    let sk = Skeleton { bus: bus.to_string(), nodes: HashMap::new(), problems: Vec::new() };
    let opts = SnapshotOptions { hidden_details: true, ..SnapshotOptions::default() };
    match details(inner, &conn, &sk, path, &node, &opts, facts).await {
        Ok(d) if d.vanished => Err(A11yError::Stale { id: id.clone() }),
        Ok(mut d) => {
            // Bounds relative to a window whose place is unknown are no place on screen.
            if let (true, Some(b)) = (facts.window_relative, d.bounds) {
                match offset_of_one(inner, &conn, bus, path, &node, b, facts.pid).await {
                    Some(offset) => d.bounds = Some(placement::shifted(b, offset)),
                    None => d.unplaced = true,
                }
            }
            Ok(element(bus, path, &node, d, facts.toolkit, &inner.config.secret_fields))
        }
        Err(f) => Err(inner.error(f, "reading an element", Some(id), bus).await),
    }
}

/// The screen offset of element `path` read alone, whose window-relative extents are
/// `extents`: its window's place (the element's own when it is a window). `None` when that
/// cannot be found (no window matches, or more than one could).
pub(crate) async fn offset_of_one(
    inner: &Inner,
    conn: &Connection,
    bus: &str,
    path: &str,
    node: &Skel,
    extents: (i32, i32, i32, i32),
    pid: Option<u32>,
) -> Option<placement::Offset> {
    if node.parent.as_deref() == Some(ROOT_PATH) {
        let size = convert::bounds(extents)?;
        return inner.placement.offset(pid, &node.name, size.w, size.h).await.ok();
    }
    let window = placement::window_of(inner, conn, bus, path).await.ok()??;
    placement::window_offset(inner, conn, bus, &window, pid).await.ok()?.ok()
}
