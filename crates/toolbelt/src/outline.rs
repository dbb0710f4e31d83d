//! The outline of an accessibility tree: one element per line, indented by depth, each
//! with a reference the next call can aim at. What a person reads on a terminal and what
//! the agent shows its model come from this one renderer, in two styles.
//!
//! The compact style is designed for tokens (docs/BENCHMARKS.md measures it against the
//! JSON tree and a screenshot): elements not on screen are left out, unnamed layout
//! containers (panels, fillers, scroll panes) are skipped with their children promoted,
//! bounds and action names are left out, and a line ends with its ref: `push_button
//! "Submit order" focused [e5]`.

use deft_a11y::Tree;
use deft_types::{Element, Role, State};

use crate::refs::Refs;

/// How elements are referred to in an outline.
#[derive(Clone, Copy, Debug)]
pub enum RefStyle<'a> {
    /// Session refs (`[e12]`), minted as elements are shown.
    Session(&'a Refs),
    /// Element ids in their short form (`id=42`), for faces without a session (the CLI).
    Ids,
}

impl RefStyle<'_> {
    /// The reference of `e` in this style.
    pub(crate) fn of(&self, e: &Element) -> String {
        match self {
            RefStyle::Session(refs) => refs.mint(e),
            RefStyle::Ids => deft_a11y::short_id(&e.id).to_string(),
        }
    }
}

/// What an outline shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutlineStyle {
    /// Bounds `[x,y wxh]` on every line.
    pub bounds: bool,
    /// Action names (`actions=click`).
    pub actions: bool,
    /// Leave out elements not on screen and unnamed layout containers.
    pub compact: bool,
    /// ANSI colours (terminals).
    pub color: bool,
    /// At most this many lines; the rest is counted in an explicit last line.
    pub max_lines: Option<usize>,
}

impl OutlineStyle {
    /// For models: compact, no bounds or actions, capped.
    pub const COMPACT: OutlineStyle =
        OutlineStyle { bounds: false, actions: false, compact: true, color: false, max_lines: Some(400) };

    /// For people on a terminal and `read`'s text output: every element, with bounds and actions.
    pub fn detailed(color: bool) -> OutlineStyle {
        OutlineStyle { bounds: true, actions: true, compact: false, color, max_lines: None }
    }
}

/// A rendered outline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline {
    /// The lines, each ending in a newline (with the truncation line last, when cut).
    pub text: String,
    /// Element lines written.
    pub lines: usize,
    /// Elements left out by the line cap.
    pub omitted: usize,
}

fn paint(on: bool, code: &str, s: &str) -> String {
    if on { format!("\x1b[{code}m{s}\x1b[0m") } else { s.to_string() }
}

/// Roles that only lay other elements out: skipped in the compact style when they have no
/// name, their children shown in their place.
fn is_layout(role: &Role) -> bool {
    matches!(
        role.as_str(),
        "filler"
            | "panel"
            | "section"
            | "layered_pane"
            | "scroll_pane"
            | "viewport"
            | "split_pane"
            | "unknown"
            | "redundant_object"
            | "grouping"
            | "block_quote"
            | "invalid"
    )
}

/// The states worth a word, in the order they are written.
const FLAGS: [(State, &str); 8] = [
    (State::Focused, "focused"),
    (State::Checked, "checked"),
    (State::Selected, "selected"),
    (State::Expanded, "expanded"),
    (State::Pressed, "pressed"),
    (State::Busy, "busy"),
    (State::Modal, "modal"),
    (State::Active, "active"),
];

