//! Matching selectors against a [`Tree`], and resolving them to exactly one element.

use std::fmt;

use deft_types::{Candidate, Element, ElementId, Selector, State, TextMatch};
use regex::Regex;

use super::lex::{Grammar, SyntaxError};
use super::parse::{SelectorText, format_path};
use crate::tree::{Node, Tree};

/// How many closest candidates a [`ResolveError::NotFound`] lists.
pub const MAX_CANDIDATES: usize = 5;

/// The candidate `node` makes, `score` in `0..=1` its similarity to the selector.
pub fn candidate_of(node: &Node, score: f64) -> Candidate {
    Candidate {
        id: node.element.id.clone(),
        role: node.element.role.clone(),
        name: node.element.name.clone(),
        app: node.app.clone(),
        window: node.window.clone(),
        path: node.path.clone(),
        selector: picking_selector(&node.app, node.window.as_deref(), &node.path, &node.element.id),
        similarity: similarity_percent(score),
    }
}

/// A similarity in `0..=1` as a percentage, floored, so that only an actual match reads 100.
pub fn similarity_percent(score: f64) -> u8 {
    (score.clamp(0.0, 1.0) * 100.0).floor() as u8
}

/// A selector that names exactly this element and survives the app restarting: app, window
/// and path when it is in a window, its id otherwise.
pub fn picking_selector(app: &str, window: Option<&str>, path: &[u32], id: &ElementId) -> String {
    let sel = match window {
        Some(w) => Selector {
            app: Some(TextMatch::Exact(app.to_string())),
            window: Some(TextMatch::Exact(w.to_string())),
            path: Some(path.to_vec()),
            ..Selector::default()
        },
        None => Selector { id: Some(id.clone()), ..Selector::default() },
    };
    SelectorText(&sel).to_string()
}

/// One candidate in words: `push_button "OK" (app "demo", window "Main", path=0, id=demo|2)`.
pub struct CandidateText<'a>(pub &'a Candidate);

impl fmt::Display for CandidateText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        write!(f, "{} {:?} (app {:?}", c.role, c.name, c.app)?;
        if let Some(w) = &c.window {
            write!(f, ", window {w:?}, path={}", format_path(&c.path))?;
        }
        write!(f, ", id={})", c.id)
    }
}

/// A selector that does not designate exactly one element.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResolveError {
    /// Nothing matches; the closest elements, most similar first.
    #[error("no element matches `{selector}`; {}", closest(candidates))]
    NotFound {
        /// The selector, in the text syntax.
        selector: String,
        /// The closest elements, most similar first.
        candidates: Vec<Candidate>,
    },
    /// Several elements match and the selector has no `index`: all of them, in tree order.
    #[error(
        "`{selector}` matches {} elements; add a term to tell them apart, or index=N to pick one: {}",
        matches.len(), numbered(matches)
    )]
    Ambiguous {
        /// The selector, in the text syntax.
        selector: String,
        /// Every match, in tree order.
        matches: Vec<Candidate>,
    },
    /// `index` is past the last match.
    #[error("`{selector}` has index={index} but only {} element(s) match: {}", matches.len(), numbered(matches))]
    IndexOutOfRange {
        /// The selector, in the text syntax.
        selector: String,
        /// The index asked for.
        index: u32,
        /// Every match, in tree order.
        matches: Vec<Candidate>,
    },
    /// The selector names an application that is not on the accessibility bus; the
    /// applications that are, most similar first.
    #[error("{}", no_app(app, running))]
    NoApp {
        /// The application as the selector names it.
        app: String,
        /// The applications on the bus, most similar first (at most [`MAX_CANDIDATES`]).
        running: Vec<Candidate>,
    },
    /// The selector holds an invalid regular expression.
    #[error(transparent)]
    Invalid(#[from] SyntaxError),
}

/// What to do about an application accessibility does not list: it may be starting, it may
/// give no accessibility at all, or have it turned off; what shows on screen still serves.
fn no_app(app: &str, running: &[Candidate]) -> String {
    let there = match running {
        [] => "it lists none at all".to_string(),
        // A name mistyped is likelier than an app without accessibility.
        [c, ..] if c.similarity >= 60 => {
            format!("did you mean {:?}? the applications on it are the candidates given with this error", c.name)
        }
        _ => "the applications on it are the candidates given with this error".to_string(),
    };
    format!(
        "no application {app} is on the accessibility bus ({there}). If it is running, it gives no accessibility \
         (X toolkit programs like xcalc and xterm, most games) or has it turned off (GTK 2: \
         GTK_MODULES=gail:atk-bridge; Qt 5: QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1; Java: the ATK wrapper): leave out the \
         app and name the target by the text it shows (found on screen by OCR; `ocr` lists what it reads), \
         or give its screen point (x, y)"
    )
}

