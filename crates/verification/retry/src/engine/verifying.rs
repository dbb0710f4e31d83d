//! After an input was sent: watching its window, and deciding when it had no effect.

use deft_types::{ActionKind, AttemptResult, ErrorClass, Method, SuggestedAction};

use super::{End, Engine, Phase};
use crate::observation::{Signals, Toggle};
use crate::step::Step;
use crate::watch::{Watch, early_fallback_allowed, early_from};

impl Engine {
    pub(super) fn on_sent(&mut self, method: Method, at: u64, uncertain: Option<String>) -> Step {
        self.attempt_start_ms = at;
        self.last_sent.retain(|(m, _)| *m != method);
        self.last_sent.push((method, at));
        if !self.ctx.verify {
            return match uncertain {
                None => {
                    self.close(at, AttemptResult::Sent, None);
                    let summary = format!("{} sent; verification not asked for", method.as_str());
                    let end = End { ok: true, verified: None, class: None, suggested: None, blocking: None, summary };
                    self.finish(at, end)
                }
                Some(message) => {
                    let class = ErrorClass::Transient;
                    self.close(at, AttemptResult::Failed { class, message: message.clone() }, None);
                    let summary = format!(
                        "{} may not have been sent ({message}); not retried, since without verification a retry could double it",
                        method.as_str()
                    );
                    self.finish(at, End::fail(Some(class), summary))
                }
            };
        }
        let w = Watch::new(method, at, &self.policy, uncertain);
        self.verify(w, at.saturating_add(self.policy.verify_delay_ms))
    }

    pub(super) fn on_no_change(&mut self, mut w: Watch, at: u64, s: Signals) -> Step {
        w.absorb(&s);
        let m = w.method.as_str();
        if self.ctx.is_toggle && s.toggle == Toggle::Changed && self.inputs_closed.is_none() {
            // Under an expectation the executor reports any effect at all as "changed": the
            // input worked, only not as expected.
            self.inputs_closed = Some(if self.ctx.expectation {
                format!("{m} had an effect, but not the one expected; not retried, since another input could repeat it")
            } else {
                format!(
                    "the toggle changed state after {m} but the expectation was not met; \
                     not retried, since another input would undo it"
                )
            });
        }
        if let Some(what) = s.done_as_asked.as_ref().filter(|_| self.inputs_closed.is_none()) {
            if self.ctx.expectation {
                self.inputs_closed = Some(format!(
                    "{m} did what it does ({what}), but the expectation was not met; not retried, since another \
                     method would only do the same again"
                ));
            } else if self.ctx.kind == ActionKind::Type && !self.ctx.blind {
                // Where the text is not read back as typed (a terminal's screen redraws its
                // prompt and output), the change is the keys' receipt: concluded as such.
                self.inputs_closed = Some(format!(
                    "{m} went in ({what}); not typed again, since another method would write what went in a \
                     second time"
                ));
            } else if self.ctx.kind == ActionKind::SetValue && !self.ctx.blind {
                self.inputs_closed = Some(format!(
                    "{m} went in, and the application took it its own way ({what}); not set again, since another \
                     method would only enter the same value, as keys the field reads its own way"
                ));
            }
        }
        if let Some(b) = s.blocking {
            let message = format!("{} {:?} appeared", b.role, b.name);
            self.close(at, AttemptResult::Failed { class: ErrorClass::Blocked, message: message.clone() }, None);
            let summary =
                format!("{message} after {m}; not dismissed automatically, since it may be the input's own effect");
            let end = End {
                blocking: Some(b),
                ..End::fail(Some(ErrorClass::Blocked), summary).suggest(Some(SuggestedAction::DismissPopupThenRetry))
            };
            return self.finish(at, end);
        }
        // Where nothing can verify the input (its text cannot be read back) and nothing is
        // expected, the app showing it received the input is all there is to learn: the
        // rest of the window could only tell the same, and nothing is sent again anyway.
        if self.ctx.blind && !self.ctx.expectation && w.feedback_seen && w.uncertain.is_none() {
            return self.conclude(w, at, false);
        }
        if at >= w.window_end_ms {
            if !w.loading_now {
                return self.conclude(w, at, false);
            }
            let granted = self.budget.grant_loading(self.policy.loading.extend_ms);
            if granted == 0 {
                let waited = at - w.sent_ms;
                let message = format!("still loading {waited}ms after {m}");
                self.close(at, AttemptResult::Failed { class: ErrorClass::Loading, message: message.clone() }, None);
                let end = End::fail(Some(ErrorClass::Loading), format!("{message}; loading budget spent"));
                return self.finish(at, end.suggest(Some(SuggestedAction::WaitLonger)));
            }
            w.window_end_ms = at.saturating_add(granted);
        } else if at >= early_from(&w, &self.policy)
            && at < w.sent_ms.saturating_add(self.policy.window_ms)
            && self.early_ok(&w)
        {
            // Early means inside the input's own window: once loading has extended it, the
            // extension is for the app's work to end, and only its end decides.
            return self.conclude(w, at, true);
        }
        let next = at.saturating_add(self.policy.poll_ms).min(self.checkpoint(&w).max(at + 1));
        self.verify(w, next)
    }

