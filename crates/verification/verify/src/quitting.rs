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
/// nothing more specific expected (File > Quit, ctrl+q, a window's last Close), or with the
/// expectation that this very application is gone (`gone:app=NAME`, naming it and nothing
/// narrower). A crash leaves the bus too: it never verifies any other expectation (a
/// dialog gone, a text gone), which an empty application would otherwise meet.
pub(crate) fn exit_is_effect(run: &crate::run::Run<'_>) -> bool {
    // Its name as resolved, else as the read before the input had its application.
    let read_before = run.pending.pre.as_ref().and_then(|r| {
        r.tree.nodes.iter().find(|n| n.element.role.as_str() == "application").map(|n| n.element.name.as_str())
    });
    exit_meets(&run.goal, run.target.as_ref().and_then(|t| t.app_name.as_deref()).or(read_before))
}

/// [`exit_is_effect`] for the goal `goal` of an input to the application named `app_name`.
fn exit_meets(goal: &crate::observe::Goal, app_name: Option<&str>) -> bool {
    use crate::observe::Goal;
    match goal {
        Goal::AnyChange => true,
        Goal::Expect(c, _) => match (&**c, app_name) {
            (deft_types::Condition::ElementGone(sel), Some(name)) => {
                let only_app = deft_types::Selector { app: None, ..sel.clone() }.is_empty();
                only_app && sel.app.as_ref().is_some_and(|a| crate::condition::text_matches(a, name))
            }
            _ => false,
        },
        _ => false,
    }
}

/// The application `app` left after the input, in words.
pub(crate) fn exited(goal: &crate::observe::Goal, app: &str) -> String {
    let as_expected = if matches!(goal, crate::observe::Goal::Expect(..)) { ", as expected" } else { "" };
    format!(
        "the application {app} exited after the input{as_expected} (it left the accessibility bus: it quit, or crashed)"
    )
}

/// The application `app` left after the input while something else was expected: what
/// cannot be told, and how to expect a quit. A crash looks the same from here, so leaving
/// never meets an expectation about what the app shows.
pub(crate) fn left_unexpectedly(app: &str, run: &crate::run::Run<'_>) -> String {
    let name = run.target.as_ref().and_then(|t| t.app_name.as_deref()).unwrap_or(app);
    format!(
        "the application {name} left the accessibility bus after the input (it quit, or crashed: the two look the \
         same from here), so what was expected cannot be told; if it should quit, expect that: --expect \
         'gone:app={name}'"
    )
}

#[cfg(test)]
mod exit_tests {
    use deft_types::{Condition, Selector, TextMatch};

    use super::exit_meets;
    use crate::observe::Goal;

    fn gone(sel: Selector) -> Goal {
        Goal::Expect(Box::new(Condition::ElementGone(sel)), None)
    }

    /// Leaving meets `gone:app=` of that very app, and nothing else: a crash must not
    /// verify a dialog gone or a text gone.
    #[test]
    fn only_its_own_app_gone_is_met_by_an_app_leaving() {
        let app = |a: &str| Selector { app: Some(TextMatch::Exact(a.into())), ..Selector::default() };
        assert!(exit_meets(&Goal::AnyChange, None));
        assert!(exit_meets(&gone(app("galculator")), Some("galculator")));
        assert!(!exit_meets(&gone(app("mousepad")), Some("galculator")), "another app");
        assert!(!exit_meets(&gone(app("galculator")), None), "whose app left is not known");
        let dialog = Selector { name: Some(TextMatch::Exact("Confirm".into())), ..app("galculator") };
        assert!(!exit_meets(&gone(dialog), Some("galculator")), "a crash is no dialog closed");
        let text = Goal::Expect(Box::new(Condition::TextGone(TextMatch::Exact("Saving".into()))), None);
        assert!(!exit_meets(&text, Some("galculator")));
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
