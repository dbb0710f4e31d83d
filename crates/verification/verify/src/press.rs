//! Receipt of a click whose effect may not show: the press, watched while it is held.
//!
//! Pressing "Hello" when the status already says "Clicked Hello" changes nothing that
//! stays: the state diff alone cannot tell that click from a dropped one, and falling back
//! would press it again. But while a pointer button is held on a button, the app says so:
//! GTK reports the button `armed` through accessibility as soon as it handled the press,
//! and draws it pressed a frame later. So, when no other feedback could show (the target
//! already has the keyboard focus, or cannot take it), the click is sent as a press, held
//! until the target reports itself armed (or looks pressed), then a release. That costs the
//! app's reaction to a press: a few milliseconds through accessibility.
//!
//! The pixels are the second witness, for toolkits that do not report `armed`: a strong
//! change of the target's look while held, that goes back after the release. They are only
//! used from a look taken while the target was still (the pointer resting on it, no release
//! animation of a click just before): an animation compared with a moving baseline proves
//! nothing, and the look is never waited for, so this costs nothing when it cannot be used.
//!
//! A dropped press (the app swallows it) is neither armed nor drawn: the engine falls back,
//! and early when both witnesses watched (see `Signals::press_unseen` in deft-retry).

use std::time::{Duration, Instant};

use deft_a11y::{Accessibility, Scope, SnapshotOptions};
use deft_input::ButtonAction;
use deft_retry::Report;
use deft_types::{Action, Element, ElementId, Frame, Method, MouseButton, Physical, Point, Rect, State};

use crate::executor::{Executor, lock};
use crate::press_look::{back_to, looks_faintly_pressed, looks_pressed, same};
use crate::resolve::Resolved;
use crate::send::{Sent, input_refused};

/// The round trip that tells a press the app has handled from one still queued.
enum Ping {
    NotSent,
    Waiting(Box<dyn deft_input::Handled + Send + Sync>),
    /// Answered when this many reads had been answered.
    Handled(u32),
}

impl Ping {
    /// Whether the app had handled the press before read `reads` was asked.
    fn handled_before(&self, reads: u32) -> bool {
        matches!(self, Ping::Handled(at) if *at < reads)
    }
}

/// Longest hold while waiting for the press to show. Long enough for a busy app to handle
/// it (a press that never shows allows an early fallback, so a slow app must not pass for
/// one that dropped it), short of a long press (GTK's is 500 ms).
const HOLD_MAX: Duration = Duration::from_millis(400);
/// Without a still look to compare pixels with, the hold ends once the app has answered
/// this many state reads after the press without reporting it armed, and [`HOLD_MIN`]
/// passed: it handled its events in between, so it either dropped the press or does not
/// report `armed`.
const READS_WITHOUT_ARMED: u32 = 3;
/// The longest read of the target's window while a press is held, to find who holds it.
const HELD_READ_MAX: Duration = Duration::from_millis(150);
/// How long a press drawn on a toolkit that says which button is held is given to say it.
const SAID_WITHIN: Duration = Duration::from_millis(40);
const HOLD_MIN: Duration = Duration::from_millis(30);
/// Time between two looks at the target while it is held.
const LOOK_EVERY: Duration = Duration::from_millis(2);
/// How long the target must have looked the same before the press for its look to be
/// compared with, when the pointer was already resting on it: one frame at 60 Hz...
const STILL_FOR: Duration = Duration::from_millis(17);
/// ... and when the pointer just entered it: a hover highlight is an animation whose first
/// frames can look unchanged (GTK's transitions start at progress 0).
const STILL_AFTER_ENTER: Duration = Duration::from_millis(60);
/// How long a release animation may run (GTK 3's Adwaita: about 225 ms): within it after
/// a click on the same target, the look moves, so the pixels are not used.
const RELEASE_ANIMATION: Duration = Duration::from_millis(400);
/// Roles of buttons that toolkits report `armed` (GTK: every `GtkButton`, check boxes and
/// radio buttons included) and draw pressed while the pointer button is held on them.
pub(crate) fn reports_press(role: &deft_types::Role) -> bool {
    matches!(role.as_str(), "push_button" | "toggle_button" | "check_box" | "radio_button")
}

