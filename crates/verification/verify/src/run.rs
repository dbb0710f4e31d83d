//! One action from start to outcome: resolve, then carry out the engine's steps.

use std::time::{Duration, Instant};

use deft_a11y::{Accessibility, Scope, SnapshotOptions};
use deft_retry::{ActionContext, Engine, Feedback, Observation, Report, Signals, Step, Symptoms, Toggle, Verdict};
use deft_types::{
    Action, ActionKind, Attempt, AttemptResult, Blocking, Channel, Condition, ErrorClass, Evidence, Method, Outcome,
    Physical, Rect, Role,
};

use crate::clock::Clock;
use crate::config::ActionOptions;
use crate::event::VerifyEvent;
use crate::executor::Executor;
use crate::observe::{Goal, Seen, Stray, ToggleMode, describe_goal, is_secret, observe};
use crate::pixels::{PixelWatch, area};
use crate::press::{Hover, PressLook};
use crate::pump::Waker;
use crate::read::Reading;
use crate::ready::{Check, Stability};
use crate::resolve::{How, Miss, Resolved};

/// How long a change that is only things gone must last before it counts as the effect:
/// a widget destroyed and rebuilt (GTK re-creating a button) shows as gone until its
/// replacement is read, which takes the app a frame or two.
const GONE_CONFIRM: Duration = Duration::from_millis(100);
/// Least time between two OCR reads while watching (OCR costs far more than a tree read).
const OCR_EVERY: Duration = Duration::from_millis(300);

/// Roles whose activation selects or shows something that a second activation leaves as
/// it is (a tab, a list row, a link): pressing twice is harmless, so a click on one that
/// showed no feedback may fall back early. Anything else is idempotent only when the
/// caller says so.
fn idempotent_role(role: &Role) -> bool {
    matches!(role.as_str(), "page_tab" | "list_item" | "tree_item" | "link")
}

/// Roles whose activation flips a state that a second activation flips back.
fn is_toggle_role(role: &Role) -> bool {
    matches!(
        role.as_str(),
        "check_box" | "toggle_button" | "radio_button" | "check_menu_item" | "radio_menu_item" | "switch"
    )
}

/// Everything one action keeps between the engine's steps.
struct Run<'a> {
    op: u64,
    clock: Clock,
    action: &'a Action,
    verify: bool,
    how: Option<How>,
    target: Option<Resolved>,
    miss: Option<Miss>,
    goal: Goal,
    toggle: ToggleMode,
    /// The read just before the pending input.
    pre: Option<Reading>,
    /// The screen just before the pending input, for a target accessibility does not know.
    pixels: Option<PixelWatch>,
    /// The screen just before the pending input, for an expected text that accessibility
    /// may not show (read by OCR in the regions that changed).
    ocr_watch: Option<PixelWatch>,
    /// The target's text before the first input (`type` appends to it).
    before_text: Option<String>,
    /// Per attempt: what the executor saw besides the engine's words (wrong field, re-created target).
    notes: Vec<Option<String>>,
    evidence: Vec<Evidence>,
    /// When the pending input was sent.
    sent_ms: u64,
    /// The pointer already on the target and a first look at it, for a click that needs
    /// its pressed look (see `press.rs`): taken before the actionability checks.
    hover: Option<(Hover, Rect<Physical>)>,
    /// The pending click's pressed look, when one was watched for.
    press: Option<PressLook>,
    /// The app accepted the pending accessibility action (AT-SPI `DoAction` said so).
    acked: bool,
    /// Receipt of the pending input was reported as evidence already.
    receipt_told: bool,
    /// The engine was told that the pending press never showed.
    press_unseen_told: bool,
    /// Other fields that typed text landed in, to set back once the action is over.
    strays: Vec<Stray>,
    /// What was done about them, for the outcome.
    put_back: Vec<String>,
    /// The last relevant changes or notes seen, for a failure report.
    last_seen: Option<String>,
    waker: Waker,
}

