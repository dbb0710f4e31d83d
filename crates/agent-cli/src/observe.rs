//! `read` and `find`: the accessibility tree as an indented outline or a nested document,
//! and the elements a target matches.

use deft_a11y::selector::{self, Matcher};
use deft_a11y::{Accessibility, SnapshotOptions, Tree};
use deft_types::{Element, Selector, State, Target, TextMatch};
use serde::Serialize;

use crate::desktop::{self, normalise, picking_selector, snapshot_scope};
use crate::exit::{CliError, Exit};
use crate::output::Style;

/// One element of a tree document, with its children nested.
#[derive(Serialize, Debug)]
pub struct TreeNode {
    /// The element.
    #[serde(flatten)]
    pub element: Element,
    /// Its application.
    pub app: String,
    /// Its top-level window.
    pub window: Option<String>,
    /// Child indices from the window.
    pub path: Vec<u32>,
    /// Its children (cut at `--depth`).
    pub children: Vec<TreeNode>,
}

/// What `read` prints.
#[derive(Serialize, Debug)]
pub struct TreeDoc {
    /// The top elements: applications, or the window or element asked for.
    pub roots: Vec<TreeNode>,
    /// Elements in the document.
    pub count: usize,
    /// What could not be read (an app that hung, a cut at the node limit).
    pub problems: Vec<String>,
}

/// A target as a selector, for the verbs that only read the tree (`Text` becomes `text=`).
pub fn as_selector(target: Option<Target>, verb: &str) -> Result<Selector, CliError> {
    match target {
        None => Ok(Selector::default()),
        Some(Target::Selector(s)) => Ok(s),
        Some(Target::Text(m)) => Ok(Selector { text: Some(m), ..Selector::default() }),
        Some(Target::Point(_) | Target::Focused) => {
            Err(CliError::usage(format!("`{verb}` takes a selector or text, not a point")))
        }
    }
}

/// Read the tree of everything, an app, a window, or one element's subtree.
pub async fn read<A: Accessibility>(
    backend: &A,
    sel: Selector,
    depth: Option<u32>,
    hidden: bool,
) -> Result<TreeDoc, CliError> {
    let options = SnapshotOptions { hidden_details: hidden, ..SnapshotOptions::default() };
    let sel = normalise(backend, sel).await?;
    let (tree, tops): (Tree, Vec<usize>) = if crate::selector::only_scope(&sel) {
        let tree = snapshot_scope(backend, &sel, &options).await?;
        // The windows themselves when a window was named; else the roots (applications).
        let tops = if sel.window.is_some() {
            (0..tree.len()).filter(|&i| tree.nodes[i].window.is_some() && tree.nodes[i].path.is_empty()).collect()
        } else {
            tree.roots().collect()
        };
        (tree, tops)
    } else {
        let found = deft_a11y::find(backend, &sel, &options).await.map_err(desktop::a11y_error)?;
        let index = found.index;
        (found.tree, vec![index])
    };
    let mut count = 0;
    let roots = tops.iter().map(|&i| nest(&tree, i, 0, depth, &mut count)).collect();
    Ok(TreeDoc { roots, count, problems: tree.problems.clone() })
}

fn nest(tree: &Tree, i: usize, level: u32, depth: Option<u32>, count: &mut usize) -> TreeNode {
    *count += 1;
    let n = &tree.nodes[i];
    let children = if depth.is_some_and(|d| level >= d) {
        Vec::new()
    } else {
        n.children.iter().map(|&c| nest(tree, c, level + 1, depth, count)).collect()
    };
    TreeNode {
        element: n.element.clone(),
        app: n.app.clone(),
        window: n.window.clone(),
        path: n.path.clone(),
        children,
    }
}

/// The outline: one element per line, indented by depth.
pub fn tree_human(doc: &TreeDoc, st: &Style) -> String {
    let mut out = String::new();
    fn walk(n: &TreeNode, level: usize, st: &Style, out: &mut String) {
        out.push_str(&"  ".repeat(level));
        out.push_str(&element_line(&n.element, st));
        out.push('\n');
        for c in &n.children {
            walk(c, level + 1, st, out);
        }
    }
    for r in &doc.roots {
        walk(r, 0, st, &mut out);
    }
    if doc.roots.is_empty() {
        out.push_str("(no elements)\n");
    }
    for p in &doc.problems {
        out.push_str(&format!("{} {p}\n", st.yellow("problem:")));
    }
    out
}

