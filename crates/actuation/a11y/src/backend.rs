//! The seam: the [`Accessibility`] trait every platform backend implements, and its types.

use std::future::Future;

use deft_types::{Element, ElementId, Logical, Point, Rect, Role, States};
use serde::{Deserialize, Serialize};

use crate::error::A11yError;
use crate::events::{EventFilter, EventStream};
use crate::tree::Tree;

/// An application on the accessibility bus, with its top-level windows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AppInfo {
    /// The application's root element.
    pub id: ElementId,
    /// Its accessible name (often the program name, e.g. `gtk3-widget-factory`).
    pub name: String,
    /// Its process id, when the platform tells.
    pub pid: Option<u32>,
    /// Its top-level windows.
    pub windows: Vec<WindowInfo>,
    /// Why it could not be read completely (it hung, or exited while being listed).
    pub problem: Option<String>,
}

/// A top-level window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowInfo {
    /// The window's element.
    pub id: ElementId,
    /// Its title.
    pub title: String,
    /// Its role (`frame`, `dialog`, `alert`, ...).
    pub role: Role,
    /// Its states (active, modal, showing, ...).
    pub states: States,
    /// Where it is on screen; `None` when hidden.
    pub bounds: Option<Rect<Logical>>,
    /// Its title as the display server shows it in the title bar, when the toolkit names
    /// it otherwise: GTK names a message dialog by its kind ("Question") whatever its
    /// title ("Confirm order"). A `window` term matches either.
    #[serde(default)]
    pub display_title: Option<String>,
}

/// What a snapshot covers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scope {
    /// Every application.
    All,
    /// One application (by the id of its root, from [`AppInfo::id`]).
    App(ElementId),
    /// One element and everything below it, e.g. a window.
    Subtree(ElementId),
}

/// What a snapshot reads besides the skeleton (role, name, description, states).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotOptions {
    /// Read relations (`labelled_by`, ...): one more call per element, off by default.
    pub relations: bool,
    /// Read text, value and actions of elements that are not showing too. Off by default:
    /// a hidden element (another notebook page, a closed menu) cannot be seen or clicked,
    /// and skipping it halves a typical read. Hidden elements never have bounds.
    pub hidden_details: bool,
    /// Stop discovering elements past this many (the tree then lists a problem).
    pub max_nodes: usize,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions { relations: false, hidden_details: false, max_nodes: 20_000 }
    }
}

/// Where the caret of a text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Caret {
    /// Before which character, counted from the start.
    pub at: usize,
    /// Whether some of the text is selected (typing there would replace it).
    pub selected: bool,
}

/// Something to do to one element.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Operation {
    /// Invoke the named action (`click`, `press`, `activate`, ...), matched on the
    /// action's name, not its localized description.
    Action(String),
    /// Replace the element's text (AT-SPI EditableText, UIA Value pattern, AX value).
    SetText(String),
    /// Insert `text` into the element's text before the character at `at` (counted in
    /// characters; its length: at the end), keeping the rest: one edit of the toolkit's own,
    /// which its undo takes back alone (AT-SPI `EditableText.InsertText`).
    InsertText {
        /// Where, in characters from the start.
        at: usize,
        /// What.
        text: String,
    },
    /// Set a numeric value (AT-SPI Value, UIA RangeValue, AX value).
    SetValue(f64),
    /// Give it the keyboard focus.
    Focus,
    /// Scroll its container so that it is visible, where the toolkit supports it.
    ScrollIntoView,
    /// Put its caret after the last character of its text (AT-SPI `Text.SetCaretOffset`
    /// at `CharacterCount`): where "after what it holds" is in a text of many lines, which
    /// the End key is not (the end of the caret's line).
    CaretToEnd,
}

impl Operation {
    /// Short description for messages.
    pub fn describe(&self) -> String {
        match self {
            Operation::Action(name) => format!("action {name:?}"),
            Operation::SetText(_) => "setting its text".into(),
            Operation::InsertText { .. } => "inserting text".into(),
            Operation::SetValue(v) => format!("setting its value to {v}"),
            Operation::Focus => "taking the focus".into(),
            Operation::ScrollIntoView => "scrolling into view".into(),
            Operation::CaretToEnd => "putting the caret after its text".into(),
        }
    }
}

/// The element at a point, and the chain of elements above it down from its window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The deepest element at the point.
    pub element: Element,
    /// Ids from the window (first) down to the element (last).
    pub chain: Vec<ElementId>,
}

impl Hit {
    /// Whether the hit element is `id` or lies inside it: what "the click lands on the
    /// target" means.
    pub fn is_within(&self, id: &ElementId) -> bool {
        self.chain.contains(id)
    }
}

/// An accessibility backend: AT-SPI2 on Linux today; Windows UI Automation and macOS AX
/// fit the same shape (their element references become opaque [`ElementId`] strings,
/// their patterns and attributes map onto [`Operation`]).
///
/// Every method is bounded in time: an application that hangs or exits gives an error,
/// never a hang.
///
/// A new method here is added to [`crate::AnyAccessibility`]'s forwarding too (`any.rs`),
/// defaulted or not: a forwarder that leaves one to its default answers for the backend.
pub trait Accessibility: Send + Sync {
    /// The applications on the desktop and their top-level windows. An application that
    /// cannot be read is listed with a [`AppInfo::problem`], not dropped.
    fn applications(&self) -> impl Future<Output = Result<Vec<AppInfo>, A11yError>> + Send;