impl Run<'_> {
    fn note(&mut self, note: Option<String>) {
        if let (Some(n), Some(slot)) = (note, self.notes.last_mut()) {
            *slot = Some(n);
        }
    }

    fn scope(&self) -> Scope {
        match &self.target {
            Some(t) if t.element.is_some() || t.app.is_some() => t.scope(),
            _ => Scope::All,
        }
    }

    fn evidence(&mut self, channel: Channel, what: String) -> Evidence {
        let region = self
            .target
            .as_ref()
            .and_then(|t| t.element.as_ref().and_then(|e| e.bounds).map(|b| t.scale.rect_to_physical(b)));
        let e = Evidence { channel, what, region, after_ms: self.clock.ms().saturating_sub(self.sent_ms) };
        self.evidence.push(e.clone());
        e
    }
}

/// Signals gathered over one verification step, as the engine wants them.
#[derive(Default)]
struct Gathered {
    feedback: bool,
    unknown: bool,
    loading: bool,
    toggle: Toggle,
    press_unseen: bool,
}

impl Gathered {
    fn absorb(&mut self, s: &Seen) {
        self.feedback |= s.feedback;
        self.unknown |= s.feedback_unknown;
        self.loading = s.loading;
        self.toggle = s.toggle;
    }

    fn signals(&self, blocking: Option<Blocking>) -> Signals {
        let feedback = if self.feedback {
            Feedback::Seen
        } else if self.unknown {
            Feedback::Unknown
        } else {
            Feedback::NotSeen
        };
        Signals { feedback, loading: self.loading, toggle: self.toggle, blocking, press_unseen: self.press_unseen }
    }
}

impl<A: Accessibility> Executor<A> {
    /// Carry out `action` with per-action options (an expectation, idempotence).
    pub async fn perform_with(&self, action: &Action, options: &ActionOptions) -> Outcome {
        let op = self.op_id();
        let clock = Clock::start();
        let verify = options.verify.unwrap_or(self.config.verify);
        self.publish(VerifyEvent::ActionStarted { op, action: action.clone(), verify, expect: options.expect.clone() });
        let outcome = match action {
            Action::Wait { condition } => self.wait_as_action(op, clock, condition, verify).await,
            _ => self.run_action(op, clock, action, options, verify).await,
        };
        self.publish(VerifyEvent::ActionFinished { op, outcome: outcome.clone() });
        outcome
    }

