//! UI elements as seen through accessibility: identity, role, name, states, bounds, content.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::geometry::{Logical, Rect};

/// An element's identity, as stable as the platform allows (on AT-SPI: bus name + object
/// path). Opaque to callers: compare, hash and print it, never parse it.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ElementId(pub String);

impl fmt::Display for ElementId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An element's role in snake case, as the platform names it (`push_button`, `check_box`,
/// `text`, `dialog`, ...). A string rather than an enum: platforms add roles, and an
/// unknown role must still be selectable by name.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub struct Role(pub String);

// Deserializing normalises too, so `"Progress Bar"` in a config file means `progress_bar`.
impl From<String> for Role {
    fn from(s: String) -> Role {
        Role::new(&s)
    }
}

impl From<Role> for String {
    fn from(r: Role) -> String {
        r.0
    }
}

impl Role {
    /// A role from any spelling: `"Push Button"`, `"push-button"` and `"push_button"` are
    /// the same role.
    pub fn new(name: &str) -> Role {
        let mut out = String::with_capacity(name.len());
        for c in name.trim().chars() {
            match c {
                ' ' | '-' | '_' if !out.ends_with('_') && !out.is_empty() => out.push('_'),
                ' ' | '-' | '_' => {}
                c => out.extend(c.to_lowercase()),
            }
        }
        Role(out)
    }

    /// The role's name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Roles of top-level containers that block the rest of their app when modal.
    pub fn is_dialog_like(&self) -> bool {
        matches!(self.as_str(), "dialog" | "alert" | "file_chooser" | "color_chooser")
    }

    /// Whether an element of this role is one asked for as `asked` (a selector's or a
    /// condition's role): the same role, or `dialog`, which is what a person calls any
    /// dialog-like window (a Save dialog is a `file_chooser`, a message box an `alert`);
    /// only a top-level window (`is_window`) is one: a web page's `alert` is a notice in the
    /// page, not a dialog. A narrower role is only itself. The one rule for selectors and
    /// conditions alike.
    pub fn answers_to(&self, asked: &Role, is_window: bool) -> bool {
        self == asked || (asked.as_str() == "dialog" && is_window && self.is_dialog_like())
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The element states Deft reasons about. Platforms have more; the rest are not kept.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Accepts input (AT-SPI: enabled or sensitive).
    Enabled,
    /// Drawn on screen now (AT-SPI: showing).
    Showing,
    /// Would be drawn if its ancestors were (AT-SPI: visible).
    Visible,
    /// Has the keyboard focus.
    Focused,
    /// Can take the keyboard focus.
    Focusable,
    /// Selected in its container.
    Selected,
    /// Checked (check boxes, toggle buttons, radio buttons).
    Checked,
    /// Pressed (toggle buttons and buttons held down).
    Pressed,
    /// Armed: a button held down that will activate when released (GTK reports it while
    /// the pointer button is down on it). Transient, so it is the app's own word that a
    /// press arrived.
    Armed,
    /// Expanded (combo boxes, tree rows, menus).
    Expanded,
    /// Can be expanded.
    Expandable,
    /// Busy: loading or working.
    Busy,
    /// Text can be edited.
    Editable,
    /// Single-line text.
    SingleLine,
    /// Modal: blocks the rest of its application.
    Modal,
    /// The active window.
    Active,
    /// Holds a secret: a password field, or a field the user's policy names as secret
    /// (set by the accessibility backend). Its text never leaves the process: not in an
    /// outline, an outcome, a trace, a prompt or a saved image.
    Secret,
}

impl State {
    /// Every state, in declaration order.
    pub const ALL: [State; 17] = [
        State::Enabled,
        State::Showing,
        State::Visible,
        State::Focused,
        State::Focusable,
        State::Selected,
        State::Checked,
        State::Pressed,
        State::Armed,
        State::Expanded,
        State::Expandable,
        State::Busy,
        State::Editable,
        State::SingleLine,
        State::Modal,
        State::Active,
        State::Secret,
    ];

