//! Finding the target: accessibility selector first, text on screen through OCR when the
//! element is not in the tree, raw coordinates when given.

use std::time::Instant;

use deft_a11y::selector::{self, Pick, ResolveError};
use deft_a11y::{A11yError, Accessibility, AppInfo, Scope, SnapshotOptions, Tree};
use deft_input::{WindowQuery, mapping};
use deft_retry::Symptoms;
use deft_types::{
    Channel, Element, ElementId, ErrorClass, Failure, FailureKind, Logical, Physical, Point, Rect, ScaleFactor,
    Selector, Size, State, Target, TargetInfo, TextMatch,
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
    /// The keyboard focus of the application or window a selector names (a key chord sent
    /// there): its window, and what holds the focus in it.
    FocusedIn(Selector),
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
    /// The role of its top-level window (`frame`, `dialog`, `window` for a popup menu).
    pub window_role: Option<deft_types::Role>,
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
            window_role: None,
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
                app: self.app_name.clone(),
                window: self.window_title.clone(),
            },
            None => TargetInfo {
                id: None,
                role: None,
                name: match &self.how {
                    How::Text(t) => selector::describe_text(t),
                    How::Point(p) => format!("point ({}, {})", p.x, p.y),
                    How::Focused => "the focused element".into(),
                    How::FocusedIn(sel) => format!("the focus in {}", deft_a11y::selector::format(sel)),
                    How::Selector(s) => selector::format(s),
                },
                bounds: self.point.map(|p| self.scale.rect_to_logical(Rect::new(p.x, p.y, 1, 1))),
                app: self.app_name.clone(),
                window: self.window_title.clone(),
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
    /// The selector designates no single element: nothing matches (yet), several do, or
    /// the index is past the last match. Carries the candidates.
    Resolve(ResolveError),
    /// The backend failed.
    Backend(A11yError),
}

impl Miss {
    fn of(e: A11yError) -> Miss {
        match e {
            A11yError::Resolve(r) => Miss::Resolve(r),
            e => Miss::Backend(e),
        }
    }

    /// Whether waiting longer may find it: something that is not there yet may appear;
    /// an ambiguous selector stays ambiguous.
    pub fn may_appear(&self) -> bool {
        match self {
            // Past the last of several matches: more of the same are not on their way.
            // An application may be starting: it joins the bus as it begins.
            Miss::Resolve(ResolveError::NotFound { .. } | ResolveError::NoApp { .. }) => true,
            Miss::Resolve(_) => false,
            Miss::Backend(e) => e.class() != ErrorClass::Permanent,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Miss::Resolve(r) => r.to_string(),
            Miss::Backend(e) => e.to_string(),
        }
    }

