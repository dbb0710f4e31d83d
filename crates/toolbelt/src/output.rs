//! What each tool returns: structured (serde) for programs, with a short text for models
//! and people that read text only.

use std::path::PathBuf;

use deft_types::{Element, Outcome, Physical, Rect};
use deft_verify::WaitOutcome;
use schemars::JsonSchema;
use serde::Serialize;

/// The result of a tool call.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
// One value per tool call, moved once and never stored in bulk: boxing would cost more
// than the bytes it saves.
#[allow(clippy::large_enum_variant)]
pub enum ToolOutput {
    /// An action's outcome.
    Action(ActionReport),
    /// A wait's outcome.
    Wait(WaitReport),
    /// The tree outline.
    Read(ReadReport),
    /// Matching elements.
    Find(FindReport),
    /// A screenshot.
    Screenshot(Shot),
    /// Text on screen.
    Ocr(OcrReport),
    /// What the desktop lets Deft do.
    Doctor(deft_verify::Diagnosis),
}

/// An action's outcome, and what changed in its window since the session last looked.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ActionReport {
    /// The contract's outcome (docs/VERIFICATION.md): ok, verified, attempts, expected, observed...
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The outline of what changed in the target's window since the session last showed
    /// it (new or changed elements, with refs), capped; `None` when nothing was read after
    /// the action (no target window, or the face did not ask).
    pub changes: Option<String>,
}

/// A wait's outcome.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WaitReport {
    /// The condition held in time.
    pub ok: bool,
    /// Always `wait`.
    pub action: &'static str,
    /// The condition in words.
    pub expected: String,
    /// How long it waited at most.
    pub timeout_ms: u64,
    /// Met or not, with the evidence, the channel and what was last seen.
    #[serde(flatten)]
    pub outcome: WaitOutcome,
}

/// One element of a tree document, with its children nested.
#[derive(Clone, Debug, Serialize, JsonSchema)]
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
    /// Its children (cut at `depth`).
    pub children: Vec<TreeNode>,
}

/// `read`: the tree as nested elements, and as an outline.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ReadReport {
    /// The top elements: applications, or the window or element asked for.
    pub roots: Vec<TreeNode>,
    /// Elements in the document.
    pub count: usize,
    /// What could not be read (an app that hung, a cut at the node limit).
    pub problems: Vec<String>,
    /// The outline, in the style the face asked for.
    #[serde(skip)]
    pub outline: String,
}

/// One match of `find`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FindMatch {
    /// Its position among the matches (`index`).
    pub index: usize,
    /// Its ref (session faces) or short id.
    #[serde(rename = "ref")]
    pub reference: String,
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

/// `find`: every element a target matches.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FindReport {
    /// The selector searched for, in the text syntax.
    pub query: String,
    /// How many matched.
    pub count: usize,
    /// The matches in tree order.
    pub matches: Vec<FindMatch>,
    /// What could not be read.
    pub problems: Vec<String>,
    /// Where the text was found on screen by OCR, when no element has it (text-only
    /// queries); empty otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ocr_matches: Vec<OcrLine>,
}

/// `screenshot`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Shot {
    /// The PNG.
    #[serde(skip)]
    pub png: Vec<u8>,
    /// Where a face wrote it, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Where it lies on screen (physical pixels): `[x, y, w, h]`.
    pub bounds: Rect<Physical>,
    /// The capture backend.
    pub backend: &'static str,
    /// What was done to take it that a caller should know: a covered window raised
    /// first, or password fields that could not be located (so not masked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The password fields painted over, in screen pixels.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<Rect<Physical>>,
}

/// One line of text on screen.
#[derive(Clone, Debug, Serialize, PartialEq, JsonSchema)]
pub struct OcrLine {
    /// The text.
    pub text: String,
    /// Its box on screen (physical pixels): `[x, y, w, h]`.
    pub bounds: Rect<Physical>,
    /// How well it matched `find` (1 is exact); absent without `find`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// `ocr`.
#[derive(Clone, Debug, Serialize, PartialEq, JsonSchema)]
pub struct OcrReport {
    /// The area read (physical pixels).
    pub area: Rect<Physical>,
    /// Lines in reading order, or `find`'s matches best first.
    pub lines: Vec<OcrLine>,
    /// Time spent recognising, in ms.
    pub elapsed_ms: u64,
    /// What was done to read it that a caller should know: a covered window raised
    /// first, or password fields that could not be located (so not masked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