/// One element's line: `push_button "Submit order" [10,20 80x30] focused actions=click id=42`
/// (detailed) or `push_button "Submit order" focused [e5]` (compact).
pub fn element_line(e: &Element, style: &OutlineStyle, reference: &str) -> String {
    let mut s = paint(style.color, "1", e.role.as_str());
    if !e.name.is_empty() || !style.compact {
        s.push_str(&format!(" {:?}", e.name.trim_end()));
    }
    let extra = |label: &str, v: &Option<String>| match v {
        Some(v) if !v.is_empty() && *v != e.name => format!(" {label}={:?}", shorten(v, 60)),
        _ => String::new(),
    };
    // A password field shows its name and states, never its text: even a mask tells the
    // password's length, and every face (and model) reads this line.
    let secret = e.is_secret();
    if !secret {
        s.push_str(&extra("text", &e.text));
    }
    // A spin button's text and value are the same number: say it once.
    if !secret && (e.value != e.text || !style.compact) {
        s.push_str(&extra("value", &e.value));
    }
    if style.bounds
        && let Some(b) = e.bounds
    {
        s.push_str(&paint(style.color, "2", &format!(" [{},{} {}x{}]", b.x, b.y, b.w, b.h)));
    }
    let mut flags: Vec<&str> = Vec::new();
    if !e.has(State::Enabled) && e.role.as_str() != "application" && (!style.compact || !is_layout(&e.role)) {
        flags.push("disabled");
    }
    flags.extend(FLAGS.iter().filter(|(st, _)| e.has(*st)).map(|(_, w)| *w));
    if !flags.is_empty() {
        s.push(' ');
        s.push_str(&paint(style.color, "33", &flags.join(",")));
    }
    if style.actions && !e.actions.is_empty() {
        s.push_str(&format!(" actions={}", e.actions.join(",")));
    }
    if style.compact {
        s.push_str(&format!(" [{reference}]"));
    } else {
        s.push_str(&paint(style.color, "2", &format!(" id={reference}")));
    }
    s
}

fn shorten(s: &str, max: usize) -> String {
    let one_line = s.replace('\n', "⏎");
    if one_line.chars().count() <= max {
        one_line
    } else {
        format!("{}…", one_line.chars().take(max).collect::<String>())
    }
}

/// Whether the compact style leaves `e` out with everything below it (not on screen).
fn hidden(e: &Element) -> bool {
    !e.has(State::Showing) && e.role.as_str() != "application"
}

/// Whether the compact style skips `e`'s own line but shows its children: unnamed layout
/// containers, separators, and static text that only repeats its parent's (a list row's
/// label, a frame's caption).
fn skipped(tree: &Tree, i: usize) -> bool {
    let e = &tree.nodes[i].element;
    if e.role.as_str() == "separator" {
        return true;
    }
    if is_layout(&e.role) && e.name.trim().is_empty() && e.text.is_none() && !e.has(State::Focusable) {
        return true;
    }
    let repeats_parent = tree.nodes[i].parent.is_some_and(|p| {
        let text = e.visible_text().trim();
        !text.is_empty() && tree.nodes[p].element.visible_text().trim() == text
    });
    repeats_parent && e.role.as_str() == "label" && tree.nodes[i].children.is_empty()
}

/// The nodes `style` shows, in tree order, from every root down.
pub(crate) fn shown_nodes(tree: &Tree, style: &OutlineStyle) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack: Vec<usize> = tree.roots().collect::<Vec<_>>().into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        let e = &tree.nodes[i].element;
        if style.compact && hidden(e) {
            continue;
        }
        if !(style.compact && skipped(tree, i)) {
            out.push(i);
        }
        stack.extend(tree.nodes[i].children.iter().rev());
    }
    out
}

