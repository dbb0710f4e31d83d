//! `Act`: check that the target is actionable, read the state before, send the input.

use std::time::{Duration, Instant};

use deft_retry::{Report, Symptoms};
use deft_types::{Action, Channel, Condition, Method};

use crate::event::VerifyEvent;
use crate::executor::Executor;
use crate::help::{Help, Helped};
use crate::observe::{Goal, ToggleMode};
use crate::pixels::area;
use crate::read::Reading;
use crate::ready::{Check, Stability, Waiting};
use crate::resolve::{Miss, Resolved};
use crate::run::{Pending, Run};

impl Executor {
    /// `Act`: check actionability, read the state before, send the input.
    pub(crate) async fn on_act(&self, run: &mut Run<'_>, method: Method) -> Report {
        run.notes.push(None);
        // Everything about the previous input, dropped in one assignment (the fields its
        // keys strayed into kept, to be set back).
        run.keep_strays();
        run.pending = Pending::default();
        run.pending.pressed = method.is_pointer() && matches!(run.action, Action::Click { .. });
        if run.how.is_some() && run.target.is_none() {
            let s = run.miss.as_ref().map_or_else(|| Symptoms::new("the target was not found"), Miss::symptoms);
            return Report::Refused(s);
        }
        if run.verify {
            // The pointer goes onto the target before the actionability checks, as a careful
            // person's hand does: a UI that changes under the pointer (a hover highlight, a
            // widget rebuilt on hover) does so while the target is still being checked, so
            // the change is seen before the click instead of swallowing it.
            let before_approach = if method.is_pointer() { Box::pin(self.before_approach(run)).await } else { None };
            match self.press_plan(run.action, run.target.as_ref(), method) {
                Some((at, region)) => run.pending.hover = self.hover_for_press(at, region).map(|first| (first, region)),
                None => self.approach(run.action, run.target.as_ref(), method),
            }
            run.pending.pre = match self.wait_actionable(run, method, true).await {
                Ok(Some(pre)) => Some(pre),
                Ok(None) => match self.read(&run.scope()).await {
                    Ok(pre) => Some(pre),
                    Err(e) => return Report::Refused(Symptoms { backend_error: true, ..Symptoms::new(e.to_string()) }),
                },
                Err(s) => return Report::Refused(s),
            };
            if let (Some(before), Some(pre)) = (before_approach, &run.pending.pre)
                && crate::opened_on_approach::opened_on_approach(
                    &before,
                    pre,
                    run.target.as_ref().and_then(Resolved::id),
                )
            {
                // Judged from before the approach: the menu opening is what the click was for.
                run.pending.pre = Some(before);
                run.pending.opened_on_approach = true;
            }
        }
        if run.before_text.is_none() {
            let element = match (&run.pending.pre, run.target.as_ref().and_then(Resolved::id)) {
                (Some(pre), Some(id)) => pre.element(id).cloned(),
                _ => run.target.as_ref().and_then(|t| t.element.clone()),
            };
            run.before_text = Some(element.and_then(|e| e.text.or(e.value)).unwrap_or_default());
            let own = match &mut run.goal {
                Goal::Expect(_, Some(own)) => own.as_mut(),
                goal => goal,
            };
            if let Goal::Typed { before, .. } = own {
                before.clone_from(&run.before_text);
            }
        }
        if run.verify && matches!(run.goal, Goal::AnyChange) {
            let unknown = run.target.as_ref().filter(|t| t.element.is_none());
            if let Some(point) = unknown.and_then(|t| t.point) {
                let hover = method.is_pointer().then_some(point);
                run.pending.pixels = self.watch_pixels(area(point, self.window_at(point)), hover).await;
            }
        }
        // Text typed or set where it cannot be read back: the target's pixels are the one
        // sign the keys arrived (receipt only: what they drew cannot be read as the text).
        let blind_text = matches!(run.goal, Goal::Typed { .. } | Goal::Set { .. })
            && run.target.as_ref().is_some_and(crate::run::text_unreadable);
        if run.verify
            && blind_text
            && let Some(t) = run.target.as_ref()
        {
            let bounds = t.element.as_ref().and_then(|e| e.bounds).map(|b| t.scale.rect_to_physical(b));
            let region = bounds.or_else(|| t.point.map(|p| area(p, self.window_at(p))));
            if let Some(region) = region {
                run.pending.receipt_pixels = self.watch_pixels(region, None).await;
            }
        }
        // A toggle in a menu or popover draws its state as well as reporting it: the drawing
        // is a second channel there, for the toggles whose reported state never follows
        // (evince's Night Mode, a model button in a GTK 3 popover, toggled three times when
        // its unchanged state sent the chain on). The pointer already rests on the target, so
        // its hover look is taken in. Not for a toggle in a page: there a dropped press still
        // changes its look (Firefox draws a check box pressed or focused whether or not its
        // page took the click), which passed for receipt, and the state does follow.
        if run.verify
            && run.toggle == ToggleMode::State
            && run.pending.receipt_pixels.is_none()
            && in_popup_surface(run.pending.pre.as_ref(), run.target.as_ref().and_then(Resolved::id))
            && let Some(t) = run.target.as_ref()
            && let Some(bounds) = t.element.as_ref().and_then(|e| e.bounds).filter(|b| !b.is_empty())
        {
            run.pending.receipt_pixels = self.watch_pixels(t.scale.rect_to_physical(bounds), None).await;
        }
        run.pending.ocr_watch = match &run.goal {
            Goal::Expect(c, _) if run.verify && matches!(**c, Condition::TextAppears(_)) => self.watch_screen(),
            _ => None,
        };
        let before = run.before_text.clone().unwrap_or_default();
        let element = run.target.as_ref().and_then(|t| t.element.clone());
        let held = match (run.pending.hover.take(), self.press_plan(run.action, run.target.as_ref(), method), element) {
            // Still where it was when the first look was taken (else that look is worthless).
            (Some((hover, region)), Some((at, now)), Some(e)) if now == region => Some((hover, at, region, e)),
            _ => None,
        };
        self.frame(run, crate::frames::FramePhase::Before, Some(method), false).await;
        let misplaced = Box::pin(self.entry_misplaced(run.target.as_ref(), method)).await;
        // What changed by itself up to now (before the first input only: later, the first
        // input's effects could be taken for the app's own motion). Kept once an input went.
        let said = run.said_before.is_none().then(|| self.changed_by_itself(std::time::Instant::now()));
        let sent = match (misplaced, held) {
            _ if run.pending.opened_on_approach => Ok(crate::opened_on_approach::OPENED_ON_APPROACH.to_string()),
            (Some(refusal), _) => Err(refusal),
            (None, Some((hover, at, region, element))) => {
                let (sent, look) = self.held_click(at, region, &element, &run.scope(), hover).await;
                run.pending.press = look;
                sent
            }
            (None, None) => match run.action {
                // Verified typing watches its first key (`first_key.rs`).
                Action::Type { text, .. } if run.verify && method == Method::Keystrokes => {
                    let in_page = in_web_page(run.pending.pre.as_ref(), run.target.as_ref().and_then(Resolved::id));
                    let (sent, ignored) = self.type_keys(run.target.as_ref(), text, Some(in_page)).await;
                    run.pending.keys_unseen = ignored;
                    run.pending.typed_as_keys = !ignored && sent.is_ok();
                    sent
                }
                _ => self.send(run.action, run.target.as_ref(), method, &before).await,
            },
        };
        // Receipt from an accessibility action the app accepted, or the space bar on the
        // focused target in its stead; never from a pointer click in its stead.
        run.pending.acked = method == Method::A11yAction
            && sent.as_ref().is_ok_and(|what| {
                what.starts_with(crate::send::ACTION_ACCEPTED) || what.starts_with(crate::send::KEY_ON_FOCUS)
            });
        if let Some(said) = said.filter(|_| matches!(sent, Ok(_) | Err(Report::SendUncertain { .. }))) {
            run.relevance.self_changing.clone_from(&said.kept_changing);
            run.said_before = Some(said);
        }
        match sent {
            Ok(what) => {
                run.pending.sent_ms = run.clock.ms();
                // An expectation is the caller's own channel for the effect.
                run.pending.set_from_outside = matches!(run.goal, crate::observe::Goal::Set { .. })
                    && crate::set_from_outside::applies(
                        run.action,
                        run.target.as_ref().and_then(|t| t.element.as_ref()),
                        method,
                    );
                self.input_sent(run.target.as_ref().and_then(|t| t.id().cloned()));
                if what.ends_with(crate::paste::NOT_ASKED) {
                    run.note(Some(format!("{}: nothing was pasted", crate::paste::NOT_ASKED)));
                }
                if run.pending.opened_on_approach {
                    let e = run.evidence(Channel::Input, what.clone());
                    self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                }
                if let Some(activated) = crate::keyfocus::activation_in(&what) {
                    let e = run.evidence(Channel::Input, activated.to_string());
                    self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                }
                self.publish(VerifyEvent::InputSent { op: run.op, at_ms: run.pending.sent_ms, what });
                Report::Sent
            }
            Err(report) => {
                if let Report::SendUncertain { message } = &report {
                    run.pending.sent_ms = run.clock.ms();
                    self.input_sent(run.target.as_ref().and_then(|t| t.id().cloned()));
                    let what = format!("input may not have been sent: {message}");
                    self.publish(VerifyEvent::InputSent { op: run.op, at_ms: run.pending.sent_ms, what });
                }
                report
            }
        }
    }

