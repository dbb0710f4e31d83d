//! Waiting for a condition: event-driven, bounded, returning the evidence and its channel.

use std::time::{Duration, Instant};

use deft_a11y::{Accessibility, Scope};
use deft_types::{Channel, Condition, Evidence, ScaleFactor};
use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::condition;
use crate::event::VerifyEvent;
use crate::executor::Executor;

/// Least time between two OCR reads of the screen while waiting.
const OCR_EVERY: Duration = Duration::from_millis(400);

/// What came of a wait.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct WaitOutcome {
    /// The condition was met within the timeout.
    pub met: bool,
    /// What was seen, where and when: the evidence that it was met, or of what was last
    /// observed when it was not.
    pub evidence: Vec<Evidence>,
    /// The channel through which the condition was seen met (`None` when it was not).
    pub channel: Option<Channel>,
    /// What was last observed, in plain words (for a wait that timed out: why not met).
    pub last_observed: String,
    /// Time from the start of the wait to its end.
    pub elapsed_ms: u64,
}

impl<A: Accessibility> Executor<A> {
    /// Wait until `condition` holds or `timeout` passes.
    ///
    /// Each check reads the accessibility tree of the whole desktop (milliseconds); a check
    /// runs at once, then whenever an accessibility event arrives, and otherwise on a
    /// backoff capped at [`crate::ExecutorConfig::poll_max_ms`], so a wait costs little
    /// while nothing changes and reacts within one read of the change.
    pub async fn wait(&self, condition: &Condition, timeout: Duration) -> WaitOutcome {
        let op = self.op_id();
        self.wait_inner(op, condition, timeout).await
    }

    pub(crate) async fn wait_inner(&self, op: u64, condition: &Condition, timeout: Duration) -> WaitOutcome {
        let clock = Clock::start();
        let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        self.publish(VerifyEvent::WaitStarted { op, condition: condition.clone(), timeout_ms });
        let until = Instant::now() + timeout;
        let mut waker = self.waker().await;
        let mut last_ocr: Option<Instant> = None;
        let outcome = loop {
            let last = match self.read(&Scope::All).await {
                Ok(reading) => {
                    let check = condition::check(condition, &reading.tree);
                    if check.met {
                        let evidence = Evidence {
                            channel: Channel::Accessibility,
                            what: check.what.clone(),
                            // Accessibility bounds are logical; without the window's scale at
                            // hand they are reported as they are (exact at scale 1).
                            region: check.bounds.map(|b| ScaleFactor::ONE.rect_to_physical(b)),
                            after_ms: clock.ms(),
                        };
                        break WaitOutcome {
                            met: true,
                            evidence: vec![evidence],
                            channel: Some(Channel::Accessibility),
                            last_observed: check.what,
                            elapsed_ms: clock.ms(),
                        };
                    }
                    check.what
                }
                Err(e) => format!("cannot read the accessibility tree: {e}"),
            };
            // Cheap first: accessibility did not show it; OCR the screen now and then.
            let ocr_due = last_ocr.is_none_or(|at: Instant| at.elapsed() >= OCR_EVERY);
            if let Condition::TextAppears(t) = condition
                && self.ocr.is_some()
                && ocr_due
            {
                last_ocr = Some(Instant::now());
                if let Some(hit) = self.ocr_screen(t) {
                    let what = format!("text {:?} read on screen at {} (OCR)", hit.text, hit.bounds);
                    let evidence = Evidence {
                        channel: Channel::Ocr,
                        what: what.clone(),
                        region: Some(hit.bounds),
                        after_ms: clock.ms(),
                    };
                    break WaitOutcome {
                        met: true,
                        evidence: vec![evidence],
                        channel: Some(Channel::Ocr),
                        last_observed: what,
                        elapsed_ms: clock.ms(),
                    };
                }
            }
            if Instant::now() >= until {
                let evidence = Evidence {
                    channel: Channel::Accessibility,
                    what: last.clone(),
                    region: None,
                    after_ms: clock.ms(),
                };
                break WaitOutcome {
                    met: false,
                    evidence: vec![evidence],
                    channel: None,
                    last_observed: format!("not met within {timeout_ms} ms: {last}"),
                    elapsed_ms: clock.ms(),
                };
            }
            waker.next(until).await;
        };
        self.publish(VerifyEvent::WaitFinished { op, outcome: outcome.clone() });
        outcome
    }
}
