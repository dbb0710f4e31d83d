//! An application quitting: every window it showed before the input gone after it (ctrl+q,
//! File > Quit). Nothing more is read from it then (`watch.rs`).

use deft_types::ElementId;

/// The windows shown before the input, in words, when none of the application's windows
/// shows after it.
pub(crate) fn last_windows_closed(pre: &crate::read::Reading, post: &crate::read::Reading) -> Option<String> {
    let shown = |r: &crate::read::Reading| -> Vec<String> {
        let showing = |id: &ElementId| r.snap.get(id).is_some_and(|e| e.has(deft_types::State::Showing));
        r.snap.windows().iter().filter(|w| showing(&w.id)).map(|w| format!("{} {:?}", w.role, w.title)).collect()
    };
    let before = shown(pre);
    (!before.is_empty() && shown(post).is_empty()).then(|| before.join(", "))
}

/// Whether the application leaving the bus after the input is the input's effect: with
/// nothing more specific expected (File > Quit, ctrl+q, a window's last Close), or with an
/// expectation that holds of what is left of it (`gone:app=...`).
pub(crate) fn exit_is_effect(goal: &crate::observe::Goal) -> bool {
    use crate::observe::Goal;
    match goal {
        Goal::AnyChange => true,
        Goal::Expect(c, _) => crate::condition::check(c, &deft_a11y::Tree::default()).met,
        _ => false,
    }
}

/// The application `app` left after the input, in words (as expected, when it was).
pub(crate) fn exited(goal: &crate::observe::Goal, app: &str) -> String {
    match goal {
        crate::observe::Goal::Expect(..) => format!("the application {app} exited after the input, as expected"),
        _ => {
            format!("the application {app} exited after the input (it left the accessibility bus: it quit, or crashed)")
        }
    }
}

#[cfg(test)]
mod tests {
    use deft_a11y::{Tree, TreeBuilder, element};
    use deft_types::{Rect, State};

    use super::last_windows_closed;
    use crate::read::Reading;

    fn app(windows: &[(&str, bool)]) -> Reading {
        let mut b = TreeBuilder::new();
        let app = b.app(element("app", "application", "soffice"));
        for (title, shown) in windows {
            let mut w = element(title, "frame", title);
            w.bounds = Some(Rect::new(0, 0, 800, 600));
            if !shown {
                w.states.remove(&State::Showing);
            }
            b.child(app, w);
        }
        let tree: Tree = b.build();
        Reading::new(tree)
    }

    #[test]
    fn the_last_shown_window_gone_is_the_app_quitting_and_one_of_two_is_not() {
        let closed = last_windows_closed(&app(&[("deck.odp", true)]), &app(&[]));
        assert!(closed.is_some_and(|c| c.contains("deck.odp")));
        assert!(last_windows_closed(&app(&[("deck.odp", true)]), &app(&[("deck.odp", false)])).is_some());
        assert!(last_windows_closed(&app(&[("a", true), ("b", true)]), &app(&[("b", true)])).is_none());
        assert!(last_windows_closed(&app(&[]), &app(&[])).is_none(), "nothing was shown before");
    }
}
