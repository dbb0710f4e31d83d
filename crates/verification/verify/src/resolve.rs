//! Finding the target: accessibility selector first, text on screen through OCR when the
//! element is not in the tree, raw coordinates when given.

use std::time::Instant;

use deft_a11y::selector::{self, ResolveError};
use deft_a11y::{A11yError, Accessibility, AppInfo, Scope, SnapshotOptions, Tree};
use deft_input::{WindowQuery, mapping};
use deft_retry::Symptoms;
use deft_types::{
    Channel, Element, ElementId, ErrorClass, Logical, Physical, Point, Rect, ScaleFactor, Selector, Size, State,
    Target, TargetInfo, TextMatch,
};

use crate::executor::Executor;

/// How the target was named, kept to find it again.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum How {
    /// An accessibility selector.
    Selector(Selector),
    /// Text a person sees: accessibility first, OCR otherwise.
    Text(TextMatch),
    /// A point on screen.
    Point(Point<Logical>),
    /// Whatever has the keyboard focus.
    Focused,
}

impl How {
    pub fn of(target: &Target) -> How {
        match target {
            Target::Selector(s) => How::Selector(s.clone()),
            Target::Text(t) => How::Text(t.clone()),
            Target::Point(p) => How::Point(*p),
            Target::Focused => How::Focused,
        }
    }
}

/// The target as found: its element (when accessibility knows it), its window and
/// application (the scope of the state snapshots), and the window's scale.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    pub element: Option<Element>,
    pub how: How,
    pub window: Option<ElementId>,
    pub window_title: Option<String>,
    pub app: Option<ElementId>,
    pub app_name: Option<String>,
    pub pid: Option<u32>,
    /// A point to act at when there is no element to aim for (raw coordinates, OCR).
    pub point: Option<Point<Physical>>,
    pub scale: ScaleFactor,
    pub channel: Channel,
    /// When the element was read: the first of the two reads the stability rule compares.
    pub read_at: Instant,
}

impl Resolved {
    /// Nothing known yet but how the target was asked for: no element, window or app,
    /// scale 1, seen through accessibility, read now.
    fn bare(how: How) -> Resolved {
        Resolved {
            element: None,
            how,
            window: None,
            window_title: None,
            app: None,
            app_name: None,
            pid: None,
            point: None,
            scale: ScaleFactor::ONE,
            channel: Channel::Accessibility,
            read_at: Instant::now(),
        }
    }

    pub fn id(&self) -> Option<&ElementId> {
        self.element.as_ref().map(|e| &e.id)
    }

    pub fn info(&self) -> TargetInfo {
        match &self.element {
            Some(e) => TargetInfo {
                id: Some(e.id.clone()),
                role: Some(e.role.clone()),
                name: e.name.clone(),
                bounds: e.bounds,
            },
            None => TargetInfo {
                id: None,
                role: None,
                name: match &self.how {
                    How::Text(t) => crate::condition::describe_text(t),
                    How::Point(p) => format!("point ({}, {})", p.x, p.y),
                    How::Focused => "the focused element".into(),
                    How::Selector(s) => selector::format(s),
                },
                bounds: self.point.map(|p| self.scale.rect_to_logical(Rect::new(p.x, p.y, 1, 1))),
            },
        }
    }

    /// `push_button "Submit order"`, or the point.
    pub fn describe(&self) -> String {
        match &self.element {
            Some(e) => e.describe(),
            None => self.info().name,
        }
    }

    /// The snapshot scope that shows the target's effects: its whole application (a new
    /// dialog is another top-level window of it), else its window, else everything.
    pub fn scope(&self) -> Scope {
        match (&self.app, &self.window) {
            (Some(app), _) => Scope::App(app.clone()),
            (None, Some(w)) => Scope::Subtree(w.clone()),
            (None, None) => Scope::All,
        }
    }
}

/// Why the target could not be found (this time).
#[derive(Clone, Debug)]
pub(crate) enum Miss {
    /// Nothing matches (yet); the message lists the closest candidates.
    NotFound(String),
    /// Several elements match; waiting will not help.
    Ambiguous(String),
    /// The backend failed.
    Backend(A11yError),
}