    pub(super) fn on_unreadable(&mut self, mut w: Watch, at: u64, message: String) -> Step {
        w.unreadable();
        let m = w.method.as_str();
        let class = ErrorClass::Transient;
        if at >= w.window_end_ms {
            self.close(at, AttemptResult::Failed { class, message: message.clone() }, None);
            let summary = format!("could not read the UI to verify {m} ({message}); not retried blind");
            return self.finish(at, End::fail(Some(class), summary));
        }
        match self.budget.take_read_retry() {
            Some(n) => {
                let next = at.saturating_add(self.policy.transient.backoff_ms(n));
                self.verify(w, next)
            }
            None => {
                self.close(at, AttemptResult::Failed { class, message: message.clone() }, None);
                let summary = format!("could not read the UI to verify {m} ({message}); read retries spent");
                self.finish(at, End::fail(Some(class), summary))
            }
        }
    }

    /// The window (or the early checkpoint) passed with no change: decide what comes next.
    fn conclude(&mut self, w: Watch, at: u64, early: bool) -> Step {
        let m = w.method.as_str();
        let waited = at - w.sent_ms;
        let observed = if early {
            format!("no feedback within {waited}ms")
        } else if (self.ctx.expectation || self.ctx.kind == ActionKind::Type)
            && (w.toggle == Toggle::Changed || w.done_as_asked)
        {
            format!("a change within {waited}ms, not the one expected")
        } else {
            format!("no change within {waited}ms")
        };
        let result = match &w.uncertain {
            Some(message) => AttemptResult::Failed { class: ErrorClass::Transient, message: message.clone() },
            None => AttemptResult::NoChange,
        };
        self.close(at, result, Some(observed));
        let class = if w.uncertain.is_some() { ErrorClass::Transient } else { ErrorClass::NoEffect };
        if let Some(why) = self.inputs_closed.clone() {
            return self.finish(at, End::fail(Some(class), why));
        }
        if self.ctx.is_toggle && w.toggle != Toggle::Unchanged && !self.stops_when_received(&w) {
            let summary = format!(
                "{m} changed nothing visible, but the toggle's state was not reported unchanged; \
                 not retried, since another input could undo it"
            );
            return self.finish(at, End::fail(Some(class), summary));
        }
        if self.ctx.blind && !self.ctx.expectation {
            // Nothing could have shown the input: it is sent, and said to be unverifiable.
            let received = w.feedback_seen;
            if let Some(a) = self.attempts.last_mut() {
                a.result = if received { AttemptResult::Received } else { AttemptResult::Sent };
            }
            let seen = if received { "the app showed it received it, but " } else { "" };
            let why = match self.ctx.kind {
                ActionKind::Type | ActionKind::SetValue => {
                    "what was typed cannot be read back as typed (accessibility gives the target no text, or a text \
                     it does not say is editable: a terminal's screen, a canvas)"
                }
                _ => {
                    "the target is known only by where it shows on screen (accessibility does not give it), and no \
                     change showed there: an effect that does not show and a lost input look the same"
                }
            };
            let summary = format!(
                "{m} sent; {seen}its effect cannot be verified: {why}; not repeated, since a second input could double it"
            );
            let end = End { ok: true, verified: Some(false), class: None, suggested: None, blocking: None, summary };
            return self.finish(at, end);
        }
        if w.held_before && self.ctx.expectation && w.uncertain.is_none() {
            // The expectation says nothing about this input: it held before it was sent. A
            // second input could double an effect that shows nowhere it looks (a save).
            if let Some(a) = self.attempts.last_mut() {
                a.result = AttemptResult::Sent;
            }
            let summary = format!(
                "{m} sent; the expectation cannot tell its effect, since it held already before the input, and \
                 nothing else changed within {waited}ms; not repeated, since a second input could double an \
                 effect that does not show"
            );
            let end = End { ok: true, verified: Some(false), class: None, suggested: None, blocking: None, summary };
            return self.finish(at, end);
        }
        if self.ctx.kind == ActionKind::Key && !self.ctx.expectation && w.uncertain.is_none() {
            // A key is checked only against an expectation: its effect often shows nowhere
            // (undo with nothing to undo, a caret move, a command run in a terminal), and
            // "nothing changed" is no sign it was lost. Sent, said so, never repeated.
            if let Some(a) = self.attempts.last_mut() {
                a.result = AttemptResult::Sent;
            }
            let summary = format!(
                "{m} sent; no change was seen within {waited}ms (a key's effect may not show, or show only \
                 where accessibility does not look; give an expectation to check one); not repeated"
            );
            let end = End { ok: true, verified: Some(false), class: None, suggested: None, blocking: None, summary };
            return self.finish(at, end);
        }
        if let Some(what) = w.own_motion.as_ref().filter(|_| !w.unseen()) {
            // The window showed no change but one in something that changes by itself: the
            // input's effect may be that change (a button that adds to a counter), or the
            // input may be lost. Only a second input could tell, and it could double it;
            // unless the press was watched and never showed: it did not arrive.
            let summary = format!(
                "{m} showed no effect within {waited}ms that can be told from what changes by itself ({what}); \
                 not repeated, since its effect may be in that change and a second input could double it"
            );
            return self.finish(at, End::fail(Some(class), summary));
        }
        if w.press_unwatched && !w.feedback_seen && !(self.ctx.is_toggle && w.toggle == Toggle::Unchanged) {
            // Nothing could have seen the press arrive, and nothing changed: a press whose
            // effect does not show (a button pressed a second time) and a lost one look the
            // same. A second input could double the first; the caller is told it cannot be told.
            let summary = format!(
                "{m} showed no effect within {waited}ms, and whether the press arrived cannot be told here (its \
                 toolkit says nothing of a held button, and this desktop's screen cannot be watched fast enough to \
                 see a press); not repeated, since a second input could double an effect that does not show: check \
                 the app, or give an expectation (--expect)"
            );
            return self.finish(at, End::fail(Some(class), summary));
        }
        if self.stops_when_received(&w) {
            if let Some(a) = self.attempts.last_mut() {
                a.result = AttemptResult::Received;
            }
            let not_repeated = "not repeated, since a second input could double an effect that does not show";
            let end = if self.ctx.expectation {
                let summary = format!(
                    "{m} was received (the app showed feedback) but the expectation was not met within {waited}ms; \
                     {not_repeated}"
                );
                End::fail(Some(ErrorClass::NoEffect), summary)
            } else {
                let summary = format!(
                    "{m} was received (the app showed feedback) but nothing visible changed within {waited}ms; \
                     {not_repeated}"
                );
                End { ok: true, verified: Some(false), class: None, suggested: None, blocking: None, summary }
            };
            return self.finish(at, end);
        }
        if self.ctx.single_input || self.ctx.blind {
            let why = if self.ctx.blind {
                "the channel that would show its effect does not work for this target"
            } else {
                "at a point, what accessibility finds may not be what the input landed on"
            };
            let summary = format!(
                "{m} showed no effect within {waited}ms; not repeated, since {why}, and a second input could \
                 double an effect that showed elsewhere"
            );
            return self.finish(at, End::fail(Some(class), summary));
        }
        match w.uncertain {
            Some(message) => {
                let cause = format!("{m} failed ({message}) and nothing changed within {waited}ms");
                self.retry_transient(w.method, at, cause)
            }
            None if early => {
                let cause = format!("{m} showed no sign of being received within {waited}ms");
                self.fall_back(at, cause)
            }
            None => self.fall_back(at, format!("{m} produced no UI change within {waited}ms")),
        }
    }