/// Whether a click on `element` has its press watched: where no other feedback can show
/// that it was received, because the keyboard focus cannot move to it (it has it already,
/// or cannot take it), and on every button.
///
/// A button's press ([`reports_press`]) is always watched: it costs the app's reaction to a press (a few
/// milliseconds in GTK), and when the press never shows, the fallback need not wait for
/// the whole verification window (see [`PressLook::unseen`]).
pub(crate) fn wanted(element: &Element, button: MouseButton, count: u8) -> bool {
    button == MouseButton::Left
        && count == 1
        && element.bounds.is_some()
        && (element.has(State::Focused) || !element.has(State::Focusable) || reports_press(&element.role))
}

/// The pointer put on the target ahead of a held click, and a first look at it.
pub(crate) struct Hover {
    first: Option<Frame>,
    at: Instant,
    /// The pointer was elsewhere before: a hover highlight may be starting.
    entered: bool,
}

/// What the held press showed.
/// What a target says while a press is held on it.
enum Held {
    /// Armed, or newly pressed: the press reached it.
    Armed,
    /// Read, and neither.
    Not,
    /// It no longer exists: its application destroyed it (re-created it elsewhere, or
    /// removed it) while the button was down.
    Gone,
    /// It could not be read.
    Unknown,
}

pub(crate) struct PressLook {
    region: Rect<Physical>,
    /// The still look from before the press, when there was one.
    before: Option<Frame>,
    /// The target reported itself armed (or newly pressed) while held.
    pub armed: bool,
    /// The target's look changed strongly while held.
    pub pressed: bool,
    /// ... or faintly, on a toolkit that does not say which button is held: the press may
    /// have landed, so it is never taken as unseen (see `press_look::FAINT_SHARE`).
    pub faint: bool,
    /// ... and later looked as before the press again.
    pub back: bool,
    /// The press did not arrive: neither witness saw it, both watched (a still look was
    /// there) or the app's toolkit is one that reports `armed`, and the app has handled it
    /// (it answered the ping sent after it).
    pub unseen: bool,
    /// Nothing could have seen the press arrive: this desktop's frames cannot watch a press
    /// (`Capture::watches_presses`), the toolkit says nothing of a held button, the focus
    /// could not move to show it, and nothing showed. Whether it arrived cannot be told, so
    /// it is never followed by a second input (see `Signals::press_unwatched`).
    pub unwatched: bool,
    /// The ping sent after the press, not yet answered when the hold ended (a busy app):
    /// `unseen` is decided once it comes back (see [`Executor::check_press_back`]).
    awaiting: Option<Box<dyn deft_input::Handled + Send + Sync>>,
    /// The ping came back since the last read.
    answered: bool,
}

impl PressLook {
    /// Receipt: the app reported the press, or drew it and then the release.
    pub fn received(&self) -> bool {
        self.armed || ((self.pressed || self.faint) && self.back)
    }

    /// In words, for evidence.
    pub fn describe(&self) -> String {
        if self.armed {
            "the target reported itself armed while the pointer button was held on it".to_string()
        } else if self.faint && !self.pressed {
            format!(
                "the target at {} drew itself faintly pressed and released (the press reached the application; \
                 whether it acted on it does not show)",
                self.region
            )
        } else {
            format!("the target at {} drew itself pressed and released", self.region)
        }
    }
}

impl Executor {
    /// Moves the pointer onto `at` ahead of the click and takes a first look at `region`,
    /// so that the actionability checks run while a hover highlight draws.
    pub(crate) fn hover_for_press(&self, at: Point<Physical>, region: Rect<Physical>) -> Option<Hover> {
        let entered = {
            let mut input = lock(&self.input);
            let was = input.position().ok().flatten();
            // An error costs only the watch; the click itself reports its own.
            input.move_to(at).ok()?;
            was.is_none_or(|p| !region.contains(p))
        };
        Some(Hover { first: self.grab(region), at: Instant::now(), entered })
    }

