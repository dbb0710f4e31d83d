//! Pressed-look feedback: evidence that the app received a click, for a click whose effect
//! may not show.
//!
//! Pressing "Hello" when the status already says "Clicked Hello" changes nothing that
//! stays: the state diff alone cannot tell that click from a dropped one, and falling back
//! would press it again. But a button that gets the press draws itself pressed while the
//! button is held, and goes back to how it looked once released. So, when no other
//! feedback could show (the target already has the keyboard focus, or cannot take it),
//! the click is sent as a press, held until the target's pixels change (about one frame
//! of the app; at most [`HOLD_MAX`]), then a release. The receipt counts only once the
//! target looks as it did before the press again: a change that stays (a hover highlight
//! still fading in, a widget re-created elsewhere) is not a pressed look.
//!
//! A dropped press (the app swallows it, an invisible window intercepts it) shows no
//! pressed look, so the engine falls back as before.

use std::time::{Duration, Instant};

use deft_a11y::Accessibility;
use deft_capture::Target as CaptureTarget;
use deft_input::ButtonAction;
use deft_types::{Action, Element, Frame, Method, MouseButton, Physical, Point, Rect, State};

use deft_retry::Report;

use crate::executor::{Executor, lock};
use crate::resolve::Resolved;
use crate::send::{Sent, input_refused};

/// Longest hold while waiting for the pressed look. Long enough for a busy app to draw a
/// frame (a pressed look that never comes allows an early fallback, so a slow app must
/// not pass for one that dropped the press), short of a long press (GTK's is 500 ms).
const HOLD_MAX: Duration = Duration::from_millis(400);
/// Time between two looks at the target while it is held or settling.
const LOOK_EVERY: Duration = Duration::from_millis(2);
/// The longest wait for the target to stop changing (a hover highlight fading in) before
/// the look it is compared with is taken.
const SETTLE_MAX: Duration = Duration::from_millis(300);
/// How long the target must look the same to count as settled, when the pointer was
/// already resting on it: one frame at 60 Hz.
const SETTLED_FOR: Duration = Duration::from_millis(17);
/// ... and when the pointer just entered it: a hover highlight is an animation whose
/// first frames can look unchanged (GTK's transitions start at progress 0), so one still
/// frame does not show that it is over.
const SETTLED_AFTER_ENTER: Duration = Duration::from_millis(60);
/// How long a release animation may run (GTK 3's Adwaita: about 225 ms), waited out
/// before the look of a target clicked just before is taken: on a busy machine the app
/// draws so seldom that a moving animation can look still for a frame.
const RELEASE_ANIMATION: Duration = Duration::from_millis(400);

/// Whether a click on `element` needs the pressed look to show that it was received: no
/// other feedback can, because the keyboard focus cannot move to it (it has it already,
/// or cannot take it).
pub(crate) fn wanted(element: &Element, button: MouseButton, count: u8) -> bool {
    button == MouseButton::Left
        && count == 1
        && element.bounds.is_some()
        && (element.has(State::Focused) || !element.has(State::Focusable))
}

/// The pointer put on the target ahead of a held click, and a first look at it.
pub(crate) struct Hover {
    first: Frame,
    at: Instant,
    /// The pointer was elsewhere before: a hover highlight may be starting.
    entered: bool,
}

/// The target's look before a held click, and what came of it.
pub(crate) struct PressLook {
    region: Rect<Physical>,
    before: Frame,
    /// The target's pixels changed while the button was held.
    pub pressed: bool,
    /// ... and later looked as before the press again: the app drew the press and the
    /// release, so it received the click.
    pub back: bool,
}

impl PressLook {
    /// Receipt: the pressed look came and went.
    pub fn received(&self) -> bool {
        self.pressed && self.back
    }

    /// In words, for evidence.
    pub fn describe(&self) -> String {
        format!("the target at {} drew itself pressed and released", self.region)
    }
}

/// Largest difference of one colour channel between a look and the one before the press
/// that still counts as "back". The end of an eased animation (a release fading out)
/// moves pixels by a level or two for several frames.
const BACK_WITHIN: u8 = 8;
/// A pressed look: at least this share of the target's colour channels changed by more
/// than [`PRESSED_BY`] levels. Measured on GTK 3 (Adwaita): a press changes about 70% of a
/// button's channels by 30 levels within a frame; the tail of a hover highlight changes a
/// few levels.
const PRESSED_SHARE: f64 = 0.05;
const PRESSED_BY: u8 = 16;

/// Whether two looks are exactly the same (for "still": any change means it moves).
fn same(a: &Frame, b: &Frame) -> bool {
    a.width() == b.width() && a.height() == b.height() && a.pixels() == b.pixels()
}