    /// A snapshot of `scope` with role, name, description, states, bounds, text, value,
    /// actions (and relations when asked).
    fn snapshot(
        &self,
        scope: &Scope,
        options: &SnapshotOptions,
    ) -> impl Future<Output = Result<Tree, A11yError>> + Send;

    /// One element, read afresh. [`A11yError::Stale`] when it no longer exists.
    fn element(&self, id: &ElementId) -> impl Future<Output = Result<Element, A11yError>> + Send;

    /// Do `op` to the element.
    fn perform(&self, id: &ElementId, op: &Operation) -> impl Future<Output = Result<(), A11yError>> + Send;

    /// The element drawn at `point`, if any.
    fn hit_test(&self, point: Point<Logical>) -> impl Future<Output = Result<Option<Hit>, A11yError>> + Send;

    /// Events matching `filter`, from now on.
    fn events(&self, filter: &EventFilter) -> impl Future<Output = Result<EventStream, A11yError>> + Send;

    /// Where the last character of `id`'s text is drawn on screen, so that a caller can aim
    /// just past the end of the text (a paste lands where the pointer is); `None` when it
    /// holds no text or the toolkit does not say (the default).
    fn text_end(&self, id: &ElementId) -> impl Future<Output = Result<Option<Rect<Logical>>, A11yError>> + Send {
        let _ = id;
        async { Ok(None) }
    }

    /// Where `id`'s caret is in its text, and whether some of the text is selected: `None`
    /// when it has no text interface or the toolkit does not say (the default).
    fn caret(&self, id: &ElementId) -> impl Future<Output = Result<Option<Caret>, A11yError>> + Send {
        let _ = id;
        async { Ok(None) }
    }

    /// The toolkit of the application that owns `id` (`GTK`, `Qt`, ...), as the
    /// application names it; `None` when it does not say. What a toolkit reports (a button
    /// `armed` while pressed) can be relied on only when the toolkit is known.
    fn toolkit(&self, id: &ElementId) -> impl Future<Output = Result<Option<String>, A11yError>> + Send {
        let _ = id;
        async { Ok(None) }
    }

    /// Whether an action invoked through accessibility on `id`'s application runs inside
    /// the accessibility call, so that a modal dialog it opens keeps that call's connection
    /// busy until the dialog closes (GTK 3's atk-bridge runs `gtk_dialog_run` there): when
    /// the caller then exits, the application freezes for good (`docs/real-apps.md`). A
    /// caller activates such an application's controls with the pointer where it can.
    /// `false` by default.
    fn actions_hold_the_call(&self, id: &ElementId) -> impl Future<Output = bool> + Send {
        let _ = id;
        async { false }
    }

    /// Whether `id`'s application is known to survive its accessibility client going away
    /// right after it sent it input (Chromium 156 did not: `docs/real-apps.md`, 3). When it
    /// is not known, a client waits a moment after its last input before it leaves.
    /// `false` by default.
    fn survives_client_leaving_after_input(&self, id: &ElementId) -> impl Future<Output = bool> + Send {
        let _ = id;
        async { false }
    }

    /// Whether `id`'s application reports a button `armed` or `pressed` while the pointer
    /// button is held on it, as soon as it handled the press: then a press that never
    /// shows it did not arrive. Measured: GTK 3 (`armed`), Qt 5 and 6 (`pressed`); GTK 4,
    /// Chromium and Firefox show nothing. `false` by default.
    fn reports_held_press(&self, id: &ElementId) -> impl Future<Output = bool> + Send {
        let _ = id;
        async { false }
    }

    /// Invoke the named action, e.g. `click`.
    fn do_action(&self, id: &ElementId, action: &str) -> impl Future<Output = Result<(), A11yError>> + Send {
        let op = Operation::Action(action.to_string());
        async move { self.perform(id, &op).await }
    }

    /// Replace the element's text.
    fn set_text(&self, id: &ElementId, text: &str) -> impl Future<Output = Result<(), A11yError>> + Send {
        let op = Operation::SetText(text.to_string());
        async move { self.perform(id, &op).await }
    }

    /// Insert `text` into the element's text at character `at`, keeping what it holds.
    fn insert_text(&self, id: &ElementId, at: usize, text: &str) -> impl Future<Output = Result<(), A11yError>> + Send {
        let op = Operation::InsertText { at, text: text.to_string() };
        async move { self.perform(id, &op).await }
    }

    /// Set the element's numeric value.
    fn set_value(&self, id: &ElementId, value: f64) -> impl Future<Output = Result<(), A11yError>> + Send {
        async move { self.perform(id, &Operation::SetValue(value)).await }
    }

    /// Give the element the keyboard focus.
    fn focus(&self, id: &ElementId) -> impl Future<Output = Result<(), A11yError>> + Send {
        async move { self.perform(id, &Operation::Focus).await }
    }

    /// Put the element's caret after its text, where supported.
    fn caret_to_end(&self, id: &ElementId) -> impl Future<Output = Result<(), A11yError>> + Send {
        async move { self.perform(id, &Operation::CaretToEnd).await }
    }

    /// Scroll the element into view, where supported.
    fn scroll_into_view(&self, id: &ElementId) -> impl Future<Output = Result<(), A11yError>> + Send {
        async move { self.perform(id, &Operation::ScrollIntoView).await }
    }
}
