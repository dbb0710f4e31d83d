//! Which window is on top at a point. AT-SPI does not say how windows are stacked, and a
//! window's `active` state is no answer: a dialog on top need not be active, and GTK 4
//! keeps `active` on a frame another window has covered. The display server knows (X11:
//! the window manager's stacking list, with the popups above it); accessible windows are
//! put in its order by their process and their title or place.

use deft_types::State;
use deft_x11::X11Window;

use crate::backend::WindowInfo;

/// The order in which to try `candidates` (each with its application's process id): the
/// window the display server shows on top at the point first, as `stack` (the X windows
/// containing the point, top first) places them; those it does not place after them, in
/// the old guess (active, then modal, then the later listed).
pub(crate) fn stacking_order(candidates: &[(Option<u32>, &WindowInfo)], stack: Option<&[X11Window]>) -> Vec<usize> {
    let rank = |i: usize| {
        let (pid, w) = candidates[i];
        stack.and_then(|s| s.iter().position(|x| same_window(pid, w, x))).unwrap_or(usize::MAX)
    };
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&i| {
        let w = candidates[i].1;
        (rank(i), !w.states.contains(&State::Active), !w.states.contains(&State::Modal), usize::MAX - i)
    });
    order
}

/// Whether the accessible window `w` of process `pid` is the X window `x`: the same
/// process, and the same title or the same place (within a few pixels: frames differ).
fn same_window(pid: Option<u32>, w: &WindowInfo, x: &X11Window) -> bool {
    let Some(pid) = pid else { return false };
    if x.pid != Some(pid) {
        return false;
    }
    let titled = !w.title.is_empty() && (x.title == w.title || w.display_title.as_deref() == Some(x.title.as_str()));
    let placed = w.bounds.is_some_and(|b| {
        let near = |a: i32, b: i32| (i64::from(a) - i64::from(b)).abs() <= 8;
        let (xb, wb) = (x.bounds, b);
        near(xb.x, wb.x) && near(xb.y, wb.y) && xb.w.abs_diff(wb.w) <= 16 && xb.h.abs_diff(wb.h) <= 16
    });
    titled || placed
}

#[cfg(test)]
mod tests {
    use deft_types::{ElementId, Rect, Role};

    use super::*;

    fn info(title: &str, active: bool, bounds: (i32, i32, u32, u32)) -> WindowInfo {
        let mut states = std::collections::BTreeSet::new();
        states.insert(State::Showing);
        if active {
            states.insert(State::Active);
        }
        WindowInfo {
            id: ElementId(title.into()),
            title: title.into(),
            role: Role::new("frame"),
            states: states.into_iter().collect(),
            bounds: Some(Rect::new(bounds.0, bounds.1, bounds.2, bounds.3)),
            display_title: None,
        }
    }

    fn x(id: u64, pid: u32, title: &str, bounds: (i32, i32, u32, u32)) -> X11Window {
        let bounds = Rect::new(bounds.0, bounds.1, bounds.2, bounds.3);
        X11Window { id, pid: Some(pid), title: title.into(), bounds, frame_extents: None }
    }

    #[test]
    fn the_window_on_top_is_the_display_server_s_not_the_active_one() {
        // GTK 4 keeps `active` on a frame another window covers.
        let under = info("Factory", true, (0, 0, 800, 600));
        let over = info("Editor", false, (100, 100, 400, 300));
        let candidates = [(Some(10), &under), (Some(20), &over)];
        let stack = [x(2, 20, "Editor", (100, 100, 400, 300)), x(1, 10, "Factory", (0, 0, 800, 600))];
        assert_eq!(stacking_order(&candidates, Some(&stack)), [1, 0]);
        // Without the display server's word, the old guess: the active one.
        assert_eq!(stacking_order(&candidates, None), [0, 1]);
    }

    #[test]
    fn a_window_is_known_by_its_process_and_its_title_or_place() {
        let dialog = info("Question", false, (300, 200, 200, 100));
        let main = info("Main", true, (0, 0, 800, 600));
        // The dialog's title bar says otherwise, but it is where the dialog is.
        let stack = [x(3, 7, "Are you sure?", (300, 200, 200, 100)), x(1, 7, "Main", (0, 0, 800, 600))];
        assert_eq!(stacking_order(&[(Some(7), &main), (Some(7), &dialog)], Some(&stack)), [1, 0]);
        // Another process's window of the same title is not it.
        let other = [x(9, 8, "Question", (300, 200, 200, 100))];
        assert_eq!(stacking_order(&[(Some(7), &main), (Some(7), &dialog)], Some(&other)), [0, 1]);
    }
}