    async fn run_action(
        &self,
        op: u64,
        clock: Clock,
        action: &Action,
        options: &ActionOptions,
        verify: bool,
    ) -> Outcome {
        let kind = action.kind();
        // A key chord has nothing to verify but an explicit expectation: without one it is
        // reported unverified rather than verified by looking at nothing.
        let verify = verify && !(kind == ActionKind::Key && options.expect.is_none());
        let goal = match (&options.expect, action) {
            (Some(c), _) => Goal::Expect(Box::new(c.clone())),
            (None, Action::Type { text, .. }) => Goal::Typed { typed: text.clone() },
            (None, Action::SetValue { value, .. }) => Goal::Set { value: value.clone() },
            _ => Goal::AnyChange,
        };
        let mut run = Run {
            op,
            clock,
            action,
            verify,
            how: action.target().map(How::of),
            target: None,
            miss: None,
            goal,
            toggle: ToggleMode::None,
            pre: None,
            pixels: None,
            ocr_watch: None,
            before_text: None,
            notes: Vec::new(),
            evidence: Vec::new(),
            sent_ms: 0,
            hover: None,
            press: None,
            acked: false,
            receipt_told: false,
            press_unseen_told: false,
            strays: Vec::new(),
            put_back: Vec::new(),
            last_seen: None,
            waker: self.waker().await,
        };
        if run.how.is_some() {
            self.resolve_waiting(&mut run).await;
        }
        let role_toggle = run.target.as_ref().and_then(|t| t.element.as_ref()).is_some_and(|e| is_toggle_role(&e.role));
        let sets = matches!(kind, ActionKind::Type | ActionKind::SetValue);
        run.toggle = match (&options.expect, role_toggle) {
            (Some(_), _) if !sets => ToggleMode::AnyEffect,
            (_, true) if !sets => ToggleMode::State,
            _ => ToggleMode::None,
        };
        let role_idempotent =
            run.target.as_ref().and_then(|t| t.element.as_ref()).is_some_and(|e| idempotent_role(&e.role));
        let ctx = ActionContext {
            kind,
            is_toggle: run.toggle != ToggleMode::None,
            idempotent: options.idempotent || (kind == ActionKind::Click && role_idempotent),
            verify,
            expectation: options.expect.is_some(),
        };
        let mut engine = Engine::new(&self.policy(kind), ctx);
        let mut step = engine.start();
        let verdict = loop {
            self.publish(VerifyEvent::Step { op, step: step.clone() });
            let report = match &step {
                Step::Done(v) => break v.clone(),
                Step::Act { method, not_before_ms, .. } => {
                    clock.until(*not_before_ms).await;
                    self.on_act(&mut run, *method).await
                }
                // Watched from at once: an effect is taken when it shows, the verify delay
                // only holds back "no change" (the engine accepts that order).
                Step::Verify { not_before_ms, deadline_ms } => {
                    self.on_verify(&mut run, *not_before_ms, *deadline_ms).await
                }
                Step::ReResolve { not_before_ms } => {
                    clock.until(*not_before_ms).await;
                    self.on_reresolve(&mut run).await
                }
                Step::DismissBlocking { blocking, not_before_ms } => {
                    clock.until(*not_before_ms).await;
                    self.on_dismiss(blocking.as_ref()).await
                }
            };
            let at = match report {
                Report::Verified { .. } => clock.ms(),
                _ => clock.ms().max(step.not_before_ms().unwrap_or(0)),
            };
            let observation = Observation::new(at, report);
            self.publish(VerifyEvent::Observed { op, observation: observation.clone() });
            step = engine.observe(observation);
        };
        if !run.strays.is_empty() {
            run.put_back = self.put_back(&run.strays).await;
            for line in run.put_back.clone() {
                let e = run.evidence(Channel::Accessibility, line);
                self.publish(VerifyEvent::Evidence { op, evidence: e });
            }
        }
        self.outcome(run, kind, verdict)
    }