    /// The failure this miss makes of an action, with its candidates.
    pub fn failure(&self) -> Failure {
        let (kind, candidates) = match self {
            Miss::Resolve(ResolveError::NotFound { candidates, .. }) => (FailureKind::NotFound, candidates.clone()),
            Miss::Resolve(ResolveError::IndexOutOfRange { matches, .. }) => (FailureKind::NotFound, matches.clone()),
            Miss::Resolve(ResolveError::NoApp { running, .. }) => (FailureKind::NotFound, running.clone()),
            Miss::Resolve(ResolveError::Ambiguous { matches, .. }) => (FailureKind::Ambiguous, matches.clone()),
            Miss::Resolve(ResolveError::Invalid(_)) => (FailureKind::NotFound, Vec::new()),
            Miss::Backend(e) if e.class() == ErrorClass::Stale => (FailureKind::NotFound, Vec::new()),
            Miss::Backend(_) => (FailureKind::Unavailable, Vec::new()),
        };
        Failure { kind, candidates }
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

impl Executor {
    /// One attempt at finding the target; the caller waits and retries while
    /// [`Miss::may_appear`]. Text a person sees is looked for on screen (OCR) only when
    /// `ocr` says so (see `resolve_waiting`).
    pub(crate) async fn find_target(&self, how: &How, ocr: bool) -> Result<Resolved, Miss> {
        match how {
            How::Selector(sel) => match (self.find_by_selector(how, sel).await, text_in_scope(sel)) {
                // Text a person sees, in an application or window: looked for on screen in
                // that application's windows only (zenity's calendar days are not elements).
                (Err(miss @ Miss::Resolve(ResolveError::NotFound { .. })), Some(t)) if ocr => {
                    match self.find_by_ocr_in(t, sel).await {
                        Some(found) => Ok(self.find_by_selector(how, sel).await.unwrap_or(found)),
                        None => Err(miss),
                    }
                }
                (other, _) => other,
            },
            How::Text(t) => {
                let sel = Selector { text: Some(t.clone()), ..Selector::default() };
                match self.find_by_selector(how, &sel).await {
                    Err(miss @ Miss::Resolve(ResolveError::NotFound { .. })) if ocr => {
                        match self.find_by_ocr(t).await {
                            // Reading the screen takes a while (a second under load): what
                            // accessibility has by then is the better answer (an element).
                            Some(found) => Ok(self.find_by_selector(how, &sel).await.unwrap_or(found)),
                            None => Err(miss),
                        }
                    }
                    other => other,
                }
            }
            How::Point(p) => self.find_at_point(*p).await,
            How::Focused => self.find_focused().await,
            How::FocusedIn(sel) => self.find_focused_in(sel).await,
        }
    }

    /// Resolution proper is deft-a11y's ([`deft_a11y::find`], [`Pick::Natural`]): the one
    /// place that scopes a read and picks among matches.
    async fn find_by_selector(&self, how: &How, sel: &Selector) -> Result<Resolved, Miss> {
        let found = deft_a11y::find_with(&self.a11y, sel, &SnapshotOptions::default(), Pick::Natural)
            .await
            .map_err(Miss::of)?;
        self.locate(how.clone(), &found.tree, found.index, found.apps).await
    }

    /// The field a label names, for a verb that enters text: a person who names the label
    /// beside a field ("Reference:") means the field (deft-a11y [`labelled_field`]). The
    /// target as it was, when it is no label or names no one field; with the words that say
    /// where the text goes, when it does.
    pub(crate) async fn field_for_label(&self, t: Resolved) -> (Resolved, Option<String>) {
        let (Some(label), How::Selector(_) | How::Text(_)) = (&t.element, &t.how) else { return (t, None) };
        let found = match deft_a11y::labelled_field(&self.a11y, label, t.window.as_ref()).await {
            Ok(Some(found)) => found,
            _ => return (t, None),
        };
        let words = format!("{} names {}: the text goes there", label.describe(), found.element().describe());
        match self.locate(t.how.clone(), &found.tree, found.index, found.apps).await {
            Ok(field) => (field, Some(words)),
            Err(_) => (t, None),
        }
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
            window_role: None,
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
            r.window_role = Some(win.role.clone());
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

    /// The window `sel` names (an application, a window title), and what holds the focus in
    /// it: the active one of its windows, else its only shown one. Several shown and none
    /// active is ambiguous: the keys would go to a guess.
    async fn find_focused_in(&self, sel: &Selector) -> Result<Resolved, Miss> {
        let apps = self.a11y.applications().await.map_err(Miss::Backend)?;
        let shown: Vec<_> = deft_a11y::windows_for(&apps, sel)
            .map_err(Miss::of)?
            .into_iter()
            // Shown: placed on screen, or showing where its place is not known (a Wayland
            // window under the desktop's overview, or where no window list places it).
            .filter(|(_, w)| w.bounds.is_some() || w.states.contains(&State::Showing))
            .collect();
        let window = match shown.iter().find(|(_, w)| w.states.contains(&State::Active)) {
            Some((_, w)) => *w,
            None if shown.len() == 1 => shown[0].1,
            // None says it is active (GTK 4's file chooser over its window): the one the
            // display server gives the keyboard focus, when exactly one of them is it.
            None if let Some(w) = self.window_with_the_focus(&shown) => w,
            None => {
                let asked = selector::format(sel);
                return Err(Miss::Resolve(match shown.is_empty() {
                    true => ResolveError::NotFound { selector: asked, candidates: Vec::new() },
                    false => ResolveError::Ambiguous {
                        selector: asked,
                        matches: shown.iter().map(|(a, w)| deft_a11y::window_candidate(a, w)).collect(),
                    },
                }));
            }
        };
        let mut r = Resolved::bare(How::FocusedIn(sel.clone()));
        let tree = self.a11y.snapshot(&Scope::Subtree(window.id.clone()), &SnapshotOptions::default()).await;
        r.element = match tree {
            Ok(tree) => (0..tree.len())
                .find(|&i| tree.nodes[i].element.has(State::Focused))
                .or_else(|| (!tree.is_empty()).then_some(0))
                .map(|i| tree.nodes[i].element.clone()),
            Err(_) => None,
        };
        r.window = Some(window.id.clone());
        self.place(&mut r, &apps);
        Ok(r)
    }

    /// Of `shown` (an application's windows), the one the display server says holds the
    /// keyboard focus, matched by owner and title; `None` when it cannot tell or more than
    /// one could be it.
    fn window_with_the_focus<'a>(
        &self,
        shown: &[(&deft_a11y::AppInfo, &'a deft_a11y::WindowInfo)],
    ) -> Option<&'a deft_a11y::WindowInfo> {
        let locator = crate::executor::lock(self.windows.as_ref()?);
        let focused = locator.focused().ok().flatten()?;
        let geometry =
            locator.windows(&deft_input::WindowQuery::default()).ok()?.into_iter().find(|g| g.id == focused)?;
        let mut matching = shown
            .iter()
            .filter(|(a, w)| w.title == geometry.title && (geometry.pid.is_none() || a.pid == geometry.pid));
        let (_, one) = matching.next()?;
        matching.next().is_none().then_some(*one)
    }

    /// [`Self::find_by_ocr`] within the windows of the application (and window) `sel`
    /// names, as accessibility places them.
    async fn find_by_ocr_in(&self, t: &TextMatch, sel: &Selector) -> Option<Resolved> {
        let m = deft_a11y::selector::Matcher::new(sel).ok()?;
        let apps = self.a11y.applications().await.ok()?;
        let regions: Vec<_> = apps
            .iter()
            .filter(|a| sel.app.is_none() || m.matches_app(&a.name))
            .flat_map(|a| a.windows.iter().map(move |w| (a.pid, w)))
            .filter(|(_, w)| sel.window.is_none() || m.matches_window(&w.title))
            .filter_map(|(pid, w)| Some(self.scale_of(pid, &w.title, w.bounds).rect_to_physical(w.bounds?)))
            .collect();
        let best = regions.into_iter().find_map(|r| self.ocr_region(r, t))?;
        Some(read_on_screen(t, &best))
    }

    /// Text on screen through OCR, when a recogniser and a capturer are configured.
    async fn find_by_ocr(&self, t: &TextMatch) -> Option<Resolved> {
        Some(read_on_screen(t, &self.ocr_screen(t)?))
    }
}

/// The target `t` names, where OCR read it.
fn read_on_screen(t: &TextMatch, hit: &crate::TextHit) -> Resolved {
    Resolved { point: Some(hit.bounds.center()), channel: Channel::Ocr, ..Resolved::bare(How::Text(t.clone())) }
}

/// The text of a selector that names only text and where to look for it (an application,
/// a window): what a person sees there, which OCR may find when accessibility does not.
fn text_in_scope(sel: &Selector) -> Option<&TextMatch> {
    let rest = Selector { app: None, window: None, text: None, ..sel.clone() };
    let scoped = sel.app.is_some() || sel.window.is_some();
    if scoped && rest.is_empty() { sel.text.as_ref() } else { None }
}

#[cfg(test)]
mod tests {
    use deft_types::{Role, Selector, TextMatch};

    use super::text_in_scope;

    #[test]
    fn text_in_an_application_may_be_read_on_screen_and_nothing_narrower() {
        let text = Some(TextMatch::Exact("18".into()));
        let app = Some(TextMatch::Exact("zenity".into()));
        let day = Selector { app: app.clone(), text: text.clone(), ..Selector::default() };
        assert_eq!(text_in_scope(&day), text.as_ref());
        // A role (or a name, an index) asks for an element: OCR finds none of those.
        let cell = Selector { role: Some(Role::new("table_cell")), ..day.clone() };
        assert_eq!(text_in_scope(&cell), None);
        assert_eq!(text_in_scope(&Selector { app, ..Selector::default() }), None);
    }
}