    /// The look to compare the press with, if the target has been still since the hover's
    /// first look (taken before the actionability checks) and no release animation of a
    /// click just before is running. With the pointer resting on the target, the rest of
    /// one frame is waited for (the checks usually took that long already); after it just
    /// entered, the hover highlight would take far longer, so the pixels are not used then.
    async fn still_look(&self, region: Rect<Physical>, hover: &Hover) -> Option<Frame> {
        let last = *self.last_press.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let animating =
            last.is_some_and(|(r, at)| r.intersection(&region).is_some() && at.elapsed() < RELEASE_ANIMATION);
        if animating || (hover.entered && hover.at.elapsed() < STILL_AFTER_ENTER) {
            return None;
        }
        tokio::time::sleep_until((hover.at + STILL_FOR).into()).await;
        let now = self.grab(region)?;
        hover.first.as_ref().filter(|first| same(first, &now)).map(|_| now)
    }

    /// Whether `id` reports itself armed, or pressed when it was not before. `None` when it
    /// could not be read.
    async fn armed(&self, id: &ElementId, pressed_before: bool) -> Option<bool> {
        match self.held_state(id, pressed_before).await {
            Held::Armed => Some(true),
            Held::Not => Some(false),
            Held::Gone | Held::Unknown => None,
        }
    }

    /// What the target says while the button is held on it.
    async fn held_state(&self, id: &ElementId, pressed_before: bool) -> Held {
        match self.a11y.element(id).await {
            Ok(e) if e.has(State::Armed) || (e.has(State::Pressed) && !pressed_before) => Held::Armed,
            Ok(_) => Held::Not,
            Err(deft_a11y::A11yError::Stale { .. }) => Held::Gone,
            Err(_) => Held::Unknown,
        }
    }

    /// Another control that says it is held (armed, or a push button pressed) while the
    /// target, a button of a toolkit that says so, does not: the press landed on it. Read
    /// from the target's window while the button is still down (GTK says `armed` when
    /// asked, and sends no event for it). Not one that holds the target or that the target
    /// holds (a row and its button).
    async fn held_instead(&self, target: &Element, scope: &Scope) -> Option<Element> {
        // Read while the button is held: bounded, so a slow app is never held long (a
        // menu held down is a drag to the menu in some toolkits). Unread, the release goes.
        let options = SnapshotOptions::default();
        let tree = tokio::time::timeout(HELD_READ_MAX, self.a11y.snapshot(scope, &options)).await.ok()?.ok()?;
        let held = |e: &Element| e.has(State::Armed) || (e.has(State::Pressed) && e.role.as_str() == "push_button");
        let at = tree.find_id(&target.id);
        let related = |i: usize| at.is_some_and(|t| tree.is_within(i, t) || tree.is_within(t, i));
        (0..tree.len())
            .find(|&i| {
                let e = &tree.nodes[i].element;
                e.id != target.id && held(e) && reports_press(&e.role) && !related(i)
            })
            .map(|i| tree.nodes[i].element.clone())
    }

    /// A held press that landed on `other`, not on the target: the pointer leaves the
    /// target's window before the release (a button clicks only when released over itself),
    /// so nothing is clicked, and pointer input is unavailable for this target: its toolkit
    /// places it where it is not drawn. The chain goes on to a method that needs no place.
    fn withdraw(&self, at: Point<Physical>, target: &Element, other: &Element) -> Report {
        let away = self.window_at(at).map_or(Point::new(0, 0), |w| outside(w, at));
        let withdrawn = {
            let mut input = lock(&self.input);
            input.move_to(away).and_then(|()| input.button(MouseButton::Left, ButtonAction::Release))
        };
        if let Err(e) = withdrawn {
            return Report::SendUncertain {
                message: format!(
                    "a press meant for {} landed on {}, and its release failed: {e}",
                    target.describe(),
                    other.describe()
                ),
            };
        }
        let message = format!(
            "the press at ({}, {}) meant for {} was taken by {} (it said it is held), so its toolkit places the target \
             where it is not drawn; the pointer left the window before the release, so nothing was clicked",
            at.x,
            at.y,
            target.describe(),
            other.describe()
        );
        Report::Refused(deft_retry::Symptoms { method_unavailable: true, ..deft_retry::Symptoms::new(message) })
    }

