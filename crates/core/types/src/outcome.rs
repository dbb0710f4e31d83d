//! The outcome of an action: what users and other agents rely on (VERIFICATION.md).

use serde::{Deserialize, Serialize};

use crate::action::{ActionKind, Method};
use crate::element::{ElementId, Role};
use crate::evidence::Evidence;
use crate::geometry::{Logical, Rect};

/// Why an attempt did not work, which decides what happens next.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Busy state, progress, "Loading..." or pixels still changing: wait longer.
    Loading,
    /// A dialog or another element intercepts the input: report it.
    Blocked,
    /// The target vanished or moved before the act: re-resolve, retry.
    Stale,
    /// A backend error or timeout: retry with backoff.
    Transient,
    /// Nothing changed within the verification window: next method.
    NoEffect,
    /// Not found after waiting, or not enabled: fail at once.
    Permanent,
}

impl ErrorClass {
    /// The class's name as written in policies and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Loading => "loading",
            ErrorClass::Blocked => "blocked",
            ErrorClass::Stale => "stale",
            ErrorClass::Transient => "transient",
            ErrorClass::NoEffect => "no_effect",
            ErrorClass::Permanent => "permanent",
        }
    }
}

/// What one attempt came to.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptResult {
    /// The expected effect was observed.
    Verified,
    /// The input was sent; verification was not asked for.
    Sent,
    /// Nothing relevant changed within the window.
    NoChange,
    /// The app showed it received the input (a pressed look that went back, the keyboard
    /// focus arriving, its accessibility action accepted), but nothing visible changed
    /// within the window. Not repeated: a second input could double an effect that does
    /// not show (pressing "Hello" when the status already says "Clicked Hello").
    Received,
    /// The attempt failed, with its class and a message.
    Failed {
        /// The class of the failure.
        class: ErrorClass,
        /// What went wrong, in plain words.
        message: String,
    },
}

/// One attempt of the fallback chain.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Attempt {
    /// How it was tried.
    pub method: Method,
    /// What came of it.
    pub result: AttemptResult,
    /// Time it took, from sending the input to the verdict.
    pub elapsed_ms: u64,
    /// What was observed, in plain words, when anything was.
    #[serde(default)]
    pub observed: Option<String>,
}

/// The element acted on, as it was resolved.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct TargetInfo {
    /// Its id, when it came from the accessibility tree.
    #[serde(default)]
    pub id: Option<ElementId>,
    /// Its role, when known.
    #[serde(default)]
    pub role: Option<Role>,
    /// Its name or visible text.
    pub name: String,
    /// Its bounds, when known.
    #[serde(default)]
    pub bounds: Option<Rect<Logical>>,
}

/// Something that intercepts input meant for the target.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Blocking {
    /// Its role (`dialog`, `alert`, ...).
    pub role: Role,
    /// Its name or title.
    pub name: String,
    /// Texts it shows, so a caller can decide how to dismiss it.
    #[serde(default)]
    pub texts: Vec<String>,
}

/// What the caller might do next.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SuggestedAction {
    /// Dismiss the blocking popup, then retry.
    DismissPopupThenRetry,
    /// The target is not in the tree or on screen as text: look with a vision model.
    UseVision,
    /// The app is still working: wait longer.
    WaitLonger,
    /// The selector is ambiguous or matched nothing: refine it.
    RefineSelector,
}

/// The outcome of one action, verified or not.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// The intended effect was observed (or, without verification, the input was sent).
    pub ok: bool,
    /// Which action.
    pub action: ActionKind,
    /// `Some(true)` when verification ran and passed, `Some(false)` when it ran and
    /// failed, `None` when it was not asked for.
    pub verified: Option<bool>,
    /// Whether more than one attempt was made.
    pub retried: bool,
    /// Why the first attempt was not the last, in plain words.
    #[serde(default)]
    pub retry_reason: Option<String>,
    /// The resolved target.
    #[serde(default)]
    pub target: Option<TargetInfo>,
    /// What was expected, in plain words.
    pub expected: String,
    /// What was observed, in plain words.
    pub observed: String,
    /// Every attempt, in order.
    pub attempts: Vec<Attempt>,
    /// What intercepted the input, if anything did.
    #[serde(default)]
    pub blocking: Option<Blocking>,
    /// What the caller might do next.
    #[serde(default)]
    pub suggested_action: Option<SuggestedAction>,
    /// The evidence behind the verdict.
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    /// Total time, including waits for actionability.
    pub elapsed_ms: u64,
}
