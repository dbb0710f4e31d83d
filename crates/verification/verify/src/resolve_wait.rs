//! Finding the target, waiting while it may still appear; and finding it again (`ReResolve`).

use std::time::{Duration, Instant};

use deft_a11y::Accessibility;
use deft_retry::{Report, Symptoms};

use crate::event::VerifyEvent;
use crate::executor::Executor;
use crate::run::Run;

impl<A: Accessibility> Executor<A> {
    /// Finds the target, waiting for it to appear up to the actionability timeout.
    pub(crate) async fn resolve_waiting(&self, run: &mut Run<'_>) {
        let Some(how) = run.how.clone() else { return };
        let until = Instant::now() + Duration::from_millis(self.config.actionability_timeout_ms);
        let mut said = String::new();
        loop {
            match self.find_target(&how).await {
                Ok(t) => {
                    self.publish(VerifyEvent::Resolved {
                        op: run.op,
                        at_ms: run.clock.ms(),
                        target: t.info(),
                        channel: t.channel,
                    });
                    run.target = Some(t);
                    run.miss = None;
                    return;
                }
                Err(miss) => {
                    let again = miss.may_appear() && Instant::now() < until;
                    if !again {
                        run.miss = Some(miss);
                        return;
                    }
                    let reason = format!("not found yet: {}", miss.message());
                    if reason != said {
                        said.clone_from(&reason);
                        self.publish(VerifyEvent::NotActionable { op: run.op, at_ms: run.clock.ms(), reason });
                    }
                    run.miss = Some(miss);
                    run.waker.next(until).await;
                }
            }
        }
    }

    /// `ReResolve`: find the target again.
    pub(crate) async fn on_reresolve(&self, run: &mut Run<'_>) -> Report {
        run.target = None;
        self.resolve_waiting(run).await;
        match (&run.target, &run.miss) {
            (Some(_), _) => Report::Resolved,
            (None, Some(m)) => Report::Refused(m.symptoms()),
            (None, None) => {
                Report::Refused(Symptoms { not_found: true, ..Symptoms::new("the target was not found again") })
            }
        }
    }
}