    /// Clicks `target` at `at` as a press held until it shows (armed, or a pressed look;
    /// at most [`HOLD_MAX`]) and a release. Returns what was sent, and what the press showed.
    pub(crate) async fn held_click(
        &self,
        at: Point<Physical>,
        region: Rect<Physical>,
        target: &Element,
        scope: &Scope,
        hover: Hover,
    ) -> (Sent, Option<PressLook>) {
        // Looks are evidence only where frames come fast enough to see a press: elsewhere
        // the press is judged by what the target says (armed, pressed) and by its effect.
        let watching = self.capture.as_ref().is_some_and(|c| lock(c).watches_presses());
        let before = if watching { self.still_look(region, &hover).await } else { None };
        {
            let mut input = lock(&self.input);
            if let Err(e) = input.move_to(at) {
                return (Err(input_refused(e)), None);
            }
            if let Err(e) = input.button(MouseButton::Left, ButtonAction::Press) {
                // Whether the press went out is not known: release, to leave nothing held.
                let _ = input.button(MouseButton::Left, ButtonAction::Release);
                return (Err(Report::SendUncertain { message: e.to_string() }), None);
            }
        }
        let held = Instant::now();
        let pressed_before = target.has(State::Pressed);
        let (mut armed, mut pressed, mut faint, mut reads) = (false, false, false, 0u32);
        // Whether the app has handled the press (see `handled_since`): the read count it
        // was known at, so that one read after it still looks for `armed`.
        let mut ping = Ping::NotSent;
        // Whether the target's toolkit says a held press (asked once, when it matters).
        let mut says_held: Option<bool> = None;
        // The target destroyed while the button was down (a page re-rendering it on the
        // press, a stale control): its place changing is it leaving, not a pressed look.
        let mut gone = false;
        while held.elapsed() < HOLD_MAX {
            // Bounded by what is left of the hold: a hung app must not turn it into a long press.
            let left = HOLD_MAX.saturating_sub(held.elapsed());
            match tokio::time::timeout(left, self.held_state(&target.id, pressed_before)).await {
                Ok(Held::Armed) => {
                    armed = true;
                    break;
                }
                Ok(Held::Not) => reads += 1,
                Ok(Held::Gone) => {
                    gone = true;
                    break;
                }
                Ok(Held::Unknown) => {}
                Err(_) => break,
            }
            match (&before, before.as_ref().and_then(|_| self.grab(region))) {
                (Some(b), Some(now)) if looks_pressed(b, &now) => {
                    pressed = true;
                    break;
                }
                (Some(b), Some(now)) => faint |= looks_faintly_pressed(b, &now),
                _ => {}
            }
            if reads >= READS_WITHOUT_ARMED && held.elapsed() >= HOLD_MIN {
                ping = self.handled_since(ping, at, reads);
                // Handled, and still not said held: on a toolkit that says so, the look has
                // nothing to add (waiting for it cost a pointer already resting on the
                // target the whole hold).
                // Drawn faintly, on a toolkit that does not say it is held: as far as the
                // look goes (the press reached the app); a strong look is not coming.
                if ping.handled_before(reads)
                    && (before.is_none()
                        || faint
                        || *says_held.get_or_insert(self.a11y.reports_held_press(&target.id).await))
                {
                    break;
                }
            }
            tokio::time::sleep(LOOK_EVERY).await;
        }
        // A faint look counts where the toolkit does not say which button is held, and
        // where the focus cannot tell: a page takes the focus to a button it lets have the
        // press, so an unfocused one that stayed so did not get it (a page that swallows
        // the press leaves the focus; the browser still draws the press faintly).
        let focus_tells = target.has(State::Focusable) && !target.has(State::Focused);
        if faint && focus_tells {
            faint = false;
        }
        if faint && !armed && !pressed && !gone {
            faint = !match says_held {
                Some(says) => says,
                None => *says_held.insert(self.a11y.reports_held_press(&target.id).await),
            };
        }
        // Not said held by the target, on a toolkit that says which button is held (GTK's
        // `armed`, Qt's `pressed`): drawn pressed, it is given a moment to say so; then
        // another button that says it is held took the press (its toolkit places the target
        // where it is not drawn), and the press is withdrawn before the release.
        // A look that changed without the target saying it is held may be the target
        // leaving its place: asked once more before the release.
        if pressed && !armed && !gone {
            gone = matches!(self.held_state(&target.id, pressed_before).await, Held::Gone);
        }
        if !armed
            && !gone
            && (pressed || reads >= READS_WITHOUT_ARMED)
            && reports_press(&target.role)
            && self.a11y.reports_held_press(&target.id).await
        {
            let until = Instant::now() + if pressed { SAID_WITHIN } else { Duration::ZERO };
            while Instant::now() < until && !armed {
                tokio::time::sleep(LOOK_EVERY).await;
                armed = self.armed(&target.id, pressed_before).await == Some(true);
            }
            if !armed && let Some(other) = self.held_instead(target, scope).await {
                return (Err(self.withdraw(at, target, &other)), None);
            }
        }
        let held_ms = held.elapsed().as_millis();
        let released = lock(&self.input).button(MouseButton::Left, ButtonAction::Release);
        *self.last_press.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((region, Instant::now()));
        if let Err(e) = released {
            return (Err(Report::SendUncertain { message: e.to_string() }), None);
        }
        let shown = match (armed, pressed) {
            _ if gone => "while the target was destroyed (a click completes only on the control it was pressed on)",
            (true, _) => "until it reported itself armed",
            (false, true) => "until it looked pressed",
            (false, false) if faint => "until it looked faintly pressed",
            (false, false) => "and it never showed the press",
        };
        let what = format!("clicked at ({}, {}), held {held_ms} ms {shown}", at.x, at.y);
        let not_shown = !armed && !pressed && !faint && reads >= READS_WITHOUT_ARMED && {
            // Asked only now, when the press did not show: a normal click never pays for it.
            // On a toolkit that reports a held button (GTK 3 `armed`, Qt `pressed`, per
            // deft-a11y), a press that never showed did not arrive...
            before.is_some()
                || match says_held {
                    Some(says) => says,
                    None => *says_held.insert(self.a11y.reports_held_press(&target.id).await),
                }
        };
        // ... once the app has handled it. Not yet (it had not answered the ping: busy), the
        // press may still be queued: decided when the answer comes.
        // Destroyed under the held button: the release lands where it no longer is, so
        // the click never completes on it, and nothing of it can take effect later. As a
        // press that never arrived: the chain may go on (re-resolving the target) early.
        let (unseen, awaiting) = match ping {
            _ if gone => (true, None),
            Ping::Handled(_) => (not_shown, None),
            Ping::Waiting(p) if not_shown => (false, Some(p)),
            _ => (false, None),
        };
        // Whether a witness could have shown it (frames, the toolkit's word, the focus) or did.
        let witnessed = watching
            || armed
            || pressed
            || faint
            || gone
            || focus_tells
            || match says_held {
                Some(says) => says,
                None => self.a11y.reports_held_press(&target.id).await,
            };
        let unwatched = !witnessed;
        let look = PressLook {
            region,
            before,
            armed,
            pressed,
            faint,
            back: false,
            unseen,
            unwatched,
            awaiting,
            answered: false,
        };
        (Ok(what), Some(look))
    }

