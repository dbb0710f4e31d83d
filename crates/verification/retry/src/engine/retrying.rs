//! Before or between inputs: what each error class leads to, when nothing is in flight.

use deft_types::{ActionKind, ErrorClass, Method, SuggestedAction};

use super::{End, Engine, Phase};
use crate::classify::Symptoms;
use crate::step::Step;

impl Engine {
    /// Nothing was sent (refused before any input), so any retry is safe: only budgets decide.
    pub(super) fn on_refused(&mut self, method: Method, at: u64, s: Symptoms, class: ErrorClass) -> Step {
        let m = method.as_str();
        let what = s.describe();
        match class {
            ErrorClass::Blocked => {
                let cause = format!("{what} intercepted {m}; dismissed it");
                if self.policy.blocked.auto_dismiss && self.budget.take_dismissal() {
                    let blocking = s.blocking.clone();
                    self.phase = Phase::Dismissing { method, cause, blocking: blocking.clone() };
                    return self.order(at, Step::DismissBlocking { blocking, not_before_ms: at }, Some(class));
                }
                let end = End {
                    blocking: s.blocking,
                    ..End::fail(Some(class), format!("{what} intercepted {m}"))
                        .suggest(Some(SuggestedAction::DismissPopupThenRetry))
                };
                self.finish(at, end)
            }
            ErrorClass::Loading => {
                let granted = self.budget.grant_loading(self.policy.loading.extend_ms);
                if granted == 0 {
                    let end = End::fail(
                        Some(class),
                        format!("the app stayed busy before {m} ({what}); loading budget spent"),
                    );
                    return self.finish(at, end.suggest(Some(SuggestedAction::WaitLonger)));
                }
                let cause = format!("the app was busy before {m} ({what})");
                self.act(method, at.saturating_add(granted), Some(cause), Some(class))
            }
            ErrorClass::Stale => {
                if !self.budget.take_reresolve() {
                    let end = End::fail(
                        Some(class),
                        format!("the target stayed stale before {m} ({what}); re-resolutions spent"),
                    );
                    return self.finish(at, end.suggest(Some(SuggestedAction::RefineSelector)));
                }
                let cause = format!("the target went stale before {m} ({what}); re-resolved it");
                self.phase = Phase::ReResolving { method, cause };
                self.order(at, Step::ReResolve { not_before_ms: at }, Some(class))
            }
            ErrorClass::Transient => self.retry_transient(method, at, format!("{m} failed ({what})")),
            ErrorClass::NoEffect => {
                if s.method_unavailable {
                    self.refused.push(method);
                }
                self.fall_back(at, format!("{m} was refused ({what})"))
            }
            ErrorClass::Permanent => {
                let suggestion = s.not_found.then_some(SuggestedAction::RefineSelector);
                self.finish(at, End::fail(Some(class), format!("{m}: {what}")).suggest(suggestion))
            }
        }
    }

    pub(super) fn retry_transient(&mut self, method: Method, at: u64, cause: String) -> Step {
        match self.budget.take_transient() {
            Some(n) => {
                let next = at.saturating_add(self.policy.transient.backoff_ms(n));
                self.act(method, next, Some(cause), Some(ErrorClass::Transient))
            }
            None => {
                let summary = format!("{cause}; transient retries spent");
                self.finish(at, End::fail(Some(ErrorClass::Transient), summary))
            }
        }
    }

    pub(super) fn fall_back(&mut self, at: u64, cause: String) -> Step {
        let class = Some(ErrorClass::NoEffect);
        if !self.policy.no_effect.fallback {
            return self.finish(at, End::fail(class, format!("{cause}; the policy allows no fallback")));
        }
        if let Some(next) = self.policy.chain.get(self.chain_pos + 1).copied() {
            self.chain_pos += 1;
            return self.act(next, at, Some(cause), class);
        }
        if let Some((method, refused)) = self.stand_in() {
            let cause = format!("{cause}; {refused} could not be used on this target, so {method} had its turn");
            return self.act(method, at, Some(cause), class);
        }
        // The last input sent and what it showed first, when every method after it could not
        // be used: the outcome leads with what happened, not with the last refusal.
        let last_sent = self.attempts.iter().rposition(|a| a.result == deft_types::AttemptResult::NoChange);
        let cause = match last_sent {
            Some(i) if i + 1 < self.attempts.len() => {
                let a = &self.attempts[i];
                let seen = a.observed.as_deref().unwrap_or("no change");
                format!("{}: {seen}; then {cause}", a.method.as_str())
            }
            _ => cause,
        };
        // A chain of one method (a key, an accessibility action) has no "other methods".
        let tried = match self.policy.chain.len() {
            1 => "it is the only method for this action",
            _ => "every method of the chain was tried",
        };
        let end = End::fail(class, format!("{cause}; {tried}"));
        let suggestion = (self.ctx.kind == ActionKind::Wait).then_some(SuggestedAction::WaitLonger);
        self.finish(at, end.suggest(suggestion))
    }

    /// Once the whole chain was tried: when a method of it was refused because the target
    /// cannot take it (`method_unavailable`: an accessibility action on an element that
    /// offers none, such as GTK 4's check box), the chain's first method that could be used
    /// gets that turn, once, so a target that cannot take every method is not given fewer
    /// inputs than one that can. The budgets still bound it, and the hazards hold as for any
    /// retry (never inside the method's own window: `Engine::act`). The method, and the
    /// refused one(s) in words.
    fn stand_in(&mut self) -> Option<(Method, String)> {
        if self.stood_in || self.refused.is_empty() {
            return None;
        }
        let method = self.policy.chain.iter().copied().find(|m| !self.refused.contains(m))?;
        self.stood_in = true;
        let names: Vec<&str> = self.refused.iter().map(|m| m.as_str()).collect();
        Some((method, names.join(", ")))
    }
}