impl Miss {
    /// Whether waiting longer may find it.
    pub fn may_appear(&self) -> bool {
        match self {
            Miss::NotFound(_) => true,
            Miss::Ambiguous(_) => false,
            Miss::Backend(e) => e.class() != ErrorClass::Permanent,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Miss::NotFound(m) | Miss::Ambiguous(m) => m.clone(),
            Miss::Backend(e) => e.to_string(),
        }
    }

    /// The symptoms the retry engine classifies: not found and ambiguous are permanent (with
    /// `refine_selector`), a transient backend error is retried.
    pub fn symptoms(&self) -> Symptoms {
        let mut s = Symptoms::new(self.message());
        match self {
            Miss::Backend(e) if e.class() == ErrorClass::Transient => s.backend_error = true,
            Miss::Backend(e) if e.class() == ErrorClass::Stale => s.target_vanished = true,
            _ => s.not_found = true,
        }
        s
    }
}

fn resolve_miss(e: ResolveError) -> Miss {
    match e {
        ResolveError::NotFound { .. } | ResolveError::IndexOutOfRange { .. } => Miss::NotFound(e.to_string()),
        ResolveError::Ambiguous { .. } | ResolveError::Invalid(_) => Miss::Ambiguous(e.to_string()),
    }
}

/// Picks the one node a selector means among its matches in `tree`.
///
/// Never the first of several: an `index` picks explicitly; otherwise, among several
/// matches, the only one that is showing wins (a hidden element cannot be what a person
/// means to act on; a destroyed widget may linger hidden for a moment), and for text a
/// person sees, the outermost showing match (a list row and the label inside it both
/// show "Item 1"; the row is what gets clicked). Anything else is ambiguous.
pub(crate) fn choose(tree: &Tree, sel: &Selector, outermost: bool) -> Result<usize, Miss> {
    if sel.index.is_some() {
        return selector::resolve(tree, sel).map_err(resolve_miss);
    }
    let all = selector::find_all(tree, sel).map_err(|e| Miss::Ambiguous(e.to_string()))?;
    if let [one] = all[..] {
        return Ok(one);
    }
    let showing: Vec<usize> = all.iter().copied().filter(|&i| tree.nodes[i].element.has(State::Showing)).collect();
    if let [one] = showing[..] {
        return Ok(one);
    }
    if outermost && showing.len() > 1 {
        let top: Vec<usize> =
            showing.iter().copied().filter(|&i| !showing.iter().any(|&a| a != i && tree.is_within(i, a))).collect();
        if let [one] = top[..] {
            return Ok(one);
        }
    }
    Err(selector::resolve(tree, sel).err().map_or_else(|| Miss::Ambiguous("ambiguous".into()), resolve_miss))
}

impl<A: Accessibility> Executor<A> {
    /// One attempt at finding the target; the caller waits and retries while
    /// [`Miss::may_appear`].
    pub(crate) async fn find_target(&self, how: &How) -> Result<Resolved, Miss> {
        match how {
            How::Selector(sel) => self.find_by_selector(how, sel, false).await,
            How::Text(t) => {
                let sel = Selector { text: Some(t.clone()), ..Selector::default() };
                match self.find_by_selector(how, &sel, true).await {
                    Err(Miss::NotFound(m)) => match self.find_by_ocr(t).await {
                        Some(found) => Ok(found),
                        None => Err(Miss::NotFound(m)),
                    },
                    other => other,
                }
            }
            How::Point(p) => self.find_at_point(*p).await,
            How::Focused => self.find_focused().await,
        }
    }

    async fn find_by_selector(&self, how: &How, sel: &Selector, outermost: bool) -> Result<Resolved, Miss> {
        let opts = SnapshotOptions::default();
        let apps = if sel.app.is_some() || sel.window.is_some() || sel.id.is_some() {
            Some(self.a11y.applications().await.map_err(Miss::Backend)?)
        } else {
            None
        };
        let tree = match (&sel.id, &apps) {
            (Some(id), _) => self.a11y.snapshot(&Scope::Subtree(id.clone()), &opts).await.map_err(|e| match e {
                A11yError::Stale { .. } => Miss::NotFound(format!("element {id} no longer exists")),
                e => Miss::Backend(e),
            })?,
            (None, Some(apps)) => {
                let scopes = scopes_for(apps, sel);
                let mut trees = Vec::new();
                for s in scopes {
                    match self.a11y.snapshot(&s, &opts).await {
                        Ok(t) => trees.push(t),
                        // An app or window that went away since the listing is not an error of the rest.
                        Err(A11yError::AppGone { .. } | A11yError::Stale { .. }) => {}
                        Err(e) => return Err(Miss::Backend(e)),
                    }
                }
                Tree::merge(trees)
            }
            (None, None) => self.a11y.snapshot(&Scope::All, &opts).await.map_err(Miss::Backend)?,
        };
        let index = choose(&tree, sel, outermost)?;
        self.locate(how.clone(), &tree, index, apps).await
    }

