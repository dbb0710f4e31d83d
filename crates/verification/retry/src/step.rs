//! What the engine orders next, what it is told about the action, and its final verdict.

use std::fmt;

use deft_types::{ActionKind, Attempt, AttemptResult, Blocking, ErrorClass, Method, SuggestedAction};
use serde::{Deserialize, Serialize};

/// What the engine knows about the action besides its policy. Config, not flags: build it
/// with [`ActionContext::new`] and set the fields that apply.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ActionContext {
    /// Which action.
    pub kind: ActionKind,
    /// The target is a toggle (check box, toggle button, switch): a second input undoes
    /// the first, so a retry needs its state reported unchanged.
    pub is_toggle: bool,
    /// The target is a toggle that was on before the input (checked, pressed). A press it
    /// showed it received and that left it on was refused by the app, as a group keeps the
    /// one chosen of its options on (dconf-editor's True/False): it is not repeated, since
    /// another method would turn it off (its accessibility action did, and the app turned
    /// the other one on).
    pub toggle_on: bool,
    /// Activating the target twice is harmless (a tab, a link, opening a menu). Only the
    /// caller can know; the default is `false`, which is always safe.
    pub idempotent: bool,
    /// Verification was asked for (`--verify`). Without it one input is sent and the
    /// verdict is "sent", as the CLI behaves without `--verify`.
    pub verify: bool,
    /// An explicit expectation (`--expect`) replaces "any change": an activation that was
    /// received but did not meet it fails (it is not repeated either), rather than ending
    /// as received.
    pub expectation: bool,
    /// The channel that would show this action's effect does not work for this target:
    /// text typed into an element whose text accessibility does not give (a terminal, a
    /// canvas editor, a target found only on screen), or a click on a target known only by
    /// its pixels (an effect that does not show: xcalc's "sin" of 0). "No change" then says nothing about
    /// whether the input landed, so once one input went out no other follows it (a retyped
    /// shell command runs twice; a select-all and retype wipes what it cannot read): the
    /// action ends as sent, not verifiable.
    pub blind: bool,
    /// One input at most, whatever is seen after it: a pointer input at a point the caller
    /// gave, where what accessibility finds (the element beneath a popup: evince's page
    /// under its menu) need not be what the screen shows and the input lands on, so "no
    /// change" of that element says nothing (Night Mode, clicked at its place, toggled three
    /// times); and a target whose channel does not work ([`ActionContext::blind`]) under an
    /// expectation (xcalc's "5" pressed twice for `text:"Five"`). Such an action that shows
    /// no effect fails, and is never repeated.
    pub single_input: bool,
}

impl ActionContext {
    /// A verified action on a target that is neither a toggle nor known to be idempotent.
    pub fn new(kind: ActionKind) -> ActionContext {
        ActionContext {
            kind,
            is_toggle: false,
            toggle_on: false,
            idempotent: false,
            verify: true,
            expectation: false,
            blind: false,
            single_input: false,
        }
    }
}

/// The next thing for the executor to do. Every step but `Done` has a `not_before_ms`: the
/// executor waits until then (backoff and verify delay live there), does the step, and
/// reports with an [`crate::Observation`] stamped no earlier.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Check actionability, then send the input with `method`. Reply: `Sent`,
    /// `SendUncertain` or `Refused`.
    Act {
        /// How.
        method: Method,
        /// 1-based number of this input among the action's attempts.
        attempt: u32,
        /// Not before this time.
        not_before_ms: u64,
    },
    /// Read the UI and compare with before the input. `Verified` may be replied as soon as
    /// the effect is seen, even before `not_before_ms` (the verify delay guards only the
    /// negative answers); `NoChange` and `Unreadable` at or after it. An event-driven
    /// executor may keep watching until `deadline_ms` and reply at the first change, a
    /// polling one may reply after one read. Reply: `Verified`, `NoChange` or `Unreadable`.
    Verify {
        /// Not before this time.
        not_before_ms: u64,
        /// Reply by this time at the latest: the engine decides something then.
        deadline_ms: u64,
    },
    /// Find the target again. Reply: `Resolved` or `Refused`.
    ReResolve {
        /// Not before this time.
        not_before_ms: u64,
    },
    /// Dismiss the popup that intercepted the input before it was sent (ordered only when
    /// the policy says `auto_dismiss = true`). Reply: `Dismissed` or `Refused`.
    DismissBlocking {
        /// What to dismiss, when known.
        blocking: Option<Blocking>,
        /// Not before this time.
        not_before_ms: u64,
    },
    /// The action is over.
    Done(Verdict),
}

