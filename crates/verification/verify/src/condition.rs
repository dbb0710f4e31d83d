//! Conditions (`wait`, `--expect`) checked against an accessibility tree, with what was seen.

use deft_a11y::selector::{self, Matcher, Pick, ResolveError, describe_text};
use deft_a11y::{Node, Tree};
use deft_types::{Condition, Logical, Rect, Role, Selector, State, TextMatch};

/// The result of checking a condition against one read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Check {
    /// The condition holds.
    pub met: bool,
    /// What was seen, in plain words: the evidence when met, the closest thing when not.
    pub what: String,
    /// Where the deciding element is, when there is one.
    pub bounds: Option<Rect<Logical>>,
}

/// Whether `text` meets `t` (exact, contains ignoring case, or regex).
pub(crate) fn text_matches(t: &TextMatch, text: &str) -> bool {
    match Matcher::new(&Selector { window: Some(t.clone()), ..Selector::default() }) {
        Ok(m) => m.matches_window(text),
        Err(_) => false,
    }
}

fn showing(n: &Node) -> bool {
    n.element.has(State::Showing)
}

fn is_window(n: &Node) -> bool {
    n.window.is_some() && n.path.is_empty()
}

/// `push_button "Save"`, or `dialog "Save complete"`.
fn subject(n: &Node) -> String {
    n.element.describe()
}

/// The selector as resolution reads it: its conveniences applied (`app` as a window's
/// title, a short `id`), so a condition names what an action with the same selector acts on.
fn as_resolved(tree: &Tree, sel: &Selector) -> Result<Selector, String> {
    deft_a11y::conveniences_in(tree, sel.clone()).map_err(|e| e.to_string())
}

/// The shown elements a selector matches, counted as resolution counts them (each element
/// once: [`selector::natural_matches`]), `index` numbering that list as it does for an action.
fn showing_matches(tree: &Tree, sel: &Selector) -> Result<Vec<usize>, String> {
    let sel = as_resolved(tree, sel)?;
    let all = selector::natural_matches(tree, &Selector { index: None, ..sel.clone() }).map_err(|e| e.to_string())?;
    let picked = match sel.index {
        Some(i) => all.get(i as usize).copied().into_iter().collect(),
        None => all,
    };
    Ok(picked.into_iter().filter(|&i| showing(&tree.nodes[i])).collect())
}