fn closest(candidates: &[Candidate]) -> String {
    if candidates.is_empty() {
        return "nothing similar is there (ids change when an app restarts: read again)".to_string();
    }
    let list: Vec<String> =
        candidates.iter().map(|c| format!("{} [{}% similar]", CandidateText(c), c.similarity)).collect();
    format!("closest: {}", list.join("; "))
}

fn numbered(matches: &[Candidate]) -> String {
    let list: Vec<String> =
        matches.iter().enumerate().map(|(i, c)| format!("index={i}: {}", CandidateText(c))).collect();
    list.join("; ")
}

/// A text criterion ready to test: regular expressions compiled once.
#[derive(Debug, Clone)]
enum Text {
    Exact(String),
    /// An exact application name, whatever its case: people type an app's name the way its
    /// command is spelled (`featherpad` for "FeatherPad"), and no two apps differ by case.
    ExactAnyCase(String),
    Contains(String),
    Regex(Regex),
}

impl Text {
    fn new(m: &TextMatch, key: &str, sel: &Selector) -> Result<Text, SyntaxError> {
        Ok(match m {
            TextMatch::Exact(s) => Text::Exact(s.clone()),
            TextMatch::Contains(s) => Text::Contains(s.to_lowercase()),
            TextMatch::Regex(r) => Text::Regex(Regex::new(r).map_err(|e| {
                let input = SelectorText(sel).to_string();
                let offset = input.find(&format!("{key}/=")).map_or(0, |o| o + key.len() + 2);
                SyntaxError {
                    grammar: Grammar::Selector,
                    column: input[..offset].chars().count() + 1,
                    input,
                    offset,
                    message: format!(
                        "invalid regular expression: {}",
                        e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
                    ),
                }
            })?),
        })
    }

    fn matches(&self, s: &str) -> bool {
        match self {
            // Toolkits pad names ("Save As...      "); a person never means the padding.
            Text::Exact(w) => s.trim() == w.trim(),
            Text::ExactAnyCase(w) => s.trim().to_lowercase() == *w,
            Text::Contains(w) => s.to_lowercase().contains(w.as_str()),
            Text::Regex(r) => r.is_match(s),
        }
    }

    /// Similarity in `0..=1`, 1 when it matches.
    fn similarity(&self, s: &str) -> f64 {
        if self.matches(s) {
            return 1.0;
        }
        match self {
            Text::Exact(w) | Text::ExactAnyCase(w) | Text::Contains(w) => text_similarity(w, s),
            Text::Regex(r) => {
                let literal: String = r.as_str().chars().filter(|c| c.is_alphanumeric() || *c == ' ').collect();
                0.5 * text_similarity(&literal, s)
            }
        }
    }
}

/// How alike two texts are, ignoring case, in `0..=1`: containment ranks high, then the
/// better of the whole-text and the best per-word edit similarity (Damerau-Levenshtein,
/// so a transposed pair of letters costs one edit: "Sumbit" is close to "Submit").
pub fn text_similarity(want: &str, have: &str) -> f64 {
    let (w, h) = (want.to_lowercase(), have.to_lowercase());
    if w == h {
        return 1.0;
    }
    if w.is_empty() || h.is_empty() {
        return 0.0;
    }
    if h.contains(&w) || w.contains(&h) {
        let (short, long) = if w.len() < h.len() { (&w, &h) } else { (&h, &w) };
        return 0.75 + 0.2 * (short.len() as f64 / long.len() as f64);
    }
    let whole = strsim::normalized_damerau_levenshtein(&w, &h);
    let word = h.split_whitespace().map(|part| strsim::normalized_damerau_levenshtein(&w, part)).fold(0.0, f64::max);
    whole.max(0.95 * word)
}

/// A selector compiled for matching many nodes.
#[derive(Debug, Clone)]
pub struct Matcher {
    selector: Selector,
    app: Option<Text>,
    window: Option<Text>,
    name: Option<Text>,
    text: Option<Text>,
}

