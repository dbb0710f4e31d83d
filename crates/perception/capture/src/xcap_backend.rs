//! The portable backend over xcap: X11, Wayland, Windows and macOS.

use deft_types::{Frame, Physical, Rect, ScaleFactor, Size};

use crate::error::{CaptureError, show_rect};
use crate::target::{self, CaptureTarget, Monitor, WindowRef};
use crate::{Capture, pixels};

const NAME: &str = "xcap";

/// Captures through xcap, which finds the display itself (`DISPLAY` or `WAYLAND_DISPLAY`
/// on Linux). Portable, but slower on X11 than [`crate::X11Capture`]: xcap opens a new
/// connection and uses plain `GetImage` on every call.
///
/// The whole screen is composed from every monitor's image over their bounding box;
/// timestamps are taken before each capture starts.
#[derive(Debug)]
pub struct XcapCapture {
    _private: (),
}

impl XcapCapture {
    /// A capturer, after checking that xcap sees at least one monitor.
    pub fn new() -> Result<XcapCapture, CaptureError> {
        let monitors = xcap::Monitor::all()
            .map_err(|e| CaptureError::NoDisplay { display: "the default display".into(), why: e.to_string() })?;
        if monitors.is_empty() {
            return Err(CaptureError::NoDisplay {
                display: "the default display".into(),
                why: "xcap found no monitor".into(),
            });
        }
        Ok(XcapCapture { _private: () })
    }

    /// The screen as one image: a single monitor's, or all of them composed.
    fn screen(&self) -> Result<(Rect<Physical>, Vec<u8>), CaptureError> {
        let all = xcap::Monitor::all().map_err(failed)?;
        let described = all.iter().map(describe).collect::<Result<Vec<_>, _>>()?;
        let bounds = bounds(&described);
        if let [only] = all.as_slice() {
            return Ok((described[0].rect, only.capture_image().map_err(failed)?.into_raw()));
        }
        let mut canvas = vec![0u8; bounds.w as usize * bounds.h as usize * 4];
        for (monitor, info) in all.iter().zip(&described) {
            let image = monitor.capture_image().map_err(failed)?;
            let offset = ((info.rect.x - bounds.x) as u32, (info.rect.y - bounds.y) as u32);
            pixels::blit(&mut canvas, bounds.w, image.as_raw(), image.width(), offset);
        }
        Ok((bounds, canvas))
    }

    fn window(&self, which: &WindowRef) -> Result<(Rect<Physical>, Vec<u8>), CaptureError> {
        let windows = xcap::Window::all().map_err(failed)?;
        let not_found = |why: &str| CaptureError::WindowNotFound { window: which.to_string(), why: why.into() };
        let id = match which {
            WindowRef::Id(id) => *id,
            WindowRef::Title(title) => {
                let visible: Vec<(u64, String)> = windows
                    .iter()
                    .filter(|w| !w.is_minimized().unwrap_or(true))
                    .filter_map(|w| Some((u64::from(w.id().ok()?), w.title().ok()?)))
                    .collect();
                target::pick_by_title(title, &visible)?
            }
        };
        let window = windows
            .iter()
            .find(|w| w.id().ok().map(u64::from) == Some(id))
            .ok_or_else(|| not_found("there is no such window (it may have been closed)"))?;
        if window.is_minimized().map_err(failed)? {
            return Err(CaptureError::WindowNotVisible { window: which.to_string(), why: "it is minimized".into() });
        }
        let image = window.capture_image().map_err(failed)?;
        let (x, y) = (window.x().map_err(failed)?, window.y().map_err(failed)?);
        Ok((Rect::new(x, y, image.width(), image.height()), image.into_raw()))
    }
}

impl Capture for XcapCapture {
    fn capture(&mut self, what: &CaptureTarget) -> Result<Frame, CaptureError> {
        let timestamp_us = crate::now_us();
        let (rect, pixels, monitor, scale) = match what {
            CaptureTarget::Screen => {
                let (rect, pixels) = self.screen()?;
                (rect, pixels, None, ScaleFactor::ONE)
            }
            CaptureTarget::Monitor(name) => {
                let all = xcap::Monitor::all().map_err(failed)?;
                let described = all.iter().map(describe).collect::<Result<Vec<_>, _>>()?;
                let m = target::find_monitor(&described, name)?;
                let index = described.iter().position(|d| d.name == m.name).unwrap_or(0);
                let image = all[index].capture_image().map_err(failed)?;
                let rect = Rect::new(m.rect.x, m.rect.y, image.width(), image.height());
                (rect, image.into_raw(), Some(m.name.clone()), m.scale)
            }
            CaptureTarget::Region(region) => {
                let monitors = self.monitors()?;
                let bounds = bounds(&monitors);
                let rect = target::clip_to(*region, bounds, Size::new(bounds.w, bounds.h))?;
                let (screen, pixels) = self.screen()?;
                let local = Rect::new(rect.x - screen.x, rect.y - screen.y, rect.w, rect.h);
                let m = target::monitor_at(&monitors, &rect);
                (
                    rect,
                    pixels::crop(&pixels, screen.w, local),
                    m.map(|m| m.name.clone()),
                    m.map_or(ScaleFactor::ONE, |m| m.scale),
                )
            }
            CaptureTarget::Window(which) => {
                let (rect, pixels) = self.window(which)?;
                let monitors = self.monitors()?;
                let m = target::monitor_at(&monitors, &rect);
                (rect, pixels, m.map(|m| m.name.clone()), m.map_or(ScaleFactor::ONE, |m| m.scale))
            }
        };
        let mut frame = Frame::new(rect.w, rect.h, pixels, rect.origin()).map_err(|e| CaptureError::Backend {
            backend: NAME,
            message: format!("{} for {}", e, show_rect(&rect)),
            transient: false,
        })?;
        frame.timestamp_us = timestamp_us;
        frame.monitor = monitor;
        frame.scale = scale;
        Ok(frame)
    }

    fn monitors(&mut self) -> Result<Vec<Monitor>, CaptureError> {
        xcap::Monitor::all().map_err(failed)?.iter().map(describe).collect()
    }

    fn backend_name(&self) -> &'static str {
        NAME
    }
}

fn describe(m: &xcap::Monitor) -> Result<Monitor, CaptureError> {
    let scale = ScaleFactor::new(f64::from(m.scale_factor().map_err(failed)?)).unwrap_or(ScaleFactor::ONE);
    Ok(Monitor {
        name: m.name().map_err(failed)?,
        rect: Rect::new(
            m.x().map_err(failed)?,
            m.y().map_err(failed)?,
            m.width().map_err(failed)?,
            m.height().map_err(failed)?,
        ),
        primary: m.is_primary().map_err(failed)?,
        scale,
    })
}

/// The smallest rectangle holding every monitor.
fn bounds(monitors: &[Monitor]) -> Rect<Physical> {
    monitors.iter().fold(Rect::new(0, 0, 0, 0), |acc, m| acc.union(&m.rect))
}

fn failed(e: xcap::XCapError) -> CaptureError {
    CaptureError::Backend { backend: NAME, message: e.to_string(), transient: false }
}
