//! Actionability: before an input, wait (bounded) until the target is present, shown,
//! enabled, stable, and receives events at the point where the input will land.

use std::time::{Duration, Instant};

use deft_a11y::{A11yError, Accessibility, AppInfo, Hit, Scope, SnapshotOptions};
use deft_retry::Symptoms;
use deft_types::{Blocking, Element, ElementId, ErrorClass, Logical, Method, Point, Rect, State};

use crate::executor::Executor;
use crate::in_view::{InView, in_view};
use crate::popup::{OnScreen, beneath_popup, misplaced};
use crate::read::Reading;
use crate::resolve::Resolved;

/// Bounds must stay the same across two reads at least this far apart (one frame).
const FRAME: Duration = Duration::from_millis(16);

/// Why a target is not actionable yet: what the executor may do about it (scroll it into
/// view, raise its window) or how long waiting is worth it (a disabled control with
/// nothing at work around it will not enable itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Waiting {
    /// Not shown (maybe scrolled out of view).
    Hidden,
    /// Shown but with no bounds on screen.
    OffScreen,
    /// Its place lies outside what a container scrolling it shows (scrolled out of view),
    /// though its toolkit calls it showing.
    ScrolledOut,
    /// Its window is minimised: input would go elsewhere (or nowhere), whatever its
    /// accessible states still say.
    Minimized,
    /// Not enabled.
    Disabled,
    /// Its bounds are still changing.
    Moving,
    /// Another application's window covers it at the point the input would land.
    CoveredByOtherApp,
    /// Something of its own application covers it.
    Covered,
    /// It cannot be read right now.
    Unreadable,
}

/// One actionability check.
pub(crate) enum Check {
    /// Act now.
    Ready,
    /// Not yet, for this reason; the symptoms tell what to report if it never gets ready.
    /// `retry_at`: when checking again makes sense (the stability rule waits exactly one
    /// frame); `None`: at the next accessibility event or poll.
    NotYet(Waiting, String, Symptoms, Option<Instant>),
    /// Waiting will not help (the target vanished, a modal popup covers it).
    Fail(Symptoms),
}

/// Where a pointer input lands on `bounds` for `method`: the centre, or a few pixels inside
/// the bounds off centre for an offset click.
pub(crate) fn aim(bounds: Rect<Logical>, method: Method) -> Point<Logical> {
    match method {
        Method::OffsetClick => {
            let dx = (bounds.w / 5).clamp(1, 12);
            Point::new(bounds.x.saturating_add(dx as i32), bounds.center().y)
        }
        _ => bounds.center(),
    }
}

/// Whether a method sends input that the app's focus and modality decide on (pointer and
/// keys), as opposed to an accessibility call, which reaches the element directly.
fn needs_events(method: Method) -> bool {
    method.is_pointer() || matches!(method, Method::Keystrokes | Method::FocusSelectAllKeystrokes)
}

/// The stability rule's memory: the bounds last read and since when they have not changed,
/// and the last hit test and modal check (reused for the one more look at the element that
/// the rule asks for a frame later, when they were made at the same point).
pub(crate) struct Stability {
    since: Option<(Instant, Rect<Logical>)>,
    last: Option<Looked>,
}

/// A hit test and modal check made at `point` at `at`.
struct Looked {
    at: Instant,
    point: Option<Point<Logical>>,
    modal: Option<Blocking>,
    hit: Option<HitResult>,
    /// The title of the target's window if it is minimised (asked only for input events).
    minimized: Option<String>,
}

/// How long a hit test and modal check stay good for reuse.
const REUSE: Duration = Duration::from_millis(100);

impl Stability {
    /// Starts from the read that found the target, so a target found a frame ago needs one
    /// more read, not two.
    pub fn from(target: &Resolved) -> Stability {
        let since = target.element.as_ref().and_then(|e| e.bounds).map(|b| (target.read_at, b));
        Stability { since, last: None }
    }

    /// Takes in bounds read now: `Ok` once they have been the same for a frame, else when
    /// to read again.
    fn settle(&mut self, bounds: Rect<Logical>, now: Instant) -> Result<(), Instant> {
        match self.since {
            Some((at, b)) if b == bounds && now.duration_since(at) >= FRAME => Ok(()),
            Some((at, b)) if b == bounds => Err(at + FRAME),
            _ => {
                self.since = Some((now, bounds));
                Err(now + FRAME)
            }
        }
    }