    /// Orders a verification read, if time allows it.
    fn verify(&mut self, w: Watch, not_before: u64) -> Step {
        let end = self.budget.end_ms();
        if not_before >= end {
            let now = self.budget.report().elapsed_ms;
            let class = if w.loading_now {
                ErrorClass::Loading
            } else if w.uncertain.is_some() {
                ErrorClass::Transient
            } else {
                ErrorClass::NoEffect
            };
            let observed = format!("no change within {}ms", now.saturating_sub(w.sent_ms));
            let result = match (class, &w.uncertain) {
                (ErrorClass::NoEffect, _) => AttemptResult::NoChange,
                (_, Some(message)) => AttemptResult::Failed { class, message: message.clone() },
                (_, None) => AttemptResult::Failed { class, message: "still loading".into() },
            };
            self.close(now, result, Some(observed));
            let summary = format!("time budget of {end}ms spent before {}'s window passed", w.method.as_str());
            let end = End::fail(Some(class), summary).suggest(Some(SuggestedAction::WaitLonger));
            return self.finish(now, end);
        }
        let deadline = self.checkpoint(&w).min(end).max(not_before);
        self.phase = Phase::Verifying(w);
        self.pend(Step::Verify { not_before_ms: not_before, deadline_ms: deadline })
    }