/// `push_button "Submit order" [10,20 80x30] focused actions=click #42`.
pub fn element_line(e: &Element, st: &Style) -> String {
    let mut s = format!("{} {:?}", st.bold(e.role.as_str()), e.name);
    let extra = |label: &str, v: &Option<String>| match v {
        Some(v) if !v.is_empty() && *v != e.name => format!(" {label}={:?}", shorten(v, 60)),
        _ => String::new(),
    };
    s.push_str(&extra("text", &e.text));
    s.push_str(&extra("value", &e.value));
    if let Some(b) = e.bounds {
        s.push_str(&st.dim(&format!(" [{},{} {}x{}]", b.x, b.y, b.w, b.h)));
    }
    let mut flags: Vec<&str> = Vec::new();
    if !e.has(State::Enabled) && e.role.as_str() != "application" {
        flags.push("disabled");
    }
    for (state, word) in [
        (State::Focused, "focused"),
        (State::Checked, "checked"),
        (State::Selected, "selected"),
        (State::Expanded, "expanded"),
        (State::Pressed, "pressed"),
        (State::Busy, "busy"),
        (State::Modal, "modal"),
        (State::Active, "active"),
    ] {
        if e.has(state) {
            flags.push(word);
        }
    }
    if !flags.is_empty() {
        s.push(' ');
        s.push_str(&st.yellow(&flags.join(",")));
    }
    if !e.actions.is_empty() {
        s.push_str(&format!(" actions={}", e.actions.join(",")));
    }
    s.push_str(&st.dim(&format!(" id={}", short_id(&e.id.0))));
    s
}

/// The numeric last segment of an AT-SPI id (`42` of `:1.5|/org/a11y/atspi/accessible/42`),
/// which `--id` accepts; the whole id otherwise.
pub fn short_id(id: &str) -> &str {
    match id.rsplit_once('/') {
        Some((_, last)) if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) => last,
        _ => id,
    }
}

fn shorten(s: &str, max: usize) -> String {
    let one_line = s.replace('\n', "⏎");
    if one_line.chars().count() <= max {
        one_line
    } else {
        format!("{}…", one_line.chars().take(max).collect::<String>())
    }
}

/// One match of `find`.
#[derive(Serialize, Debug)]
pub struct Match {
    /// Its position among the matches (`--index`).
    pub index: usize,
    /// The element.
    #[serde(flatten)]
    pub element: Element,
    /// Its application.
    pub app: String,
    /// Its window.
    pub window: Option<String>,
    /// Child indices from the window.
    pub path: Vec<u32>,
    /// A selector that names exactly this element.
    pub selector: String,
}

/// What `find` prints.
#[derive(Serialize, Debug)]
pub struct FindDoc {
    /// The selector searched for, in the text syntax.
    pub query: String,
    /// How many matched.
    pub count: usize,
    /// The matches in tree order.
    pub matches: Vec<Match>,
    /// What could not be read.
    pub problems: Vec<String>,
    /// Where the text was found on screen by OCR, when no element has it (text-only
    /// queries); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ocr_matches: Vec<crate::screen::TextLine>,
}

/// Every element matching `sel` (its `index` ignored). No match is exit 3 with the
/// closest elements.
pub async fn find<A: Accessibility>(backend: &A, sel: Selector, hidden: bool) -> Result<FindDoc, CliError> {
    if sel.is_empty() {
        return Err(CliError::usage(
            "`find` needs something to look for: a selector, or --name, --role, --text, --id, --app or --window",
        ));
    }
    let options = SnapshotOptions { hidden_details: hidden, ..SnapshotOptions::default() };
    let sel = normalise(backend, sel).await?;
    let tree = snapshot_scope(backend, &sel, &options).await?;
    let query = Selector { index: None, ..sel.clone() };
    let m = Matcher::new(&query).map_err(|e| CliError::usage(e.to_string()))?;
    let found: Vec<usize> = (0..tree.len()).filter(|&i| m.matches(&tree.nodes[i])).collect();
    if found.is_empty() {
        let candidates = selector::closest_candidates(&tree, &m);
        return Err(desktop::resolve_error(selector::ResolveError::NotFound {
            selector: selector::format(&query),
            candidates,
        }));
    }
    let matches = found
        .iter()
        .enumerate()
        .map(|(index, &i)| {
            let n = &tree.nodes[i];
            Match {
                index,
                element: n.element.clone(),
                app: n.app.clone(),
                window: n.window.clone(),
                path: n.path.clone(),
                selector: picking_selector(&n.app, n.window.as_deref(), &n.path, &n.element.id),
            }
        })
        .collect::<Vec<_>>();
    Ok(FindDoc {
        query: selector::format(&query),
        count: matches.len(),
        matches,
        problems: tree.problems,
        ocr_matches: Vec::new(),
    })
}

/// `3 elements match ...`, then one line per match.
pub fn find_human(doc: &FindDoc, st: &Style) -> String {
    let mut out = format!(
        "{} element{} match{} `{}`\n",
        doc.count,
        if doc.count == 1 { "" } else { "s" },
        if doc.count == 1 { "es" } else { "" },
        doc.query
    );
    for m in &doc.matches {
        out.push_str(&format!("  index={}  {}\n", m.index, element_line(&m.element, st)));
        out.push_str(&format!("      {} {}\n", st.dim("select with:"), m.selector));
    }
    if !doc.ocr_matches.is_empty() {
        out = format!(
            "no element has the text; found on screen by OCR ({} place{}):\n",
            doc.ocr_matches.len(),
            if doc.ocr_matches.len() == 1 { "" } else { "s" }
        );
        for l in &doc.ocr_matches {
            let b = l.bounds;
            out.push_str(&format!("  {:?} {}\n", l.text, st.dim(&format!("[{},{} {}x{}]", b.x, b.y, b.w, b.h))));
        }
    }
    for p in &doc.problems {
        out.push_str(&format!("{} {p}\n", st.yellow("problem:")));
    }
    out
}

