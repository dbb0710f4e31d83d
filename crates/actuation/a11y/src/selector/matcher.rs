//! Matching selectors against a [`Tree`], and resolving them to exactly one element.

use std::fmt;

use deft_types::{ElementId, Role, Selector, TextMatch};
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::parse::{SelectorError, SelectorText, format_path};
use crate::tree::{Node, Tree};

/// How many closest candidates a [`ResolveError::NotFound`] lists.
pub const MAX_CANDIDATES: usize = 5;

/// An element named in a resolution error, so a person or an agent can pick another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Its id.
    pub id: ElementId,
    /// Its role.
    pub role: Role,
    /// Its name.
    pub name: String,
    /// Its application.
    pub app: String,
    /// Its window.
    pub window: Option<String>,
    /// Its path from the window.
    pub path: Vec<u32>,
    /// Similarity to the selector in `0..=1` (1 for an actual match).
    pub score: f64,
}

impl Candidate {
    fn of(node: &Node, score: f64) -> Candidate {
        Candidate {
            id: node.element.id.clone(),
            role: node.element.role.clone(),
            name: node.element.name.clone(),
            app: node.app.clone(),
            window: node.window.clone(),
            path: node.path.clone(),
            score,
        }
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?} (app {:?}", self.role, self.name, self.app)?;
        if let Some(w) = &self.window {
            write!(f, ", window {w:?}, path={}", format_path(&self.path))?;
        }
        write!(f, ", id={})", self.id)
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
    /// The selector holds an invalid regular expression.
    #[error(transparent)]
    Invalid(#[from] SelectorError),
}

fn closest(candidates: &[Candidate]) -> String {
    if candidates.is_empty() {
        return "the tree is empty".to_string();
    }
    let list: Vec<String> = candidates.iter().map(|c| format!("{c} [similarity {:.2}]", c.score)).collect();
    format!("closest: {}", list.join("; "))
}

fn numbered(matches: &[Candidate]) -> String {
    let list: Vec<String> = matches.iter().enumerate().map(|(i, c)| format!("index={i}: {c}")).collect();
    list.join("; ")
}

/// A text criterion ready to test: regular expressions compiled once.
#[derive(Debug, Clone)]
enum Text {
    Exact(String),
    Contains(String),
    Regex(Regex),
}

impl Text {
    fn new(m: &TextMatch, key: &str, sel: &Selector) -> Result<Text, SelectorError> {
        Ok(match m {
            TextMatch::Exact(s) => Text::Exact(s.clone()),
            TextMatch::Contains(s) => Text::Contains(s.to_lowercase()),
            TextMatch::Regex(r) => Text::Regex(Regex::new(r).map_err(|e| {
                let input = SelectorText(sel).to_string();
                let offset = input.find(&format!("{key}/=")).map_or(0, |o| o + key.len() + 2);
                SelectorError {
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
            Text::Exact(w) => s == w,
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
            Text::Exact(w) | Text::Contains(w) => text_similarity(w, s),
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
    pub fn new(selector: &Selector) -> Result<Matcher, SelectorError> {
        let compile = |m: &Option<TextMatch>, key: &str| m.as_ref().map(|m| Text::new(m, key, selector)).transpose();
        Ok(Matcher {
            app: compile(&selector.app, "app")?,
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
        let e = &node.element;
        let s = &self.selector;
        s.role.as_ref().is_none_or(|r| *r == e.role)
            && s.id.as_ref().is_none_or(|id| *id == e.id)
            && s.path.as_ref().is_none_or(|p| node.window.is_some() && *p == node.path)
            && self.name.as_ref().is_none_or(|t| t.matches(&e.name))
            && self.app.as_ref().is_none_or(|t| t.matches(&node.app))
            && self.window.as_ref().is_none_or(|t| node.window.as_deref().is_some_and(|w| t.matches(w)))
            && self.text.as_ref().is_none_or(|t| seen_texts(node).any(|s| t.matches(s)))
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
            let sim = if *r == e.role { 1.0 } else { 0.5 * text_similarity(r.as_str(), e.role.as_str()) };
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
pub fn find_all(tree: &Tree, selector: &Selector) -> Result<Vec<usize>, SelectorError> {
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
    let listed = |found: &[usize]| found.iter().map(|&i| Candidate::of(&tree.nodes[i], 1.0)).collect();
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
    scored.into_iter().take(MAX_CANDIDATES).map(|(s, i)| Candidate::of(&tree.nodes[i], s)).collect()
}
