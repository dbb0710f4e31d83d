//! The engine: a pure state machine from what was observed to the next step.

use std::mem;

use deft_types::{Attempt, AttemptResult, Blocking, ErrorClass, Method, SuggestedAction};

use crate::budget::Budget;
use crate::classify::classify;
use crate::observation::{Observation, Report};
use crate::policy::ActionPolicy;
use crate::step::{ActionContext, Step, Verdict};
use crate::watch::Watch;

mod retrying;
mod verifying;

/// Drives one action from its first input to its verdict.
///
/// Call [`Engine::start`] once, carry out the step it returns, report with
/// [`Engine::observe`], and repeat until [`Step::Done`]. The engine reads no clock and
/// does no I/O: time comes in with each [`Observation`]. It ends on every path: each
/// reply either moves time forward towards the budget's end or spends a bounded counter.
#[derive(Clone, Debug)]
pub struct Engine {
    policy: ActionPolicy,
    ctx: ActionContext,
    budget: Budget,
    /// Position in the chain of the method being tried.
    chain_pos: usize,
    phase: Phase,
    /// The step awaiting its reply.
    pending: Option<Step>,
    attempts: Vec<Attempt>,
    /// Whether the last attempt still waits for its result.
    attempt_open: bool,
    /// When the open attempt's input was sent (or ordered, while not sent).
    attempt_start_ms: u64,
    /// Why each retry happened, in order.
    reasons: Vec<String>,
    /// Set once any further input could undo an effect (a toggle that flipped): why.
    inputs_closed: Option<String>,
    /// Methods of the chain refused with nothing sent (the target cannot take them).
    refused: Vec<Method>,
    /// Whether a method already had the turn of a refused one (see `retrying::stand_in`).
    stood_in: bool,
    /// When each method's input was last sent.
    last_sent: Vec<(Method, u64)>,
    verdict: Option<Verdict>,
}

#[derive(Clone, Debug)]
enum Phase {
    Idle,
    Acting { method: Method },
    Verifying(Watch),
    ReResolving { method: Method, cause: String },
    Dismissing { method: Method, cause: String, blocking: Option<Blocking> },
    Done,
}

impl Phase {
    fn name(&self) -> &'static str {
        match self {
            Phase::Idle => "nothing (start() first)",
            Phase::Acting { .. } => "act",
            Phase::Verifying(_) => "verify",
            Phase::ReResolving { .. } => "re-resolve",
            Phase::Dismissing { .. } => "dismiss",
            Phase::Done => "done",
        }
    }
}

/// How the action ends, before it is dressed as a [`Verdict`].
struct End {
    ok: bool,
    verified: Option<bool>,
    class: Option<ErrorClass>,
    suggested: Option<SuggestedAction>,
    blocking: Option<Blocking>,
    summary: String,
}

impl End {
    fn fail(class: Option<ErrorClass>, summary: String) -> End {
        End { ok: false, verified: Some(false), class, suggested: None, blocking: None, summary }
    }

    fn suggest(mut self, s: Option<SuggestedAction>) -> End {
        self.suggested = s;
        self
    }
}

impl Engine {
    /// An engine for one action under `policy`. The policy is taken as given; check one
    /// built by hand with [`ActionPolicy::validate`].
    pub fn new(policy: &ActionPolicy, ctx: ActionContext) -> Engine {
        Engine {
            policy: policy.clone(),
            ctx,
            budget: Budget::new(policy),
            chain_pos: 0,
            phase: Phase::Idle,
            pending: None,
            attempts: Vec::new(),
            attempt_open: false,
            attempt_start_ms: 0,
            reasons: Vec::new(),
            inputs_closed: None,
            refused: Vec::new(),
            stood_in: false,
            last_sent: Vec::new(),
            verdict: None,
        }
    }

    /// The first step (the first input, at time 0). Called again, it repeats the pending step.
    pub fn start(&mut self) -> Step {
        if let Some(step) = self.current() {
            return step;
        }
        match self.policy.chain.first().copied() {
            Some(m) => self.act(m, 0, None, None),
            None => self.finish(0, End::fail(None, "the policy's fallback chain is empty".into())),
        }
    }

