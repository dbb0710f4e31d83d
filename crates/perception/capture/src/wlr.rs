//! Capture on a wlroots compositor (sway, Hyprland, labwc, river): each output copied with
//! `zwlr_screencopy_manager_v1` (deft-wayland speaks it), placed on the output layout, the
//! coordinates the pointer and sway's windows use. Windows are found through sway's IPC,
//! where there is one: the Wayland protocol tells a client nothing of other windows.
//!
//! Frames are in layout units: an output with a scale other than 1 is copied in its own
//! pixels and resampled (nearest pixel) to its layout size, so a frame's pixel (x, y) is
//! always where the pointer goes for (x, y).

use std::path::{Path, PathBuf};

use deft_types::{Physical, Point, Rect, ScaleFactor, Size};
use deft_wayland::{Image, Output, Screencopy};

use crate::error::CaptureError;
use crate::pixels::blit;
use crate::sys::monotonic_us;
use crate::target::{CaptureTarget, Monitor, WindowRef, clip_to, find_monitor, pick_by_title};
use crate::{Capture, Frame};

const NAME: &str = "wlr-screencopy";

/// A capturer of a wlroots compositor's outputs, connected for its lifetime.
#[derive(Debug)]
pub struct WlrCapture {
    copy: Screencopy,
    /// sway's IPC socket, to find windows by.
    sway_ipc: Option<PathBuf>,
}

fn backend(message: String, transient: bool) -> CaptureError {
    CaptureError::Backend { backend: NAME, message, transient }
}

fn layout_rect(o: &Output) -> Rect<Physical> {
    Rect::new(o.position.0, o.position.1, o.size.0, o.size.1)
}

impl WlrCapture {
    /// Connects to the compositor at `socket` (a Wayland socket's path); `sway_ipc` is
    /// sway's IPC socket, when windows are to be captured by title or id.
    pub fn connect(socket: &Path, sway_ipc: Option<PathBuf>) -> Result<WlrCapture, CaptureError> {
        // Not `NoDisplay`: its advice is about X displays.
        let copy = Screencopy::connect(socket).map_err(|why| {
            backend(format!("cannot capture the Wayland compositor at {}: {why}", socket.display()), false)
        })?;
        Ok(WlrCapture { copy, sway_ipc })
    }

    /// The layout's bounding rectangle.
    fn bounds(&self) -> Rect<Physical> {
        let mut rects = self.copy.outputs().iter().map(layout_rect);
        let first = rects.next().unwrap_or(Rect::new(0, 0, 0, 0));
        rects.fold(first, |a, b| {
            let (x0, y0) = (a.x.min(b.x), a.y.min(b.y));
            let x1 = (a.x + a.w as i32).max(b.x + b.w as i32);
            let y1 = (a.y + a.h as i32).max(b.y + b.h as i32);
            Rect::new(x0, y0, (x1 - x0) as u32, (y1 - y0) as u32)
        })
    }

    /// The pixels of `rect` (on the layout, within its bounds), from every output it
    /// touches; what no output covers stays black.
    fn grab(&mut self, rect: Rect<Physical>) -> Result<Vec<u8>, CaptureError> {
        let mut pixels = vec![0u8; rect.w as usize * rect.h as usize * 4];
        let places: Vec<(Rect<Physical>, (u32, u32))> =
            self.copy.outputs().iter().map(|o| (layout_rect(o), o.size)).collect();
        for (i, (place, size)) in places.into_iter().enumerate() {
            let Some(part) = rect.intersection(&place) else { continue };
            let local = (part.x - place.x, part.y - place.y, part.w, part.h);
            let whole = local == (0, 0, size.0, size.1);
            let image = self.copy.capture(i, (!whole).then_some(local)).map_err(|m| backend(m, true))?;
            let image = resample(image, part.w, part.h);
            let at = ((part.x - rect.x) as u32, (part.y - rect.y) as u32);
            blit(&mut pixels, rect.w, &image.rgba, image.width, at);
        }
        Ok(pixels)
    }

