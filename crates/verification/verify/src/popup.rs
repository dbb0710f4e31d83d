//! A target inside a popup (a menu, a popover, a drop-down list) whose hit test answers
//! with what lies beneath the popup: either the hit test cannot see the popup's stacking,
//! or the toolkit places the popup's contents where the popup is not. The display server
//! tells the two apart: it shows the popup where it really is.
//!
//! The rule (docs/VERIFICATION.md, "Covered, or beneath a popup"): a pointer input aimed
//! by accessibility's geometry is sent into a popup only where the display server shows a
//! popup at that point, and only when the popup it shows there is not the target's popup
//! shown somewhere else. Where it contradicts the toolkit, no pointer input is sent at
//! all (it would land on a neighbour, or close the popup): the method is unavailable for
//! this target, and the chain goes on to one that needs no geometry (the accessibility
//! action). Where it cannot tell (no display server list, as on Wayland today), the rules
//! of the hit test alone decide, as before.

use deft_a11y::Hit;
use deft_capture::CaptureTarget;
use deft_retry::{Report, Symptoms};
use deft_types::{Element, ElementId, Logical, Method, Physical, Point, Rect, State, TextMatch};

use crate::executor::{Executor, lock};
use crate::read::Reading;
use crate::ready::{Check, role_is_popup};
use crate::resolve::Resolved;

/// What the display server says of the popup the target is in, at the point a pointer
/// input would land.
pub(crate) enum OnScreen {
    /// A popup is shown at the point, and the target's popup is not shown elsewhere.
    Shown,
    /// The screen contradicts the toolkit's geometry: why, in plain words.
    Misplaced(String),
    /// No list of popups from the display server.
    CannotTell,
}

impl Executor {
    /// Whether a popup is really shown at `point`, where the target (in a popup) is placed
    /// by accessibility, according to the display server's own list of popups.
    pub(crate) fn popup_on_screen(&self, target: &Resolved, pre: Option<&Reading>, point: Point<Logical>) -> OnScreen {
        let Some(own) = self.own_popups(target) else { return OnScreen::CannotTell };
        let at = target.scale.to_physical(point);
        if !own.iter().any(|b| b.contains(at)) {
            return OnScreen::Misplaced(format!("no popup is shown at ({}, {}) on screen", at.x, at.y));
        }
        // The target's popup as accessibility places it, against a popup of the same size
        // shown elsewhere: GTK 4 reports a popover at its button's corner.
        let container = pre.and_then(|p| {
            let id = target.id()?;
            p.snap.ancestors(id).map(|n| n.element()).find(|e| holds_popup(e.role.as_str())).and_then(|e| e.bounds)
        });
        if let Some(said) = container.map(|b| target.scale.rect_to_physical(b)) {
            let same_size: Vec<&Rect<_>> = own.iter().filter(|b| b.w == said.w && b.h == said.h).collect();
            if let Some(shown) = same_size.first().filter(|_| !same_size.iter().any(|b| b.x == said.x && b.y == said.y))
            {
                return OnScreen::Misplaced(format!(
                    "its popup ({}x{}) is shown at ({}, {}) on screen, not at ({}, {})",
                    said.w, said.h, shown.x, shown.y, said.x, said.y
                ));
            }
        }
        OnScreen::Shown
    }
}

impl Executor {
    /// The part of an entry's `bounds` that a popup the display server shows holds, when the
    /// toolkit reports the entry reaching out past it: Qt gives a combo box's drop-down items
    /// the width of the window (753 px), and their centre, where a click is aimed, lies
    /// outside the list, over the dialog beneath ("dialog covers list_item", exit 5). Only an
    /// entry's (a list's, a menu's), only where exactly one popup holds its start and none
    /// its centre, and only a part wide enough to aim at; `None` otherwise.
    pub(crate) fn shown_part(&self, target: &Resolved, e: &Element) -> Option<Rect<Logical>> {
        let entry = is_menu_item(e.role.as_str()) || matches!(e.role.as_str(), "list_item" | "option");
        let bounds = e.bounds.filter(|b| entry && !b.is_empty())?;
        let part = part_shown(&self.own_popups(target)?, target.scale.rect_to_physical(bounds))?;
        Some(target.scale.rect_to_logical(part))
    }

    /// Where to click entry `e` of a popup so that the click lands in the popup the display
    /// server shows: its centre when a popup holds it, else the centre of its part that one
    /// holds (see [`Executor::shown_part`]); `None` when neither (or without the server's list).
    pub(crate) fn point_in_popup(&self, target: &Resolved, e: &Element) -> Option<Point<Physical>> {
        let own = self.own_popups(target)?;
        let b = target.scale.rect_to_physical(e.bounds?);
        if own.iter().any(|p| p.contains(b.center())) {
            return Some(b.center());
        }
        Some(part_shown(&own, b)?.center())
    }

