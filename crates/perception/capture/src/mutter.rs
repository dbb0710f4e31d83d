//! Capture on GNOME (mutter): the primary monitor recorded by a screen cast session of
//! mutter's own D-Bus API (deft-wayland's `RemoteDesktop::record`), its frames read from
//! the PipeWire stream through GStreamer's `pipewiresrc` (`gst-launch-1.0`, one frame per
//! capture, converted to RGBA). A consumer that connects gets the monitor as it is now:
//! mutter sends a whole frame to each new one. The session is held for the capturer's
//! life; each frame costs a short process (tens of milliseconds, measured in
//! docs/BENCHMARKS.md).
//!
//! GNOME tells no client where its windows are, so a window is not captured (the screen
//! or a region is), and only the primary monitor is recorded so far.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use deft_types::{Rect, ScaleFactor, Size};
use deft_wayland::mutter::RemoteDesktop;

use crate::error::CaptureError;
use crate::sys::monotonic_us;
use crate::target::{CaptureTarget, Monitor, clip_to, find_monitor};
use crate::{Capture, Frame};

const NAME: &str = "mutter-screencast";

/// How long one frame may take to come through PipeWire.
const FRAME_LIMIT: Duration = Duration::from_secs(5);

/// A capturer of GNOME's primary monitor, its screen cast held for its lifetime.
#[derive(Debug)]
pub struct MutterCapture {
    cast: RemoteDesktop,
    node: u32,
}

fn backend(message: String, transient: bool) -> CaptureError {
    CaptureError::Backend { backend: NAME, message, transient }
}

impl MutterCapture {
    /// Records the primary monitor of the mutter on the session bus at `address` (`None`:
    /// the session's own).
    pub fn connect(address: Option<&str>) -> Result<MutterCapture, CaptureError> {
        let cast =
            RemoteDesktop::record(address).map_err(|e| backend(format!("cannot record GNOME's screen: {e}"), false))?;
        let node = cast.node().ok_or_else(|| {
            backend("mutter recorded the screen but announced no PipeWire stream for it".into(), false)
        })?;
        Ok(MutterCapture { cast, node })
    }

    fn monitor(&self) -> Monitor {
        let m = self.cast.monitor();
        Monitor {
            name: m.name.clone(),
            rect: Rect::new(m.origin.0, m.origin.1, m.size.0, m.size.1),
            primary: true,
            scale: ScaleFactor::ONE,
        }
    }

    /// One frame of the whole monitor, RGBA.
    fn frame(&self) -> Result<Vec<u8>, CaptureError> {
        let (w, h) = self.cast.monitor().size;
        let caps = format!("video/x-raw,format=RGBA,width={w},height={h}");
        let mut child = Command::new("gst-launch-1.0")
            .args(["-q", "pipewiresrc", &format!("path={}", self.node), "num-buffers=1", "!", "videoconvert", "!"])
            .args([caps.as_str(), "!", "fdsink", "fd=1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                backend(
                    format!(
                        "cannot run gst-launch-1.0 to read GNOME's screen ({e}): install GStreamer's tools and its \
                         PipeWire plugin (Debian: gstreamer1.0-tools gstreamer1.0-pipewire gstreamer1.0-plugins-base)"
                    ),
                    false,
                )
            })?;
        let want = w as usize * h as usize * 4;
        let mut stdout = child.stdout.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let mut pixels = Vec::with_capacity(want);
            let _ = stdout.read_to_end(&mut pixels);
            pixels
        });
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| backend(e.to_string(), true))? {
                break status;
            }
            if start.elapsed() > FRAME_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                return Err(backend(
                    format!(
                        "no frame came through PipeWire within {FRAME_LIMIT:?}: is a session manager (wireplumber) \
                         running to link the stream?"
                    ),
                    true,
                ));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let pixels = reader.join().unwrap_or_default();
        if !status.success() || pixels.len() != want {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            let tail: String = err.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
            return Err(backend(
                format!("GStreamer gave {} bytes for a {w}x{h} frame ({status}): {tail}", pixels.len()),
                true,
            ));
        }
        Ok(pixels)
    }
}

/// The rows and columns of `rect` (within a `width`-pixel-wide RGBA image at the origin).
fn crop(pixels: &[u8], width: u32, rect: Rect<deft_types::Physical>) -> Vec<u8> {
    let mut out = Vec::with_capacity(rect.w as usize * rect.h as usize * 4);
    for y in rect.y..rect.y + rect.h as i32 {
        let at = (y as usize * width as usize + rect.x as usize) * 4;
        out.extend_from_slice(&pixels[at..at + rect.w as usize * 4]);
    }
    out
}

impl Capture for MutterCapture {
    fn capture(&mut self, what: &CaptureTarget) -> Result<Frame, CaptureError> {
        let monitor = self.monitor();
        let bounds = monitor.rect;
        let size = Size::new(bounds.w, bounds.h);
        let rect = match what {
            CaptureTarget::Screen => bounds,
            CaptureTarget::Monitor(name) => find_monitor(std::slice::from_ref(&monitor), name)?.rect,
            CaptureTarget::Region(region) => clip_to(*region, bounds, size)?,
            CaptureTarget::Window(which) => {
                return Err(CaptureError::WindowNotFound {
                    window: which.to_string(),
                    why: "GNOME tells no client where its windows are: capture the screen or a region instead".into(),
                });
            }
        };
        let timestamp_us = monotonic_us();
        let whole = self.frame()?;
        let local = Rect::new(rect.x - bounds.x, rect.y - bounds.y, rect.w, rect.h);
        let pixels = if local == Rect::new(0, 0, bounds.w, bounds.h) { whole } else { crop(&whole, bounds.w, local) };
        let mut frame = Frame::new(rect.w, rect.h, pixels, rect.origin()).map_err(|e| backend(e.to_string(), false))?;
        frame.timestamp_us = timestamp_us;
        frame.monitor = Some(monitor.name);
        frame.scale = ScaleFactor::ONE;
        Ok(frame)
    }

    fn monitors(&mut self) -> Result<Vec<Monitor>, CaptureError> {
        Ok(vec![self.monitor()])
    }

    /// A frame costs a `gst-launch-1.0` process here (60-113 ms measured): too slow to see
    /// a button's look before a press and while it is held.
    fn watches_presses(&self) -> bool {
        false
    }

    fn backend_name(&self) -> &'static str {
        NAME
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_is_cut_from_the_whole_frame_row_by_row() {
        // 3x2 pixels, each pixel's red channel its index.
        let pixels: Vec<u8> = (0..6u8).flat_map(|i| [i, 0, 0, 255]).collect();
        let cut = crop(&pixels, 3, Rect::new(1, 0, 2, 2));
        let reds: Vec<u8> = cut.chunks(4).map(|p| p[0]).collect();
        assert_eq!(reds, [1, 2, 4, 5]);
    }
}