/// Whether `now` is back to `before`, up to [`BACK_WITHIN`] per channel.
fn back_to(before: &Frame, now: &Frame) -> bool {
    before.width() == now.width()
        && before.height() == now.height()
        && before.pixels().iter().zip(now.pixels()).all(|(x, y)| x.abs_diff(*y) <= BACK_WITHIN)
}

/// Whether `now` shows a pressed look against `before`: a strong change of a good part.
fn looks_pressed(before: &Frame, now: &Frame) -> bool {
    if before.width() != now.width() || before.height() != now.height() {
        return true;
    }
    let changed = before.pixels().iter().zip(now.pixels()).filter(|(x, y)| x.abs_diff(**y) > PRESSED_BY).count();
    changed as f64 >= PRESSED_SHARE * before.pixels().len() as f64
}

impl<A: Accessibility> Executor<A> {
    fn look(&self, region: Rect<Physical>) -> Option<Frame> {
        let capture = self.capture.as_ref()?;
        lock(capture).capture(&CaptureTarget::Region(region)).ok()
    }

    /// Moves the pointer onto `at` ahead of the click and takes a first look at `region`,
    /// so that the actionability checks run while a hover highlight draws. `None` without
    /// a capturer (then the click is sent plainly).
    pub(crate) fn hover_for_press(&self, at: Point<Physical>, region: Rect<Physical>) -> Option<Hover> {
        self.capture.as_ref()?;
        let entered = {
            let mut input = lock(&self.input);
            let was = input.position().ok().flatten();
            // An error costs only the pressed look; the click itself reports its own.
            input.move_to(at).ok()?;
            was.is_none_or(|p| !region.contains(p))
        };
        Some(Hover { first: self.look(region)?, at: Instant::now(), entered })
    }

    /// The look to compare the press with: once the target has looked the same for a
    /// frame (longer when the pointer just entered it) since the hover's first look
    /// (taken before the actionability checks, so a target that was already still needs
    /// no extra wait). `None` when it kept changing.
    async fn settled(&self, region: Rect<Physical>, hover: Hover) -> Option<Frame> {
        let last = *self.last_press.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((r, released)) = last
            && r.intersection(&region).is_some()
        {
            tokio::time::sleep_until((released + RELEASE_ANIMATION).into()).await;
        }
        let start = Instant::now();
        let still_for = if hover.entered { SETTLED_AFTER_ENTER } else { SETTLED_FOR };
        let (mut last, mut since) = (hover.first, hover.at);
        loop {
            let now = self.look(region)?;
            if !same(&now, &last) {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() >= still_for {
                return Some(last);
            }
            if start.elapsed() >= SETTLE_MAX {
                return None;
            }
            tokio::time::sleep(LOOK_EVERY).await;
        }
    }

    /// Clicks at `at` as a press held until `region` looks pressed (or [`HOLD_MAX`]) and a
    /// release, after the `hover` [`Executor::hover_for_press`] made.
    /// Returns what was sent, and the look to check the release against, when one was taken.
    pub(crate) async fn held_click(
        &self,
        at: Point<Physical>,
        region: Rect<Physical>,
        hover: Hover,
    ) -> (Sent, Option<PressLook>) {
        let before = self.settled(region, hover).await;
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
        let mut pressed = false;
        if let Some(before) = &before {
            while held.elapsed() < HOLD_MAX {
                match self.look(region) {
                    Some(now) if looks_pressed(before, &now) => {
                        pressed = true;
                        break;
                    }
                    Some(_) => tokio::time::sleep(LOOK_EVERY).await,
                    None => break,
                }
            }
        }
        let held_ms = held.elapsed().as_millis();
        let released = lock(&self.input).button(MouseButton::Left, ButtonAction::Release);
        *self.last_press.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((region, Instant::now()));
        if let Err(e) = released {
            return (Err(Report::SendUncertain { message: e.to_string() }), None);
        }
        let what = match (&before, pressed) {
            (Some(_), true) => format!("clicked at ({}, {}), held {held_ms} ms until it looked pressed", at.x, at.y),
            (Some(_), false) => format!("clicked at ({}, {}), held {held_ms} ms: it never looked pressed", at.x, at.y),
            (None, _) => format!("clicked at ({}, {}) (it kept changing: no pressed look taken)", at.x, at.y),
        };
        (Ok(what), before.map(|before| PressLook { region, before, pressed, back: false }))
    }

    /// Where a click of `method` would land and the target's region, when it is a click
    /// that needs its pressed look ([`wanted`]) and the screen can be read.
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
        self.capture.as_ref()?;
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
        if look.pressed
            && !look.back
            && let Some(now) = self.look(look.region)
        {
            look.back = back_to(&look.before, &now);
        }
    }
}