    fn bounds(&self) -> Option<Rect<Logical>> {
        self.since.map(|(_, b)| b)
    }
}

/// A hit test's answer.
type HitResult = Result<Option<Hit>, A11yError>;

/// The results of one concurrent round of actionability reads.
struct Round {
    element: Result<Element, A11yError>,
    modal: Option<Blocking>,
    hit: Option<(Point<Logical>, HitResult)>,
    minimized: Option<String>,
}

impl Executor {
    /// Checks once whether `target` is actionable for `method`, refreshing its element.
    /// The reads it needs (the element, the modal check, the hit test, and `pre`, the state
    /// snapshot to compare with after the input) run concurrently: one round trip's time.
    pub(crate) async fn check_actionable(
        &self,
        target: &mut Resolved,
        method: Method,
        st: &mut Stability,
        pre: Option<&Scope>,
        known: Option<&Reading>,
    ) -> (Check, Option<Result<Reading, A11yError>>) {
        let read_pre = async {
            match pre {
                Some(scope) => Some(self.read(scope).await),
                None => None,
            }
        };
        let Some(id) = target.id().cloned().filter(|_| method != Method::KeyChord) else {
            // Raw coordinates and OCR text: nothing to check but the point itself. A key chord
            // goes wherever the keyboard focus is: the focused element is only where its
            // effect is watched, and one that says it is not shown (qmmp's list item of a
            // closed dock) does not stop the keys. Its window, though, must be shown: keys
            // for a window that is minimised or under the desktop's overview would go to
            // the overview's search. It is restored before the state the effect is judged
            // against is read, so that its coming back is not taken for the keys' effect.
            if method == Method::KeyChord
                && let Some(w) = self.minimized_window(target)
            {
                let s = Symptoms {
                    not_found: true,
                    ..Symptoms::new(format!(
                        "the keys are for window {:?}, which is not shown (minimised, or under the desktop's \
                         overview)",
                        w.title
                    ))
                };
                return (Check::NotYet(Waiting::Minimized, "its window is minimised or covered".into(), s, None), None);
            }
            return (Check::Ready, read_pre.await);
        };
        let aimed = if method.is_pointer() { st.bounds().map(|b| aim(b, method)) } else { None };
        let reuse = st.last.take().filter(|l| l.at.elapsed() < REUSE && l.point == aimed);
        let look = reuse.is_none();
        let (element, modal, hit, pre) = tokio::join!(
            self.a11y.element(&id),
            async {
                match needs_events(method) && look {
                    true => self.modal_over(target).await,
                    false => None,
                }
            },
            async {
                match aimed {
                    Some(p) if look => Some(self.a11y.hit_test(p).await),
                    _ => None,
                }
            },
            read_pre,
        );
        // One window list from the display server: toolkits keep calling the elements of a
        // minimised window shown, at their old place, and input sent there is lost.
        let minimized =
            if needs_events(method) && look { self.minimized_window(target).map(|w| w.title) } else { None };
        let looked = reuse.unwrap_or(Looked { at: Instant::now(), point: aimed, modal, hit, minimized });
        let round = Round {
            element,
            modal: looked.modal.clone(),
            hit: looked.point.zip(looked.hit.clone()),
            minimized: looked.minimized.clone(),
        };
        st.last = Some(looked);
        let latest = pre.as_ref().and_then(|r| r.as_ref().ok()).or(known);
        let check = self.judge_actionable(target, &id, method, st, round, latest).await;
        (check, pre)
    }

