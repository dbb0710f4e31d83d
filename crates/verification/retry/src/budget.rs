//! The budgets of one action: attempts, time, and a limit per error class.

use crate::policy::ActionPolicy;
use crate::step::BudgetReport;

/// What is left of each budget. Every `take_*` either spends one unit and says yes, or
/// says no: the engine asks before every retry, which is what makes it terminate.
#[derive(Clone, Debug)]
pub(crate) struct Budget {
    used: BudgetReport,
    max_reresolves: u32,
    max_transient: u32,
    max_dismissals: u32,
    max_loading_extra_ms: u64,
}

impl Budget {
    pub fn new(p: &ActionPolicy) -> Budget {
        Budget {
            used: BudgetReport {
                attempts: 0,
                max_attempts: p.max_attempts(),
                elapsed_ms: 0,
                max_total_ms: p.max_total_ms,
                reresolves: 0,
                transient_retries: 0,
                read_retries: 0,
                dismissals: 0,
                loading_extra_ms: 0,
            },
            max_reresolves: p.stale.max_reresolves,
            max_transient: p.transient.max_retries,
            max_dismissals: p.blocked.max_dismissals,
            max_loading_extra_ms: p.loading.max_extra_ms,
        }
    }

    pub fn report(&self) -> BudgetReport {
        self.used
    }

    /// The end of the time budget: no step may start at or after it.
    pub fn end_ms(&self) -> u64 {
        self.used.max_total_ms
    }

    pub fn saw_time(&mut self, at_ms: u64) {
        self.used.elapsed_ms = self.used.elapsed_ms.max(at_ms);
    }

    pub fn take_attempt(&mut self) -> bool {
        take(&mut self.used.attempts, self.used.max_attempts)
    }

    pub fn take_reresolve(&mut self) -> bool {
        take(&mut self.used.reresolves, self.max_reresolves)
    }

    /// Spends a transient retry; returns which one it is (1-based) for the backoff.
    pub fn take_transient(&mut self) -> Option<u32> {
        take(&mut self.used.transient_retries, self.max_transient).then_some(self.used.transient_retries)
    }

    /// Spends a read retry; returns which one it is (1-based) for the backoff.
    pub fn take_read_retry(&mut self) -> Option<u32> {
        take(&mut self.used.read_retries, self.max_transient).then_some(self.used.read_retries)
    }

    pub fn take_dismissal(&mut self) -> bool {
        take(&mut self.used.dismissals, self.max_dismissals)
    }

    /// Grants up to `want_ms` more waiting for loading; returns what was granted (0: none left).
    pub fn grant_loading(&mut self, want_ms: u64) -> u64 {
        let left = self.max_loading_extra_ms.saturating_sub(self.used.loading_extra_ms);
        let granted = want_ms.min(left);
        self.used.loading_extra_ms += granted;
        granted
    }
}

fn take(used: &mut u32, max: u32) -> bool {
    if *used < max {
        *used += 1;
        true
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicySet;
    use deft_types::ActionKind;

    #[test]
    fn limits_are_never_exceeded() {
        let mut p = PolicySet::defaults().get(ActionKind::Click).clone();
        p.max_retries = 1;
        p.loading.max_extra_ms = 1500;
        let mut b = Budget::new(&p);
        assert!(b.take_attempt() && b.take_attempt() && !b.take_attempt());
        assert_eq!(b.grant_loading(1000), 1000);
        assert_eq!(b.grant_loading(1000), 500);
        assert_eq!(b.grant_loading(1000), 0);
        assert_eq!((b.take_transient(), b.take_transient()), (Some(1), Some(2)));
        assert_eq!(b.report().attempts, 2);
    }
}
