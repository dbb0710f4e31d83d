//! A capture backend over a picture held in memory, for tests of the crates above.

use deft_types::{Frame, Physical, Point, Rect, ScaleFactor, Size};

use crate::error::{CaptureError, show_rect};
use crate::target::{self, CaptureTarget, Monitor, WindowRef};
use crate::{Capture, pixels};

/// A window of a [`FakeCapture`] screen.
#[derive(Clone, Debug, PartialEq)]
pub struct FakeWindow {
    /// Its id, for [`WindowRef::Id`].
    pub id: u64,
    /// Its title, for [`WindowRef::Title`].
    pub title: String,
    /// Where its contents lie on the screen.
    pub rect: Rect<Physical>,
    /// Whether it is mapped; an unmapped window cannot be captured.
    pub visible: bool,
}

/// Captures from a screen picture given by the test, with the same target rules (region
/// clipping, monitor and window lookup, errors) as the real backends.
///
/// Timestamps come from the same clock as real frames, so they order with real events.
pub struct FakeCapture {
    screen: Frame,
    monitors: Vec<Monitor>,
    windows: Vec<FakeWindow>,
    captures: usize,
}

impl FakeCapture {
    /// A screen showing `screen` (its origin is ignored: the screen starts at 0,0), with
    /// one monitor named `screen` covering it and no windows.
    pub fn new(screen: Frame) -> FakeCapture {
        let rect = Rect::new(0, 0, screen.width(), screen.height());
        let whole = Monitor { name: "screen".into(), rect, primary: true, scale: ScaleFactor::ONE };
        FakeCapture { screen, monitors: vec![whole], windows: Vec::new(), captures: 0 }
    }

    /// Replace the monitors.
    pub fn with_monitors(mut self, monitors: Vec<Monitor>) -> FakeCapture {
        self.monitors = monitors;
        self
    }

    /// Add a window.
    pub fn with_window(mut self, window: FakeWindow) -> FakeCapture {
        self.windows.push(window);
        self
    }

    /// Show another picture from the next capture on (it must have the same size to keep
    /// monitors and windows meaningful, but nothing checks).
    pub fn set_screen(&mut self, screen: Frame) {
        self.screen = screen;
    }

    /// The windows, to move or hide one between captures.
    pub fn windows_mut(&mut self) -> &mut Vec<FakeWindow> {
        &mut self.windows
    }

    /// How many frames have been captured.
    pub fn captures(&self) -> usize {
        self.captures
    }

    fn size(&self) -> Size<Physical> {
        Size::new(self.screen.width(), self.screen.height())
    }

    fn window(&self, which: &WindowRef) -> Result<&FakeWindow, CaptureError> {
        let id = match which {
            WindowRef::Id(id) => *id,
            WindowRef::Title(title) => {
                let visible: Vec<(u64, String)> =
                    self.windows.iter().filter(|w| w.visible).map(|w| (w.id, w.title.clone())).collect();
                target::pick_by_title(title, &visible)?
            }
        };
        self.windows.iter().find(|w| w.id == id).ok_or_else(|| CaptureError::WindowNotFound {
            window: which.to_string(),
            why: "there is no such window (it may have been closed)".into(),
        })
    }
}