    /// The next time the engine decides something about `w`: the early checkpoint while an
    /// early fallback is still possible, then the end of the window.
    fn checkpoint(&self, w: &Watch) -> u64 {
        let early = early_from(w, &self.policy);
        let now = self.budget.report().elapsed_ms;
        if early > now && self.early_ok(w) { early } else { w.window_end_ms }
    }

    /// Whether an input that showed it was received, and changed nothing visible (or not
    /// what was expected), ends the action rather than falling back
    /// (`no_effect.stop_when_received`). Without an expectation it ends as received (ok,
    /// not verified); with one it fails. Either way no second input is sent.
    ///
    /// Only for activations (text entry has a value to check and set again) of targets
    /// that are not toggles (a toggle's state says for sure whether it took, so falling
    /// back is safe), or of a toggle that was on (pressed again, it stays on: the app keeps
    /// it so, see `ActionContext::toggle_on`), or of any target under an expectation: there "unchanged" means only
    /// that nothing expected showed, not that the input did not take, and an unmet
    /// expectation after a received input is a failure to report, never a reason to
    /// press again. Never after an uncertain send: the backend's error says it may not
    /// have gone out, whatever the reads showed.
    fn stops_when_received(&self, w: &Watch) -> bool {
        self.policy.no_effect.stop_when_received
            && w.feedback_seen
            && w.uncertain.is_none()
            && (!self.ctx.is_toggle || self.ctx.expectation || self.ctx.toggle_on)
            && matches!(self.ctx.kind, ActionKind::Click | ActionKind::Action)
    }

    fn early_ok(&self, w: &Watch) -> bool {
        let next = self.policy.chain.get(self.chain_pos + 1).copied();
        let report = self.budget.report();
        let attempts_left = report.attempts < report.max_attempts;
        self.inputs_closed.is_none() && early_fallback_allowed(w, &self.policy, &self.ctx, next, attempts_left)
    }
}
