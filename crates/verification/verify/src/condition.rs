//! Conditions (`wait`, `--expect`) checked against an accessibility tree, with what was seen.

use deft_a11y::selector::{self, Matcher, describe_text};
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

/// Showing nodes matching a selector (its `index` picks one of them when set).
fn showing_matches(tree: &Tree, sel: &Selector) -> Result<Vec<usize>, String> {
    let all = selector::find_all(tree, sel).map_err(|e| e.to_string())?;
    let shown: Vec<usize> = all.into_iter().filter(|&i| showing(&tree.nodes[i])).collect();
    Ok(match sel.index {
        Some(i) => shown.get(i as usize).map(|&n| vec![n]).unwrap_or_default(),
        None => shown,
    })
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
        Condition::ElementState { selector: sel, state, present } => match showing_matches(tree, sel) {
            Err(e) => Check { met: false, what: e, bounds: None },
            Ok(found) if found.is_empty() => Check {
                met: false,
                what: format!("no shown element matches `{}`; {}", selector::format(sel), closest(tree, sel)),
                bounds: None,
            },
            Ok(found) => {
                let i =
                    found.iter().copied().find(|&i| tree.nodes[i].element.has(*state) == *present).unwrap_or(found[0]);
                let e = &tree.nodes[i].element;
                let has = if e.has(*state) { "has" } else { "lacks" };
                Check {
                    met: e.has(*state) == *present,
                    what: format!("{} {has} state {}", e.describe(), state.as_str()),
                    bounds: e.bounds,
                }
            }
        },
        Condition::Value { selector: sel, value } => match showing_matches(tree, sel) {
            Err(e) => Check { met: false, what: e, bounds: None },
            Ok(found) if found.is_empty() => Check {
                met: false,
                what: format!("no shown element matches `{}`; {}", selector::format(sel), closest(tree, sel)),
                bounds: None,
            },
            Ok(found) => {
                let value_of = |i: usize| {
                    let e = &tree.nodes[i].element;
                    e.value.clone().or_else(|| e.text.clone()).unwrap_or_default()
                };
                let hit = found.iter().copied().find(|&i| text_matches(value, &value_of(i)));
                let i = hit.unwrap_or(found[0]);
                Check {
                    met: hit.is_some(),
                    what: format!("{} has value {:?}", tree.nodes[i].element.describe(), value_of(i)),
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

fn role_shown(n: &Node, role: &Role) -> bool {
    &n.element.role == role && showing(n)
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
    fn conditions_on_the_demo_tree() {
        let exact = |s: &str| TextMatch::Exact(s.into());
        check_on_demo(Condition::TextAppears(exact("Cancel")), true, "push_button \"Cancel\" shows \"Cancel\"");
        check_on_demo(Condition::TextAppears(exact("Cancle")), false, "closest");
        check_on_demo(Condition::TextGone(exact("Nothing")), true, "no shown element");
        check_on_demo(Condition::WindowTitle(TextMatch::Contains("conf".into())), true, "dialog \"Confirm\"");
        check_on_demo(Condition::WindowTitle(exact("Saved")), false, "\"Main\", \"Confirm\"");
        check_on_demo(Condition::RoleAppears(Role::new("dialog")), true, "Confirm");
        let name = Selector { name: Some(exact("Name")), ..Selector::default() };
        check_on_demo(Condition::Value { selector: name.clone(), value: exact("") }, true, "has value \"\"");
        let state = Condition::ElementState { selector: name.clone(), state: State::Editable, present: true };
        check_on_demo(state, true, "has state editable");
        check_on_demo(Condition::ElementGone(name), false, "is shown");
    }
}