impl Matcher {
    /// Compile `selector` (its regular expressions).
    /// A role no element can have is an error here, so it is refused before any wait.
    pub fn new(selector: &Selector) -> Result<Matcher, SyntaxError> {
        if let Some(why) = selector.role.as_ref().and_then(crate::roles::unknown) {
            let input = SelectorText(selector).to_string();
            let offset = input.find("role=").map_or(0, |o| o + "role=".len());
            return Err(SyntaxError::at(Grammar::Selector, &input, offset, why));
        }
        let compile = |m: &Option<TextMatch>, key: &str| m.as_ref().map(|m| Text::new(m, key, selector)).transpose();
        let app = match &selector.app {
            Some(TextMatch::Exact(a)) => Some(Text::ExactAnyCase(a.trim().to_lowercase())),
            _ => compile(&selector.app, "app")?,
        };
        Ok(Matcher {
            app,
            window: compile(&selector.window, "window")?,
            name: compile(&selector.name, "name")?,
            text: compile(&selector.text, "text")?,
            selector: selector.clone(),
        })
    }

    /// The selector.
    pub fn selector(&self) -> &Selector {
        &self.selector
    }

    /// Whether `node` meets every criterion (`index` aside, which picks among matches).
    pub fn matches(&self, node: &Node) -> bool {
        self.matches_but_text(node) && self.text.as_ref().is_none_or(|t| seen_texts(node).any(|s| t.matches(s)))
    }

    /// Whether `node` meets every criterion with its `text` term met by its accessible
    /// description instead (an icon button's tooltip, "Pause the playback": what a person
    /// reads on it). Resolution falls back to it only when no element shows the text.
    pub fn matches_by_description(&self, node: &Node) -> bool {
        let described = self.text.as_ref().is_some_and(|t| {
            let d = node.element.description.trim();
            !d.is_empty() && t.matches(d)
        });
        described && self.matches_but_text(node)
    }

    fn matches_but_text(&self, node: &Node) -> bool {
        let e = &node.element;
        let s = &self.selector;
        s.role.as_ref().is_none_or(|r| e.role.answers_to(r, is_window(node)))
            && s.id.as_ref().is_none_or(|id| *id == e.id)
            && s.path.as_ref().is_none_or(|p| node.window.is_some() && *p == node.path)
            && self.name.as_ref().is_none_or(|t| t.matches(&e.name))
            && self.app.as_ref().is_none_or(|t| t.matches(&node.app))
            && self.window.as_ref().is_none_or(|t| node.window.as_deref().is_some_and(|w| t.matches(w)))
    }

    /// Whether an application called `app` meets the `app` criterion.
    pub fn matches_app(&self, app: &str) -> bool {
        self.app.as_ref().is_none_or(|t| t.matches(app))
    }

    /// Whether a window titled `title` meets the `window` criterion.
    pub fn matches_window(&self, title: &str) -> bool {
        self.window.as_ref().is_none_or(|t| t.matches(title))
    }

    /// How close an application's name comes to the `app` criterion.
    pub fn app_similarity(&self, app: &str) -> f64 {
        self.app.as_ref().map_or(1.0, |t| t.similarity(app))
    }

    /// How close a window's title comes to the `window` criterion.
    pub fn window_similarity(&self, title: &str) -> f64 {
        self.window.as_ref().map_or(1.0, |t| t.similarity(title))
    }

    /// How close `node` comes to matching, in `0..=1`: the weighted mean similarity over
    /// the selector's criteria.
    pub fn similarity(&self, node: &Node) -> f64 {
        let e = &node.element;
        let s = &self.selector;
        // (weight, similarity): what a person reads (name, text) counts double.
        let mut parts: Vec<(f64, f64)> = Vec::new();
        if let Some(r) = &s.role {
            let sim = if e.role.answers_to(r, is_window(node)) {
                1.0
            } else {
                0.5 * text_similarity(r.as_str(), e.role.as_str())
            };
            parts.push((1.0, sim));
        }
        if let Some(id) = &s.id {
            parts.push((1.0, if *id == e.id { 1.0 } else { 0.0 }));
        }
        if let Some(p) = &s.path {
            let common = p.iter().zip(&node.path).take_while(|(a, b)| a == b).count();
            let longest = p.len().max(node.path.len()).max(1);
            parts.push((1.0, if node.window.is_some() { common as f64 / longest as f64 } else { 0.0 }));
        }
        if let Some(t) = &self.name {
            parts.push((2.0, t.similarity(&e.name)));
        }
        if let Some(t) = &self.app {
            parts.push((1.0, t.similarity(&node.app)));
        }
        if let Some(t) = &self.window {
            parts.push((1.0, node.window.as_deref().map_or(0.0, |w| t.similarity(w))));
        }
        if let Some(t) = &self.text {
            parts.push((2.0, seen_texts(node).map(|s| t.similarity(s)).fold(0.0, f64::max)));
        }
        let weight: f64 = parts.iter().map(|(w, _)| w).sum();
        if weight == 0.0 { 1.0 } else { parts.iter().map(|(w, s)| w * s).sum::<f64>() / weight }
    }
}