    /// The window, application and scale of node `index` of `tree`.
    async fn locate(&self, how: How, tree: &Tree, index: usize, apps: Option<Vec<AppInfo>>) -> Result<Resolved, Miss> {
        let node = &tree.nodes[index];
        let mut window = None;
        let mut app = None;
        let mut at = Some(index);
        while let Some(i) = at {
            let n = &tree.nodes[i];
            if n.window.is_some() && n.path.is_empty() {
                window = Some(n.element.id.clone());
            }
            if n.parent.is_none() && n.window.is_none() {
                app = Some(n.element.id.clone());
            }
            at = n.parent;
        }
        let mut resolved = Resolved {
            element: Some(node.element.clone()),
            how,
            window,
            window_title: node.window.clone(),
            app,
            app_name: Some(node.app.clone()),
            pid: None,
            point: None,
            scale: ScaleFactor::ONE,
            channel: Channel::Accessibility,
            read_at: Instant::now(),
        };
        let apps = match apps {
            Some(a) => Some(a),
            None if resolved.app.is_none() || resolved.window.is_none() || self.windows.is_some() => {
                self.a11y.applications().await.ok()
            }
            None => None,
        };
        if let Some(apps) = &apps {
            self.place(&mut resolved, apps);
        }
        Ok(resolved)
    }

    /// Fills the application, window and scale of `r` from the application list.
    fn place(&self, r: &mut Resolved, apps: &[AppInfo]) {
        let owner = apps.iter().find(|a| match &r.window {
            Some(w) => a.windows.iter().any(|x| &x.id == w),
            None => {
                Some(&a.name) == r.app_name.as_ref()
                    && a.windows.iter().any(|x| Some(&x.title) == r.window_title.as_ref())
            }
        });
        let Some(owner) = owner else { return };
        r.app.get_or_insert_with(|| owner.id.clone());
        r.pid = owner.pid;
        let win = owner.windows.iter().find(|x| match &r.window {
            Some(w) => &x.id == w,
            None => Some(&x.title) == r.window_title.as_ref(),
        });
        if let Some(win) = win {
            r.window.get_or_insert_with(|| win.id.clone());
            r.window_title = Some(win.title.clone());
            r.scale = self.scale_of(owner.pid, &win.title, win.bounds);
        }
    }

    /// The scale of a window: its size as accessibility reports it (logical) against its
    /// size as the display server reports it (physical). 1 when either is unknown.
    fn scale_of(&self, pid: Option<u32>, title: &str, logical: Option<Rect<Logical>>) -> ScaleFactor {
        let (Some(locator), Some(logical)) = (&self.windows, logical) else { return ScaleFactor::ONE };
        let query = WindowQuery { pid, title: (!title.is_empty()).then(|| title.to_string()) };
        let physical = match crate::executor::lock(locator).window(&query) {
            Ok(w) => w.bounds,
            Err(_) => return ScaleFactor::ONE,
        };
        mapping::window_scale(Size::new(logical.w, logical.h), Size::new(physical.w, physical.h))
            .unwrap_or(ScaleFactor::ONE)
    }

    async fn find_at_point(&self, p: Point<Logical>) -> Result<Resolved, Miss> {
        let hit = self.a11y.hit_test(p).await.map_err(Miss::Backend)?;
        let mut r = Resolved::bare(How::Point(p));
        if let Some(hit) = hit {
            r.window = hit.chain.first().cloned();
            r.element = Some(hit.element);
            if let Ok(apps) = self.a11y.applications().await {
                self.place(&mut r, &apps);
            }
        }
        // Raw coordinates are the point itself, not the centre of whatever is under it.
        r.point = Some(r.scale.to_physical(p));
        Ok(r)
    }

