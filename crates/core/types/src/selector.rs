//! Selectors: which element an action means. Matching lives with the accessibility
//! backend; parsing of the text syntax lives there too. This is only the data.

use serde::{Deserialize, Serialize};

use crate::element::{ElementId, Role};

/// How a piece of text must match.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextMatch {
    /// Equal to the text.
    Exact(String),
    /// Contains the text, ignoring case.
    Contains(String),
    /// Matches the regular expression.
    Regex(String),
}

/// Which element an action means. Every field that is set must match; `index` picks one
/// of several matches (0-based, in tree order) and is the only way to accept ambiguity.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Selector {
    /// Application name.
    #[serde(default)]
    pub app: Option<TextMatch>,
    /// Title of the top-level window the element is in.
    #[serde(default)]
    pub window: Option<TextMatch>,
    /// Role.
    #[serde(default)]
    pub role: Option<Role>,
    /// Accessible name.
    #[serde(default)]
    pub name: Option<TextMatch>,
    /// Text a person sees on the element: name, text or value.
    #[serde(default)]
    pub text: Option<TextMatch>,
    /// Path of child indices from the window, e.g. `[0, 2, 1]`.
    #[serde(default)]
    pub path: Option<Vec<u32>>,
    /// A known element id from an earlier read.
    #[serde(default)]
    pub id: Option<ElementId>,
    /// Which of several matches.
    #[serde(default)]
    pub index: Option<u32>,
}

impl Selector {
    /// Whether no field is set (it would match everything).
    pub fn is_empty(&self) -> bool {
        *self == Selector::default()
    }
}
