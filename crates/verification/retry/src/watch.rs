//! Watching one sent input over its window, and the rule for giving up on it early.

use deft_types::Method;

use crate::observation::{Feedback, Signals, Toggle};
use crate::policy::{ActionPolicy, EarlyFallback};
use crate::step::ActionContext;

/// What is known about the input in flight: sent, not yet seen to take effect.
#[derive(Clone, Debug)]
pub(crate) struct Watch {
    pub method: Method,
    pub sent_ms: u64,
    /// When the input counts as having had no effect; loading pushes it back.
    pub window_end_ms: u64,
    /// The backend's error when the send itself was uncertain.
    pub uncertain: Option<String>,
    /// Verification reads that came back as "no change".
    pub reads: u32,
    pub feedback_seen: bool,
    pub feedback_unknown: bool,
    pub loading_seen: bool,
    pub loading_now: bool,
    /// The toggle state at the last read.
    pub toggle: Toggle,
    /// The executor watched the press and it never showed (sticky, like feedback).
    pub press_unseen: bool,
    /// The executor watched the first key handled without effect (sticky): see
    /// `Signals::keys_unseen`.
    pub keys_unseen: bool,
    /// Nothing could have seen the press arrive (sticky): see `Signals::press_unwatched`.
    pub press_unwatched: bool,
    /// The last keys went to another field that took the focus (sticky): see
    /// `Signals::keys_astray`.
    pub keys_astray: bool,
    /// What changed by itself after the input (sticky): see `Signals::own_motion`.
    pub own_motion: Option<String>,
    /// The action's own promise was read back (sticky): see `Signals::done_as_asked`.
    pub done_as_asked: bool,
    /// The expectation held before the input and since (the latest read): see
    /// `Signals::held_before`.
    pub held_before: bool,
}

impl Watch {
    pub fn new(method: Method, sent_ms: u64, p: &ActionPolicy, uncertain: Option<String>) -> Watch {
        Watch {
            method,
            sent_ms,
            window_end_ms: sent_ms.saturating_add(p.window_ms),
            uncertain,
            reads: 0,
            feedback_seen: false,
            feedback_unknown: false,
            loading_seen: false,
            loading_now: false,
            toggle: Toggle::Unknown,
            press_unseen: false,
            keys_unseen: false,
            press_unwatched: false,
            keys_astray: false,
            own_motion: None,
            done_as_asked: false,
            held_before: false,
        }
    }

    /// Takes in one "no change" read. Evidence of feedback or loading is sticky: once the
    /// app showed it received the input, no later read makes it a dropped input again.
    pub fn absorb(&mut self, s: &Signals) {
        self.reads += 1;
        match s.feedback {
            Feedback::Seen => self.feedback_seen = true,
            Feedback::Unknown => self.feedback_unknown = true,
            Feedback::NotSeen => {}
        }
        self.loading_seen |= s.loading;
        self.loading_now = s.loading;
        self.toggle = s.toggle;
        self.press_unseen |= s.press_unseen;
        self.press_unwatched |= s.press_unwatched;
        self.keys_unseen |= s.keys_unseen && self.method == Method::Keystrokes;
        self.keys_astray |= s.keys_astray && self.method == Method::Keystrokes;
        if let Some(what) = &s.own_motion {
            self.own_motion = Some(what.to_string());
        }
        self.done_as_asked |= s.done_as_asked.is_some();
        self.held_before = s.held_before;
    }

    /// A failed read: nothing can be said about feedback any more.
    pub fn unreadable(&mut self) {
        self.feedback_unknown = true;
    }

    /// The executor watched the input and it never arrived: a press that never showed, or
    /// a first key the app handled without effect. Nothing of it can be doubled.
    pub fn unseen(&self) -> bool {
        self.press_unseen || self.keys_unseen
    }
}

