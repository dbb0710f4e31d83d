//! A menu that opened as the pointer came to rest on it is not clicked: the click would
//! close it. A menu bar that is already in use (a menu of it open, or left armed by the
//! toolkit after an entry was chosen: Swing) opens a menu under the pointer, as it does for
//! a person's hand; the person then does not click, since clicking an open menu's title
//! closes it. Deft clicked, and "the menu closed" passed for the click's effect.

use deft_types::{Action, Element, State};

use crate::executor::Executor;
use crate::read::Reading;
use crate::resolve::Resolved;
use crate::run::Run;

/// What the input's report says when nothing was sent for this reason.
pub(crate) const OPENED_ON_APPROACH: &str =
    "nothing sent: the menu opened as the pointer came to rest on it (a click would have closed it)";

/// Whether `e` is a menu title that says its menu is open (Swing says `checked`).
fn open_menu(e: &Element) -> bool {
    e.role.as_str() == "menu" && (e.has(State::Selected) || e.has(State::Expanded) || e.has(State::Checked))
}

/// Whether the pending input is a plain click on a menu title that is closed now: then
/// what the approach does to it is worth reading before the approach.
pub(crate) fn worth_watching(action: &Action, target: Option<&Resolved>) -> bool {
    let plain = matches!(action, Action::Click { button: deft_types::MouseButton::Left, count: 1, .. });
    let closed_menu =
        target.and_then(|t| t.element.as_ref()).is_some_and(|e| e.role.as_str() == "menu" && !open_menu(e));
    plain && closed_menu
}

impl Executor {
    /// A read before the pointer approaches the target, when the target is a closed menu
    /// title (see [`worth_watching`]); `None` otherwise, or when the read fails.
    pub(crate) async fn before_approach(&self, run: &Run<'_>) -> Option<Reading> {
        if !worth_watching(run.action, run.target.as_ref()) {
            return None;
        }
        self.read(&run.scope()).await.ok()
    }
}

/// Whether the menu title `target` was closed in `before` (the read before the approach)
/// and is open in `pre` (the read after it: it says so, or its entries show): the approach
/// opened it.
pub(crate) fn opened_on_approach(before: &Reading, pre: &Reading, target: Option<&deft_types::ElementId>) -> bool {
    let Some(id) = target else { return false };
    let entries_shown = |r: &Reading| {
        r.snap.subtree(id).skip(1).any(|n| {
            let e = n.element();
            crate::observe::is_menu_item(e) && e.has(State::Showing) && e.bounds.is_some()
        })
    };
    let was = before.element(id).is_some_and(|e| e.role.as_str() == "menu" && !open_menu(e)) && !entries_shown(before);
    // The menu says it is open before its entries are laid out (Swing: a frame later).
    was && pre.element(id).is_some_and(|e| open_menu(e) || (e.role.as_str() == "menu" && entries_shown(pre)))
}

#[cfg(test)]
mod tests {
    use deft_a11y::{Tree, TreeBuilder, element};
    use deft_types::{ElementId, Rect, State};

    use super::opened_on_approach;
    use crate::read::Reading;

    /// A menu bar with "File"; `open` selects it, `entries` shows its "Save".
    fn bar(open: bool, entries: bool) -> Reading {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "demo"));
        let frame = b.child(app, element("main", "frame", "Main"));
        let mut file = element("file", "menu", "File");
        file.bounds = Some(Rect::new(10, 0, 40, 20));
        if open {
            file.states.insert(State::Selected);
        }
        let file = b.child(frame, file);
        let mut save = element("save", "menu_item", "Save");
        if entries {
            save.states.insert(State::Showing);
            save.bounds = Some(Rect::new(10, 20, 80, 20));
        }
        b.child(file, save);
        let tree: Tree = b.build();
        Reading::new(tree)
    }

    #[test]
    fn a_menu_that_opened_under_the_pointer_is_told_apart() {
        let id = ElementId("file".into());
        let closed = bar(false, false);
        assert!(opened_on_approach(&closed, &bar(true, false), Some(&id)), "it says it is open");
        assert!(opened_on_approach(&closed, &bar(false, true), Some(&id)), "its entries show");
        assert!(!opened_on_approach(&closed, &closed, Some(&id)), "still closed: click it");
        assert!(
            !opened_on_approach(&bar(true, true), &bar(true, true), Some(&id)),
            "open before: the click is meant to close it"
        );
        assert!(!opened_on_approach(&closed, &bar(true, true), None));
    }
}