    /// Where the window `which` shows its content, from sway's IPC.
    fn window(&self, which: &WindowRef) -> Result<Rect<Physical>, CaptureError> {
        let not_found = |why: String| CaptureError::WindowNotFound { window: which.to_string(), why };
        let ipc = self.sway_ipc.as_ref().ok_or_else(|| {
            not_found(
                "this compositor keeps its window list to itself (Deft reads windows on Wayland through \
                 sway's IPC only so far); capture the screen or a region instead"
                    .into(),
            )
        })?;
        let windows = deft_wayland::sway::windows(ipc).map_err(|e| not_found(e.to_string()))?;
        let id = match which {
            WindowRef::Id(id) => *id,
            WindowRef::Title(title) => {
                let shown: Vec<(u64, String)> =
                    windows.iter().filter(|w| w.visible).map(|w| (w.id, w.title.clone())).collect();
                pick_by_title(title, &shown)?
            }
        };
        let window =
            windows.iter().find(|w| w.id == id).ok_or_else(|| not_found("sway shows no such window".into()))?;
        if !window.visible {
            return Err(CaptureError::WindowNotVisible {
                window: which.to_string(),
                why: "it is on a workspace not shown, or behind a tab".into(),
            });
        }
        let (x, y, w, h) = window.content;
        Ok(Rect::new(x, y, w, h))
    }

    /// What `what` covers on the layout, and the output it lies on.
    fn resolve(&mut self, what: &CaptureTarget) -> Result<(Rect<Physical>, Option<String>), CaptureError> {
        let bounds = self.bounds();
        let size = Size::new(bounds.w, bounds.h);
        let rect = match what {
            CaptureTarget::Screen => bounds,
            CaptureTarget::Monitor(name) => find_monitor(&self.monitors()?, name)?.rect,
            CaptureTarget::Region(region) => clip_to(*region, bounds, size)?,
            CaptureTarget::Window(which) => {
                let content = self.window(which)?;
                clip_to(content, bounds, size).map_err(|_| CaptureError::WindowNotVisible {
                    window: which.to_string(),
                    why: "it lies entirely outside the outputs".into(),
                })?
            }
        };
        let centre: Point<Physical> = rect.center();
        let output = self.copy.outputs().iter().find(|o| layout_rect(o).contains(centre)).map(|o| o.name.clone());
        Ok((rect, output))
    }
}

/// `image` at `w` x `h` (nearest pixel): an output with a scale other than 1 copies more
/// pixels than it covers on the layout.
fn resample(image: Image, w: u32, h: u32) -> Image {
    if (image.width, image.height) == (w, h) || w == 0 || h == 0 {
        return image;
    }
    let mut rgba = Vec::with_capacity(w as usize * h as usize * 4);
    for y in 0..h {
        let sy = (u64::from(y) * u64::from(image.height) / u64::from(h)) as usize;
        for x in 0..w {
            let sx = (u64::from(x) * u64::from(image.width) / u64::from(w)) as usize;
            let at = (sy * image.width as usize + sx) * 4;
            rgba.extend_from_slice(&image.rgba[at..at + 4]);
        }
    }
    Image { width: w, height: h, rgba }
}

impl Capture for WlrCapture {
    fn capture(&mut self, what: &CaptureTarget) -> Result<Frame, CaptureError> {
        let (rect, monitor) = self.resolve(what)?;
        let timestamp_us = monotonic_us();
        let pixels = self.grab(rect)?;
        let mut frame = Frame::new(rect.w, rect.h, pixels, rect.origin()).map_err(|e| backend(e.to_string(), false))?;
        frame.timestamp_us = timestamp_us;
        frame.monitor = monitor;
        frame.scale = ScaleFactor::ONE;
        Ok(frame)
    }

    fn monitors(&mut self) -> Result<Vec<Monitor>, CaptureError> {
        Ok(self
            .copy
            .outputs()
            .iter()
            .enumerate()
            .map(|(i, o)| Monitor {
                name: o.name.clone(),
                rect: layout_rect(o),
                primary: i == 0,
                scale: ScaleFactor::ONE,
            })
            .collect())
    }

    fn backend_name(&self) -> &'static str {
        NAME
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaled_output_is_resampled_to_its_layout_size() {
        // 4x2 pixels of a scale-2 output: each 2x2 block one colour.
        let px = |v: u8| [v, v, v, 255];
        let row: Vec<u8> = [px(1), px(1), px(2), px(2)].concat();
        let image = Image { width: 4, height: 2, rgba: [row.clone(), row].concat() };
        let small = resample(image, 2, 1);
        assert_eq!(small.rgba, [px(1), px(2)].concat());
    }
}