    /// Waits until the target is actionable for `method`, bounded by the actionability
    /// timeout. The read of the state before the input is taken in the same round as the
    /// last check (`want_pre`), so it costs no extra round trip; it is returned when taken.
    /// On the way it does what a careful person would: scrolls a target out of view into
    /// view, raises a window another application covers, and gives up at once on a
    /// disabled control that nothing around it is working to enable.
    pub(crate) async fn wait_actionable(
        &self,
        run: &mut Run<'_>,
        method: Method,
        want_pre: bool,
    ) -> Result<Option<Reading>, Symptoms> {
        let scope = run.scope();
        let Some(target) = run.target.as_ref() else { return Ok(None) };
        let until = Instant::now() + Duration::from_millis(run.ready_wait_ms);
        let mut st = Stability::from(target);
        let mut last_reason = String::new();
        let mut pre: Option<(Instant, Reading)> = None;
        let mut helped = Helped::default();
        loop {
            // A read of the state before is kept while it is fresh (the stability rule may
            // ask for one more look at the element alone a few milliseconds later).
            let fresh = pre.as_ref().is_some_and(|(at, _)| at.elapsed() < Duration::from_millis(100));
            let ask = (want_pre && !fresh).then_some(&scope);
            let Some(target) = run.target.as_mut() else { return Ok(None) };
            let known = pre.as_ref().map(|(_, r)| r);
            let (check, read) = self.check_actionable(target, method, &mut st, ask, known).await;
            match read {
                Some(Ok(r)) => pre = Some((Instant::now(), r)),
                Some(Err(e)) => return Err(Symptoms { backend_error: true, ..Symptoms::new(e.to_string()) }),
                None => {}
            }
            match check {
                Check::Ready => return Ok(pre.map(|(_, r)| r)),
                Check::Fail(s) => return Err(s),
                Check::NotYet(why, reason, s, again) => {
                    if Instant::now() >= until {
                        return Err(s);
                    }
                    match Box::pin(self.help(run, &why, &mut helped)).await {
                        Help::Fail(message) => return Err(Symptoms { not_enabled: true, ..Symptoms::new(message) }),
                        Help::Done(what) => {
                            // What was done (a scroll, a raise) changed the state: the read
                            // before the input is taken again, after it.
                            pre = None;
                            let e = run.evidence(Channel::Input, what);
                            self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                            continue;
                        }
                        // Scrolled out of view and no way left to scroll it: no pointer
                        // input can reach it, and waiting will not scroll it.
                        Help::Nothing if why == Waiting::ScrolledOut && helped.scrolling_spent() => return Err(s),
                        Help::Nothing => {}
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
}

/// Whether the target lies in a menu or a popover: something between it and its window
/// that says `modal` (GTK 3's popovers), or a menu.
fn in_popup_surface(pre: Option<&Reading>, id: Option<&deft_types::ElementId>) -> bool {
    let (Some(pre), Some(id)) = (pre, id) else { return false };
    crate::popup::modal_surface(pre, id).is_some()
        || pre.snap.ancestors(id).any(|n| matches!(n.element().role.as_str(), "menu" | "popup_menu"))
}

/// Whether the target lies in a web page (a browser's or an embedded one): its input passes
/// through a second process, the page's, after the window's own.
fn in_web_page(pre: Option<&Reading>, id: Option<&deft_types::ElementId>) -> bool {
    let (Some(pre), Some(id)) = (pre, id) else { return false };
    pre.snap.ancestors(id).any(|n| matches!(n.element().role.as_str(), "document_web" | "document_frame"))
}
