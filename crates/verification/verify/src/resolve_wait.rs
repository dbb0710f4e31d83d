//! Finding the target, waiting while it may still appear; and finding it again (`ReResolve`).

use std::time::{Duration, Instant};

use deft_retry::{Report, Symptoms};
use deft_types::{ActionKind, Channel, Evidence};

use crate::event::VerifyEvent;
use crate::executor::Executor;
use crate::run::Run;

/// How long accessibility may miss a text target before the screen is read for it (OCR).
/// A page or window often shows its text before its accessibility tree has it (a fresh
/// Firefox page: 50-300 ms, more under load); OCR then finds a label near the control meant
/// ("Name:" beside the Name field), a point with no element to focus, and keys meant for
/// the field went to the page.
const OCR_GRACE: Duration = Duration::from_millis(1000);

impl Executor {
    /// Finds the target, waiting for it to appear up to the actionability timeout.
    pub(crate) async fn resolve_waiting(&self, run: &mut Run<'_>) {
        let Some(how) = run.how.clone() else { return };
        let start = Instant::now();
        let until = start + Duration::from_millis(run.ready_wait_ms);
        // OCR after the grace, and always on the last look.
        let ocr_from = (start + OCR_GRACE).min(until);
        let mut said = String::new();
        loop {
            let ocr = Instant::now() >= ocr_from;
            match self.find_target(&how, ocr).await {
                Ok(t) => {
                    let t = match run.action.kind() {
                        ActionKind::Type | ActionKind::SetValue => {
                            let (t, words) = self.field_for_label(t).await;
                            if let Some(what) = words.filter(|w| !run.evidence.iter().any(|e| &e.what == w)) {
                                let region =
                                    t.element.as_ref().and_then(|e| e.bounds).map(|b| t.scale.rect_to_physical(b));
                                run.evidence.push(Evidence {
                                    channel: Channel::Accessibility,
                                    what,
                                    region,
                                    after_ms: 0,
                                });
                            }
                            t
                        }
                        _ => t,
                    };
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
                    let again = miss.may_appear() && (Instant::now() < until || !ocr);
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
