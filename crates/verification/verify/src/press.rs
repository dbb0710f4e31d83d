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
/// frame, well short of a long press (GTK's is 500 ms and above).
const HOLD_MAX: Duration = Duration::from_millis(250);
/// Time between two looks at the target while it is held or settling.
const LOOK_EVERY: Duration = Duration::from_millis(2);
/// The longest wait for the target to stop changing (a hover highlight fading in) before
/// the look it is compared with is taken.
const SETTLE_MAX: Duration = Duration::from_millis(300);
/// How long the target must look the same to count as settled: one frame at 60 Hz.
const SETTLED_FOR: Duration = Duration::from_millis(17);

/// Whether a click on `element` needs the pressed look to show that it was received: no
/// other feedback can, because the keyboard focus cannot move to it (it has it already,
/// or cannot take it).
pub(crate) fn wanted(element: &Element, button: MouseButton, count: u8) -> bool {
    button == MouseButton::Left
        && count == 1
        && element.bounds.is_some()
        && (element.has(State::Focused) || !element.has(State::Focusable))
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

fn same(a: &Frame, b: &Frame) -> bool {
    a.width() == b.width() && a.height() == b.height() && a.pixels() == b.pixels()
}

impl<A: Accessibility> Executor<A> {
    fn look(&self, region: Rect<Physical>) -> Option<Frame> {
        let capture = self.capture.as_ref()?;
        lock(capture).capture(&CaptureTarget::Region(region)).ok()
    }

    /// Moves the pointer onto `at` ahead of the click and takes a first look at `region`,
    /// so that the actionability checks run while a hover highlight draws. `None` without
    /// a capturer (then the click is sent plainly).
    pub(crate) fn hover_for_press(&self, at: Point<Physical>, region: Rect<Physical>) -> Option<(Frame, Instant)> {
        self.capture.as_ref()?;
        // An error costs only the pressed look; the click itself reports its own.
        lock(&self.input).move_to(at).ok()?;
        Some((self.look(region)?, Instant::now()))
    }

    /// The look to compare the press with: once the target has looked the same for a
    /// frame since `first` (taken at `first_at`, before the actionability checks, so a
    /// target that was already still needs no extra wait). `None` when it kept changing.
    async fn settled(&self, region: Rect<Physical>, first: Frame, first_at: Instant) -> Option<Frame> {
        let start = Instant::now();
        let (mut last, mut since) = (first, first_at);
        loop {
            let now = self.look(region)?;
            if !same(&now, &last) {
                (last, since) = (now, Instant::now());
            } else if since.elapsed() >= SETTLED_FOR {
                return Some(last);
            }
            if start.elapsed() >= SETTLE_MAX {
                return None;
            }
            tokio::time::sleep(LOOK_EVERY).await;
        }
    }

    /// Clicks at `at` as a press held until `region` looks pressed (or [`HOLD_MAX`]) and a
    /// release. `first` is the look [`Executor::hover_for_press`] took at `first_at`.
    /// Returns what was sent, and the look to check the release against, when one was taken.
    pub(crate) async fn held_click(
        &self,
        at: Point<Physical>,
        region: Rect<Physical>,
        (first, first_at): (Frame, Instant),
    ) -> (Sent, Option<PressLook>) {
        let before = self.settled(region, first, first_at).await;
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
                    Some(now) if !same(&now, before) => {
                        pressed = true;
                        break;
                    }
                    Some(_) => tokio::time::sleep(LOOK_EVERY).await,
                    None => break,
                }
            }
        }
        let held_ms = held.elapsed().as_millis();
        if let Err(e) = lock(&self.input).button(MouseButton::Left, ButtonAction::Release) {
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

    /// Takes another look after the release: notes when the target looks as before the press.
    pub(crate) fn check_press_back(&self, look: &mut PressLook) {
        if look.pressed
            && !look.back
            && let Some(now) = self.look(look.region)
        {
            look.back = same(&now, &look.before);
        }
    }
}