impl Capture for FakeCapture {
    fn capture(&mut self, what: &CaptureTarget) -> Result<Frame, CaptureError> {
        let size = self.size();
        let at =
            |monitors: &[Monitor], r: Rect<Physical>| (r, target::monitor_at(monitors, &r).map(|m| m.name.clone()));
        let (rect, monitor) = match what {
            CaptureTarget::Screen => (Rect::new(0, 0, size.w, size.h), None),
            CaptureTarget::Monitor(name) => {
                let m = target::find_monitor(&self.monitors, name)?;
                (target::clip_region(m.rect, size)?, Some(m.name.clone()))
            }
            CaptureTarget::Region(region) => at(&self.monitors, target::clip_region(*region, size)?),
            CaptureTarget::Window(which) => {
                let window = self.window(which)?;
                let not_visible = |why: String| CaptureError::WindowNotVisible { window: which.to_string(), why };
                if !window.visible {
                    return Err(not_visible("it is not mapped".into()));
                }
                let rect = target::clip_region(window.rect, size).map_err(|_| {
                    not_visible(format!(
                        "it lies entirely outside the {}x{} screen, at {}",
                        size.w,
                        size.h,
                        show_rect(&window.rect)
                    ))
                })?;
                at(&self.monitors, rect)
            }
        };
        let timestamp_us = crate::now_us();
        let pixels = pixels::crop(self.screen.pixels(), self.screen.width(), rect);
        let mut frame = Frame::new(rect.w, rect.h, pixels, Point::new(rect.x, rect.y))
            .map_err(|e| CaptureError::Backend { backend: "fake", message: e.to_string(), transient: false })?;
        frame.timestamp_us = timestamp_us;
        frame.monitor = monitor;
        self.captures += 1;
        Ok(frame)
    }

    fn monitors(&mut self) -> Result<Vec<Monitor>, CaptureError> {
        Ok(self.monitors.clone())
    }

    fn backend_name(&self) -> &'static str {
        "fake"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4x3 screen whose pixel (x, y) is `[x, y, 0, 255]`.
    fn screen() -> Frame {
        let pixels = (0..3u8).flat_map(|y| (0..4u8).flat_map(move |x| [x, y, 0, 255])).collect();
        Frame::new(4, 3, pixels, Point::new(0, 0)).unwrap()
    }

    fn fake() -> FakeCapture {
        FakeCapture::new(screen())
            .with_window(FakeWindow { id: 7, title: "Notes".into(), rect: Rect::new(2, 1, 5, 5), visible: true })
            .with_window(FakeWindow { id: 8, title: "Hidden".into(), rect: Rect::new(0, 0, 2, 2), visible: false })
    }

    #[test]
    fn regions_windows_and_monitors_are_cut_from_the_screen() {
        let mut fake = fake();
        let f = fake.capture(&CaptureTarget::Region(Rect::new(-1, 1, 3, 9))).unwrap();
        assert_eq!((f.width(), f.height(), f.origin), (2, 2, Point::new(0, 1)));
        assert_eq!(f.pixel(1, 1), Some([1, 2, 0, 255]));
        assert_eq!(f.monitor.as_deref(), Some("screen"));

        let f = fake.capture(&CaptureTarget::Window(WindowRef::Title("Not".into()))).unwrap();
        assert_eq!(f.screen_rect(), Rect::new(2, 1, 2, 2), "clipped to the screen");
        assert_eq!(f.pixel(0, 0), Some([2, 1, 0, 255]));

        let f = fake.capture(&CaptureTarget::Monitor("screen".into())).unwrap();
        assert_eq!(f.pixels(), screen().pixels());
        assert!(f.timestamp_us > 0);
        assert_eq!(fake.captures(), 3);
    }

    #[test]
    fn hidden_missing_and_off_screen_windows_are_errors() {
        let mut fake = fake();
        let e = fake.capture(&CaptureTarget::Window(WindowRef::Id(8))).unwrap_err();
        assert!(matches!(e, CaptureError::WindowNotVisible { .. }), "{e}");
        let e = fake.capture(&CaptureTarget::Window(WindowRef::Title("Hidden".into()))).unwrap_err();
        assert!(matches!(e, CaptureError::WindowNotFound { .. }), "a hidden window has no visible title: {e}");
        let e = fake.capture(&CaptureTarget::Window(WindowRef::Id(9))).unwrap_err();
        assert_eq!(e.to_string(), "window 0x9 not found: there is no such window (it may have been closed)");
        fake.windows_mut()[0].rect = Rect::new(10, 10, 2, 2);
        let e = fake.capture(&CaptureTarget::Window(WindowRef::Id(7))).unwrap_err();
        assert!(e.to_string().contains("entirely outside the 4x3 screen, at 10,10 2x2"), "{e}");
    }
}