    async fn judge_actionable(
        &self,
        target: &mut Resolved,
        id: &ElementId,
        method: Method,
        st: &mut Stability,
        round: Round,
        pre: Option<&Reading>,
    ) -> Check {
        let element = match round.element {
            Ok(e) => e,
            Err(A11yError::Stale { .. }) => {
                let s = Symptoms { target_vanished: true, ..Symptoms::new(format!("{} vanished", target.describe())) };
                return Check::Fail(s);
            }
            Err(e) if e.class() == ErrorClass::Transient => {
                let s = Symptoms { backend_error: true, ..Symptoms::new(e.to_string()) };
                return Check::NotYet(Waiting::Unreadable, format!("cannot read it ({e})"), s, None);
            }
            Err(e) => return Check::Fail(Symptoms { not_found: true, ..Symptoms::new(e.to_string()) }),
        };
        let mut element = element;
        if method.is_pointer()
            && let Some(part) = self.shown_part(target, &element)
        {
            element.bounds = Some(part);
        }
        if method.is_pointer()
            && let (Some(pre), Some(bounds)) = (pre, element.bounds)
        {
            match in_view(&pre.snap, id, bounds) {
                InView::Whole => {}
                InView::Part(part) => element.bounds = Some(part),
                InView::Out(container) => return scrolled_out(&element, &container),
            }
        }
        let name = element.describe();
        target.element = Some(element.clone());
        if let Some(title) = round.minimized {
            let s = Symptoms {
                not_found: true,
                ..Symptoms::new(format!(
                    "{name} is in window {title:?}, which is not shown (minimised, or under the desktop's overview)"
                ))
            };
            return Check::NotYet(Waiting::Minimized, "its window is minimised or covered".into(), s, None);
        }
        if !element.has(State::Showing) && !self.shown_in_popup(target, &element) {
            let why = match (pre.and_then(|p| on_hidden_page(p, id)), pre.and_then(|p| in_closed_menu(p, id))) {
                // Another page is shown, and stays so until someone selects this one: waiting
                // is no use.
                (Some(tab), _) => {
                    let why = format!(
                        "{name} is not shown: it is on the page {tab:?} of its tabs, which is not the page shown; \
                         select that page first (click page_tab {tab:?})"
                    );
                    return Check::Fail(Symptoms { not_found: true, ..Symptoms::new(why) });
                }
                (None, Some(menu)) => format!(
                    "{name} is not shown: it is an entry of the menu {menu:?}, which is not open; open it first \
                     (click menu {menu:?})"
                ),
                (None, None) => format!("{name} is not shown"),
            };
            let s = Symptoms { not_found: true, ..Symptoms::new(why) };
            return Check::NotYet(Waiting::Hidden, "not shown".into(), s, None);
        }
        if !element.has(State::Enabled) {
            let s = Symptoms { not_enabled: true, ..Symptoms::new(format!("{name} is not enabled")) };
            return Check::NotYet(Waiting::Disabled, "not enabled".into(), s, None);
        }
        if let Some(b) = round.modal {
            let message = format!("{} {:?} is open over {name}", b.role, b.name);
            return Check::Fail(Symptoms { dialog_appeared: true, blocking: Some(b), ..Symptoms::new(message) });
        }
        if !method.is_pointer() {
            return Check::Ready;
        }
        let Some(bounds) = element.bounds.filter(|b| !b.is_empty() && on_screen(b)) else {
            if element.bounds.is_none()
                && let Some(title) = self.unplaced_window(target).await
            {
                let message = format!(
                    "{name} is in window {title:?}, whose place on screen cannot be found (the toolkit gives \
                     positions relative to its window, and the display server does not tell where that window is \
                     shown now): a pointer input aimed there could land on anything, so none was sent"
                );
                return Check::Fail(Symptoms { method_unavailable: true, ..Symptoms::new(message) });
            }
            let s = Symptoms { not_found: true, ..Symptoms::new(format!("{name} has no bounds on screen")) };
            return Check::NotYet(Waiting::OffScreen, "not on screen".into(), s, None);
        };
        let unstable = |again: Instant| {
            let s = Symptoms { target_moved: true, ..Symptoms::new(format!("{name} kept moving")) };
            Check::NotYet(Waiting::Moving, "checking that it is stable".into(), s, Some(again))
        };
        if let Err(again) = st.settle(bounds, Instant::now()) {
            return unstable(again);
        }
        let point = aim(bounds, method);
        let check = match round.hit {
            // The hit test ran at other bounds than these: test again at these.
            None => unstable(Instant::now()),
            Some((at, _)) if at != point => unstable(Instant::now()),
            Some((_, Ok(Some(hit)))) if hit.is_within(id) => Check::Ready,
            Some((_, Ok(Some(hit)))) if same_again(&element, &hit.element) => Check::Ready,
            Some((_, Ok(Some(hit)))) if beneath_popup(target, &hit, pre) => {
                match self.popup_on_screen(target, pre, point) {
                    OnScreen::Misplaced(why) => misplaced(&name, &hit, why),
                    OnScreen::Shown | OnScreen::CannotTell => Check::Ready,
                }
            }
            Some((_, Ok(Some(hit)))) if beneath_modal_surface(pre, id, &hit, point) => Check::Ready,
            Some((_, Ok(Some(hit)))) => match holds_target(pre, id, &hit, point) {
                Held::Yes => Check::Ready,
                Held::OutsidePopup => match self.popup_on_screen(target, pre, point) {
                    OnScreen::Misplaced(why) => misplaced(&name, &hit, why),
                    OnScreen::Shown => Check::Ready,
                    OnScreen::CannotTell => self.covered(target, &name, point, &hit).await,
                },
                Held::No => self.covered(target, &name, point, &hit).await,
            },
            // Nothing accessible at the point, or the hit test failed: it cannot tell, and
            // refusing to act on that would make unhittable toolkits unusable.
            Some((_, Ok(None) | Err(_))) => Check::Ready,
        };
        // The hit test sees only accessible windows: one of another application without
        // accessibility (a terminal) may lie over the target there all the same.
        match check {
            Check::Ready => match self.other_window_on_top(target, point) {
                // Raising the target's window lifts it over another managed window, never
                // over a popup: then no pointer input can reach the target, and the chain
                // goes on to a method that needs none.
                Some(c) if c.popup => {
                    let message = format!(
                        "a popup of another application ({:?}) lies over {name} at ({}, {}): a pointer input there \
                         would land on it, so none was sent",
                        c.window.title, point.x, point.y
                    );
                    Check::Fail(Symptoms { method_unavailable: true, ..Symptoms::new(message) })
                }
                Some(c) => {
                    let title = c.window.title;
                    let what =
                        format!("window {title:?} of another application covers {name} at ({}, {})", point.x, point.y);
                    let blocking = Blocking { role: deft_types::Role::new("frame"), name: title, texts: Vec::new() };
                    let s =
                        Symptoms { hit_other_element: true, blocking: Some(blocking), ..Symptoms::new(what.clone()) };
                    Check::NotYet(Waiting::CoveredByOtherApp, what, s, None)
                }
                None => Check::Ready,
            },
            other => other,
        }
    }