    /// Takes in the reply to the pending step and returns the next step. After `Done`,
    /// returns the same `Done` again.
    pub fn observe(&mut self, obs: Observation) -> Step {
        if let Some(v) = &self.verdict {
            return Step::Done(v.clone());
        }
        let at = obs.at_ms;
        let now = self.budget.report().elapsed_ms;
        if at < now {
            return self.protocol_error(now, format!("time went back from {now}ms to {at}ms"));
        }
        // The verify delay only guards the negative answer (see `Report::answers_before_delay`).
        let early_answer = matches!(self.pending, Some(Step::Verify { .. })) && obs.report.answers_before_delay();
        if let Some(nb) = self.pending.as_ref().and_then(Step::not_before_ms)
            && at < nb
            && !early_answer
        {
            return self.protocol_error(at, format!("reply at {at}ms to a step not before {nb}ms"));
        }
        self.budget.saw_time(at);
        match (mem::replace(&mut self.phase, Phase::Done), obs.report) {
            (Phase::Acting { method }, Report::Sent) => self.on_sent(method, at, None),
            (Phase::Acting { method }, Report::SendUncertain { message }) => self.on_sent(method, at, Some(message)),
            (Phase::Acting { method }, Report::Refused(s)) => {
                let class = classify(&s);
                let message = s.describe();
                self.close(at, AttemptResult::Failed { class, message }, None);
                self.on_refused(method, at, s, class)
            }
            (Phase::Verifying(w), Report::Verified { observed }) => {
                let summary = format!("{} verified after {}ms: {observed}", w.method.as_str(), at - w.sent_ms);
                self.close(at, AttemptResult::Verified, Some(observed));
                let end = End { ok: true, verified: Some(true), class: None, suggested: None, blocking: None, summary };
                self.finish(at, end)
            }
            (Phase::Verifying(w), Report::Received { observed }) => {
                let summary = format!(
                    "{} was received after {}ms ({observed}), and no effect of it showed elsewhere; not repeated, \
                     since a second input could double an effect that does not show",
                    w.method.as_str(),
                    at - w.sent_ms
                );
                self.close(at, AttemptResult::Received, Some(observed));
                let end =
                    End { ok: true, verified: Some(false), class: None, suggested: None, blocking: None, summary };
                self.finish(at, end)
            }
            (Phase::Verifying(w), Report::NoChange(s)) => self.on_no_change(w, at, s),
            (Phase::Verifying(w), Report::Unreadable { message }) => self.on_unreadable(w, at, message),
            (Phase::ReResolving { method, cause }, Report::Resolved) => {
                self.act(method, at, Some(cause), Some(ErrorClass::Stale))
            }
            (Phase::ReResolving { method, .. }, Report::Refused(s)) => {
                let class = classify(&s);
                self.on_refused(method, at, s, class)
            }
            (Phase::Dismissing { method, cause, .. }, Report::Dismissed) => {
                self.act(method, at, Some(cause), Some(ErrorClass::Blocked))
            }
            (Phase::Dismissing { blocking, .. }, Report::Refused(s)) => {
                let end = End {
                    blocking: s.blocking.clone().or(blocking),
                    ..End::fail(
                        Some(ErrorClass::Blocked),
                        format!("the popup could not be dismissed: {}", s.describe()),
                    )
                    .suggest(Some(SuggestedAction::DismissPopupThenRetry))
                };
                self.finish(at, end)
            }
            (phase, report) => {
                let why = format!("`{}` is not a reply to {}", report.name(), phase.name());
                self.protocol_error(at, why)
            }
        }
    }

    /// The step awaiting its reply, or the verdict once done; `None` before [`Engine::start`].
    pub fn current(&self) -> Option<Step> {
        match &self.verdict {
            Some(v) => Some(Step::Done(v.clone())),
            None => self.pending.clone(),
        }
    }

