//! The outcome of an action: what users and other agents rely on (docs/VERIFICATION.md).

use serde::{Deserialize, Serialize};

use crate::action::{ActionKind, Method};
use crate::element::{ElementId, Role};
use crate::evidence::{Channel, Evidence};
use crate::geometry::{Logical, Rect};

/// Why an attempt did not work, which decides what happens next.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
    /// Its application's name, when known.
    #[serde(default)]
    pub app: Option<String>,
    /// The title of its top-level window, when known.
    #[serde(default)]
    pub window: Option<String>,
}

/// Something that intercepts input meant for the target.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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

/// An element a failed resolution names, so that a person or an agent can pick another:
/// the closest elements to a selector that matched nothing, or every element of an
/// ambiguous one.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Candidate {
    /// Its id.
    pub id: ElementId,
    /// Its role.
    pub role: Role,
    /// Its name.
    pub name: String,
    /// Its application.
    pub app: String,
    /// The title of its window, when it is in one.
    #[serde(default)]
    pub window: Option<String>,
    /// Its path of child indices from the window.
    #[serde(default)]
    pub path: Vec<u32>,
    /// A selector, in the text syntax, that names exactly this element.
    pub selector: String,
    /// How close it comes to what was asked, in percent (100 for an actual match).
    pub similarity: u8,
}

/// Why an action failed, in the categories callers branch on (the CLI's exit codes, an
/// agent's next move). Decided once, by the executor.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// No element (or text on screen) matches the target.
    NotFound,
    /// Several elements match the target; the candidates list them all.
    Ambiguous,
    /// A dialog, popup or other element intercepts the input.
    Blocked,
    /// The target is there but cannot take the input (disabled, hidden, off screen).
    NotActionable,
    /// The input was sent but the expected effect did not show.
    NoEffect,
    /// A wait ran out of time.
    TimedOut,
    /// The desktop, the accessibility bus or the application could not be reached.
    Unavailable,
}

impl FailureKind {
    /// The kind's name (its serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::NotFound => "not_found",
            FailureKind::Ambiguous => "ambiguous",
            FailureKind::Blocked => "blocked",
            FailureKind::NotActionable => "not_actionable",
            FailureKind::NoEffect => "no_effect",
            FailureKind::TimedOut => "timed_out",
            FailureKind::Unavailable => "unavailable",
        }
    }
}

/// Why an action failed, and the elements that could be meant instead.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Failure {
    /// The category.
    pub kind: FailureKind,
    /// For `not_found`: the closest elements, most similar first; for `ambiguous`: every
    /// match, in the order `index` counts them. Empty otherwise.
    #[serde(default)]
    pub candidates: Vec<Candidate>,
}

/// The outcome of one action, verified or not.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
    /// Why it failed, when it did (`None` when `ok`).
    #[serde(default)]
    pub failure: Option<Failure>,
    /// The evidence behind the verdict.
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    /// Total time, including waits for actionability.
    pub elapsed_ms: u64,
    /// What could be seen of the effect, in one word: verified, received, unverifiable,
    /// unchecked or failed ([`Seen`]); set from the rest by [`Outcome::with_seen`].
    #[serde(default)]
    pub seen: Seen,
    /// The channel that saw it (the verifying or receiving evidence's), when one did.
    #[serde(default)]
    pub seen_by: Option<Channel>,
}

/// What Deft could see of an action's effect: the one word a program branches on. An
/// action that is not `verified` was never reported as verified, and one that is
/// `received` or `unverifiable` was never sent twice.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seen {
    /// The intended effect was observed (`seen_by` says through what).
    Verified,
    /// The application showed it took the input (a pressed look, the focus, its
    /// accessibility action accepted) but no effect showed: not repeated.
    Received,
    /// Sent where nothing can show its effect (a target known only by its pixels, a field
    /// whose text cannot be read, a key with no expectation): not repeated, not verified;
    /// `observed` says why.
    Unverifiable,
    /// Sent without verification (not asked for).
    Unchecked,
    /// The action did not do what was asked (see `failure`).
    #[default]
    Failed,
}

/// How the words of an evidence begin when it shows the input was received, not its
/// effect (a pressed look that came and went, an accessibility action accepted).
pub const RECEIPT: &str = "received: ";

impl Seen {
    /// The word for an outcome's other fields: its verdict, the last attempt's result, and
    /// the evidence behind it.
    pub fn of(
        ok: bool,
        verified: Option<bool>,
        attempts: &[Attempt],
        evidence: &[Evidence],
    ) -> (Seen, Option<Channel>) {
        // The evidence that says something of the effect (not of an input sent, nor of a
        // window raised to send it).
        let said = |receipt: bool| {
            evidence
                .iter()
                .rev()
                .find(|e| e.channel != Channel::Input && e.what.starts_with(RECEIPT) == receipt)
                .map(|e| e.channel)
        };
        match (ok, verified, attempts.last().map(|a| &a.result)) {
            (false, _, _) => (Seen::Failed, None),
            (true, None, _) => (Seen::Unchecked, None),
            (true, Some(true), _) => (Seen::Verified, said(false)),
            (true, Some(false), Some(AttemptResult::Received)) => (Seen::Received, said(true)),
            (true, Some(false), _) => (Seen::Unverifiable, None),
        }
    }
}

impl Outcome {
    /// This outcome with [`Seen`] set from its other fields.
    pub fn with_seen(mut self) -> Outcome {
        (self.seen, self.seen_by) = Seen::of(self.ok, self.verified, &self.attempts, &self.evidence);
        self
    }
}

#[cfg(test)]
mod seen_tests {
    use super::*;

    fn attempt(result: AttemptResult) -> Attempt {
        Attempt { method: Method::CoordinateClick, result, elapsed_ms: 1, observed: None }
    }

    fn evidence(channel: Channel, what: &str) -> Evidence {
        Evidence { channel, what: what.into(), region: None, after_ms: 0 }
    }

    #[test]
    fn one_word_for_what_could_be_seen_and_the_channel_that_saw_it() {
        let raised = evidence(Channel::Input, "raised window \"Main\"");
        let effect = evidence(Channel::Accessibility, "dialog \"Saved\" appeared");
        let verified = [attempt(AttemptResult::Verified)];
        assert_eq!(
            Seen::of(true, Some(true), &verified, &[raised.clone(), effect]),
            (Seen::Verified, Some(Channel::Accessibility))
        );
        let pressed = evidence(Channel::Pixels, &format!("{RECEIPT}a pressed look came and went"));
        let received = [attempt(AttemptResult::Received)];
        assert_eq!(Seen::of(true, Some(false), &received, &[raised, pressed]), (Seen::Received, Some(Channel::Pixels)));
        // Sent where nothing could show it: never "received", never "verified".
        let sent = [attempt(AttemptResult::Sent)];
        assert_eq!(Seen::of(true, Some(false), &sent, &[]), (Seen::Unverifiable, None));
        assert_eq!(Seen::of(true, None, &sent, &[]), (Seen::Unchecked, None));
        assert_eq!(Seen::of(false, Some(false), &verified, &[]), (Seen::Failed, None));
    }
}