    /// The element `hit` at `point` is no part of the target (nor beneath a popup it is
    /// in): what covers the target there, and whether waiting may help.
    async fn covered(&self, target: &Resolved, name: &str, point: Point<Logical>, hit: &Hit) -> Check {
        let covering_window = hit.chain.first().cloned();
        let other_window = covering_window.is_some() && covering_window != target.window;
        let other_app = covering_window.as_ref().zip(target.app.as_ref()).is_some_and(|(w, a)| bus_of(w) != bus_of(a));
        let blocking = match (&covering_window, other_window) {
            (Some(w), true) => self.blocking_window(w).await,
            _ => None,
        }
        .unwrap_or_else(|| Blocking {
            role: hit.element.role.clone(),
            name: hit.element.name.clone(),
            texts: Vec::new(),
        });
        let what = format!("{} {:?} covers {name} at ({}, {})", blocking.role, blocking.name, point.x, point.y);
        let s = Symptoms {
            hit_other_element: true,
            dialog_appeared: other_window && blocking.role.is_dialog_like(),
            blocking: Some(blocking),
            ..Symptoms::new(what.clone())
        };
        let why = if other_app { Waiting::CoveredByOtherApp } else { Waiting::Covered };
        if s.dialog_appeared && !other_app { Check::Fail(s) } else { Check::NotYet(why, what, s, None) }
    }

    /// A modal dialog of the target's application, other than the target's own window,
    /// that would swallow pointer and key input meant for the target.
    async fn modal_over(&self, target: &Resolved) -> Option<Blocking> {
        let app = target.app.as_ref()?;
        let apps = self.a11y.applications().await.ok()?;
        let owner = apps.iter().find(|a| &a.id == app)?;
        // Modality nests: a dialog opened from a modal window may stand over it. A window
        // neither modal nor a dialog (the main one) is always beneath.
        let own = owner
            .windows
            .iter()
            .find(|w| Some(&w.id) == target.window.as_ref())
            .filter(|w| w.states.contains(&State::Modal) || w.role.is_dialog_like());
        let modal = owner.windows.iter().find(|w| {
            Some(&w.id) != target.window.as_ref()
                && w.states.contains(&State::Modal)
                && w.states.contains(&State::Showing)
                && !own.is_some_and(|own| self.stands_over(owner.pid, own, w))
        })?;
        Some(self.blocking_of(modal.id.clone(), &modal.role, &modal.title).await)
    }

