//! What the executor reports back after carrying out a step.

use deft_types::Blocking;
use serde::{Deserialize, Serialize};

use crate::classify::Symptoms;

/// One report from the executor, stamped with when it was made.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Observation {
    /// Milliseconds since the executor started the engine, on a monotonic clock. Never
    /// earlier than the previous observation nor than the step's `not_before_ms` (except
    /// `Verified`, which may come before a verification's `not_before_ms`).
    pub at_ms: u64,
    /// What was seen.
    pub report: Report,
}

impl Observation {
    /// A report made at `at_ms`.
    pub fn new(at_ms: u64, report: Report) -> Observation {
        Observation { at_ms, report }
    }
}

/// What was seen. Each step accepts only its own replies (listed per variant); any other
/// reply is a protocol error that ends the action, because stopping is always safe.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Report {
    /// Reply to `Act`: the input went out.
    Sent,
    /// Reply to `Act`: the backend failed or timed out while sending, so the input may or
    /// may not have gone out. Treated as sent: it is verified over its whole window before
    /// anything is sent again.
    SendUncertain {
        /// The backend's error.
        message: String,
    },
    /// Reply to `Act`, `ReResolve` or `DismissBlocking`: it could not be done and nothing
    /// was sent (the actionability check or the backend refused before any input).
    Refused(Symptoms),
    /// Reply to `Verify`: the expected effect (or any change, without an expectation) is seen.
    Verified {
        /// What was seen, in plain words.
        observed: String,
    },
    /// Reply to `Verify`: the input arrived (what was seen says so: the menu whose entry it
    /// chose closed), and no effect of it shows anywhere else, after a wait for one. Ends the
    /// action `ok`, not verified, with no second input (it could double an effect that does
    /// not show).
    Received {
        /// What showed the input arrived, in plain words.
        observed: String,
    },
    /// Reply to `Verify`: no effect yet.
    NoChange(Signals),
    /// Reply to `Verify`: the UI could not be read (backend error or timeout).
    Unreadable {
        /// The backend's error.
        message: String,
    },
    /// Reply to `ReResolve`: the target was found again.
    Resolved,
    /// Reply to `DismissBlocking`: the popup is gone.
    Dismissed,
}

impl Report {
    /// Whether this reply to `Verify` may come before the step's `not_before_ms`. The verify
    /// delay is time for an effect to show before "no change" is said: an effect seen
    /// sooner is an effect, and keys whose first key the executor watched handled without
    /// effect, or whose last keys went to another field, need no such time (what the
    /// executor saw was the wait). Every other reply waits for it.
    pub fn answers_before_delay(&self) -> bool {
        match self {
            Report::Verified { .. } => true,
            Report::NoChange(s) => s.keys_unseen || s.keys_astray,
            _ => false,
        }
    }

    /// The report's name, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Report::Sent => "sent",
            Report::SendUncertain { .. } => "send_uncertain",
            Report::Refused(_) => "refused",
            Report::Verified { .. } => "verified",
            Report::Received { .. } => "received",
            Report::NoChange(_) => "no_change",
            Report::Unreadable { .. } => "unreadable",
            Report::Resolved => "resolved",
            Report::Dismissed => "dismissed",
        }
    }
}

/// What a verification read saw besides "not yet": the evidence the hazard rules need.
///
/// The default is the cautious one: feedback unknown, toggle state unknown. Unknowns never
/// allow an early fallback or a retry on a toggle.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Signals {
    /// Whether the input showed that the app received it.
    pub feedback: Feedback,
    /// Busy state, progress, "Loading..." text or pixels still changing.
    pub loading: bool,
    /// For a toggle target: its checked/pressed state compared with before the input.
    pub toggle: Toggle,
    /// A dialog, alert or modal that appeared and intercepts the target.
    pub blocking: Option<Blocking>,
    /// The input was a press held on a target that draws itself pressed (a push button),
    /// watched from a settled look, and the target never looked pressed: the press did
    /// not reach it. Evidence as strong as idempotence for an early fallback (see
    /// `early_fallback_allowed`); the executor says so only where it watched.
    pub press_unseen: bool,
    /// The input was text typed as keys, and the executor sent only its first key: the app
    /// read that key (a round trip through its event queue came back after it) and went on
    /// answering, and the field's text stayed as it was while it kept the keyboard focus.
    /// The field ignores key events, and the rest of the text was never sent. Evidence as
    /// strong as idempotence for an early fallback, decided when it is told (see
    /// `early_fallback_allowed`); the executor says so only where it watched.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keys_unseen: bool,
    /// The input was a press that nothing could have seen arrive: the desktop's frames
    /// cannot watch a press, the target's toolkit says nothing of a held button, and the
    /// focus could not move to show it. "No change" after it may be a press whose effect
    /// does not show (a button pressed a second time), so it is never followed by a second
    /// input: the action fails saying it cannot tell (see `Engine::conclude`); unless the
    /// target is a toggle whose state reads unchanged (its state tells).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub press_unwatched: bool,
    /// The input was text typed as keys, every key was sent, and the last of them showed
    /// up in another field that has the keyboard focus while the target has lost it (the
    /// focus was taken while typing). Keys go in order, so every key has been handled,
    /// and the rest went elsewhere: none is left to reach the target, and waiting shows
    /// nothing more. Lets the engine go on to the next method at once, although the
    /// target showed the first keys (the executor puts the other field back).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keys_astray: bool,
    /// Something that changes by itself (a clock, a counter, a playback position: it
    /// changed before the input too) changed after it, in words. It cannot verify the input,
    /// and it cannot say the input was lost either: the input's effect may be that change.
    /// So no second input is sent after it (see `Engine::conclude`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_motion: Option<Box<str>>,
    /// Under an expectation that does not hold: what the action itself promises is read
    /// back from its target (the text typed in at the caret, the value set), in words. The
    /// input landed; another method would only do the same again (or double it), so none
    /// is sent (see `Engine::on_no_change`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done_as_asked: Option<Box<str>>,
    /// The explicit expectation held already before the input, and still does: it cannot
    /// tell this input's effect (`key ctrl+s --expect text:"Line B"` with "Line B" shown
    /// all along). The input is not repeated on its account: see `Engine::conclude`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held_before: bool,
}

/// Immediate feedback of an input: a pressed look, a focus change, a busy state, a pixel
/// change on the target. Its absence is early evidence of a dropped input.
///
/// Report what was seen since the input was sent (or since the previous read): the engine
/// remembers any `Seen` or `Unknown` for the rest of the attempt.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feedback {
    /// Not watched for, or could not be judged.
    #[default]
    Unknown,
    /// Watched for since the input was sent, and none was seen.
    NotSeen,
    /// Seen: the app received the input, whatever its effect.
    Seen,
}

/// A toggle's state compared with before the input.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Toggle {
    /// Not read.
    #[default]
    Unknown,
    /// As before the input: a retry will not undo anything.
    Unchanged,
    /// Flipped: another input would flip it back.
    Changed,
}
