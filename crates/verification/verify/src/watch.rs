//! `Verify`: watch the app after an input until the goal shows, a popup blocks, or the
//! window ends; and the signals the retry engine needs meanwhile.

use std::time::{Duration, Instant};

use deft_a11y::Accessibility;
use deft_retry::{Feedback, Report, Signals, Toggle};
use deft_types::{Blocking, Channel, Condition, ElementId, Evidence};

use crate::event::VerifyEvent;
use crate::executor::Executor;
use crate::held::{Hold, says};
use crate::observe::{Goal, Seen, ToggleMode, observe};
use crate::resolve::Resolved;
use crate::run::Run;

/// How long a change that is only things gone (or emptied in place) must last before it
/// counts as the effect: a widget destroyed and rebuilt (GTK re-creating a button) shows as
/// gone until its replacement is read, which takes the app a frame or two; Firefox empties
/// a page under a modal `<dialog>` a read or two before it exposes the dialog (seen in the
/// campaign on a loaded machine, where 100 ms let it pass as the click's effect).
const GONE_CONFIRM: Duration = Duration::from_millis(250);
/// How long a page emptied in place must stay so: Firefox took more than `GONE_CONFIRM`
/// to expose the modal dialog after emptying the page under it when six browsers shared
/// the 2-core machine (the campaign's popup, 3 of 3 runs taken as the click's effect), and
/// more than 1 s now and then with two Firefox campaigns and a busy loop on it. A page
/// rarely empties in place for any other reason, so waiting longer costs little. The same
/// for an equal of the target appearing beside it: Chromium re-creating the campaign's
/// stale button kept the old one in its tree past `GONE_CONFIRM` under load, and the new
/// one passed for the click's effect; a control rarely adds its own equal otherwise.
const EMPTIED_CONFIRM: Duration = Duration::from_millis(2000);
/// How long before the input a content change still has its layout to come: a label set
/// just before a click is laid out a frame or more later (later on a loaded machine), and
/// that move alone must not pass for the click's effect (see `RelevanceConfig::settling`).
const SETTLE_BEFORE: Duration = Duration::from_millis(1000);
/// How long after a menu entry's menu closed, with nothing else changed, its effect is
/// awaited before the click is told as received only (a dialog the entry opens comes a
/// frame or a few hundred milliseconds after its menu closed).
const MENU_EFFECT_WAIT: Duration = Duration::from_millis(1000);
/// Least time between two OCR reads while watching (OCR costs far more than a tree read).
const OCR_EVERY: Duration = Duration::from_millis(300);

/// Signals gathered over one verification step, as the engine wants them.
#[derive(Default)]
struct Gathered {
    feedback: bool,
    unknown: bool,
    loading: bool,
    toggle: Toggle,
    press_unseen: bool,
    press_unwatched: bool,
    keys_unseen: bool,
    keys_astray: bool,
    own_motion: Option<String>,
    done_as_asked: Option<String>,
    held_before: bool,
}

impl Gathered {
    fn absorb(&mut self, s: &Seen) {
        self.feedback |= s.feedback;
        self.unknown |= s.feedback_unknown;
        self.loading = s.loading;
        self.toggle = s.toggle;
        if s.own_motion.is_some() {
            self.own_motion.clone_from(&s.own_motion);
        }
        // Kept once seen (a field may clear itself after), unless a later read shows keys
        // gone elsewhere: then the typing was read mid-way.
        self.held_before = s.held_before;
        if s.done_as_asked.is_some() {
            self.done_as_asked.clone_from(&s.done_as_asked);
        } else if !s.strays.is_empty() {
            self.done_as_asked = None;
        }
    }