    /// Finds the target, waiting for it to appear up to the actionability timeout.
    async fn resolve_waiting(&self, run: &mut Run<'_>) {
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

    /// `Act`: check actionability, read the state before, send the input.
    async fn on_act(&self, run: &mut Run<'_>, method: Method) -> Report {
        run.notes.push(None);
        (run.press, run.acked, run.receipt_told, run.press_unseen_told) = (None, false, false, false);
        if run.how.is_some() && run.target.is_none() {
            let s = run.miss.as_ref().map_or_else(|| Symptoms::new("the target was not found"), Miss::symptoms);
            return Report::Refused(s);
        }
        run.hover = None;
        if run.verify {
            // The pointer goes onto the target before the actionability checks, as a careful
            // person's hand does: a UI that changes under the pointer (a hover highlight, a
            // widget rebuilt on hover) does so while the target is still being checked, so
            // the change is seen before the click instead of swallowing it.
            match self.press_plan(run.action, run.target.as_ref(), method) {
                Some((at, region)) => run.hover = self.hover_for_press(at, region).map(|first| (first, region)),
                None => self.approach(run.action, run.target.as_ref(), method),
            }
            run.pre = match self.wait_actionable(run, method, true).await {
                Ok(Some(pre)) => Some(pre),
                Ok(None) => match self.read(&run.scope()).await {
                    Ok(pre) => Some(pre),
                    Err(e) => return Report::Refused(Symptoms { backend_error: true, ..Symptoms::new(e.to_string()) }),
                },
                Err(s) => return Report::Refused(s),
            };
        }
        if run.before_text.is_none() {
            let element = match (&run.pre, run.target.as_ref().and_then(Resolved::id)) {
                (Some(pre), Some(id)) => pre.element(id).cloned(),
                _ => run.target.as_ref().and_then(|t| t.element.clone()),
            };
            run.before_text = Some(element.and_then(|e| e.text.or(e.value)).unwrap_or_default());
        }
        run.pixels = None;
        if run.verify && matches!(run.goal, Goal::AnyChange) {
            let unknown = run.target.as_ref().filter(|t| t.element.is_none());
            if let Some(point) = unknown.and_then(|t| t.point) {
                let hover = method.is_pointer().then_some(point);
                run.pixels = self.watch_pixels(area(point, self.window_at(point)), hover).await;
            }
        }
        run.ocr_watch = match &run.goal {
            Goal::Expect(c) if run.verify && matches!(**c, Condition::TextAppears(_)) => self.watch_screen(),
            _ => None,
        };
        let before = run.before_text.clone().unwrap_or_default();
        let element = run.target.as_ref().and_then(|t| t.element.clone());
        let held = match (run.hover.take(), self.press_plan(run.action, run.target.as_ref(), method), element) {
            // Still where it was when the first look was taken (else that look is worthless).
            (Some((hover, region)), Some((at, now)), Some(e)) if now == region => Some((hover, at, region, e)),
            _ => None,
        };
        let sent = match held {
            Some((hover, at, region, element)) => {
                let (sent, look) = self.held_click(at, region, &element, hover).await;
                run.press = look;
                sent
            }
            None => self.send(run.action, run.target.as_ref(), method, &before).await,
        };
        run.acked = method == Method::A11yAction && sent.is_ok();
        match sent {
            Ok(what) => {
                run.sent_ms = run.clock.ms();
                self.publish(VerifyEvent::InputSent { op: run.op, at_ms: run.sent_ms, what });
                Report::Sent
            }
            Err(report) => {
                if let Report::SendUncertain { message } = &report {
                    run.sent_ms = run.clock.ms();
                    let what = format!("input may not have been sent: {message}");
                    self.publish(VerifyEvent::InputSent { op: run.op, at_ms: run.sent_ms, what });
                }
                report
            }
        }
    }

    /// Waits until the target is actionable for `method`, bounded by the actionability
    /// timeout. The read of the state before the input is taken in the same round as the
    /// last check (`want_pre`), so it costs no extra round trip; it is returned when taken.
    async fn wait_actionable(
        &self,
        run: &mut Run<'_>,
        method: Method,
        want_pre: bool,
    ) -> Result<Option<Reading>, Symptoms> {
        let scope = run.scope();
        let Some(target) = run.target.as_mut() else { return Ok(None) };
        let until = Instant::now() + Duration::from_millis(self.config.actionability_timeout_ms);
        let mut st = Stability::from(target);
        let mut last_reason = String::new();
        let mut pre: Option<(Instant, Reading)> = None;
        loop {
            // A read of the state before is kept while it is fresh (the stability rule may
            // ask for one more look at the element alone a few milliseconds later).
            let fresh = pre.as_ref().is_some_and(|(at, _)| at.elapsed() < Duration::from_millis(100));
            let ask = (want_pre && !fresh).then_some(&scope);
            let (check, read) = self.check_actionable(target, method, &mut st, ask).await;
            match read {
                Some(Ok(r)) => pre = Some((Instant::now(), r)),
                Some(Err(e)) => return Err(Symptoms { backend_error: true, ..Symptoms::new(e.to_string()) }),
                None => {}
            }
            match check {
                Check::Ready => return Ok(pre.map(|(_, r)| r)),
                Check::Fail(s) => return Err(s),
                Check::NotYet(reason, s, again) => {
                    if Instant::now() >= until {
                        return Err(s);
                    }
                    if reason != last_reason {
                        self.publish(VerifyEvent::NotActionable {
                            op: run.op,
                            at_ms: run.clock.ms(),
                            reason: reason.clone(),
                        });
                        last_reason = reason;
                    }
                    match again {
                        Some(at) => tokio::time::sleep_until(at.min(until).into()).await,
                        None => run.waker.next(until).await,
                    }
                }
            }
        }
    }

    /// `Verify`: watch until the goal is seen, a popup blocks, or the deadline passes. The
    /// goal is taken whenever it shows; "no change" and a popup are answered only from
    /// `not_before_ms` on (the verify delay).
    async fn on_verify(&self, run: &mut Run<'_>, not_before_ms: u64, deadline_ms: u64) -> Report {
        let until = run.clock.at(deadline_ms);
        let negatives_from = run.clock.at(not_before_ms);
        let scope = run.scope();
        let target = run.target.as_ref().and_then(Resolved::id).cloned();
        let mut gathered = Gathered::default();
        let mut last_ocr: Option<Instant> = None;
        loop {
            let post = match self.read(&scope).await {
                Ok(r) => r,
                Err(e) if Instant::now() >= negatives_from => return Report::Unreadable { message: e.to_string() },
                Err(_) => {
                    run.waker.next(negatives_from).await;
                    continue;
                }
            };
            let Some(pre) = &run.pre else {
                return Report::Unreadable { message: "no read from before the input to compare with".into() };
            };
            let mut seen = observe(pre, &post, target.as_ref(), &run.goal, run.toggle);
            crate::strays::merge(&mut run.strays, &seen.strays);
            if let Some(watch) = &run.pixels {
                // Accessibility does not know the target: only the pixels around it tell
                // an effect (a popup it opened is still seen through accessibility).
                seen.verified = None;
                if let Some((what, region)) = self.pixel_change(watch) {
                    let e = Evidence {
                        channel: Channel::Pixels,
                        what: what.clone(),
                        region: Some(region),
                        after_ms: run.clock.ms().saturating_sub(run.sent_ms),
                    };
                    run.evidence.push(e.clone());
                    self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                    return Report::Verified { observed: what };
                }
            }
            if seen.changes.is_some() || seen.note.is_some() {
                run.last_seen = seen.note.clone().or(seen.changes.clone());
            }
            run.note(seen.note.clone());
            // Before the verify delay, two kinds of positive wait for it: a change elsewhere
            // (a status line) seen before a toggle's own state, which is the effect to
            // report; and only things gone, which may be a widget being rebuilt until its
            // replacement appears (then the diff pairs the two and it is no effect).
            // A disappearance is confirmed for at least `GONE_CONFIRM`, whatever the delay.
            let toggle_pending = run.toggle == ToggleMode::State && seen.toggle != Toggle::Changed;
            let gone_until = negatives_from.max(run.clock.at(run.sent_ms + GONE_CONFIRM.as_millis() as u64));
            let hold =
                (Instant::now() < negatives_from && toggle_pending) || (Instant::now() < gone_until && seen.gone_only);
            if let Some(observed) = seen.verified.clone().filter(|_| !hold) {
                let e = run.evidence(Channel::Accessibility, observed.clone());
                self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                return Report::Verified { observed };
            }
            if let (Some(watch), Goal::Expect(c)) = (&run.ocr_watch, &run.goal)
                && let Condition::TextAppears(t) = &**c
                && last_ocr.is_none_or(|at: Instant| at.elapsed() >= OCR_EVERY)
            {
                // Cheap first: accessibility did not show it; read the changed regions.
                last_ocr = Some(Instant::now());
                if let Some(hit) = self.ocr_changed(watch, t) {
                    let what = format!("text {:?} read on screen at {} (OCR)", hit.text, hit.bounds);
                    let e = Evidence {
                        channel: Channel::Ocr,
                        what: what.clone(),
                        region: Some(hit.bounds),
                        after_ms: run.clock.ms().saturating_sub(run.sent_ms),
                    };
                    run.evidence.push(e.clone());
                    self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                    return Report::Verified { observed: what };
                }
            }
            // Receipt counts only while the target is still there: an input taken by a
            // widget that was then destroyed (re-created elsewhere) reached nothing that stays.
            let present = target.as_ref().is_some_and(|t| post.element(t).is_some());
            if let Some(look) = &mut run.press {
                self.check_press_back(look);
            }
            if present && self.received(run) {
                seen.feedback = true;
            }
            let draws_press = run
                .target
                .as_ref()
                .and_then(|t| t.element.as_ref())
                .is_some_and(|e| crate::press::reports_press(&e.role));
            gathered.press_unseen = draws_press && run.press.as_ref().is_some_and(|l| l.unseen);
            // News the engine has not heard changes what it may decide: reply at once (it
            // asked for a read not before `not_before_ms`, and takes one at any time after).
            let news = gathered.press_unseen && !run.press_unseen_told;
            gathered.absorb(&seen);
            let negatives = Instant::now() >= negatives_from;
            if let Some(b) = seen.blocking.filter(|_| negatives) {
                let e = run.evidence(
                    Channel::Accessibility,
                    format!("{} {:?} appeared and covers the target", b.role, b.name),
                );
                self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                return Report::NoChange(gathered.signals(Some(b)));
            }
            if news && negatives {
                run.press_unseen_told = true;
                return Report::NoChange(gathered.signals(None));
            }
            if Instant::now() >= until {
                if let Some(note) = seen.note {
                    let e = run.evidence(Channel::Accessibility, note);
                    self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                }
                return Report::NoChange(gathered.signals(None));
            }
            let wake = if hold {
                gone_until.min(until)
            } else if negatives {
                until
            } else {
                negatives_from.min(until)
            };
            run.waker.next(wake).await;
        }
    }

    /// Whether the pending input showed that the app received it, by the channels only the
    /// executor watches (a pressed look that came and went, an accepted accessibility
    /// action); reported once as evidence.
    fn received(&self, run: &mut Run<'_>) -> bool {
        let (channel, what) = match &run.press {
            Some(look) if look.received() => (Channel::Pixels, look.describe()),
            _ if run.acked => (Channel::Accessibility, "the app accepted the accessibility action".to_string()),
            _ => return false,
        };
        if !std::mem::replace(&mut run.receipt_told, true) {
            let e = run.evidence(channel, format!("received: {what}"));
            self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
        }
        true
    }

    /// `ReResolve`: find the target again.
    async fn on_reresolve(&self, run: &mut Run<'_>) -> Report {
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

    /// The outcome of a finished action: the engine's verdict plus what only the executor knows.
    fn outcome(&self, run: Run<'_>, kind: ActionKind, v: Verdict) -> Outcome {
        let target_name = run.target.as_ref().map_or_else(
            || match &run.how {
                Some(How::Selector(s)) => format!("`{}`", deft_a11y::selector::format(s)),
                Some(How::Text(t)) => crate::condition::describe_text(t),
                Some(How::Point(p)) => format!("point ({}, {})", p.x, p.y),
                Some(How::Focused) => "the focused element".into(),
                None => "the application".into(),
            },
            Resolved::describe,
        );
        let expected = if run.verify {
            let secret = run.target.as_ref().and_then(|t| t.element.as_ref()).is_some_and(is_secret);
            describe_goal(&run.goal, &target_name, secret)
        } else {
            format!("{} sent to {target_name} (not verified)", kind.verb())
        };
        let attempts: Vec<Attempt> = v
            .attempts
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mut a = a.clone();
                if let Some(Some(note)) = run.notes.get(i)
                    && a.result != AttemptResult::Verified
                {
                    a.observed = Some(match a.observed.take() {
                        Some(o) => format!("{o}; {note}"),
                        None => note.clone(),
                    });
                }
                a
            })
            .collect();
        let verified_observed =
            attempts.iter().rev().find(|a| a.result == AttemptResult::Verified).and_then(|a| a.observed.clone());
        let observed = match (v.ok, verified_observed) {
            (true, Some(o)) => o,
            (true, None) => v.summary.clone(),
            (false, _) => match (&run.miss, &run.last_seen) {
                (Some(m), _) if run.target.is_none() => format!("{}: {}", v.summary, m.message()),
                (_, Some(seen)) if !v.summary.contains(seen.as_str()) => format!("{}; last seen: {seen}", v.summary),
                _ => v.summary.clone(),
            },
        };
        let observed = match run.put_back.is_empty() {
            true => observed,
            false => format!("{observed}; {}", run.put_back.join("; ")),
        };
        let suggested_action = v.suggested_action.or_else(|| {
            // A text that neither accessibility nor OCR finds is a job for a vision model.
            let text_target = matches!(run.how, Some(How::Text(_)));
            (text_target && run.target.is_none() && v.class == Some(ErrorClass::Permanent))
                .then_some(deft_types::SuggestedAction::UseVision)
        });
        Outcome {
            ok: v.ok,
            action: kind,
            verified: v.verified,
            retried: v.retried(),
            retry_reason: v.retry_reason.clone(),
            target: run.target.as_ref().map(Resolved::info),
            expected,
            observed,
            attempts,
            blocking: v.blocking.clone(),
            suggested_action,
            evidence: run.evidence,
            elapsed_ms: run.clock.ms(),
        }
    }