/// The one element a state or value condition is about, picked by the rule an action's
/// target is picked by ([`Pick::Natural`]), shown or not: what an element holds is its own
/// whether or not it is drawn just now (a radio menu item keeps its check when its menu
/// closes, as a person sees by opening it again); a hidden one only when none shown
/// matches. `Err` says, in words, why there is none.
fn the_one(tree: &Tree, sel: &Selector) -> Result<usize, String> {
    let sel = as_resolved(tree, sel)?;
    match selector::pick(tree, &sel, Pick::Natural) {
        Ok(i) if showing(&tree.nodes[i]) || !has_shown_match(tree, &sel) => Ok(i),
        Ok(i) => Err(format!("{} is not shown", subject(&tree.nodes[i]))),
        Err(ResolveError::NotFound { .. }) => {
            Err(format!("no shown element matches `{}`; {}", selector::format(&sel), closest(tree, &sel)))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Whether some element `sel` matches is shown (then a hidden one picked is not the one
/// meant: a stale copy a toolkit left behind).
fn has_shown_match(tree: &Tree, sel: &Selector) -> bool {
    showing_matches(tree, sel).is_ok_and(|found| !found.is_empty())
}

/// The closest element to a selector, in words, for a report of what was seen instead.
fn closest(tree: &Tree, sel: &Selector) -> String {
    match Matcher::new(sel) {
        Ok(m) => match selector::closest_candidates(tree, &m).first() {
            Some(c) => format!("closest: {}", selector::CandidateText(c)),
            None => "nothing similar is shown".into(),
        },
        Err(e) => e.to_string(),
    }
}

/// Checks `c` against `tree`. An element counts only while it is showing: "gone" means no
/// longer drawn, whether it was removed or hidden (a spinner that stops is hidden, not removed).
pub(crate) fn check(c: &Condition, tree: &Tree) -> Check {
    let at = |i: usize| tree.nodes[i].element.bounds;
    let text_sel = |t: &TextMatch| Selector { text: Some(t.clone()), ..Selector::default() };
    match c {
        Condition::TextAppears(t) | Condition::TextGone(t) => {
            let appears = matches!(c, Condition::TextAppears(_));
            let sel = text_sel(t);
            let found = showing_matches(tree, &sel);
            match found {
                Err(e) => Check { met: false, what: e, bounds: None },
                Ok(found) => match found.first() {
                    Some(&i) => Check {
                        met: appears,
                        what: format!("{} shows {}", subject(&tree.nodes[i]), describe_text(t)),
                        bounds: at(i),
                    },
                    None => Check {
                        met: !appears,
                        what: format!("no shown element shows {}; {}", describe_text(t), closest(tree, &sel)),
                        bounds: None,
                    },
                },
            }
        }
        Condition::ElementExists(sel) | Condition::ElementGone(sel) => {
            let exists = matches!(c, Condition::ElementExists(_));
            match showing_matches(tree, sel) {
                Err(e) => Check { met: false, what: e, bounds: None },
                Ok(found) => match found.first() {
                    Some(&i) => {
                        Check { met: exists, what: format!("{} is shown", subject(&tree.nodes[i])), bounds: at(i) }
                    }
                    None => Check {
                        met: !exists,
                        what: format!("no shown element matches `{}`; {}", selector::format(sel), closest(tree, sel)),
                        bounds: None,
                    },
                },
            }
        }
        Condition::ElementState { selector: sel, state, present } => match the_one(tree, sel) {
            Err(what) => Check { met: false, what, bounds: None },
            Ok(i) => {
                let e = &tree.nodes[i].element;
                let has = if e.has(*state) { "has" } else { "lacks" };
                Check {
                    met: e.has(*state) == *present,
                    what: format!("{} {has} state {}", e.describe(), state.as_str()),
                    bounds: e.bounds,
                }
            }
        },
        Condition::Value { selector: sel, value } => match the_one(tree, sel) {
            Err(what) => Check { met: false, what, bounds: None },
            Ok(i) => {
                let e = &tree.nodes[i].element;
                let have = e.value.clone().or_else(|| e.text.clone()).unwrap_or_default();
                Check {
                    met: text_matches(value, &have),
                    what: format!("{} has value {have:?}", e.describe()),
                    bounds: at(i),
                }
            }
        },
        Condition::WindowTitle(t) => {
            let windows: Vec<usize> = (0..tree.len()).filter(|&i| is_window(&tree.nodes[i])).collect();
            match windows
                .iter()
                .copied()
                .find(|&i| showing(&tree.nodes[i]) && text_matches(t, &tree.nodes[i].element.name))
            {
                Some(i) => Check { met: true, what: format!("{} is shown", subject(&tree.nodes[i])), bounds: at(i) },
                None => {
                    let titles: Vec<String> =
                        windows.iter().map(|&i| format!("{:?}", tree.nodes[i].element.name)).collect();
                    let list = if titles.is_empty() { "none".into() } else { titles.join(", ") };
                    Check {
                        met: false,
                        what: format!("no window titled {}; windows: {list}", describe_text(t)),
                        bounds: None,
                    }
                }
            }
        }
        Condition::RoleAppears(role) => match (0..tree.len()).find(|&i| role_shown(&tree.nodes[i], role)) {
            Some(i) => Check { met: true, what: format!("{} is shown", subject(&tree.nodes[i])), bounds: at(i) },
            None => Check { met: false, what: format!("no {role} is shown"), bounds: None },
        },
    }
}

/// The elements that meet a condition of something appearing (a text, an element, a
/// window, a role) in `tree`; none for the others. What met an expectation before the input
/// and meets it after says nothing of the input: only something that meets it anew does
/// (gucharmap's Find box held the text expected of the search it ran, and "verified" a
/// search that found nothing).
pub(crate) fn meeting(c: &Condition, tree: &Tree) -> Vec<deft_types::ElementId> {
    let id = |i: usize| tree.nodes[i].element.id.clone();
    let shown = |sel: &Selector| showing_matches(tree, sel).unwrap_or_default().into_iter().map(id).collect();
    match c {
        Condition::TextAppears(t) => shown(&Selector { text: Some(t.clone()), ..Selector::default() }),
        Condition::ElementExists(sel) => shown(sel),
        Condition::WindowTitle(t) => (0..tree.len())
            .filter(|&i| is_window(&tree.nodes[i]) && showing(&tree.nodes[i]))
            .filter(|&i| text_matches(t, &tree.nodes[i].element.name))
            .map(id)
            .collect(),
        Condition::RoleAppears(role) => (0..tree.len()).filter(|&i| role_shown(&tree.nodes[i], role)).map(id).collect(),
        _ => Vec::new(),
    }
}

/// Whether something in `post` meets the appearing condition `c` that did not in `pre`.
pub(crate) fn met_anew(c: &Condition, pre: &Tree, post: &Tree) -> bool {
    let before = meeting(c, pre);
    meeting(c, post).iter().any(|id| !before.contains(id))
}

/// Whether `n` is shown with `role`. `dialog` is what a person calls any of them: an alert,
/// a file or colour chooser too (Geany's ctrl+s opened a `file_chooser`, and
/// `role:dialog` said "not the one expected"); a narrower role is matched as it is.
fn role_shown(n: &Node, role: &Role) -> bool {
    let matches = n.element.role.answers_to(role, n.window.is_some() && n.path.is_empty());
    matches && showing(n)
}

#[cfg(test)]
mod tests {
    use deft_a11y::demo_tree;

    use super::*;

    fn check_on_demo(c: Condition, met: bool, what: &str) {
        let got = check(&c, &demo_tree());
        assert_eq!(got.met, met, "{c:?}: {got:?}");
        assert!(got.what.contains(what), "{c:?}: {:?} lacks {what:?}", got.what);
    }

    #[test]
    fn what_meets_a_condition_of_appearing_is_told_by_its_elements() {
        let tree = demo_tree();
        let shown = |c: Condition| meeting(&c, &tree);
        let any = |c: &Condition| check(c, &tree).met;
        let text = Condition::TextAppears(TextMatch::Exact("Cancel".into()));
        assert!(any(&text));
        assert_eq!(shown(text), [deft_types::ElementId("demo|3".into())], "met, and by what");
        let nothing = Condition::TextAppears(TextMatch::Exact("no such text anywhere".into()));
        assert!(shown(nothing).is_empty());
        let sel = Selector { name: Some(TextMatch::Exact("Cancel".into())), ..Selector::default() };
        let state = Condition::ElementState { selector: sel, state: State::Checked, present: false };
        assert!(any(&state));
        assert!(shown(state).is_empty(), "a state is not something appearing");
    }

    #[test]
    fn conditions_on_the_demo_tree() {
        let exact = |s: &str| TextMatch::Exact(s.into());
        check_on_demo(Condition::TextAppears(exact("Cancel")), true, "push_button \"Cancel\" shows \"Cancel\"");
        check_on_demo(Condition::TextAppears(exact("Cancle")), false, "closest");
        check_on_demo(Condition::TextGone(exact("Nothing")), true, "no shown element");
        check_on_demo(Condition::WindowTitle(TextMatch::Contains("conf".into())), true, "dialog \"Confirm\"");
        check_on_demo(Condition::WindowTitle(exact("Saved")), false, "\"Main\", \"Confirm\"");
        check_on_demo(Condition::RoleAppears(Role::new("dialog")), true, "Confirm");
        // Any dialog is a dialog; an alert is only an alert.
        let mut b = deft_a11y::TreeBuilder::new();
        let app = b.app(deft_a11y::element("app", "application", "editor"));
        b.child(app, deft_a11y::element("save", "file_chooser", "Save File"));
        let tree = b.build();
        assert!(check(&Condition::RoleAppears(Role::new("dialog")), &tree).met);
        assert!(!check(&Condition::RoleAppears(Role::new("alert")), &tree).met);
        let name = Selector { name: Some(exact("Name")), ..Selector::default() };
        check_on_demo(Condition::Value { selector: name.clone(), value: exact("") }, true, "has value \"\"");
        let state = Condition::ElementState { selector: name.clone(), state: State::Editable, present: true };
        check_on_demo(state, true, "has state editable");
        check_on_demo(Condition::ElementGone(name), false, "is shown");
    }

    /// A radio menu item keeps its check when its menu closes (it is hidden then): a state
    /// condition reads it; an element shown beside a hidden one of the same name is the one.
    #[test]
    fn a_state_is_read_of_an_element_not_drawn_just_now() {
        let mut b = deft_a11y::TreeBuilder::new();
        let app = b.app(deft_a11y::element("app", "application", "calc"));
        let mut item = deft_a11y::element("sci", "radio_menu_item", "Scientific Mode");
        item.states = [State::Checked, State::Enabled].into_iter().collect();
        b.child(app, item);
        let tree = b.build();
        let name = Selector { name: Some(TextMatch::Exact("Scientific Mode".into())), ..Selector::default() };
        let checked = Condition::ElementState { selector: name.clone(), state: State::Checked, present: true };
        let got = check(&checked, &tree);
        assert!(got.met, "{got:?}");
        // "Gone" still means not drawn.
        assert!(check(&Condition::ElementGone(name), &tree).met);
    }

    /// A condition names what an action with the same selector would act on: resolution's
    /// conveniences and picking rule, not a second reading of the selector.
    #[test]
    fn conditions_resolve_as_actions_do() {
        let exact = |s: &str| Some(TextMatch::Exact(s.into()));
        // `app` given a window's title, and a short id.
        let by_title = Selector { app: exact("Confirm"), name: exact("OK"), ..Selector::default() };
        check_on_demo(Condition::ElementExists(by_title.clone()), true, "push_button \"OK\" is shown");
        let in_main = Selector { app: exact("Main"), name: exact("OK"), ..Selector::default() };
        let state = Condition::ElementState { selector: in_main, state: State::Showing, present: true };
        check_on_demo(state, true, "has state showing");
        let short = Selector { id: Some(deft_types::ElementId("4".into())), ..Selector::default() };
        check_on_demo(Condition::ElementExists(short.clone()), true, "text \"Name\" is shown");
        check_on_demo(Condition::Value { selector: short, value: TextMatch::Exact(String::new()) }, true, "has value");
        // Two OK buttons: a state of "the" OK button is ambiguous, said so, never the first.
        let ok = Selector { name: exact("OK"), ..Selector::default() };
        let state = Condition::ElementState { selector: ok.clone(), state: State::Showing, present: true };
        check_on_demo(state, false, "matches 2 elements");
        // `index` counts as it does for an action.
        let second = Selector { index: Some(1), ..ok };
        let got =
            check(&Condition::ElementState { selector: second, state: State::Showing, present: true }, &demo_tree());
        assert!(got.met && got.bounds == Some(Rect::new(510, 50, 80, 30)), "{got:?}");
    }
}