    /// The title of the target's window when that window is shown but has no bounds: the
    /// accessibility backend found no single place for it on screen (its toolkit gives
    /// window-relative positions, and no window, or more than one, of the display server's
    /// list matches it).
    async fn unplaced_window(&self, target: &Resolved) -> Option<String> {
        let window = self.a11y.element(target.window.as_ref()?).await.ok()?;
        (window.has(State::Showing) && window.bounds.is_none()).then_some(window.name)
    }

    /// The window `id` as a blocking element, looked up in the application list.
    pub(crate) async fn blocking_window(&self, id: &ElementId) -> Option<Blocking> {
        let apps: Vec<AppInfo> = self.a11y.applications().await.ok()?;
        let w = apps.iter().flat_map(|a| a.windows.iter()).find(|w| &w.id == id)?;
        Some(self.blocking_of(w.id.clone(), &w.role, &w.title).await)
    }

    /// A popup window as a [`Blocking`]: its role, title, and the texts it shows (so a
    /// caller can decide how to dismiss it).
    pub(crate) async fn blocking_of(&self, id: ElementId, role: &deft_types::Role, title: &str) -> Blocking {
        let texts = match self.a11y.snapshot(&Scope::Subtree(id), &SnapshotOptions::default()).await {
            Ok(tree) => popup_texts(tree.nodes.iter(), title),
            Err(_) => Vec::new(),
        };
        Blocking { role: role.clone(), name: title.to_string(), texts }
    }
}

/// The texts a popup shows, its title aside: labels first, then buttons, at most a few.
pub(crate) fn popup_texts<'a>(nodes: impl Iterator<Item = &'a deft_a11y::Node>, title: &str) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    for n in nodes {
        let e = &n.element;
        let text = e.visible_text().trim();
        let shown = e.has(State::Showing) && !(n.window.is_some() && n.path.is_empty());
        if shown && !text.is_empty() && text != title && !texts.iter().any(|t| t == text) {
            texts.push(text.to_string());
        }
        if texts.len() == 6 {
            break;
        }
    }
    texts
}

/// Whether the element hit is one of the target's own containers, in `pre` (the read of
/// the state before the input), with no popup between the two. A toolkit whose hit test
/// stops at a container (Swing's root pane, GIMP's and LibreOffice's panels) answers with
/// what holds the target, and what holds a control is drawn beneath it, never over it:
/// refusing there ("covered by root_pane") made the control unusable. A popup between
/// them is different ([`Held::OutsidePopup`]): either the hit test cannot see the popup
/// over what it answers with, or the point lies outside the popup the target is in (GTK 4
/// misplaces a popover's items), where a click would close it or hit a neighbour; the
/// display server tells which (`popup.rs`). A container between them whose bounds leave
/// out the point is no holder: the target is clipped there (scrolled out of a viewport),
/// and the click would land on nothing of it.
fn holds_target(pre: Option<&Reading>, target: &ElementId, hit: &Hit, point: Point<Logical>) -> Held {
    let popup = |role: &str| role_is_popup(role) || deft_types::Role::new(role).is_dialog_like();
    let Some(pre) = pre else { return Held::No };
    let mut in_popup = false;
    for node in pre.snap.ancestors(target) {
        let e = node.element();
        // A tab's extents are its title, not the page it holds (GTK: Geany's editor, in a
        // notebook page, was "covered by page_tab_list" for the title's place).
        // Nor are a combo box's: its drop-down list lies outside it (Qt lists the list
        // under the combo box), and the hit test beneath that list answers with the window.
        let bounds_its_content = !matches!(e.role.as_str(), "page_tab" | "combo_box");
        if !in_popup && bounds_its_content && e.bounds.is_some_and(|b| !b.contains(point)) {
            return Held::No;
        }
        if e.id == hit.element.id {
            return if in_popup { Held::OutsidePopup } else { Held::Yes };
        }
        in_popup |= popup(e.role.as_str());
    }
    Held::No
}

/// Whether the element hit lies beneath a modal surface inside the target's window that
/// holds the target at `point`. GTK 3 lists a popover (a `panel` that says `modal`) among
/// its window's children after the content it is drawn over, and its hit test walks them in
/// order: it answered with the document beneath evince's menu, and every entry of the menu
/// was refused as covered. A modal surface takes the input over everything else in its
/// window: that is what modal means. A window that says modal is not this (what covers it
/// is another window's matter, for the display server).
fn beneath_modal_surface(pre: Option<&Reading>, target: &ElementId, hit: &Hit, point: Point<Logical>) -> bool {
    let Some(pre) = pre else { return false };
    let window = pre.snap.ancestors(target).map(|n| n.element()).filter(|e| e.role.as_str() != "application").last();
    crate::popup::modal_surface(pre, target).is_some_and(|m| {
        m.bounds.is_some_and(|b| b.contains(point))
            && !hit.is_within(&m.id)
            && window.is_some_and(|w| hit.is_within(&w.id))
    })
}

