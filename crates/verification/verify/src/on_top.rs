//! What the screen shows at the point an input lands: the display server's stacking, not
//! the accessibility tree's. A window of an application with no accessibility at all (a
//! terminal, xcalc, a game) is invisible to the hit test, which then answers with the
//! target beneath it, and a click sent there lands in that window instead.

use deft_a11y::WindowInfo;
use deft_input::{WindowGeometry, WindowQuery};
use deft_types::{Logical, Point, State};

use crate::executor::{Executor, lock};
use crate::resolve::Resolved;

impl Executor {
    /// The window of another process that the display server shows over the target's own
    /// window at `point` (popups above every managed window, then the window manager's
    /// stacking order). `None` when the target's window is on top there, or when it cannot
    /// tell: no window list, no process id, or the target's window not found at the point
    /// (then nothing is claimed).
    pub(crate) fn other_window_on_top(&self, target: &Resolved, point: Point<Logical>) -> Option<Cover> {
        let pid = target.pid?;
        let title = target.window_title.as_deref().filter(|t| !t.is_empty())?;
        let (clients, popups) = {
            let locator = lock(self.windows.as_ref()?);
            (locator.windows(&WindowQuery::default()).ok()?, locator.popups().unwrap_or_default())
        };
        let at = target.scale.to_physical(point);
        let popup = |w: WindowGeometry| Cover { window: w, popup: true };
        let client = |w: WindowGeometry| Cover { window: w, popup: false };
        let stack: Vec<Cover> = popups
            .into_iter()
            .rev()
            .map(popup)
            .chain(clients.into_iter().rev().map(client))
            .filter(|c| c.window.bounds.contains(at))
            .collect();
        let own = stack.iter().position(|c| !c.popup && c.window.pid == Some(pid) && c.window.title == title)?;
        // Above the target's window: its own popups (same process) are its own; a window
        // that does not say its process is not claimed.
        stack[..own].iter().find(|c| c.window.pid.is_some_and(|p| p != pid)).cloned()
    }
}

/// A window of another application over the target.
#[derive(Clone, Debug)]
pub(crate) struct Cover {
    pub(crate) window: WindowGeometry,
    /// A popup (override-redirect: a notification, an on-screen keyboard, another app's
    /// menu), above every managed window: raising the target's window does not help.
    pub(crate) popup: bool,
}

impl Executor {
    /// Whether window `upper` of the application with process `pid` stands over its window
    /// `lower`: it is the active one and `lower` is not, else the display server stacks it
    /// higher. A modal window blocks only what lies beneath it, not a dialog opened over it
    /// (GTK 4's "Select Font", opened from the modal Preferences of gnome-text-editor, was
    /// refused as covered by Preferences: no input could reach it). Unknown: `false`.
    pub(crate) fn stands_over(&self, pid: Option<u32>, upper: &WindowInfo, lower: &WindowInfo) -> bool {
        let active = |w: &WindowInfo| w.states.contains(&State::Active);
        if active(upper) != active(lower) {
            return active(upper);
        }
        let (Some(pid), Some(locator)) = (pid, self.windows.as_ref()) else { return false };
        let Ok(stack) = lock(locator).windows(&WindowQuery { pid: Some(pid), title: None }) else { return false };
        // Its one place in the stack (bottom first), by title; two of one title tell nothing.
        let place = |w: &WindowInfo| {
            let mut found = stack.iter().enumerate().filter(|(_, g)| g.title == w.title);
            let (at, _) = found.next()?;
            found.next().is_none().then_some(at)
        };
        matches!((place(upper), place(lower)), (Some(u), Some(l)) if u > l)
    }
}
