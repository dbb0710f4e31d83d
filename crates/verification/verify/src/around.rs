//! A press on an element with no press of its own means the control it lies in: a pointer
//! press on a label inside a button lands on the button (gnome-calculator's "7" read as the
//! GTK 4 label inside its button, which has no name of its own; the pointer press missed,
//! and the accessibility fallback, finding no action on the label, gave up). The fallback
//! presses that control: the nearest button-like ancestor that holds the target's place,
//! never a row or a cell (their `activate` is a double click's, not a press's). The
//! `action` tool does the same for a named action the element lacks and that control has.

use deft_a11y::{Accessibility, Scope, SnapshotOptions};
use deft_types::Element;

use crate::executor::Executor;
use crate::resolve::Resolved;
use crate::send::CLICK_ACTIONS;

/// The roles a press activates whole.
const PRESSABLE: [&str; 8] = [
    "push_button",
    "toggle_button",
    "check_box",
    "radio_button",
    "menu_item",
    "check_menu_item",
    "radio_menu_item",
    "link",
];

/// Whether `e` offers a press (one of the actions a click invokes, `send.rs`).
pub(crate) fn pressable(e: &Element) -> bool {
    e.actions.iter().any(|a| CLICK_ACTIONS.iter().any(|w| a.eq_ignore_ascii_case(w)))
}

impl Executor {
    /// `target` as the control around it that a press on it lands on, when it offers no
    /// press itself; `None` when it lies in no such control.
    pub(crate) async fn control_around(&self, target: &Resolved) -> Option<Resolved> {
        let e = target.element.as_ref()?;
        let window = target.window.clone()?;
        let tree = self.a11y.snapshot(&Scope::Subtree(window), &SnapshotOptions::default()).await.ok()?;
        let mut at = tree.nodes[tree.find_id(&e.id)?].parent;
        while let Some(i) = at {
            let c = &tree.nodes[i].element;
            let holds = match (c.bounds, e.bounds) {
                (Some(outer), Some(inner)) => outer.contains(inner.center()),
                _ => true,
            };
            if PRESSABLE.contains(&c.role.as_str()) && pressable(c) && holds {
                return Some(Resolved { element: Some(c.clone()), ..target.clone() });
            }
            at = tree.nodes[i].parent;
        }
        None
    }
}