    /// Where the round trip that says the app handled the press stands, a step further:
    /// sent to the window at `at` the first time, then asked whether it came back (at read
    /// `reads`, which is at least 1). A window that takes no ping is taken as handled by
    /// the reads it answered without `armed` (it handled its events in between), as before.
    fn handled_since(&self, ping: Ping, at: Point<Physical>, reads: u32) -> Ping {
        match ping {
            Ping::NotSent => match self.ping_at(at) {
                Some(sent) => Ping::Waiting(sent),
                None => Ping::Handled(reads - 1),
            },
            Ping::Waiting(p) => match p.handled() {
                Ok(true) => Ping::Handled(reads),
                Ok(false) => Ping::Waiting(p),
                // Nothing more can be learnt from it: as without a ping.
                Err(_) => Ping::Handled(reads - 1),
            },
            done @ Ping::Handled(_) => done,
        }
    }

    /// A round trip through the event queue of the app whose window holds `at`: `None`
    /// without a window backend, or when that window takes no ping.
    fn ping_at(&self, at: Point<Physical>) -> Option<Box<dyn deft_input::Handled + Send + Sync>> {
        let id = self.top_window_at(at)?.id;
        lock(self.windows.as_ref()?).ping(id).ok()?
    }

    /// Where a click of `method` would land and the target's region, when it is a click
    /// whose press needs watching ([`wanted`]).
    pub(crate) fn press_plan(
        &self,
        action: &Action,
        target: Option<&Resolved>,
        method: Method,
    ) -> Option<(Point<Physical>, Rect<Physical>)> {
        let Action::Click { button, count, .. } = action else { return None };
        if !matches!(method, Method::CoordinateClick | Method::OffsetClick) {
            return None;
        }
        let t = target?;
        let e = t.element.as_ref()?;
        if !wanted(e, *button, (*count).max(1)) {
            return None;
        }
        let at = self.pointer_point(Some(t), method).ok()?;
        Some((at, t.scale.rect_to_physical(e.bounds?)))
    }

