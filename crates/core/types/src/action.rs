//! Actions Deft can take, what they aim at, and the methods that carry them out.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::element::{Role, State};
use crate::geometry::{Logical, Point};
use crate::selector::{Selector, TextMatch};

/// What an action aims at.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// An element chosen by selector (accessibility first).
    Selector(Selector),
    /// Text a person sees: accessible name/text/value first, OCR of the screen otherwise.
    Text(TextMatch),
    /// Raw screen coordinates.
    Point(Point<Logical>),
    /// Whatever has the keyboard focus.
    Focused,
}

/// Where a key chord goes when nothing else is said: the keyboard focus.
fn focused() -> Target {
    Target::Focused
}

/// A mouse button.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    /// The primary button.
    #[default]
    Left,
    /// The middle button.
    Middle,
    /// The secondary button.
    Right,
}

/// A key chord such as `ctrl+shift+s`: modifiers, then one key, in the platform's key names.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct KeyChord {
    /// Modifier names (`ctrl`, `shift`, `alt`, `super`), in the order given.
    pub modifiers: Vec<String>,
    /// The key (`s`, `Return`, `F5`, ...).
    pub key: String,
}

impl fmt::Display for KeyChord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in &self.modifiers {
            write!(f, "{m}+")?;
        }
        f.write_str(&self.key)
    }
}

/// A condition to wait for or to expect after an action.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// Text is visible (tree or screen).
    TextAppears(TextMatch),
    /// Text is no longer visible.
    TextGone(TextMatch),
    /// An element matching the selector exists.
    ElementExists(Selector),
    /// No element matches the selector.
    ElementGone(Selector),
    /// The element has (or, with `present: false`, lacks) a state.
    ElementState {
        /// Which element.
        selector: Selector,
        /// Which state.
        state: State,
        /// Whether the state must be present or absent.
        present: bool,
    },
    /// The element's value or text matches.
    Value {
        /// Which element.
        selector: Selector,
        /// The value it must have.
        value: TextMatch,
    },
    /// A window with a matching title exists.
    WindowTitle(TextMatch),
    /// A window or dialog of this role appeared.
    RoleAppears(Role),
}

/// An action, complete with its target and arguments.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Click a target.
    Click {
        /// What to click.
        target: Target,
        /// Which button.
        #[serde(default)]
        button: MouseButton,
        /// 1 for a click, 2 for a double click.
        count: u8,
    },
    /// Type text into a target (or the focused element).
    Type {
        /// Where to type.
        target: Target,
        /// What to type.
        text: String,
    },
    /// Set a value directly.
    SetValue {
        /// Which element.
        target: Target,
        /// The value.
        value: String,
    },
    /// Invoke a named accessibility action.
    Invoke {
        /// Which element.
        target: Target,
        /// Action name, e.g. `click`.
        name: String,
    },
    /// Press a key chord.
    Key {
        /// The chord.
        chord: KeyChord,
        /// Where the keys go: whatever has the keyboard focus (`Focused`), or the keyboard
        /// focus of the application or window a selector names (its window is activated
        /// first, so the keys never land in another application).
        #[serde(default = "focused")]
        target: Target,
    },
    /// Scroll a target or the screen.
    Scroll {
        /// What to scroll.
        target: Target,
        /// Horizontal steps (positive: right).
        dx: i32,
        /// Vertical steps (positive: down).
        dy: i32,
    },
    /// Wait for a condition.
    Wait {
        /// The condition.
        condition: Condition,
    },
}

impl Action {
    /// What the action acts on; `None` for a key chord sent to whatever has the focus, and
    /// a wait.
    pub fn target(&self) -> Option<&Target> {
        match self {
            Action::Click { target, .. }
            | Action::Type { target, .. }
            | Action::SetValue { target, .. }
            | Action::Invoke { target, .. }
            | Action::Scroll { target, .. } => Some(target),
            Action::Key { target: Target::Focused, .. } | Action::Wait { .. } => None,
            Action::Key { target, .. } => Some(target),
        }
    }

