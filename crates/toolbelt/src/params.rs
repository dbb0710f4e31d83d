//! The parameters of each tool, as typed structs. Their JSON Schemas are generated from
//! these types (schemars), and their doc comments are the descriptions a model or an MCP
//! client reads: keep them short, they cost tokens on every call.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How `name`, `app`, `window` and texts compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchMode {
    /// Equal to the whole text.
    #[default]
    Exact,
    /// Contains the text, ignoring case.
    Contains,
    /// Matches the regular expression.
    Regex,
}

/// What a tool acts on or reads. Give `target` (a ref, a selector or visible text), or
/// the fields, or `at`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TargetParams {
    /// The element: a ref from read/find (e12), a selector (role=push_button name="Submit"), or the text a person sees on it (Submit order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Accessible name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Role, e.g. push_button, check_box, text, menu_item, link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Element id as read/find print it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Application name, or the title of one of its windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Title of the element's top-level window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// Which of several matches, 0-based, as find numbers them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// Screen point [x, y] (logical) instead of an element.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<[i32; 2]>,
    /// How name/app/window compare: exact (default), contains, regex.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub matching: Option<MatchMode>,
    /// `target` is the visible text itself, never a selector or a ref (the command line's
    /// `--text`, which has a flag of its own). Not a parameter of tool calls.
    #[serde(skip)]
    #[schemars(skip)]
    pub literal: bool,
}

impl TargetParams {
    /// Whether nothing names a target.
    pub fn is_empty(&self) -> bool {
        let TargetParams { target, name, role, id, app, window, index, at, matching: _, literal: _ } = self;
        target.is_none()
            && name.is_none()
            && role.is_none()
            && id.is_none()
            && app.is_none()
            && window.is_none()
            && index.is_none()
            && at.is_none()
    }
}

/// How an action is verified. Without `verify` the face's default holds.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct VerifyParams {
    /// Check the effect and retry through the fallback chain when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<bool>,
    /// A condition that counts as the effect instead of any change (see wait_for), e.g. text:"Saved".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<String>,
    /// How long to watch for the effect, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Least time, in ms, before "no change" may be concluded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_delay_ms: Option<u64>,
    /// Most fallback attempts after the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
}

/// A mouse button.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Button {
    /// The primary button.
    #[default]
    Left,
    /// The middle button.
    Middle,
    /// The secondary button (context menus).
    Right,
}

/// `click`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ClickParams {
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub target: TargetParams,
    /// Mouse button (default left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub button: Option<Button>,
    /// Double click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub double: Option<bool>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub verify: VerifyParams,
}

/// `type`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct TypeParams {
    /// The text to type.
    pub text: String,
    /// Where to type; without a target, into the focused element.
    #[serde(flatten)]
    pub target: TargetParams,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub verify: VerifyParams,
}

/// `fill`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct FillParams {
    /// The field's whole text after the call.
    pub text: String,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub target: TargetParams,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub verify: VerifyParams,
}

/// `set_value`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct SetValueParams {
    /// The value to set (text of a field, number of a slider or spin button).
    pub value: String,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub target: TargetParams,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub verify: VerifyParams,
}

/// `action`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ActionParams {
    /// The accessibility action's name as read shows it (default: the element's click, press or activate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub target: TargetParams,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub verify: VerifyParams,
}

/// `key`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct KeyParams {
    /// A key or chord: Return, Escape, ctrl+s, alt+F4, ctrl+shift+t.
    pub keys: String,
    /// Send to this application (its name, or a window title), not whatever has the focus: its window is activated first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// Send to this top-level window (its title), activated first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub verify: VerifyParams,
}

/// A scroll direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Towards the top.
    Up,
    /// Towards the bottom.
    #[default]
    Down,
    /// Towards the start of a line.
    Left,
    /// Towards the end of a line.
    Right,
}

/// `scroll`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ScrollParams {
    /// Which way.
    pub direction: Direction,
    /// How many wheel steps (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<u16>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub target: TargetParams,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub verify: VerifyParams,
}

/// `wait_for`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct WaitParams {
    /// The condition: text:"Saved", text-gone:Loading, title:"Save", exists:SELECTOR, gone:SELECTOR, state:SELECTOR:checked, value:SELECTOR=John, role:dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// Or an element (or text) to wait for, with gone/state/value.
    #[serde(flatten)]
    pub target: TargetParams,
    /// Wait until it is gone instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gone: Option<bool>,
    /// Wait until it has this state (!state: lacks it), e.g. checked, enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Wait until its value or text is this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Wait for a window with this title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// How long to wait, in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// `read`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ReadParams {
    /// What to read: an app, a window, or an element's subtree (everything when empty).
    #[serde(flatten)]
    pub target: TargetParams,
    /// How many levels below the top elements (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Include elements that are not on screen (other tabs, closed menus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
}

/// `find`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct FindParams {
    /// What to look for.
    #[serde(flatten)]
    pub target: TargetParams,
    /// Include elements that are not on screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
}

/// Part of the screen: a window, a region or a monitor (the whole screen by default).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct AreaParams {
    /// A window, by title or X id (0x2a00007).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// A region [x, y, width, height] in screen pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<[i64; 4]>,
    /// A monitor by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monitor: Option<String>,
}

/// `screenshot`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct ScreenshotParams {
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub area: AreaParams,
}

/// `doctor`: no parameters; it diagnoses the session it runs in.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct DoctorParams {}

/// `ocr`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
pub struct OcrParams {
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub area: AreaParams,
    /// Only where this text appears, best first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub find: Option<String>,
    /// How `find` compares: exact, contains (default), regex.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub matching: Option<MatchMode>,
}
