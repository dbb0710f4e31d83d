//! Waiting for a condition: event-driven, bounded, returning the evidence and its channel.

use std::time::{Duration, Instant};

use deft_a11y::Scope;
use deft_types::{
    ActionKind, Attempt, AttemptResult, Channel, Condition, ErrorClass, Evidence, Failure, FailureKind, Method,
    Outcome, ScaleFactor, TextMatch,
};

use crate::clock::Clock;
use crate::condition;
use crate::event::VerifyEvent;
use crate::executor::Executor;
use crate::wait_outcome::WaitOutcome;

/// Least time between two OCR reads of the screen while waiting.
const OCR_EVERY: Duration = Duration::from_millis(400);

impl Executor {
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
        // A condition about one application's elements cannot come true once that
        // application has exited: say so at once rather than wait out the timeout.
        let app_term = named_app(condition);
        let mut app_seen = false;
        let outcome = loop {
            let last = match self.read(&Scope::All).await {
                Ok(reading) => {
                    if let Some(m) = &app_term {
                        let present = app_present(&reading.tree, m);
                        if app_seen && !present {
                            let what = format!(
                                "the application {} exited while waiting (it is no longer on the accessibility bus)",
                                deft_a11y::selector::describe_text(m)
                            );
                            let evidence = Evidence {
                                channel: Channel::Accessibility,
                                what: what.clone(),
                                region: None,
                                after_ms: clock.ms(),
                            };
                            break WaitOutcome {
                                met: false,
                                evidence: vec![evidence],
                                channel: None,
                                last_observed: what,
                                elapsed_ms: clock.ms(),
                            };
                        }
                        app_seen |= present;
                    }
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
            // A window title accessibility does not give (a toolkit that leaves its frame
            // unnamed) is in the display server's own list.
            if let Condition::WindowTitle(t) = condition
                && let Some(title) = self.display_title(t)
            {
                let what = format!("a window titled {title:?} is open (display server)");
                let evidence =
                    Evidence { channel: Channel::Display, what: what.clone(), region: None, after_ms: clock.ms() };
                break WaitOutcome {
                    met: true,
                    evidence: vec![evidence],
                    channel: Some(Channel::Display),
                    last_observed: what,
                    elapsed_ms: clock.ms(),
                };
            }
            // Cheap first: accessibility did not show it; OCR the screen now and then.
            let ocr_due = last_ocr.is_none_or(|at: Instant| at.elapsed() >= OCR_EVERY);
            if let Condition::TextAppears(t) = condition
                && self.ocr.is_some()
                && ocr_due
            {
                last_ocr = Some(Instant::now());
                if let Some(hit) = Box::pin(self.ocr_screen_until(t, until)).await {
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

impl Executor {
    /// The title of a top-level window the display server lists that meets `t`, if any.
    fn display_title(&self, t: &TextMatch) -> Option<String> {
        let locator = self.windows.as_ref()?;
        let windows = crate::executor::lock(locator).windows(&deft_input::WindowQuery::default()).ok()?;
        windows.into_iter().map(|w| w.title).find(|title| condition::text_matches(t, title))
    }
}

/// The application a condition's selector names (`app=`), if any.
fn named_app(c: &Condition) -> Option<TextMatch> {
    match c {
        Condition::ElementExists(s) | Condition::ElementGone(s) => s.app.clone(),
        Condition::ElementState { selector, .. } | Condition::Value { selector, .. } => selector.app.clone(),
        _ => None,
    }
}

/// Whether an application of that name (or with a window of that title: `app` may name a
/// window) is in the read.
fn app_present(tree: &deft_a11y::Tree, app: &TextMatch) -> bool {
    tree.nodes.iter().any(|n| {
        condition::text_matches(app, &n.app)
            || (n.window.is_some() && n.path.is_empty() && condition::text_matches(app, &n.element.name))
    })
}

impl Executor {
    /// `wait` run as an action: its outcome, with the wait's evidence.
    pub(crate) async fn wait_as_action(&self, op: u64, clock: Clock, condition: &Condition, verify: bool) -> Outcome {
        let policy = self.policy(ActionKind::Wait);
        let w = self.wait_inner(op, condition, Duration::from_millis(policy.window_ms)).await;
        let class = ErrorClass::NoEffect;
        let result = if w.met {
            AttemptResult::Verified
        } else {
            AttemptResult::Failed { class, message: w.last_observed.clone() }
        };
        Outcome {
            ok: w.met,
            action: ActionKind::Wait,
            verified: verify.then_some(w.met),
            retried: false,
            retry_reason: None,
            target: None,
            expected: deft_a11y::selector::describe_condition(condition),
            observed: w.last_observed.clone(),
            attempts: vec![Attempt {
                method: Method::Wait,
                result,
                elapsed_ms: w.elapsed_ms,
                observed: Some(w.last_observed.clone()),
            }],
            blocking: None,
            suggested_action: (!w.met).then_some(deft_types::SuggestedAction::WaitLonger),
            failure: (!w.met).then(|| Failure { kind: FailureKind::TimedOut, candidates: Vec::new() }),
            evidence: w.evidence,
            elapsed_ms: clock.ms(),
            seen: deft_types::Seen::default(),
            seen_by: None,
        }
    }
}
