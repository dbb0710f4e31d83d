//! The pixel signal, for targets that accessibility does not know (raw coordinates on an
//! inaccessible app, text found by OCR): a diff of the screen around the target before and
//! after the input, with what changes by itself masked.
//!
//! Two frames are taken a little apart before the input; whatever differs between them
//! (a blinking caret, a spinner, a clock) is masked. For a pointer input the pointer is
//! moved onto the point *before* those frames, so the hover highlight of whatever lies
//! under it is in both and never passes for an effect.

use std::time::Duration;

use deft_capture::CaptureTarget;
use deft_diff::{DiffOptions, NoiseMask};
use deft_types::{Frame, Physical, Point, Rect, TextMatch};

use crate::backends::TextHit;

use crate::executor::{Executor, lock};

/// The area watched around a point when the target's window is not known.
const AROUND: (u32, u32) = (480, 360);
/// Time between the two frames taken before the input.
const SETTLE: Duration = Duration::from_millis(60);
/// Changed regions at most this thin are a caret, not an effect.
const CARET_PX: u32 = 3;

/// What the screen looked like before the input, and what changes by itself.
pub(crate) struct PixelWatch {
    region: Rect<Physical>,
    before: Frame,
    mask: NoiseMask,
}

/// The area to watch around `point`: its window when known (an effect may be anywhere in
/// it: a status line far below a button), else a box around it.
pub(crate) fn area(point: Point<Physical>, window: Option<Rect<Physical>>) -> Rect<Physical> {
    window.filter(|w| w.contains(point)).unwrap_or_else(|| {
        let (w, h) = AROUND;
        Rect::new(point.x.saturating_sub(w as i32 / 2).max(0), point.y.saturating_sub(h as i32 / 2).max(0), w, h)
    })
}

impl Executor {
    /// The topmost window holding `point`, in screen pixels: what an input there can
    /// change. `None` without a window backend.
    pub(crate) fn window_at(&self, point: Point<Physical>) -> Option<Rect<Physical>> {
        self.top_window_at(point).map(|w| w.bounds)
    }

    /// The topmost window holding `point`, whole; `None` without a window backend.
    pub(crate) fn top_window_at(&self, point: Point<Physical>) -> Option<deft_input::WindowGeometry> {
        let windows = lock(self.windows.as_ref()?).windows(&deft_input::WindowQuery::default()).ok()?;
        windows.into_iter().rev().find(|w| w.bounds.contains(point))
    }

    pub(crate) fn grab(&self, region: Rect<Physical>) -> Option<Frame> {
        let capture = self.capture.as_ref()?;
        lock(capture).capture(&CaptureTarget::Region(region)).ok()
    }

    /// Frames `region` before an input; `None` without a capturer.
    pub(crate) async fn watch_pixels(
        &self,
        region: Rect<Physical>,
        hover: Option<Point<Physical>>,
    ) -> Option<PixelWatch> {
        self.capture.as_ref()?;
        if let Some(p) = hover {
            // Errors here only cost the hover baseline; the input itself reports its own.
            let _ = lock(&self.input).move_to(p);
        }
        let first = self.grab(region)?;
        tokio::time::sleep(SETTLE).await;
        let before = self.grab(region)?;
        let mut mask = NoiseMask::new();
        if let Ok(d) = deft_diff::diff(&first, &before, &DiffOptions::default()) {
            for r in d.rects() {
                let _ = mask.add(grow(r, 4));
            }
        }
        Some(PixelWatch { region: before.screen_rect(), before, mask })
    }

    /// What changed since the watch began, outside the mask and caret-thin regions:
    /// `None` when nothing did (or the screen could not be read).
    pub(crate) fn pixel_change(&self, watch: &PixelWatch) -> Option<(String, Rect<Physical>)> {
        let now = self.grab(watch.region)?;
        if now.width() != watch.before.width() || now.height() != watch.before.height() {
            return None;
        }
        let opts = DiffOptions { mask: watch.mask.clone(), ..DiffOptions::default() };
        let d = deft_diff::diff(&watch.before, &now, &opts).ok()?;
        let real: Vec<Rect<Physical>> = d.rects().filter(|r| r.w.min(r.h) > CARET_PX).collect();
        let bounds = real.iter().copied().reduce(|a, b| a.union(&b))?;
        let what = format!(
            "pixels changed in {} region{} within {bounds} ({:.1}% of the watched area)",
            real.len(),
            if real.len() == 1 { "" } else { "s" },
            d.ratio * 100.0
        );
        Some((what, bounds))
    }
}

fn grow(r: Rect<Physical>, by: u32) -> Rect<Physical> {
    Rect::new(r.x.saturating_sub(by as i32), r.y.saturating_sub(by as i32), r.w + 2 * by, r.h + 2 * by)
}

impl Executor {
    /// The whole screen before an input whose expectation may need OCR: what changed after
    /// it is where the expected text is looked for, and nowhere else.
    pub(crate) fn watch_screen(&self) -> Option<PixelWatch> {
        self.ocr.as_ref()?;
        let capture = self.capture.as_ref()?;
        let before = lock(capture).capture(&CaptureTarget::Screen).ok()?;
        Some(PixelWatch { region: before.screen_rect(), before, mask: NoiseMask::new() })
    }

    /// `text` read by OCR in the regions that changed since `watch` began (each grown a
    /// little, so a word is read whole).
    pub(crate) fn ocr_changed(&self, watch: &PixelWatch, text: &TextMatch) -> Option<TextHit> {
        let ocr = self.ocr.as_ref()?;
        let now = self.grab(watch.region)?;
        let d = deft_diff::diff(&watch.before, &now, &DiffOptions::default()).ok()?;
        d.rects()
            .filter(|r| r.w.min(r.h) > CARET_PX)
            .filter_map(|r| grow(r, 8).intersection(&watch.region))
            .filter_map(|r| self.grab(r))
            .find_map(|frame| ocr.find(&frame, text).ok()?.into_iter().next())
    }

    /// `text` read by OCR in `region` of the screen.
    pub(crate) fn ocr_region(&self, region: Rect<Physical>, text: &TextMatch) -> Option<TextHit> {
        let ocr = self.ocr.as_ref()?;
        let frame = self.grab(region)?;
        ocr.find(&frame, text).ok()?.into_iter().next()
    }

    /// `text` read by OCR anywhere on the screen.
    pub(crate) fn ocr_screen(&self, text: &TextMatch) -> Option<TextHit> {
        let ocr = self.ocr.as_ref()?;
        let frame = lock(self.capture.as_ref()?).capture(&CaptureTarget::Screen).ok()?;
        ocr.find(&frame, text).ok()?.into_iter().next()
    }

    /// [`Self::ocr_screen`] given up at `until`: a read of the whole screen takes from a
    /// fraction of a second to seconds, and a wait's timeout is a bound, not a hint. The
    /// read runs on a blocking thread; past `until` its result is dropped when it comes.
    pub(crate) async fn ocr_screen_until(&self, text: &TextMatch, until: std::time::Instant) -> Option<TextHit> {
        let ocr = std::sync::Arc::clone(self.ocr.as_ref()?);
        let frame = lock(self.capture.as_ref()?).capture(&CaptureTarget::Screen).ok()?;
        let text = text.clone();
        let read = tokio::task::spawn_blocking(move || ocr.find(&frame, &text).ok()?.into_iter().next());
        let left = until.saturating_duration_since(std::time::Instant::now());
        tokio::time::timeout(left, read).await.ok()?.ok()?
    }
}
