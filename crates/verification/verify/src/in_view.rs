//! Where a target is shown inside the containers that scroll it: wholly, in part, or not
//! at all (scrolled out of view). A toolkit may go on calling such a target showing and
//! give it its place in the scrolled content (Qt: a settings page's button 900 px below
//! its window's bottom edge), and a pointer input aimed there lands on whatever the screen
//! shows there instead, or nowhere. One rule for every toolkit: what a scrolling ancestor's
//! own bounds leave out is not shown.

use deft_snapshot::Snapshot;
use deft_types::{Element, ElementId, Logical, Rect};

/// Roles of the containers a wheel scrolls, whose bounds are the part of their content
/// shown.
pub(crate) const SCROLLERS: [&str; 9] =
    ["scroll_pane", "viewport", "document_web", "document_frame", "list", "list_box", "tree", "table", "tree_table"];

/// The shown part worth aiming at, in pixels each way (or all of the target, where it is
/// smaller): less is an edge, where a click lands on the container's border or nothing of
/// the target (dconf-editor's False, 4 px of it shown at the bottom of its view: the click
/// there did nothing, and the accessibility action after it turned the key to True).
const MIN_PART: u32 = 16;

/// How much of a target its scrolling containers show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum InView {
    /// All of it (or nothing scrolls it).
    Whole,
    /// Only this part: aimed at, rather than scrolled.
    Part(Rect<Logical>),
    /// None of it (or too thin a sliver to aim at): this container scrolled it out of view.
    Out(Element),
}

/// How much of `bounds`, the place of `id`, the containers around it show, innermost
/// first (a pane in a pane clips twice), up to its window or the popup it is in (whose
/// shown part the display server tells: `popup.rs`).
///
/// In a web page only the containers that say they scroll clip: a page's boxes let their
/// content overflow, drawn where it is. Elsewhere any container does, whatever its role: a
/// toolkit draws a widget only inside its parent's allocation, and Qt calls its scroll
/// area and the viewport in it `filler`, as every plain panel. A tab's extents are its
/// title only, not the page it holds: never a clip.
pub(crate) fn in_view(snap: &Snapshot, id: &ElementId, bounds: Rect<Logical>) -> InView {
    let in_web = snap.ancestors(id).any(|n| matches!(n.element().role.as_str(), "document_web" | "document_frame"));
    let mut shown = bounds;
    for node in snap.ancestors(id) {
        let e = node.element();
        let role = e.role.as_str();
        if crate::ready::role_is_popup(role) {
            break;
        }
        let clips = SCROLLERS.contains(&role) || (!in_web && role != "page_tab");
        let Some(view) = e.bounds.filter(|v| clips && !v.is_empty()) else { continue };
        match shown.intersection(&view).filter(|p| p.w >= bounds.w.min(MIN_PART) && p.h >= bounds.h.min(MIN_PART)) {
            Some(part) => shown = part,
            None => return InView::Out(e.clone()),
        }
    }
    if shown == bounds { InView::Whole } else { InView::Part(shown) }
}

/// Which way a target with no place at all lies in its scrolling container: down (1) when
/// only what comes before it has places, up (-1) when only what comes after it does. Asked
/// of its own siblings first, then of its parent's, up to the container: a long list's row
/// scrolled out of view has no extents in GTK 3 (and says it is showing: zenity's 40th row of
/// 60 waited 10 s for bounds that nothing would give it), and neither has any part of a
/// settings row out of view (its check box and button are placeless siblings; the rows
/// before it are placed).
pub(crate) fn way_to(snap: &Snapshot, id: &ElementId) -> Option<i32> {
    let mut at = id.clone();
    loop {
        if let Some(way) = way_from_siblings(snap, &at) {
            return Some(way);
        }
        let parent = snap.node(&at)?.parent()?.clone();
        if snap.get(&parent).is_some_and(|e| SCROLLERS.contains(&e.role.as_str())) {
            return None;
        }
        at = parent;
    }
}

/// [`way_to`] among `id`'s own siblings only.
fn way_from_siblings(snap: &Snapshot, id: &ElementId) -> Option<i32> {
    let siblings = snap.node(snap.node(id)?.parent()?)?.children();
    let at = siblings.iter().position(|s| s == id)?;
    let placed = |s: &ElementId| snap.get(s).and_then(|e| e.bounds).is_some_and(|b| !b.is_empty());
    match (siblings[..at].iter().any(placed), siblings[at + 1..].iter().any(placed)) {
        (true, false) => Some(1),
        (false, true) => Some(-1),
        _ => None,
    }
}