/// The texts a person sees on an element: name, text and value.
fn seen_texts(node: &Node) -> impl Iterator<Item = &str> {
    let e = &node.element;
    std::iter::once(e.name.as_str()).chain(e.text.as_deref()).chain(e.value.as_deref())
}

/// Every node matching `selector` (its `index` ignored), in tree order.
pub fn find_all(tree: &Tree, selector: &Selector) -> Result<Vec<usize>, SyntaxError> {
    let m = Matcher::new(selector)?;
    Ok((0..tree.len()).filter(|&i| m.matches(&tree.nodes[i])).collect())
}

/// The one node `selector` designates: its only match, or match number `index`.
///
/// Never picks the first of several silently: more than one match without an `index` is
/// [`ResolveError::Ambiguous`], listing them all; no match is [`ResolveError::NotFound`]
/// with the closest candidates ranked by similarity.
pub fn resolve(tree: &Tree, selector: &Selector) -> Result<usize, ResolveError> {
    let m = Matcher::new(selector)?;
    let found: Vec<usize> = (0..tree.len()).filter(|&i| m.matches(&tree.nodes[i])).collect();
    let text = SelectorText(selector).to_string();
    let listed = |found: &[usize]| found.iter().map(|&i| candidate_of(&tree.nodes[i], 1.0)).collect();
    match (found.len(), selector.index) {
        (0, _) => Err(ResolveError::NotFound { selector: text, candidates: closest_candidates(tree, &m) }),
        (1, None | Some(0)) => Ok(found[0]),
        (_, None) => Err(ResolveError::Ambiguous { selector: text, matches: listed(&found) }),
        (n, Some(i)) if (i as usize) < n => Ok(found[i as usize]),
        (_, Some(index)) => Err(ResolveError::IndexOutOfRange { selector: text, index, matches: listed(&found) }),
    }
}

/// Up to [`MAX_CANDIDATES`] nodes most similar to the selector, most similar first (tree
/// order among equals).
pub fn closest_candidates(tree: &Tree, m: &Matcher) -> Vec<Candidate> {
    let mut scored: Vec<(f64, usize)> =
        (0..tree.len()).map(|i| (m.similarity(&tree.nodes[i]), i)).filter(|(s, _)| *s > 0.0).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(MAX_CANDIDATES).map(|(s, i)| candidate_of(&tree.nodes[i], s)).collect()
}

/// How one element is picked among a selector's matches.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Pick {
    /// Exactly one match, or the one `index` names; anything else is an error listing
    /// them (what `find` and scripts that want no guessing use).
    Exact,
    /// What a person means, by one explicit rule ([`pick`]): several matches that are
    /// one element (listed twice, or an element and its own text inside it) count once;
    /// a shown element beats hidden ones; a control beats the static text that labels it.
    /// Anything still ambiguous is an error that lists every match.
    #[default]
    Natural,
}

/// The matches of `selector` as [`Pick::Natural`] counts them, in tree order: each element
/// once, and without an element that lies inside another match showing the same text (a
/// link and its own text, a list row and its label: the outer one is what gets clicked),
/// except a label around a control, where the control is kept.
/// `index` counts in this list.
pub fn natural_matches(tree: &Tree, selector: &Selector) -> Result<Vec<usize>, SyntaxError> {
    let m = Matcher::new(selector)?;
    let mut all: Vec<usize> = Vec::new();
    for i in 0..tree.len() {
        let id = &tree.nodes[i].element.id;
        if m.matches(&tree.nodes[i]) && !all.iter().any(|&j| &tree.nodes[j].element.id == id) {
            all.push(i);
        }
    }
    // No element shows the text: one whose description (its tooltip) says it is meant.
    if all.is_empty() {
        for i in 0..tree.len() {
            let id = &tree.nodes[i].element.id;
            if m.matches_by_description(&tree.nodes[i]) && !all.iter().any(|&j| &tree.nodes[j].element.id == id) {
                all.push(i);
            }
        }
    }
    let same_text =
        |a: usize, b: usize| tree.nodes[a].element.visible_text().trim() == tree.nodes[b].element.visible_text().trim();
    let wraps = |outer: usize, inner: usize| outer != inner && tree.is_within(inner, outer) && same_text(inner, outer);
    // A label around its control (a web page's `<label><input type=checkbox> Subscribe`):
    // the control is meant, and its own state is what a click changes.
    let label_around =
        |outer: usize, inner: usize| is_static_text(&tree.nodes[outer]) && !is_static_text(&tree.nodes[inner]);
    let kept = all
        .iter()
        .copied()
        .filter(|&i| !all.iter().any(|&outer| wraps(outer, i) && !label_around(outer, i)))
        .filter(|&i| !all.iter().any(|&inner| wraps(i, inner) && label_around(i, inner)))
        .collect();
    Ok(kept)
}