    /// `DismissBlocking`: dismiss a popup that intercepts the input before it is sent, when
    /// a configured rule names it (ordered only when the policy allows dismissing).
    async fn on_dismiss(&self, blocking: Option<&Blocking>) -> Report {
        let refuse = |message: String| {
            Report::Refused(Symptoms { blocking: blocking.cloned(), dialog_appeared: true, ..Symptoms::new(message) })
        };
        let Some(b) = blocking else { return refuse("nothing to dismiss was named".into()) };
        let rule = self.config.dismiss_rules.iter().find(|r| {
            crate::condition::text_matches(&r.title, &b.name) && r.role.as_ref().is_none_or(|role| role == &b.role)
        });
        let Some(rule) = rule else {
            return refuse(format!("no dismiss rule matches {} {:?}", b.role, b.name));
        };
        let Ok(apps) = self.a11y.applications().await else { return refuse("cannot list the windows".into()) };
        let Some(window) = apps.iter().flat_map(|a| a.windows.iter()).find(|w| w.title == b.name) else {
            return Report::Dismissed;
        };
        let window = window.id.clone();
        match &rule.button {
            Some(button) => {
                let tree = match self.a11y.snapshot(&Scope::Subtree(window.clone()), &SnapshotOptions::default()).await
                {
                    Ok(t) => t,
                    Err(e) => return refuse(e.to_string()),
                };
                let Some(node) = tree.nodes.iter().find(|n| n.element.name == *button && !n.element.actions.is_empty())
                else {
                    return refuse(format!("{} {:?} has no button {button:?}", b.role, b.name));
                };
                let action = node.element.actions[0].clone();
                if let Err(e) = self.a11y.do_action(&node.element.id, &action).await {
                    return refuse(e.to_string());
                }
            }
            None => {
                let escape = deft_input::Chord::key(deft_input::Key::Named(deft_input::NamedKey::Escape));
                if let Err(e) = crate::executor::lock(&self.input).chord(&escape) {
                    return refuse(e.to_string());
                }
            }
        }
        // Dismissed once the window is gone.
        let until = Instant::now() + Duration::from_secs(2);
        let mut waker = self.waker().await;
        loop {
            match self.a11y.applications().await {
                Ok(apps) if !apps.iter().flat_map(|a| a.windows.iter()).any(|w| w.id == window) => {
                    return Report::Dismissed;
                }
                _ => {}
            }
            if Instant::now() >= until {
                return refuse(format!("{} {:?} was still open 2 s after dismissing it", b.role, b.name));
            }
            waker.next(until).await;
        }
    }

    /// `wait` run as an action: its outcome, with the wait's evidence.
    async fn wait_as_action(&self, op: u64, clock: Clock, condition: &Condition, verify: bool) -> Outcome {
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
            expected: crate::condition::describe(condition),
            observed: w.last_observed.clone(),
            attempts: vec![Attempt {
                method: Method::Wait,
                result,
                elapsed_ms: w.elapsed_ms,
                observed: Some(w.last_observed.clone()),
            }],
            blocking: None,
            suggested_action: (!w.met).then_some(deft_types::SuggestedAction::WaitLonger),
            evidence: w.evidence,
            elapsed_ms: clock.ms(),
        }
    }
}