    async fn find_focused(&self) -> Result<Resolved, Miss> {
        let apps = self.a11y.applications().await.map_err(Miss::Backend)?;
        let mut r = Resolved::bare(How::Focused);
        let active = apps.iter().flat_map(|a| a.windows.iter()).find(|w| w.states.contains(&State::Active));
        if let Some(w) = active {
            let tree = self.a11y.snapshot(&Scope::Subtree(w.id.clone()), &SnapshotOptions::default()).await;
            if let Ok(tree) = tree
                && let Some(i) = (0..tree.len()).find(|&i| tree.nodes[i].element.has(State::Focused))
            {
                r.element = Some(tree.nodes[i].element.clone());
            }
            r.window = Some(w.id.clone());
            self.place(&mut r, &apps);
        }
        Ok(r)
    }

    /// Text on screen through OCR, when a recogniser and a capturer are configured.
    async fn find_by_ocr(&self, t: &TextMatch) -> Option<Resolved> {
        let best = self.ocr_screen(t)?;
        Some(Resolved {
            point: Some(best.bounds.center()),
            channel: Channel::Ocr,
            ..Resolved::bare(How::Text(t.clone()))
        })
    }
}

/// The snapshot scopes a selector's `app` and `window` terms name (every app when neither
/// matches anything: the resolution then reports the closest candidates from all).
fn scopes_for(apps: &[AppInfo], sel: &Selector) -> Vec<Scope> {
    let matches = |m: &Option<TextMatch>, s: &str| m.as_ref().is_none_or(|t| crate::condition::text_matches(t, s));
    let chosen: Vec<&AppInfo> = apps.iter().filter(|a| matches(&sel.app, &a.name)).collect();
    let scopes: Vec<Scope> = if sel.window.is_none() {
        chosen.iter().map(|a| Scope::App(a.id.clone())).collect()
    } else {
        chosen
            .iter()
            .flat_map(|a| a.windows.iter())
            .filter(|w| matches(&sel.window, &w.title))
            .map(|w| Scope::Subtree(w.id.clone()))
            .collect()
    };
    if scopes.is_empty() { vec![Scope::All] } else { scopes }
}

#[cfg(test)]
mod tests {
    use deft_a11y::{TreeBuilder, element};

    use super::*;

    fn list_tree() -> Tree {
        let mut b = TreeBuilder::new();
        let app = b.app(element("a", "application", "demo"));
        let w = b.child(app, element("w", "frame", "Main"));
        let row = b.child(w, element("r1", "list_item", "Item 1"));
        b.child(row, element("l1", "label", "Item 1"));
        let mut hidden = element("old", "push_button", "Submit");
        hidden.states.remove(&State::Showing);
        b.child(w, hidden);
        b.child(w, element("new", "push_button", "Submit"));
        b.child(w, element("x1", "push_button", "Same"));
        b.child(w, element("x2", "push_button", "Same"));
        b.build()
    }

    fn id(tree: &Tree, i: usize) -> &str {
        &tree.nodes[i].element.id.0
    }

    #[test]
    fn choosing_among_matches() {
        let t = list_tree();
        let text = |s: &str| Selector { text: Some(TextMatch::Exact(s.into())), ..Selector::default() };
        let name = |s: &str| Selector { name: Some(TextMatch::Exact(s.into())), ..Selector::default() };
        assert_eq!(id(&t, choose(&t, &text("Item 1"), true).unwrap()), "r1");
        assert!(matches!(choose(&t, &name("Item 1"), false), Err(Miss::Ambiguous(_))));
        assert_eq!(id(&t, choose(&t, &name("Submit"), false).unwrap()), "new");
        let err = choose(&t, &name("Same"), true).unwrap_err();
        assert!(matches!(err, Miss::Ambiguous(ref m) if m.contains("index=1")), "{err:?}");
        assert!(matches!(choose(&t, &name("Nope"), false), Err(Miss::NotFound(_))));
        let second = Selector { index: Some(1), ..name("Same") };
        assert_eq!(id(&t, choose(&t, &second, false).unwrap()), "x2");
    }
}