/// The name of the tab page that holds `target` when that page is not the one shown (GTK's
/// notebooks hold a page's contents under its `page_tab`): a check box on another page of
/// GIMP's Preferences waited 10 s and was "not shown", with nothing said of the page.
fn on_hidden_page(pre: &Reading, target: &ElementId) -> Option<String> {
    let node = pre.snap.ancestors(target).find(|n| n.element().role.as_str() == "page_tab")?;
    let page = node.element();
    // The tab itself shows (its title is there to click): whether its page does is said by
    // which tab of the list is selected.
    let list = pre.snap.node(node.parent()?)?;
    let another_selected = list
        .children()
        .iter()
        .filter_map(|c| pre.snap.get(c))
        .any(|e| e.id != page.id && e.role.as_str() == "page_tab" && e.has(State::Selected));
    (another_selected && !page.has(State::Selected) && !page.name.trim().is_empty()).then(|| page.name.clone())
}

/// The name of the menu that holds `target`, a menu entry, when that menu is not open (its
/// entries not shown): Geany's "Show Line Numbers" waited 10 s, "not shown", nothing said
/// of the View menu it is in.
fn in_closed_menu(pre: &Reading, target: &ElementId) -> Option<String> {
    let entry = pre.snap.get(target)?;
    if !crate::popup::is_menu_item(entry.role.as_str()) {
        return None;
    }
    let menu = pre.snap.ancestors(target).map(|n| n.element()).find(|e| e.role.as_str() == "menu")?;
    let open = menu.has(State::Expanded) || menu.has(State::Selected);
    (!open && !menu.name.trim().is_empty()).then(|| menu.name.clone())
}

/// A target its scrolling `container` does not show: scrolled into view first; where that
/// cannot be done, no pointer input is sent (it would land on what the screen shows there
/// instead), and the chain goes on to a method that needs no place on screen.
fn scrolled_out(element: &Element, container: &Element) -> Check {
    let message = format!(
        "{} is scrolled out of view (outside the part of {} shown), and neither accessibility nor the wheel \
         brought it into view: a pointer input aimed there would land on something else, so none was sent",
        element.describe(),
        container.describe()
    );
    let s = Symptoms { method_unavailable: true, ..Symptoms::new(message) };
    Check::NotYet(Waiting::ScrolledOut, "scrolled out of view".into(), s, None)
}

/// What [`holds_target`] found between the target and the element hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Held {
    /// The element hit holds the target.
    Yes,
    /// It holds the popup the target is in: the hit test answers beneath the popup.
    OutsidePopup,
    /// It is no container of the target's (or the point lies outside one between them).
    No,
}

/// Roles of what pops up over its own window's content: a menu, a list dropped down from a
/// combo box, a tooltip, a window of its own.
pub(crate) fn role_is_popup(role: &str) -> bool {
    matches!(role, "menu" | "popup_menu" | "combo_box" | "tool_tip" | "tooltip" | "window" | "frame")
}

/// Whether the element hit is the target handed out again as a new object: same
/// application, role, name and bounds. LibreOffice Calc creates a new accessible object for
/// a cell each time it is asked, so the hit test never returns the object that was found.
fn same_again(target: &Element, hit: &Element) -> bool {
    hit.id != target.id
        && bus_of(&hit.id) == bus_of(&target.id)
        && hit.role == target.role
        && !target.name.trim().is_empty()
        && hit.name == target.name
        && hit.bounds.is_some()
        && hit.bounds == target.bounds
}

/// The application part of an element id (AT-SPI: the bus name before `|`).
pub(crate) fn bus_of(id: &ElementId) -> &str {
    id.0.split_once('|').map_or(id.0.as_str(), |(bus, _)| bus)
}

/// Bounds that toolkits use for "nowhere" (GTK reports hidden menus at i32::MIN) are not on
/// screen; anything else is left to the hit test.
fn on_screen(b: &Rect<Logical>) -> bool {
    const FAR: i64 = 1 << 20;
    i64::from(b.x).abs() < FAR && i64::from(b.y).abs() < FAR && i64::from(b.w) < FAR && i64::from(b.h) < FAR
}