    /// The kind of this action.
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Click { .. } => ActionKind::Click,
            Action::Type { .. } => ActionKind::Type,
            Action::SetValue { .. } => ActionKind::SetValue,
            Action::Invoke { .. } => ActionKind::Action,
            Action::Key { .. } => ActionKind::Key,
            Action::Scroll { .. } => ActionKind::Scroll,
            Action::Wait { .. } => ActionKind::Wait,
        }
    }
}

/// The kind of an action: what policies and reports are keyed by. Named as the CLI verbs.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// `click`
    Click,
    /// `type`
    Type,
    /// `set-value`
    SetValue,
    /// `action`
    Action,
    /// `key`
    Key,
    /// `scroll`
    Scroll,
    /// `wait`
    Wait,
}

impl ActionKind {
    /// The verb as the CLI spells it.
    pub fn verb(self) -> &'static str {
        match self {
            ActionKind::Click => "click",
            ActionKind::Type => "type",
            ActionKind::SetValue => "set-value",
            ActionKind::Action => "action",
            ActionKind::Key => "key",
            ActionKind::Scroll => "scroll",
            ActionKind::Wait => "wait",
        }
    }

    /// The kind's name as policies, outcomes and tool definitions write it (its serde
    /// form: `set_value` where the CLI verb is `set-value`).
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Click => "click",
            ActionKind::Type => "type",
            ActionKind::SetValue => "set_value",
            ActionKind::Action => "action",
            ActionKind::Key => "key",
            ActionKind::Scroll => "scroll",
            ActionKind::Wait => "wait",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A way of carrying out an action: the links of a fallback chain.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Pointer click at the target's centre.
    CoordinateClick,
    /// Accessibility action (press, click, activate).
    A11yAction,
    /// Pointer click a few pixels inside the bounds, off centre.
    OffsetClick,
    /// Synthetic key events.
    Keystrokes,
    /// Accessibility set (EditableText or Value).
    A11ySet,
    /// Focus the element, select all, then key events.
    FocusSelectAllKeystrokes,
    /// The text pasted with a middle click on an empty field (offered as the primary
    /// selection on X11): no key events, for a field whose page swallows them.
    MiddleClickPaste,
    /// Mouse wheel.
    Wheel,
    /// Accessibility scroll (scroll into view, scroll to).
    A11yScroll,
    /// Key chord (no alternative).
    KeyChord,
    /// Waiting for a condition.
    Wait,
}

impl Method {
    /// Every method, in declaration order.
    pub const ALL: [Method; 11] = [
        Method::CoordinateClick,
        Method::A11yAction,
        Method::OffsetClick,
        Method::Keystrokes,
        Method::A11ySet,
        Method::FocusSelectAllKeystrokes,
        Method::MiddleClickPaste,
        Method::Wheel,
        Method::A11yScroll,
        Method::KeyChord,
        Method::Wait,
    ];

    /// The method's name as policies, outcomes and reports write it (its serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            Method::CoordinateClick => "coordinate_click",
            Method::A11yAction => "a11y_action",
            Method::OffsetClick => "offset_click",
            Method::Keystrokes => "keystrokes",
            Method::A11ySet => "a11y_set",
            Method::FocusSelectAllKeystrokes => "focus_select_all_keystrokes",
            Method::MiddleClickPaste => "middle_click_paste",
            Method::Wheel => "wheel",
            Method::A11yScroll => "a11y_scroll",
            Method::KeyChord => "key_chord",
            Method::Wait => "wait",
        }
    }

    /// Whether the method moves the pointer and clicks: such methods are the ones a
    /// modal popup or an overlay can intercept.
    pub fn is_pointer(self) -> bool {
        matches!(self, Method::CoordinateClick | Method::OffsetClick | Method::MiddleClickPaste | Method::Wheel)
    }
}