/// Whether an element only shows text (a label, a heading): never what a person means
/// when a control with the same text is there too.
fn is_static_text(node: &Node) -> bool {
    shows_text_only(&node.element)
}

/// Whether `e` only shows text (a label, a heading, read-only text): nothing to type into
/// or to press.
pub fn shows_text_only(e: &Element) -> bool {
    match e.role.as_str() {
        "label" | "static" | "caption" | "heading" | "paragraph" | "description_term" => true,
        "text" => !e.has(State::Editable),
        _ => false,
    }
}

/// The one node `selector` designates under `rule`.
///
/// [`Pick::Natural`], in order: `index` picks among [`natural_matches`]; one match is
/// it; among several, the only one that is showing (a hidden element cannot be what a
/// person means; a destroyed widget may linger hidden for a moment), or the only one
/// showing with bounds on screen; among those, the only one that is not static text; among
/// those, when all are of one role, the only one with actions. Otherwise [`ResolveError::Ambiguous`]
/// with every match, numbered as `index` counts them. Never the first of several.
pub fn pick(tree: &Tree, selector: &Selector, rule: Pick) -> Result<usize, ResolveError> {
    if rule == Pick::Exact {
        return resolve(tree, selector);
    }
    let found = natural_matches(tree, selector)?;
    let text = SelectorText(selector).to_string();
    let listed = |found: &[usize]| found.iter().map(|&i| candidate_of(&tree.nodes[i], 1.0)).collect();
    if found.is_empty() {
        let m = Matcher::new(selector)?;
        return Err(ResolveError::NotFound { selector: text, candidates: closest_candidates(tree, &m) });
    }
    if let Some(index) = selector.index {
        return found.get(index as usize).copied().ok_or_else(|| ResolveError::IndexOutOfRange {
            selector: text.clone(),
            index,
            matches: listed(&found),
        });
    }
    if let [one] = found[..] {
        return Ok(one);
    }
    let showing: Vec<usize> = found.iter().copied().filter(|&i| tree.nodes[i].element.has(State::Showing)).collect();
    if let [one] = showing[..] {
        return Ok(one);
    }
    // Some toolkits (Qt) leave `showing` on widgets of a hidden bar: what has bounds on
    // screen is what a person sees.
    let drawn: Vec<usize> =
        showing.iter().copied().filter(|&i| tree.nodes[i].element.bounds.is_some_and(|b| !b.is_empty())).collect();
    if let [one] = drawn[..] {
        return Ok(one);
    }
    // Among what is shown; when nothing is (a form scrolled out of view), among them all:
    // a label and its field are one thing a person names, shown or not.
    let candidates = match (drawn.is_empty(), showing.is_empty()) {
        (false, _) => drawn,
        (true, false) => showing,
        (true, true) => found.clone(),
    };
    let controls: Vec<usize> = candidates.iter().copied().filter(|&i| !is_static_text(&tree.nodes[i])).collect();
    if let [one] = controls[..] {
        return Ok(one);
    }
    // A toolkit's shadow copy: LibreOffice lists its menu bar twice, GTK's (which acts) and
    // its own (no actions, reported shown with bounds where none of it is drawn).
    let role = |i: usize| &tree.nodes[i].element.role;
    if controls.iter().all(|&i| role(i) == role(controls[0])) {
        let acting: Vec<usize> =
            controls.iter().copied().filter(|&i| !tree.nodes[i].element.actions.is_empty()).collect();
        if let [one] = acting[..] {
            return Ok(one);
        }
    }
    Err(ResolveError::Ambiguous { selector: text, matches: listed(&found) })
}

/// Whether `node` is a top-level window (of its application).
fn is_window(node: &Node) -> bool {
    node.window.is_some() && node.path.is_empty()
}