    /// Where the display server shows popups that may be the target's application's (those
    /// that do not name their process may be), or `None` without its list.
    fn own_popups(&self, target: &Resolved) -> Option<Vec<Rect<Physical>>> {
        let popups = lock(self.windows.as_ref()?).popups().ok()?;
        let own = |w: &&deft_input::WindowGeometry| w.pid.is_none() || target.pid.is_none() || w.pid == target.pid;
        Some(popups.iter().filter(own).map(|w| w.bounds).collect())
    }

    /// Whether `e`, an entry of a menu that its toolkit does not say is showing, is shown
    /// all the same: `visible`, at a place where the display server shows a popup of its
    /// application. GTK 2 never says `showing` for a menu's entries, open or closed (every
    /// entry of gtk-demo's and GIMP's open menus was refused "not shown"), and a closed
    /// menu's entries keep their last place, where no popup is shown any more. Without the
    /// display server's list of popups, not shown.
    pub(crate) fn shown_in_popup(&self, target: &Resolved, e: &Element) -> bool {
        let Some(b) = e.bounds.filter(|b| !b.is_empty()) else { return false };
        if e.has(State::Showing) || !e.has(State::Visible) || !is_menu_item(e.role.as_str()) {
            return false;
        }
        let at = target.scale.to_physical(b.center());
        self.own_popups(target).is_some_and(|own| own.iter().any(|p| p.contains(at)))
    }

    /// A pointer input on an entry of a popup drawn inside its application's own window
    /// (Swing's lightweight popups: no popup window of the display server to check its
    /// place against), or of any popup where the display server lists none (Wayland),
    /// checked against the screen: the entry's text is read (OCR) around
    /// the place accessibility gives it. Read elsewhere there and not at the point, the
    /// toolkit places the entry wrong (Swing and jEdit report a menu's entries a row above
    /// where they are drawn: "Save" clicked "Open", verified by the menu closing), and the
    /// input is refused as unavailable for this target, nothing sent. `None`: go on (the
    /// text is read at the point, it is not read at all, or the screen cannot be read).
    pub(crate) async fn entry_misplaced(&self, target: Option<&Resolved>, method: Method) -> Option<Report> {
        let t = target?;
        let e = t.element.as_ref()?;
        let name = e.name.trim().to_string();
        if !is_menu_item(e.role.as_str()) || name.is_empty() || !method.is_pointer() {
            return None;
        }
        let at = self.pointer_point(target, method).ok()?;
        // In a popup window the display server shows at the point, the popup's place was
        // checked against it (`popup_on_screen`). Where the display server lists no popups
        // (Wayland: every place there is derived from a window's origin, which a toolkit's
        // own decorations can shift: Qt's menus on GNOME were placed 14 px high and "Select
        // All" clicked the entry above), the screen is read as for a lightweight popup.
        if self.own_popups(t).is_some_and(|own| own.iter().any(|p| p.contains(at))) {
            return None;
        }
        let b = t.scale.rect_to_physical(e.bounds?);
        let rows = i32::try_from(b.h).ok()?;
        let region = Rect::new(b.x.saturating_sub(8), b.y.saturating_sub(3 * rows).max(0), b.w + 16, b.h * 7);
        let frame = lock(self.capture.as_ref()?).capture(&CaptureTarget::Region(region)).ok()?;
        let ocr = std::sync::Arc::clone(self.ocr.as_ref()?);
        let wanted = TextMatch::Exact(name.clone());
        let hits = tokio::task::spawn_blocking(move || ocr.find(&frame, &wanted)).await.ok()?.ok()?;
        let hits: Vec<_> = hits.into_iter().filter(|h| h.text.trim().eq_ignore_ascii_case(&name)).collect();
        let spans = |h: &crate::TextHit| h.bounds.y <= at.y && at.y < h.bounds.y.saturating_add(h.bounds.h as i32);
        if hits.is_empty() || hits.iter().any(spans) {
            return None;
        }
        let shown = hits[0].bounds.center();
        let message = format!(
            "the screen shows {name:?} at ({}, {}), not at ({}, {}) where its toolkit places {}: a pointer input there \
             would land on a neighbour, so none was sent",
            shown.x,
            shown.y,
            at.x,
            at.y,
            e.describe()
        );
        Some(Report::Refused(Symptoms { method_unavailable: true, ..Symptoms::new(message) }))
    }
}