/// Whether the input being watched may be taken as dropped from [`early_from`] on, before
/// its window has passed, and the next method tried.
///
/// The hazard is a delayed effect answered with a second input: a double submit. So every
/// condition must hold:
/// - **the policy allows it**, and for `idempotent` the caller marked the target so
///   (pressing it twice is harmless, so even a wrong guess costs nothing), or the press
///   was watched and never showed on a target that draws its presses (`press_unseen`:
///   the press did not arrive, so there is nothing to double), or the first key was
///   watched handled without effect (`keys_unseen`, the same for keys);
/// - **the input was a pointer input** (coordinate or offset click, wheel): those are the
///   inputs that get dropped (an overlay, a wrong point, an unfocused window), and their
///   receipt shows at once as a pressed look or a focus change; or **keys whose first key
///   the executor watched handled without effect** (`keys_unseen`: the rest were never
///   sent), or **keys whose last ones went to another field that took the focus**
///   (`keys_astray`: every key was handled, so none can still reach the target). Other
///   keystrokes and accessibility calls are never given up early: their receipt is not
///   visible as such;
/// - **every read so far saw no feedback at all**, and each said it watched for it (an
///   unknown is not a no): feedback means the app has the input, whatever comes later;
///   unless the keys went astray: the target showed the first keys, and the rest were
///   handled elsewhere;
/// - **no loading was seen**: a busy app is working on something, maybe our input; unless
///   the first key was watched handled without effect (`keys_unseen`) or the keys went
///   astray. A press that never showed does not lift it: an app busy drawing (a spinner,
///   under load) answers the window manager's ping when its toolkit reads the events, not
///   when it dispatches them, so the press may still be queued behind the work, and land
///   after the "never showed" (GTK 3 under load: a second press submitted a second order);
/// - **the target is not a toggle**: a second input would undo a slow first one; unless the
///   press never showed and the toggle's state reads unchanged: nothing arrived to flip it;
/// - **the send was certain**: after a backend error, only the full window tells;
/// - **nothing that changes by itself changed since** (`own_motion`): the input's effect
///   may be that change, so the input is never given up on; unless the input was watched
///   and never arrived;
/// - **the press could have been seen** (not `press_unwatched`): where nothing could see a
///   press arrive, its absence says nothing;
/// - **there is a different next method and an attempt left for it**: concluding early
///   with nothing to try would only turn a slow success into a failure report.
pub(crate) fn early_fallback_allowed(
    w: &Watch,
    p: &ActionPolicy,
    ctx: &ActionContext,
    next: Option<Method>,
    attempts_left: bool,
) -> bool {
    let policy_allows = match p.early_fallback {
        EarlyFallback::Never => false,
        EarlyFallback::Idempotent => ctx.idempotent || w.unseen() || w.keys_astray,
        EarlyFallback::NoFeedback => true,
    };
    // The keys are known to be over, one way or the other: nothing of them can still come.
    let keys_over = w.keys_unseen || w.keys_astray;
    policy_allows
        && (w.method.is_pointer() || keys_over)
        && (!w.feedback_seen || w.keys_astray)
        && !w.feedback_unknown
        && !w.press_unwatched
        && (!w.loading_seen || w.keys_unseen || w.keys_astray)
        && (!ctx.is_toggle || (w.unseen() && w.toggle == Toggle::Unchanged))
        && w.uncertain.is_none()
        && !ctx.blind
        && !ctx.single_input
        && (w.own_motion.is_none() || w.unseen() || w.keys_astray)
        && p.no_effect.fallback
        && next.is_some_and(|n| n != w.method)
        && attempts_left
        && (keys_over || w.sent_ms.saturating_add(p.early_fallback_ms) < w.window_end_ms)
}

/// When an early fallback may come, at the soonest: `early_fallback_ms` after the input
/// (that long without feedback is the evidence), or at once for keys whose first key was
/// seen handled without effect, or whose last keys went elsewhere (the executor's watch is
/// the evidence).
pub(crate) fn early_from(w: &Watch, p: &ActionPolicy) -> u64 {
    if w.keys_unseen || w.keys_astray { w.sent_ms } else { w.sent_ms.saturating_add(p.early_fallback_ms) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicySet;
    use deft_types::ActionKind;

    fn setup() -> (Watch, ActionPolicy, ActionContext) {
        let p = PolicySet::defaults().get(ActionKind::Click).clone();
        let w = Watch::new(Method::CoordinateClick, 0, &p, None);
        let ctx = ActionContext { idempotent: true, ..ActionContext::new(ActionKind::Click) };
        (w, p, ctx)
    }

    fn allowed(w: &Watch, p: &ActionPolicy, ctx: &ActionContext) -> bool {
        early_fallback_allowed(w, p, ctx, Some(Method::A11yAction), true)
    }

    #[test]
    fn idempotent_pointer_without_feedback_may_fall_back_early() {
        let (mut w, p, ctx) = setup();
        w.absorb(&Signals { feedback: Feedback::NotSeen, ..Signals::default() });
        assert!(allowed(&w, &p, &ctx));
    }

    #[test]
    fn any_doubt_forbids_it() {
        let (w, p, ctx) = setup();
        let no = |s: Signals| {
            let mut w = w.clone();
            w.absorb(&Signals { feedback: Feedback::NotSeen, ..Signals::default() });
            w.absorb(&s);
            assert!(!allowed(&w, &p, &ctx), "{s:?}");
        };
        no(Signals { feedback: Feedback::Seen, ..Signals::default() });
        no(Signals { feedback: Feedback::Unknown, ..Signals::default() });
        no(Signals { feedback: Feedback::NotSeen, loading: true, ..Signals::default() });
        let not_idempotent = ActionContext { idempotent: false, ..ctx };
        assert!(!allowed(&w, &p, &not_idempotent));
        let toggle = ActionContext { is_toggle: true, ..ctx };
        assert!(!allowed(&w, &p, &toggle));
        let keys = Watch { method: Method::Keystrokes, ..w.clone() };
        assert!(!allowed(&keys, &p, &ctx));
        assert!(!early_fallback_allowed(&w, &p, &ctx, None, true));
        assert!(!early_fallback_allowed(&w, &p, &ctx, Some(Method::A11yAction), false));
    }
}
