//! Frames for a person reading the trace: the screen just before each input and after the
//! verdict, handed to a [`FrameSink`] only when one is configured (no capture otherwise).
//!
//! A frame never leaves the executor with a secret on it: the password fields of the
//! accessibility read of the target's application are painted over first
//! (`deft_trace::redact::mask`), and when that read cannot be had the frame is not taken
//! at all (the trace says so). The frame is cropped to the target's window (the whole
//! screen when there is no target), and carries the target's bounds and the click point;
//! the changed regions, the downscaling and the file are the sink's work, off the
//! executor's path ([`FrameRecorder`]).

mod recorder;
#[cfg(test)]
mod tests;

use deft_capture::CaptureTarget;
use deft_types::{Method, Physical, Rect, ScaleFactor};

pub use recorder::{FrameRecorder, FramesSummary};

use crate::event::VerifyEvent;
use crate::executor::{Executor, lock};
use crate::run::Run;
pub use crate::shot::{FramePhase, FrameRecord, FrameShot, FrameSink};

impl Executor {
    /// Hands the sink a frame of the target's window, when a sink is configured, and keeps
    /// a `before` frame in the run. `method`: the input about to be sent (its click point is
    /// recorded for a pointer method).
    ///
    /// An `after` frame of an effect that was seen is taken once the window shows a change
    /// from the last `before` frame: accessibility reports an effect before the toolkit
    /// repaints, and a picture of the old screen beside "verified" contradicts the verdict.
    /// It waits up to [`REPAINT_WAIT`] (only while a trace is recorded), then says so.
    pub(crate) async fn frame(&self, run: &mut Run<'_>, phase: FramePhase, method: Option<Method>, effect_seen: bool) {
        let Some(sink) = &self.config.frames else { return };
        let target = run.target.as_ref();
        let scale = target.map_or(ScaleFactor::ONE, |t| t.scale);
        let bounds = target.and_then(|t| t.element.as_ref()?.bounds.map(|b| t.scale.rect_to_physical(b)));
        let anchor = bounds.map(|b| b.center()).or(target.and_then(|t| t.point));
        let point = method.filter(|m| m.is_pointer()).and_then(|m| self.pointer_point(target, m).ok());
        let attempt = run.notes.len() as u32;
        let at_ms = run.clock.ms();
        let skipped = |region, why: &str| {
            let record = FrameRecord {
                op: run.op,
                attempt,
                phase,
                at_ms,
                file: None,
                skipped: Some(why.to_string()),
                region,
                factor: 1,
                bytes: 0,
                target: bounds,
                point,
                changed: Vec::new(),
                masked: Vec::new(),
                note: None,
            };
            self.publish(VerifyEvent::Frame(record));
        };
        // Secret areas first: a frame whose password fields are unknown is not taken.
        let fresh;
        let reading = match (&run.pending.pre, phase) {
            (Some(pre), FramePhase::Before) => Some(pre),
            _ => {
                fresh = self.read(&run.scope()).await.ok();
                fresh.as_ref()
            }
        };
        let Some(reading) = reading else {
            return skipped(Rect::new(0, 0, 0, 0), "the password fields could not be read, so no frame was taken");
        };
        let unplaced = reading.tree.nodes.iter().map(|n| &n.element).find(|e| e.is_unplaced_secret());
        if let Some(e) = unplaced {
            let why = format!("{} is shown where it cannot be placed on screen, so no frame was taken", e.describe());
            return skipped(Rect::new(0, 0, 0, 0), &why);
        }
        let mut secrets: Vec<Rect<Physical>> = reading
            .tree
            .nodes
            .iter()
            .filter(|n| n.element.is_secret())
            .filter_map(|n| n.element.bounds.map(|b| scale.rect_to_physical(b)))
            .collect();
        let target_secret = target.and_then(|t| t.element.as_ref()).is_some_and(deft_types::Element::is_secret);
        if let (true, Some(b)) = (target_secret, bounds) {
            secrets.push(b);
        }
        let window = anchor.and_then(|p| self.window_at(p));
        let capture_now = || match (window, &self.capture) {
            (Some(w), _) => self.grab(w),
            (None, Some(capture)) => lock(capture).capture(&CaptureTarget::Screen).ok(),
            (None, None) => None,
        };
        let frame = capture_now();
        let Some(frame) = frame else {
            return skipped(window.unwrap_or(Rect::new(0, 0, 0, 0)), "the screen could not be captured");
        };
        let (mut frame, mut masked) = deft_trace::redact::mask(frame, &secrets);
        let mut note = None;
        let before = run.last_before.as_ref().filter(|b| b.screen_rect() == frame.screen_rect());
        if let (FramePhase::After, true, Some(before)) = (phase, effect_seen, before) {
            let until = std::time::Instant::now() + REPAINT_WAIT;
            while same_pixels(before, &frame) && std::time::Instant::now() < until {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                let Some(f) = capture_now() else { break };
                (frame, masked) = deft_trace::redact::mask(f, &secrets);
            }
            if same_pixels(before, &frame) {
                note = Some(format!(
                    "the window had not repainted {} ms after the verdict: this frame may not show the effect",
                    REPAINT_WAIT.as_millis()
                ));
            }
        }
        if phase == FramePhase::Before {
            run.last_before = Some(frame.clone());
        }
        sink.shot(FrameShot { op: run.op, attempt, phase, at_ms, frame, target: bounds, point, masked, note });
    }
}

/// How long an `after` frame waits for the window to repaint an effect accessibility saw.
const REPAINT_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// Whether two captures of one region (both with their secret areas painted over) hold
/// the same pixels.
fn same_pixels(a: &deft_types::Frame, b: &deft_types::Frame) -> bool {
    deft_diff::digest(a) == deft_diff::digest(b)
}