/// Whether a selector is text alone, the case where OCR of the screen may stand in.
pub fn text_only(sel: &Selector) -> Option<&TextMatch> {
    let Selector { text, .. } = sel;
    let rest = Selector { text: None, ..sel.clone() };
    if rest.is_empty() { text.as_ref() } else { None }
}

/// A not-found error of `find`.
pub fn is_not_found(e: &CliError) -> bool {
    e.exit == Exit::NotFound
}

#[cfg(test)]
mod tests {
    use deft_a11y::{FakeAccessibility, demo_tree};
    use expect_test::expect;

    use super::*;

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
    }

    #[test]
    fn short_ids_are_the_last_numeric_segment() {
        assert_eq!(short_id(":1.5|/org/a11y/atspi/accessible/42"), "42");
        assert_eq!(short_id(":1.5|/org/a11y/atspi/accessible/root"), ":1.5|/org/a11y/atspi/accessible/root");
    }

    fn exact(s: &str) -> Option<TextMatch> {
        Some(TextMatch::Exact(s.into()))
    }

    #[test]
    fn read_on_the_fake_tree() {
        let fake = FakeAccessibility::new(demo_tree());
        let all = run(read(&fake, Selector::default(), None, false)).unwrap();
        assert_eq!((all.roots.len(), all.count), (1, 7));
        let top = run(read(&fake, Selector::default(), Some(1), false)).unwrap();
        expect![[r#"
            application "demo" id=demo|root
              frame "Main" [0,0 400x300] id=demo|1
              dialog "Confirm" [500,0 200x100] id=demo|5
        "#]]
        .assert_eq(&tree_human(&top, &Style::default()));
        let window = Selector { window: exact("Main"), ..Selector::default() };
        let doc = run(read(&fake, window, None, false)).unwrap();
        assert_eq!((doc.roots.len(), doc.count, doc.roots[0].element.name.as_str()), (1, 4, "Main"));
        let json = serde_json::to_value(&doc).unwrap();
        assert_eq!(json["roots"][0]["children"][1]["name"], "Cancel", "{json}");
        let cancel = Selector { name: exact("Cancel"), ..Selector::default() };
        assert_eq!(run(read(&fake, cancel, None, false)).unwrap().count, 1);
        let ok = Selector { name: exact("OK"), ..Selector::default() };
        assert_eq!(run(read(&fake, ok, None, false)).unwrap_err().exit, Exit::Ambiguous);
    }

    #[test]
    fn find_on_the_fake_tree() {
        let fake = FakeAccessibility::new(demo_tree());
        let buttons = Selector { role: Some(deft_types::Role::new("push_button")), ..Selector::default() };
        let found = run(find(&fake, buttons, false)).unwrap();
        assert_eq!(found.count, 3);
        expect![[r#"
            3 elements match `role=push_button`
              index=0  push_button "OK" [10,10 80x30] actions=click id=demo|2
                  select with: app=demo window=Main path=0
              index=1  push_button "Cancel" [100,10 80x30] actions=click id=demo|3
                  select with: app=demo window=Main path=1
              index=2  push_button "OK" [510,50 80x30] actions=click id=demo|6
                  select with: app=demo window=Confirm path=0
        "#]]
        .assert_eq(&find_human(&found, &Style::default()));
        let ok_in_dialog = Selector { name: exact("OK"), window: exact("Confirm"), ..Selector::default() };
        assert_eq!(run(find(&fake, ok_in_dialog, false)).unwrap().count, 1);
        let none = run(find(&fake, Selector { name: exact("Canel"), ..Selector::default() }, false)).unwrap_err();
        assert_eq!(none.exit, Exit::NotFound);
        assert_eq!(none.candidates[0].name, "Cancel");
        assert_eq!(run(find(&fake, Selector::default(), false)).unwrap_err().exit, Exit::Usage);
    }

    #[test]
    fn element_lines() {
        let mut e = deft_a11y::element(":1.5|/a/42", "push_button", "Submit order");
        e.bounds = Some(deft_types::Rect::new(10, 20, 80, 30));
        e.states.insert(State::Enabled);
        e.states.insert(State::Focused);
        e.actions = vec!["click".into()];
        expect![[r#"push_button "Submit order" [10,20 80x30] focused actions=click id=42"#]]
            .assert_eq(&element_line(&e, &Style::default()));
    }
}