    fn signals(&self, blocking: Option<Blocking>) -> Signals {
        let feedback = if self.feedback {
            Feedback::Seen
        } else if self.unknown {
            Feedback::Unknown
        } else {
            Feedback::NotSeen
        };
        Signals {
            feedback,
            loading: self.loading,
            toggle: self.toggle,
            blocking,
            press_unseen: self.press_unseen,
            press_unwatched: self.press_unwatched,
            keys_unseen: self.keys_unseen,
            keys_astray: self.keys_astray,
            own_motion: self.own_motion.as_deref().map(Box::from),
            done_as_asked: self.done_as_asked.as_deref().map(Box::from),
            held_before: self.held_before,
        }
    }
}

impl Executor {
    /// `Verify`: watch until the goal is seen, a popup blocks, or the deadline passes. The
    /// goal is taken whenever it shows; "no change" and a popup are answered only from
    /// `not_before_ms` on (the verify delay).
    pub(crate) async fn on_verify(&self, run: &mut Run<'_>, not_before_ms: u64, deadline_ms: u64) -> Report {
        let until = run.clock.at(deadline_ms);
        let negatives_from = run.clock.at(not_before_ms);
        let scope = run.scope();
        let target = run.target.as_ref().and_then(Resolved::id).cloned();
        let mut gathered = Gathered::default();
        let mut last_ocr: Option<Instant> = None;
        loop {
            let read_started = Instant::now();
            let post = match self.read(&scope).await {
                Ok(r) => r,
                // The application left the bus after the input: with nothing more specific
                // expected, or expected gone, that is the input's effect (`quitting.rs`).
                Err(deft_a11y::A11yError::AppGone { app, .. }) if crate::quitting::exit_is_effect(run) => {
                    let observed = crate::quitting::exited(&run.goal, &app);
                    let e = run.evidence(Channel::Accessibility, observed.clone());
                    self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                    return Report::Verified { observed };
                }
                Err(deft_a11y::A11yError::AppGone { app, .. }) => {
                    return Report::Unreadable { message: crate::quitting::left_unexpectedly(&app, run) };
                }
                Err(e) if Instant::now() >= negatives_from => return Report::Unreadable { message: e.to_string() },
                Err(_) => {
                    run.waker.next(negatives_from).await;
                    continue;
                }
            };
            let Some(pre) = &run.pending.pre else {
                return Report::Unreadable { message: "no read from before the input to compare with".into() };
            };
            let since = run.clock.at(run.pending.sent_ms).checked_sub(SETTLE_BEFORE).unwrap_or(run.clock.at(0));
            run.relevance.settling = self.changed_since(since);
            let resolved = run.target.as_ref().and_then(|t| t.element.as_ref());
            // Every window of the application gone after the input: it is quitting (ctrl+q,
            // File > Quit). Nothing more is read from it: reads while LibreOffice shut down
            // made it abort or hang on its way out (2 of 3 quits under load; 0 of 3 when
            // nothing read it).
            if matches!(run.goal, Goal::AnyChange)
                && matches!(scope, deft_a11y::Scope::App(_))
                && let Some(closed) = crate::quitting::last_windows_closed(pre, &post)
            {
                let observed = format!("{closed} closed after the input, and no window of the application is left");
                let e = run.evidence(Channel::Accessibility, observed.clone());
                self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                return Report::Verified { observed };
            }
            let mut seen = observe(
                pre,
                &post,
                target.as_ref(),
                resolved,
                &run.goal,
                run.toggle,
                &run.relevance,
                run.pending.pressed,
            );
            // An equal of the target beside it, the target still in the tree read: asked
            // directly, a target its page has destroyed says so (the tree can lag behind:
            // Chromium under load kept it there past the 2 s confirmation, and the new one
            // verified a click that never landed). Then the two are a re-created widget.
            // Still readable, it may be a node the tree keeps after its page removed it:
            // asked what is drawn where it stood, the renderer answers something else.
            if seen.twin_beside
                && let Some(t) = target.as_ref()
                && self.target_left(t, pre).await
            {
                seen.verified = None;
                seen.gone_only = false;
                seen.twin_beside = false;
                let what = pre.element(t).map_or_else(|| "target".to_string(), |e| e.describe());
                let note = format!("the {what} was re-created (the one read before is destroyed)");
                seen.note = crate::observe::join(seen.note.take(), Some(note));
            }
            // Typed text still growing toward what was typed: keys still arriving at a slow
            // app, waited for as the app's work is (see `typed::still_arriving`).
            if crate::typed::still_arriving(seen.typed_so_far, &mut run.pending.typed_so_far) {
                seen.loading = true;
                seen.done_as_asked = None;
            }
            let numbers_only = !seen.said_only.is_empty()
                && seen
                    .said_only
                    .iter()
                    .all(|id| deft_snapshot::only_numbers_changed(&says(pre, id), &says(&post, id)));
            crate::strays::merge(&mut run.pending.strays, &seen.strays);
            if let Some(watch) = &run.pending.pixels {
                // Accessibility does not know the target: only the pixels around it tell
                // an effect (a popup it opened is still seen through accessibility).
                seen.verified = None;
                if let Some((what, region)) = self.pixel_change(watch) {
                    let e = Evidence {
                        channel: Channel::Pixels,
                        what: what.clone(),
                        region: Some(region),
                        after_ms: run.clock.ms().saturating_sub(run.pending.sent_ms),
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
            // Confirmed from the first read that showed it, not from the input: on a loaded
            // machine the first read after the input may come later than the confirmation.
            let first_gone = held_since(seen.gone_only && seen.verified.is_some(), run.pending.gone_since);
            run.pending.gone_since = first_gone;
            let confirm = if seen.emptied_in_place || seen.twin_beside { EMPTIED_CONFIRM } else { GONE_CONFIRM };
            let gone_until = negatives_from
                .max(run.clock.at(run.pending.sent_ms + confirm.as_millis() as u64))
                .max(first_gone.map_or(negatives_from, |at| at + confirm));
            // What verifies is only what elements say (texts, names, values), and the app
            // may be moving them on its own: each changed by itself once before the input (a
            // counter seen to tick once), or the app was listened to too briefly before the
            // input to know (a one-shot command). Watched a moment: if one ticks on (its text
            // changes again in its numbers only: a count, a position, a time), it keeps
            // changing and is no evidence (the next read judges it so); if not, it counts. An
            // effect told in steps ("Saving..." then "Saved", a name set before the text) is
            // no tick.
            let before = run.said_before.as_ref();
            let changed_once = |id: &ElementId| before.is_some_and(|b| b.changed_once.contains(id));
            let watched = before.map_or(Duration::ZERO, |b| b.watched);
            // Only numbers moved (a count, a position, a time), by an app listened to for
            // less than a slow clock's tick: held for a tick. A media player's position
            // ticks once a second; heard for 0.3 s, its next tick verified a click on an
            // empty toolbar (qmmp, and VLC in the report).
            // What changed was heard quiet for `watched` before the input and on until its
            // first change: a ticker faster than that quiet would have shown itself. One
            // slower is caught only by a second tick, which comes a whole period after the
            // first: so the hold runs the rule's whole period from the first sighting, never
            // that period less what was heard before (a counter ticking every 250 ms, heard
            // 100 ms before a click, would pass on its next tick after a 200 ms hold). Right
            // after an input of this executor nothing was heard by itself (`watched` is 0),
            // and the quiet since the input proves nothing: that input may have started it.
            // Quiet up to the moment the app said the first of them changed, as the bus tells
            // it: the read that shows the change can come a second later under load, and
            // that second was not heard quiet (a position ticking once a second, heard 0.6 s
            // before a click and read 1 s after it, passed for a slow clock's quiet and
            // verified the click). Said by no event, nothing of them was heard at all.
            // From the moment before the input (a click held for its look is stamped sent
            // after the app may have told its effect).
            let quiet = before
                .and_then(|b| b.to.filter(|_| !watched.is_zero()))
                .and_then(|to| Some(watched + self.first_said(&seen.said_only, to)?.saturating_duration_since(to)))
                .unwrap_or(Duration::ZERO);
            let hold = Hold::of(&seen.said_only, seen.said_only.iter().all(changed_once), numbers_only, quiet);
            let confirm = hold.period();
            let moving_until = match (confirm.is_zero(), &run.pending.moving) {
                (true, _) => {
                    run.pending.moving = None;
                    None
                }
                (false, None) => {
                    let says = seen.said_only.iter().map(|id| (id.clone(), says(&post, id))).collect();
                    run.pending.moving = Some((Instant::now(), says));
                    let why = hold.reason(&seen.said_only, &post, quiet);
                    let (at_ms, for_ms) = (run.clock.ms(), confirm.as_millis() as u64);
                    self.publish(VerifyEvent::Held { op: run.op, at_ms, for_ms, why });
                    Some(Instant::now() + confirm)
                }
                (false, Some((since, was))) => {
                    let moved: Vec<_> = was
                        .iter()
                        .filter(|(id, said)| deft_snapshot::only_numbers_changed(said, &says(&post, id)))
                        .map(|(id, _)| id.clone())
                        .collect();
                    if !moved.is_empty() {
                        run.relevance.self_changing.extend(moved.iter().cloned());
                        if let Some(b) = &mut run.said_before {
                            b.changed_once.retain(|id| !moved.contains(id));
                        }
                        run.pending.moving = None;
                        continue;
                    }
                    Some(*since + confirm)
                }
            };
            // Never past the window: a change that lasted to its end is taken (reported as
            // "no change" there, it would be pressed again).
            let moving_until = moving_until.map(|t| t.min(until));
            // Ended only by a read begun after its end: one begun before it shows the app as
            // it was then (a read of a second under load, begun before the next tick, ended
            // the hold without it). Except at the window's end, where what lasted is taken.
            let motion_held = moving_until.is_some_and(|t| read_started < t && (t < until || Instant::now() < until));
            let hold = (Instant::now() < negatives_from && toggle_pending)
                || (Instant::now() < gone_until && seen.gone_only)
                || motion_held;
            // The target's menu closed and nothing else changed: receipt, not the effect.
            // Held a moment for the effect to show (a dialog the entry opens), then told as
            // receipt, at the window's end at the latest (never "no change": the entry took
            // the click, and a second one could double an effect that does not show).
            let menu_since =
                held_since(seen.menu_closed_only && seen.verified.is_some(), run.pending.menu_closed_since);
            run.pending.menu_closed_since = menu_since;
            let menu_until = menu_since.map(|at| (at + MENU_EFFECT_WAIT).min(until));
            if let (Some(t), Some(closed)) = (menu_until, seen.verified.as_ref())
                && Instant::now() >= t
                && !hold
            {
                let observed = format!("its menu closed ({closed})");
                let e = run.evidence(Channel::Accessibility, format!("{}{observed}", deft_types::RECEIPT));
                self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                return Report::Received { observed };
            }
            // The target rebuilt where it stood, and nothing that verifies: receipt, as a
            // menu closing is. Held the same moment for an effect to show (the page the
            // reload brings), then told as receipt, never "no change".
            let rebuilt_since =
                held_since(seen.rebuilt_in_place.is_some() && seen.verified.is_none(), run.pending.rebuilt_since);
            run.pending.rebuilt_since = rebuilt_since;
            if let Some(what) = seen.rebuilt_in_place.as_ref()
                && rebuilt_since.is_some_and(|at| Instant::now() >= (at + MENU_EFFECT_WAIT).min(until))
                && !hold
            {
                let observed = format!("{what}, and nothing else changed");
                return Report::Received { observed };
            }
            if let Some(held) = seen.verified.as_ref().filter(|_| !hold && run.pending.set_from_outside) {
                let observed = crate::set_from_outside::received(held);
                let e = run.evidence(Channel::Accessibility, format!("{}{observed}", deft_types::RECEIPT));
                self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                return Report::Received { observed };
            }
            // What was in sight outlasted its hold, but the input never showed: with no
            // expectation stated, the change may be the app's own (it ticked once before,
            // it was heard briefly). No second input (it may have landed), and no claim of
            // an effect either: received.
            if let Some(observed) = seen.verified.clone().filter(|_| !hold && menu_since.is_none())
                && run.pending.unseen_deferred
                && !matches!(run.goal, Goal::Expect(..))
            {
                let observed = format!("{observed}, though the input never showed it arrived");
                let e = run.evidence(Channel::Accessibility, format!("{}{observed}", deft_types::RECEIPT));
                self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                return Report::Received { observed };
            }
            if let Some(observed) = seen.verified.clone().filter(|_| !hold && menu_since.is_none()) {
                let e = run.evidence(Channel::Accessibility, observed.clone());
                self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                return Report::Verified { observed };
            }
            if let (Some(watch), Goal::Expect(c, _)) = (&run.pending.ocr_watch, &run.goal)
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
                        after_ms: run.clock.ms().saturating_sub(run.pending.sent_ms),
                    };
                    run.evidence.push(e.clone());
                    self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                    return Report::Verified { observed: what };
                }
            }
            // Receipt counts only while the target is still there: an input taken by a
            // widget that was then destroyed (re-created elsewhere) reached nothing that stays.
            // Re-created where it stood, it is still there, and its rebuilding is itself
            // receipt: the input reached it, whichever of the two it was, and the app answered.
            let rebuilt = seen.rebuilt_in_place.clone();
            let present = target.as_ref().is_some_and(|t| post.element(t).is_some()) || rebuilt.is_some();
            if let Some(look) = &mut run.pending.press {
                self.check_press_back(look);
            }
            if let Some(what) = rebuilt.filter(|_| !std::mem::replace(&mut run.pending.rebuilt_told, true)) {
                let e = run.evidence(Channel::Accessibility, format!("{}{what}", deft_types::RECEIPT));
                self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
            }
            // The executor's own witnesses of receipt (not focus, which a toolkit may give at
            // a press it then drops).
            let by_pixels = self.pixels_received(run);
            let receipt = (present && self.received(run)) || by_pixels || run.pending.rebuilt_told;
            if receipt {
                seen.feedback = true;
            }
            // A toggle whose look changed at its place while its reported state reads
            // unchanged: its state does not follow what it draws, and the input landed. Held a
            // moment for the state to catch up (then it verifies as usual), then told as
            // receipt; never "unchanged", which would send the chain on and toggle it again.
            // Or what it switches moved (other controls enabled or disabled) while its state
            // lags: held to the window's end for the state, then receipt, never a second input.
            let unmoved =
                run.toggle == ToggleMode::State && seen.toggle == Toggle::Unchanged && seen.verified.is_none();
            let lags = unmoved && seen.toggle_lags;
            let drawn_only = unmoved && (run.pending.pixels_changed || lags);
            let drawn_since = held_since(drawn_only, run.pending.toggle_drawn_since);
            run.pending.toggle_drawn_since = drawn_since;
            let drawn_end = |at: Instant| if lags { until } else { (at + MENU_EFFECT_WAIT).min(until) };
            if drawn_since.is_some_and(|at| Instant::now() >= drawn_end(at)) {
                let observed = match lags {
                    true => format!(
                        "what it switches moved ({}) while the state it reports still reads unchanged: the input \
                         landed; not repeated, since a second input would switch it back",
                        seen.changes.as_deref().unwrap_or_default()
                    ),
                    false => "its look changed where it is drawn, while the state it reports still reads unchanged \
                              (its reported state does not follow what it draws)"
                        .to_string(),
                };
                return Report::Received { observed };
            }
            let element = run.target.as_ref().and_then(|t| t.element.as_ref());
            let draws_press = element.is_some_and(|e| crate::press::reports_press(&e.role));
            let press = run.pending.press.as_ref();
            gathered.press_unseen = draws_press && press.is_some_and(|l| l.unseen);
            gathered.press_unwatched = press.is_some_and(|l| l.unwatched);
            // A press watched and never shown did not reach the button: the focus moving to it
            // is the toolkit giving focus at the press (Qt does, before the app's event filter
            // swallows it), not receipt. Nor is the focus given to a field for its keys, when
            // the app read the first key and the field kept its text.
            gathered.keys_unseen = run.pending.keys_unseen;
            if gathered.press_unseen || gathered.keys_unseen {
                seen.feedback = false;
            }
            // News the engine has not heard changes what it may decide: reply at once (it
            // asked for a read not before `not_before_ms`, and takes one at any time after;
            // the keys' news at any time: the watch of the first key was the wait).
            // Every key typed, and the last ones showed up in another field that has the
            // focus the target lost (taken while typing; a stray holds the text's end):
            // keys are handled in order, so none is left to reach the target.
            let target_focused =
                target.as_ref().and_then(|t| post.element(t)).is_some_and(|e| e.has(deft_types::State::Focused));
            gathered.keys_astray = run.pending.typed_as_keys && !run.pending.strays.is_empty() && !target_focused;
            let news = gathered.press_unseen && !run.pending.press_unseen_told;
            let keys_news = (gathered.keys_unseen && !run.pending.keys_unseen_told)
                || (gathered.keys_astray && !run.pending.keys_astray_told);
            gathered.absorb(&seen);
            let negatives = Instant::now() >= negatives_from;
            // A dialog over the target that came after the target itself reported the press
            // (its toolkit armed the button while the pointer held it) is the press's own
            // effect: a confirmation, a question. Told "blocked, dismiss it and retry", an
            // agent would cancel the confirmation and press again. Weaker receipt does not
            // tell the two apart: an app that accepted an accessibility action, or a button
            // drawn pressed, has a dialog shown by its handler whatever the dialog is for
            // (an interruption placed over it stays `blocked`).
            // A key has no press for a dialog to intercept: a dialog that opens after it is
            // what it asked for (ctrl+t, shift+ctrl+e, a menu's accelerator).
            let armed = run.pending.press.as_ref().is_some_and(|l| l.armed);
            let key = matches!(run.action, deft_types::Action::Key { .. });
            if ((receipt && armed) || key)
                && !gathered.press_unseen
                && let Some(b) = seen.blocking.take()
            {
                let what = format!("{} (after the target showed it received the input)", crate::observe::opened(&b));
                if matches!(run.goal, Goal::AnyChange) {
                    let e = run.evidence(Channel::Accessibility, what.clone());
                    self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                    return Report::Verified { observed: what };
                }
                // Not what was expected: a failure to report (the engine never presses a
                // received input again), saying what the input did open.
                run.last_seen = Some(what);
            }
            // A dialog over a menu's entry whose menu is still open: the entry may have taken
            // the input, its toolkit showing the dialog before closing the menu (GTK 2:
            // File > New, Help > About). Held a moment for the menu to close, which says the
            // entry took it (`observe`: a dialog over an entry that closed its menu is its
            // effect); a menu still open after that did not send it.
            let over_open_menu = seen.blocking.is_some()
                && target
                    .as_ref()
                    .and_then(|t| post.element(t))
                    .is_some_and(|e| crate::observe::is_menu_item(e) && e.has(deft_types::State::Showing));
            let over_menu_since = held_since(over_open_menu, run.pending.dialog_over_open_menu_since);
            run.pending.dialog_over_open_menu_since = over_menu_since;
            let menu_open_until = over_menu_since.map(|at| (at + MENU_EFFECT_WAIT).min(until));
            let wait_menu = menu_open_until.is_some_and(|t| Instant::now() < t);
            if let Some(b) = seen.blocking.filter(|_| negatives && !wait_menu) {
                let e = run.evidence(
                    Channel::Accessibility,
                    format!("{} {:?} appeared and covers the target", b.role, b.name),
                );
                self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                return Report::NoChange(gathered.signals(Some(b)));
            }
            // What would verify is in sight, held only to tell it from the app's own motion
            // (an app heard too briefly before the input, a spinner beside it): the input may
            // well have landed, so no witness's silence is news yet. Told at once, "the press
            // was never shown" sent the chain on and pressed again an order already
            // submitted (a press under load, the status line already saying so).
            let effect_in_sight = (hold && seen.verified.is_some()) || drawn_since.is_some();
            // Held as maybe the app's own motion (not a disappearance being confirmed, which
            // is the input's doing or nothing): remembered, for the report below.
            let held_as_motion = motion_held;
            run.pending.unseen_deferred |= effect_in_sight && held_as_motion && (news || keys_news);
            if news && negatives && !effect_in_sight {
                run.pending.press_unseen_told = true;
                return Report::NoChange(gathered.signals(None));
            }
            if keys_news && !effect_in_sight {
                run.pending.keys_unseen_told |= gathered.keys_unseen;
                run.pending.keys_astray_told |= gathered.keys_astray;
                return Report::NoChange(gathered.signals(None));
            }
            // Text typed where it cannot be read back drew itself (the keys' receipt): the
            // engine hears it at once, since nothing later could verify it either.
            let blind_text = matches!(run.goal, Goal::Typed { .. } | Goal::Set { .. });
            if by_pixels
                && blind_text
                && negatives
                && !effect_in_sight
                && !std::mem::replace(&mut run.pending.drawn_told, true)
            {
                return Report::NoChange(gathered.signals(None));
            }
            if Instant::now() >= until {
                if let Some(note) = seen.note {
                    let e = run.evidence(Channel::Accessibility, note);
                    self.publish(VerifyEvent::Evidence { op: run.op, evidence: e });
                }
                return Report::NoChange(gathered.signals(None));
            }
            let now = Instant::now();
            let wake = if hold {
                // The nearest end of a hold still to come (a past one would spin); a motion
                // hold that ended during the read wants the read begun after it: now.
                let motion_end = moving_until.filter(|_| motion_held).map(|t| t.max(now));
                [Some(gone_until), menu_until]
                    .into_iter()
                    .flatten()
                    .filter(|t| *t > now)
                    .chain(motion_end)
                    .min()
                    .unwrap_or(until)
                    .min(until)
            } else if let Some(t) = menu_until.or(menu_open_until.filter(|_| wait_menu)) {
                t.min(until)
            } else if negatives {
                until
            } else {
                negatives_from.min(until)
            };
            run.waker.next(wake).await;
        }
    }

    /// Whether target `t`, read as `pre` had it, is no longer there: its application
    /// destroyed it (asked directly, it says so), or what is drawn at the centre of where it
    /// stood is something else (the accessibility tree can keep a node its page removed a
    /// while: Chromium did past 2 s, and a re-created button's new half then verified a
    /// click that never landed). Unknown counts as still there.
    async fn target_left(&self, t: &ElementId, pre: &crate::read::Reading) -> bool {
        match self.a11y.element(t).await {
            Err(deft_a11y::A11yError::Stale { .. }) => true,
            Ok(_) => {
                let Some(at) = pre.element(t).and_then(|e| e.bounds).filter(|b| !b.is_empty()) else {
                    return false;
                };
                matches!(self.a11y.hit_test(at.center()).await, Ok(Some(hit)) if !hit.is_within(t))
            }
            Err(_) => false,
        }
    }
}

/// Since when something has held: `was` while it still holds, now when it begins, `None`
/// once it no longer does.
fn held_since(holds: bool, was: Option<Instant>) -> Option<Instant> {
    holds.then(|| was.unwrap_or_else(Instant::now))
}