    /// Moves the pointer onto where a click of `method` will land, ahead of the checks.
    pub(crate) fn approach(&self, action: &Action, target: Option<&Resolved>, method: Method) {
        let element_click = matches!(action, Action::Click { .. })
            && matches!(method, Method::CoordinateClick | Method::OffsetClick)
            && target.is_some_and(|t| t.element.is_some());
        if element_click && let Ok(at) = self.pointer_point(target, method) {
            // An error costs only the early approach; the click reports its own.
            let _ = lock(&self.input).move_to(at);
        }
    }

    /// Takes another look after the release: notes when the target looks as before the press.
    pub(crate) fn check_press_back(&self, look: &mut PressLook) {
        // The app answered the ping sent while the press was held: it has handled the press
        // (and the release), which showed nothing while it was held. Unseen from the next
        // call on: the read before it, taken after the answer, shows what the click did. An
        // error ends the wait: as without a ping.
        if look.answered {
            look.answered = false;
            look.unseen = true;
        }
        if let Some(ping) = &look.awaiting
            && ping.handled().unwrap_or(true)
        {
            look.awaiting = None;
            look.answered = true;
        }
        if (look.pressed || look.faint)
            && !look.back
            && let Some(before) = &look.before
            && let Some(now) = self.grab(look.region)
        {
            look.back = back_to(before, &now);
        }
    }
}

/// A point just outside `window`, level with `at` where the screen allows (left, then above,
/// then right): where a release lands on nothing of the window.
fn outside(window: Rect<Physical>, at: Point<Physical>) -> Point<Physical> {
    const GAP: i32 = 3;
    let right = window.x.saturating_add(i32::try_from(window.w).unwrap_or(i32::MAX)).saturating_add(GAP);
    if window.x >= GAP {
        Point::new(window.x - GAP, at.y)
    } else if window.y >= GAP {
        Point::new(at.x, window.y - GAP)
    } else {
        Point::new(right, at.y)
    }
}