/// The outline of `tops` and below (cut `depth` levels under them), in `style`.
pub fn outline(tree: &Tree, tops: &[usize], depth: Option<u32>, style: &OutlineStyle, refs: RefStyle<'_>) -> Outline {
    let mut out = Outline::default();
    let cap = style.max_lines.unwrap_or(usize::MAX);
    let mut stack: Vec<(usize, u32, usize)> = tops.iter().rev().map(|&i| (i, 0, 0)).collect();
    while let Some((i, level, indent)) = stack.pop() {
        let e = &tree.nodes[i].element;
        if style.compact && hidden(e) {
            continue;
        }
        let shown = !(style.compact && skipped(tree, i));
        if shown {
            if out.lines < cap {
                out.text.push_str(&"  ".repeat(indent));
                out.text.push_str(&element_line(e, style, &refs.of(e)));
                out.text.push('\n');
                out.lines += 1;
            } else {
                out.omitted += 1;
            }
        }
        if depth.is_some_and(|d| level >= d) {
            continue;
        }
        let child_indent = if shown { indent + 1 } else { indent };
        for &c in tree.nodes[i].children.iter().rev() {
            stack.push((c, level + 1, child_indent));
        }
    }
    if out.omitted > 0 {
        out.text.push_str(&format!(
            "… truncated: {} more element{}; read a window or an element to see them\n",
            out.omitted,
            if out.omitted == 1 { "" } else { "s" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use deft_a11y::demo_tree;
    use expect_test::expect;

    use super::*;

    #[test]
    fn detailed_and_compact() {
        let t = demo_tree();
        let tops: Vec<usize> = t.roots().collect();
        let o = outline(&t, &tops, Some(1), &OutlineStyle::detailed(false), RefStyle::Ids);
        expect![[r#"
            application "demo" id=demo|root
              frame "Main" [0,0 400x300] id=demo|1
              dialog "Confirm" [500,0 200x100] id=demo|5
        "#]]
        .assert_eq(&o.text);
        let refs = Refs::new();
        let o = outline(&t, &tops, None, &OutlineStyle::COMPACT, RefStyle::Session(&refs));
        expect![[r#"
            application "demo" [e1]
              frame "Main" [e2]
                push_button "OK" [e3]
                push_button "Cancel" [e4]
                text "Name" [e5]
              dialog "Confirm" [e6]
                push_button "OK" [e7]
        "#]]
        .assert_eq(&o.text);
        let capped = OutlineStyle { max_lines: Some(3), ..OutlineStyle::COMPACT };
        let o = outline(&t, &tops, None, &capped, RefStyle::Session(&refs));
        assert_eq!((o.lines, o.omitted), (3, 4));
        assert!(o.text.ends_with("… truncated: 4 more elements; read a window or an element to see them\n"));
        assert!(o.text.contains("[e3]"), "refs stay the same: {}", o.text);
    }

    #[test]
    fn a_password_field_line_has_no_text_not_even_its_mask() {
        let mut e = deft_a11y::element(":1.5|/a/7", "password_text", "Password");
        e.states.insert(State::Enabled);
        e.text = Some("●●●●●●●".into());
        e.value = Some("●●●●●●●".into());
        for style in [OutlineStyle::COMPACT, OutlineStyle::detailed(false)] {
            let line = element_line(&e, &style, "e3");
            assert!(line.starts_with("password_text \"Password\"") && !line.contains('●'), "{line}");
        }
    }

    #[test]
    fn element_lines() {
        let mut e = deft_a11y::element(":1.5|/a/42", "push_button", "Submit order");
        e.bounds = Some(deft_types::Rect::new(10, 20, 80, 30));
        e.states.insert(State::Enabled);
        e.states.insert(State::Focused);
        e.actions = vec!["click".into()];
        expect![[r#"push_button "Submit order" [10,20 80x30] focused actions=click id=42"#]].assert_eq(&element_line(
            &e,
            &OutlineStyle::detailed(false),
            "42",
        ));
        expect![[r#"push_button "Submit order" focused [e9]"#]].assert_eq(&element_line(
            &e,
            &OutlineStyle::COMPACT,
            "e9",
        ));
        e.name = "Save As...      ".into();
        e.states.remove(&State::Enabled);
        expect![[r#"push_button "Save As..." disabled,focused [e9]"#]].assert_eq(&element_line(
            &e,
            &OutlineStyle::COMPACT,
            "e9",
        ));
    }
}