    /// The attempts so far, the open one last.
    pub fn attempts(&self) -> &[Attempt] {
        &self.attempts
    }

    /// The verdict, once the action is over.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.verdict.as_ref()
    }

    /// Orders an input, if every budget allows it. `cause` says why (none for the first).
    /// Never inside the verification window of an input of the same method sent before
    /// (a chain that repeats a method, or a stand-in: see `retrying::stand_in`): that
    /// input's effect may still show, and the same input again could double it.
    fn act(&mut self, method: Method, not_before: u64, cause: Option<String>, class: Option<ErrorClass>) -> Step {
        let not_before = match self.last_sent.iter().find(|(m, _)| *m == method) {
            Some((_, sent)) => not_before.max(sent.saturating_add(self.policy.window_ms)),
            None => not_before,
        };
        let now = self.budget.report().elapsed_ms;
        let cause_or = |c: &Option<String>, fallback: &str| c.clone().unwrap_or_else(|| fallback.to_string());
        if let Some(why) = self.inputs_closed.clone() {
            return self.finish(now, End::fail(class, why));
        }
        if not_before >= self.budget.end_ms() {
            let summary =
                format!("{}; time budget of {}ms spent", cause_or(&cause, "not started"), self.budget.end_ms());
            return self.finish(now, End::fail(class, summary));
        }
        if !self.budget.take_attempt() {
            let max = self.budget.report().max_attempts;
            let summary = format!("{}; all {max} attempts spent", cause_or(&cause, "not started"));
            return self.finish(now, End::fail(class, summary));
        }
        if let Some(c) = cause {
            let wait = not_before.saturating_sub(now);
            let after = if wait > 0 { format!(" after {wait}ms") } else { String::new() };
            self.reasons.push(format!("{c}; retried with {}{after}", method.as_str()));
        }
        self.attempts.push(Attempt { method, result: AttemptResult::NoChange, elapsed_ms: 0, observed: None });
        self.attempt_open = true;
        self.attempt_start_ms = not_before;
        self.phase = Phase::Acting { method };
        let attempt = self.budget.report().attempts;
        self.pend(Step::Act { method, attempt, not_before_ms: not_before })
    }

    /// Orders a step that sends no input, if time allows it.
    fn order(&mut self, now: u64, step: Step, class: Option<ErrorClass>) -> Step {
        match step.not_before_ms() {
            Some(nb) if nb >= self.budget.end_ms() => {
                let summary = format!("time budget of {}ms spent", self.budget.end_ms());
                self.finish(now, End::fail(class, summary))
            }
            _ => self.pend(step),
        }
    }

    fn pend(&mut self, step: Step) -> Step {
        self.pending = Some(step.clone());
        step
    }

    fn protocol_error(&mut self, at: u64, why: String) -> Step {
        // Stopping is always safe; guessing what the executor meant is not.
        self.finish(at, End::fail(None, format!("executor protocol error: {why}")))
    }

    /// Records the open attempt's result.
    fn close(&mut self, at: u64, result: AttemptResult, observed: Option<String>) {
        if !mem::take(&mut self.attempt_open) {
            return;
        }
        if let Some(a) = self.attempts.last_mut() {
            a.result = result;
            a.elapsed_ms = at.saturating_sub(self.attempt_start_ms);
            a.observed = observed;
        }
    }

    fn finish(&mut self, at: u64, end: End) -> Step {
        self.close(at, AttemptResult::NoChange, Some("not concluded".into()));
        self.phase = Phase::Done;
        self.pending = None;
        let verdict = Verdict {
            ok: end.ok,
            verified: if self.ctx.verify { end.verified } else { None },
            attempts: self.attempts.clone(),
            class: end.class,
            retry_reason: (!self.reasons.is_empty()).then(|| self.reasons.join("; ")),
            suggested_action: end.suggested,
            blocking: end.blocking,
            summary: end.summary,
            budget: self.budget.report(),
        };
        self.verdict = Some(verdict.clone());
        Step::Done(verdict)
    }
}