/// The refusal of a pointer input aimed by geometry the screen contradicts: nothing sent,
/// and the method unavailable for this target, so the chain goes on to one that needs no
/// geometry.
pub(crate) fn misplaced(name: &str, hit: &Hit, why: String) -> Check {
    let message = format!(
        "{name} is placed by its toolkit where it is not shown ({why}); a pointer input there would land on {} \
         {:?}, so none was sent",
        hit.element.role, hit.element.name
    );
    Check::Fail(Symptoms { method_unavailable: true, ..Symptoms::new(message) })
}

/// Roles of the element that holds a popup's contents (its whole surface).
fn holds_popup(role: &str) -> bool {
    (role_is_popup(role) && !matches!(role, "frame" | "combo_box")) || deft_types::Role::new(role).is_dialog_like()
}

/// Whether `hit` is what lies beneath the target's popup menu. A popup menu is above every
/// other window by construction (override-redirect), and the hit test, which cannot see
/// stacking, may answer with what is beneath it: another window (GTK 3 lists its popups as
/// windows of their own), or, for a toolkit that lists its menus inside the main window
/// (LibreOffice), an element of that window that is no part of a menu (its document).
/// The display server has the last word ([`Executor::popup_on_screen`]).
/// A submenu's title inside its parent menu (role `menu`, as a menu bar's titles are) is an
/// entry of that popup too: gnumeric's Edit > Sheet, taken as covered by the sheet tabs
/// beneath it.
pub(crate) fn beneath_popup(target: &Resolved, hit: &Hit, pre: Option<&Reading>) -> bool {
    let in_menu = || target.id().zip(pre).is_some_and(|(id, pre)| entry_of_menu(pre, id));
    let menu_item = target.element.as_ref().is_some_and(|e| is_menu_item(e.role.as_str())) || in_menu();
    let menuish = |role: &str| is_menu_item(role) || matches!(role, "menu" | "menu_bar" | "popup_menu");
    (hit.chain.first() != target.window.as_ref() && in_popup(target))
        || (menu_item && !menuish(hit.element.role.as_str()))
}

/// Whether `id` lies in a menu (its nearest ancestor of a menu's roles is a menu, not a menu
/// bar): a submenu's title inside its parent menu, not a menu bar's title.
fn entry_of_menu(pre: &Reading, id: &ElementId) -> bool {
    let holder = pre
        .snap
        .ancestors(id)
        .map(|n| n.element().role.as_str())
        .find(|r| matches!(*r, "menu" | "popup_menu" | "menu_bar"));
    matches!(holder, Some("menu" | "popup_menu"))
}

/// The part of `b` (an entry's bounds) that one of the popups `own` holds, when none holds
/// its centre, exactly one holds its start, and the part is wide enough to aim at.
fn part_shown(own: &[Rect<Physical>], b: Rect<Physical>) -> Option<Rect<Physical>> {
    if own.iter().any(|p| p.contains(b.center())) {
        return None;
    }
    let start = Point::new(b.x.saturating_add((b.w / 5).clamp(1, 12) as i32), b.center().y);
    let mut holding = own.iter().filter(|p| p.contains(start));
    let popup = holding.next().filter(|_| holding.next().is_none())?;
    b.intersection(popup).filter(|r| r.w >= 8 && r.h >= 4)
}

/// Roles of the entries of an open menu (a menu bar's titles are `menu`).
pub(crate) fn is_menu_item(role: &str) -> bool {
    matches!(role, "menu_item" | "check_menu_item" | "radio_menu_item" | "tearoff_menu_item")
}

/// Whether the target is in a popup window (a menu), which is drawn above every other.
fn in_popup(target: &Resolved) -> bool {
    let popup_window =
        target.window_role.as_ref().is_some_and(|r| matches!(r.as_str(), "window" | "menu" | "popup_menu"));
    let menu_item = target
        .element
        .as_ref()
        .is_some_and(|e| matches!(e.role.as_str(), "menu_item" | "check_menu_item" | "radio_menu_item" | "menu"));
    popup_window && menu_item
}

/// The surface inside the target's window that holds it and says `modal`, and is shown
/// (GTK 3's popovers: a `panel` over the window's content), if any. The window itself is
/// not one: a dialog says modal too.
pub(crate) fn modal_surface<'a>(pre: &'a Reading, target: &ElementId) -> Option<&'a Element> {
    let chain: Vec<&Element> =
        pre.snap.ancestors(target).map(|n| n.element()).filter(|e| e.role.as_str() != "application").collect();
    let (_, inside) = chain.split_last()?;
    inside.iter().copied().find(|e| e.has(State::Modal) && e.has(State::Showing))
}