impl Step {
    /// When the step may start, for every step but `Done`.
    pub fn not_before_ms(&self) -> Option<u64> {
        match self {
            Step::Act { not_before_ms, .. }
            | Step::Verify { not_before_ms, .. }
            | Step::ReResolve { not_before_ms }
            | Step::DismissBlocking { not_before_ms, .. } => Some(*not_before_ms),
            Step::Done(_) => None,
        }
    }

    /// The verdict, once the action is over.
    pub fn verdict(&self) -> Option<&Verdict> {
        match self {
            Step::Done(v) => Some(v),
            _ => None,
        }
    }
}

/// How the action ended: the engine's part of the outcome (docs/VERIFICATION.md). The executor
/// adds what only it knows (target, expected, observed, evidence).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Verdict {
    /// The intended effect was observed (or, without verification, the input was sent).
    pub ok: bool,
    /// `Some(true)` verified, `Some(false)` verification ran and failed, `None` not asked.
    pub verified: Option<bool>,
    /// One entry per `Act` ordered, in order, with what came of it.
    pub attempts: Vec<Attempt>,
    /// Why it failed; `None` when it did not, or when the executor broke the protocol.
    pub class: Option<ErrorClass>,
    /// Why the first attempt was not the last, in plain words.
    pub retry_reason: Option<String>,
    /// What the caller might do next.
    pub suggested_action: Option<SuggestedAction>,
    /// What intercepted the input, if anything did.
    pub blocking: Option<Blocking>,
    /// How it ended, in plain words.
    pub summary: String,
    /// The budget used, next to its limits.
    pub budget: BudgetReport,
}

impl Verdict {
    /// Whether more than one attempt was made.
    pub fn retried(&self) -> bool {
        self.attempts.len() > 1
    }
}

/// The budget an action used, next to its limits: every limit is reported with its use.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct BudgetReport {
    /// Inputs ordered.
    pub attempts: u32,
    /// Inputs allowed.
    pub max_attempts: u32,
    /// Time of the last observation.
    pub elapsed_ms: u64,
    /// Time allowed.
    pub max_total_ms: u64,
    /// Re-resolutions of a stale target.
    pub reresolves: u32,
    /// Retries after backend errors.
    pub transient_retries: u32,
    /// Verification reads retried after they failed.
    pub read_retries: u32,
    /// Popups dismissed.
    pub dismissals: u32,
    /// Extra waiting granted to loading.
    pub loading_extra_ms: u64,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Act { method, attempt, not_before_ms } => {
                write!(f, "act {} #{attempt} at {not_before_ms}ms", method.as_str())
            }
            Step::Verify { not_before_ms, deadline_ms } => {
                write!(f, "verify {not_before_ms}ms..{deadline_ms}ms")
            }
            Step::ReResolve { not_before_ms } => write!(f, "re-resolve at {not_before_ms}ms"),
            Step::DismissBlocking { blocking, not_before_ms } => match blocking {
                Some(b) => write!(f, "dismiss {} {:?} at {not_before_ms}ms", b.role, b.name),
                None => write!(f, "dismiss blocking at {not_before_ms}ms"),
            },
            Step::Done(v) => write!(f, "done {v}"),
        }
    }
}

impl fmt::Display for Verdict {
    /// One line: `ok verified [coordinate_click: no_change, a11y_action: verified]`, or
    /// `failed blocked suggest=dismiss_popup_then_retry [...]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.ok { "ok" } else { "failed" })?;
        match self.verified {
            Some(true) => f.write_str(" verified")?,
            Some(false) if self.ok => f.write_str(" received")?,
            Some(false) => {}
            None => f.write_str(" unverified")?,
        }
        if let Some(c) = self.class {
            write!(f, " {}", c.as_str())?;
        }
        if let Some(s) = self.suggested_action {
            write!(f, " suggest={}", suggestion_name(s))?;
        }
        f.write_str(" [")?;
        for (i, a) in self.attempts.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}: {}", a.method.as_str(), result_name(&a.result))?;
        }
        f.write_str("]")
    }
}

fn result_name(r: &AttemptResult) -> &'static str {
    match r {
        AttemptResult::Verified => "verified",
        AttemptResult::Sent => "sent",
        AttemptResult::Received => "received",
        AttemptResult::NoChange => "no_change",
        AttemptResult::Failed { class, .. } => class.as_str(),
    }
}

fn suggestion_name(s: SuggestedAction) -> &'static str {
    match s {
        SuggestedAction::DismissPopupThenRetry => "dismiss_popup_then_retry",
        SuggestedAction::UseVision => "use_vision",
        SuggestedAction::WaitLonger => "wait_longer",
        SuggestedAction::RefineSelector => "refine_selector",
    }
}
