//! Which window is on top at a point. AT-SPI does not say how windows are stacked, and a
//! window's `active` state is no answer: a dialog on top need not be active, and GTK 4
//! keeps `active` on a frame another window has covered. The display server knows (X11:
//! the window manager's stacking list, with the popups above it); accessible windows are
//! put in its order by their process and their title or place.

use deft_types::{Rect, State};
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
        // A client-side decorated window draws its shadow inside its X window: its place is
        // inside those margins.
        let xb = match x.frame_extents {
            Some([l, r, t, bottom]) => Rect::new(
                x.bounds.x.saturating_add(l as i32),
                x.bounds.y.saturating_add(t as i32),
                x.bounds.w.saturating_sub(l + r),
                x.bounds.h.saturating_sub(t + bottom),
            ),
            None => x.bounds,
        };
        let wb = b;
        let same = near(xb.x, wb.x) && near(xb.y, wb.y) && xb.w.abs_diff(wb.w) <= 16 && xb.h.abs_diff(wb.h) <= 16;
        // GTK 3 tells a window's place with the window manager's frame around it: its title
        // bar above (an untitled GTK 3 alert, 20 px taller than its X window, was never
        // matched, and the window beneath it was hit-tested: "frame covers push_button
        // Cancel", exit 5).
        let (top, bottom) = (i64::from(xb.y) - i64::from(wb.y), wb.bottom() - xb.bottom());
        let framed = near(xb.x, wb.x)
            && (xb.right() - wb.right()).abs() <= 8
            && (0..=48).contains(&top)
            && (0..=8).contains(&bottom);
        same || framed
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

    #[test]
    fn a_client_side_decorated_window_is_known_inside_its_shadow() {
        // An untitled GTK 3 alert over its window, its X window 40 px wider each way for its
        // shadow: the alert is on top, not the window beneath it.
        let alert = info("Question", false, (320, 220, 200, 100));
        let main = info("c.txt - gedit", true, (0, 0, 800, 600));
        let mut shadowed = x(3, 7, "", (300, 200, 240, 140));
        shadowed.frame_extents = Some([20, 20, 20, 20]);
        let stack = [shadowed, x(1, 7, "c.txt - gedit", (0, 0, 800, 600))];
        assert_eq!(stacking_order(&[(Some(7), &main), (Some(7), &alert)], Some(&stack)), [1, 0]);
    }

    #[test]
    fn a_window_is_known_with_the_window_manager_s_frame_around_it() {
        // gedit's untitled "Save changes?" alert: its X window at (375, 355) 532x129, its
        // accessible extents (374, 335) 534x150 with the title bar and border.
        let alert = info("Question", false, (374, 335, 534, 150));
        let main = info("*c.txt - gedit", true, (185, 2, 910, 776));
        let stack = [x(2, 7, "", (375, 355, 532, 129)), x(1, 7, "*c.txt - gedit", (185, 22, 910, 756))];
        assert_eq!(stacking_order(&[(Some(7), &main), (Some(7), &alert)], Some(&stack)), [1, 0]);
    }
}