    /// The state's name as written in selectors, conditions, configs and reports (the
    /// same spelling as its serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            State::Enabled => "enabled",
            State::Showing => "showing",
            State::Visible => "visible",
            State::Focused => "focused",
            State::Focusable => "focusable",
            State::Selected => "selected",
            State::Checked => "checked",
            State::Pressed => "pressed",
            State::Armed => "armed",
            State::Expanded => "expanded",
            State::Expandable => "expandable",
            State::Busy => "busy",
            State::Editable => "editable",
            State::SingleLine => "single_line",
            State::Modal => "modal",
            State::Active => "active",
            State::Secret => "secret",
        }
    }

    /// Every state name, comma separated, for help texts and error messages.
    pub fn names() -> String {
        State::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A state name that is not one of [`State::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownState(pub String);

impl fmt::Display for UnknownState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown state '{}'; the states are: {}", self.0, State::names())
    }
}

impl std::error::Error for UnknownState {}

impl std::str::FromStr for State {
    type Err = UnknownState;

    /// Any spelling a person writes: `single_line`, `single-line`, `Single Line`.
    fn from_str(s: &str) -> Result<State, UnknownState> {
        let norm = Role::new(s);
        State::ALL.into_iter().find(|st| st.as_str() == norm.as_str()).ok_or_else(|| UnknownState(s.trim().to_string()))
    }
}

/// A set of states, kept sorted so that equality and serialization are canonical.
pub type States = BTreeSet<State>;

/// One element of a UI: what a tree read returns and what a selector matches.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Element {
    /// Identity, stable across reads where the platform allows.
    pub id: ElementId,
    /// Role, e.g. `push_button`.
    pub role: Role,
    /// Accessible name (usually the label a person sees).
    pub name: String,
    /// Accessible description, often empty.
    #[serde(default)]
    pub description: String,
    /// States.
    #[serde(default)]
    pub states: States,
    /// Bounds on screen in logical points; `None` when hidden or not on screen.
    #[serde(default)]
    pub bounds: Option<Rect<Logical>>,
    /// Text content (text fields, labels), when the element has any.
    #[serde(default)]
    pub text: Option<String>,
    /// Numeric or textual value (sliders, spin buttons, combo boxes), when it has one.
    #[serde(default)]
    pub value: Option<String>,
    /// Names of the actions it offers (`click`, `press`, `activate`, ...).
    #[serde(default)]
    pub actions: Vec<String>,
    /// Number of children.
    #[serde(default)]
    pub child_count: u32,
}

impl Element {
    /// Whether the element has `state`.
    pub fn has(&self, state: State) -> bool {
        self.states.contains(&state)
    }

    /// The text a person sees on it: its name, else its text, else its value (never the
    /// text of a secret field).
    pub fn visible_text(&self) -> &str {
        if !self.name.is_empty() || self.is_secret() {
            return &self.name;
        }
        self.text.as_deref().or(self.value.as_deref()).unwrap_or("")
    }

    /// Whether its text is a secret: a password field (role `password_text`, the role
    /// every backend maps its password fields to), or one the backend marked
    /// [`State::Secret`] because the user's policy names it.
    pub fn is_secret(&self) -> bool {
        self.role.as_str() == "password_text" || self.has(State::Secret)
    }

    /// Whether it is a secret shown where it cannot be placed (its window's place on screen
    /// unknown: Wayland without a window list): it could be anywhere in an image of the
    /// screen, so an image given out while it shows must be masked whole, or not taken.
    pub fn is_unplaced_secret(&self) -> bool {
        self.is_secret() && self.bounds.is_none() && self.has(State::Showing)
    }

    /// Short description for messages: `push_button "Submit"`.
    pub fn describe(&self) -> String {
        if self.name.is_empty() {
            format!("{} ({})", self.role, self.id)
        } else {
            format!("{} {:?}", self.role, self.name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_spellings_normalise() {
        for s in ["Push Button", "push-button", "push_button", " PUSH  button "] {
            assert_eq!(Role::new(s).as_str(), "push_button", "{s:?}");
        }
        assert!(Role::new("Dialog").is_dialog_like());
        let r: Role = serde_json::from_str("\"Progress Bar\"").unwrap();
        assert_eq!(r.as_str(), "progress_bar");
    }

    #[test]
    fn state_names_are_their_serde_names_and_parse_back() {
        for st in State::ALL {
            assert_eq!(serde_json::to_string(&st).unwrap(), format!("\"{st}\""));
            assert_eq!(st.as_str().parse::<State>(), Ok(st));
        }
        assert_eq!("Single Line".parse::<State>(), Ok(State::SingleLine));
        let e = "bogus".parse::<State>().unwrap_err().to_string();
        assert!(e.starts_with("unknown state 'bogus'; the states are: enabled, showing") && e.contains("armed"), "{e}");
    }
}
