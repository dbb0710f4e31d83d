//! Capture on GNOME (mutter): the primary monitor recorded by a screen cast session of
//! mutter's own D-Bus API (deft-wayland's `RemoteDesktop::record`), its frames read from
//! the PipeWire stream through GStreamer's `pipewiresrc` (`gst-launch-1.0`), in mutter's
//! own pixel format (BGRx, so GStreamer converts nothing). One reader runs for the
//! capturer's life and keeps the latest frame: mutter sends a whole frame when a consumer
//! connects, then one each time the screen changes, so the latest frame is the screen as
//! it is now, as soon as it reaches Deft. A capture costs a copy of what it asks for, not
//! a process (one was 60-113 ms).
//!
//! GNOME tells no client where its windows are, so a window is not captured (the screen
//! or a region is), and only the primary monitor is recorded so far.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use deft_types::{Rect, ScaleFactor, Size};
use deft_wayland::mutter::RemoteDesktop;

use crate::error::CaptureError;
use crate::sys::monotonic_us;
use crate::target::{CaptureTarget, Monitor, clip_to, find_monitor};
use crate::{Capture, Frame};

const NAME: &str = "mutter-screencast";

/// How long the first frame may take to come through PipeWire.
const FRAME_LIMIT: Duration = Duration::from_secs(5);
/// With no capture asked for this long, the reader stops at the next frame (a screen that
/// keeps changing would cost a copy of every frame); the next capture starts it again, its
/// first frame a process start away (about 80 ms).
const IDLE_STOP: Duration = Duration::from_secs(20);

const GSTREAMER_INSTALL: &str = "install GStreamer's tools and its PipeWire plugin (Debian: gstreamer1.0-tools \
                                 gstreamer1.0-pipewire gstreamer1.0-plugins-base)";

/// A capturer of GNOME's primary monitor, its screen cast held for its lifetime.
#[derive(Debug)]
pub struct MutterCapture {
    cast: RemoteDesktop,
    node: u32,
    reader: Option<Reader>,
}

fn backend(message: String, transient: bool) -> CaptureError {
    CaptureError::Backend { backend: NAME, message, transient }
}

/// What the reader thread has read so far.
#[derive(Debug, Default)]
struct Latest {
    /// The last whole frame, BGRx.
    frame: Option<Arc<Vec<u8>>>,
    /// Why the stream ended, once it has.
    ended: Option<String>,
    /// When a capture last asked for a frame.
    asked: Option<Instant>,
}

/// A `gst-launch-1.0` process streaming the monitor's frames, and the thread that reads
/// them as they come.
#[derive(Debug)]
struct Reader {
    child: Child,
    latest: Arc<(Mutex<Latest>, Condvar)>,
}

impl Reader {
    fn start(node: u32, (w, h): (u32, u32)) -> Result<Reader, CaptureError> {
        let caps = format!("video/x-raw,format=BGRx,width={w},height={h}");
        let mut child = Command::new("gst-launch-1.0")
            .args(["-q", "pipewiresrc", &format!("path={node}"), "!", caps.as_str(), "!", "fdsink", "fd=1"])
            .arg("sync=false")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                backend(format!("cannot run gst-launch-1.0 to read GNOME's screen ({e}): {GSTREAMER_INSTALL}"), false)
            })?;
        let (mut stdout, mut stderr) = (child.stdout.take().expect("piped"), child.stderr.take().expect("piped"));
        let latest = Arc::new((Mutex::new(Latest::default()), Condvar::new()));
        let shared = Arc::clone(&latest);
        let size = w as usize * h as usize * 4;
        std::thread::Builder::new()
            .name("deft-mutter-frames".into())
            .spawn(move || {
                let ended = loop {
                    let mut frame = vec![0u8; size];
                    if let Err(e) = stdout.read_exact(&mut frame) {
                        let mut said = String::new();
                        let _ = stderr.read_to_string(&mut said);
                        let tail: Vec<&str> = said.lines().rev().take(3).collect();
                        break format!("GNOME's screen stream ended ({e}): {}", tail.join(" | "));
                    }
                    let (lock, arrived) = &*shared;
                    let mut latest = lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    latest.frame = Some(Arc::new(frame));
                    arrived.notify_all();
                    if latest.asked.is_some_and(|at| at.elapsed() > IDLE_STOP) {
                        // Its stdout closed with this thread, GStreamer ends at its next write.
                        break "stopped while no capture asked for a frame".to_string();
                    }
                };
                let (lock, arrived) = &*shared;
                lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner).ended = Some(ended);
                arrived.notify_all();
            })
            .map_err(|e| backend(format!("cannot start a thread to read GNOME's screen: {e}"), false))?;
        Ok(Reader { child, latest })
    }

    /// The latest frame, waiting up to [`FRAME_LIMIT`] for the first.
    /// `Err(why)` once the stream has ended: its last frame may no longer be the screen.
    fn latest(&self) -> Result<Arc<Vec<u8>>, Result<String, CaptureError>> {
        let (lock, arrived) = &*self.latest;
        let deadline = Instant::now() + FRAME_LIMIT;
        let mut latest = lock.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        latest.asked = Some(Instant::now());
        loop {
            if let Some(why) = &latest.ended {
                return Err(Ok(why.clone()));
            }
            if let Some(frame) = &latest.frame {
                return Ok(Arc::clone(frame));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Err(backend(
                    format!(
                        "no frame came through PipeWire within {FRAME_LIMIT:?}: is a session manager (wireplumber) \
                         running to link the stream?"
                    ),
                    true,
                )));
            }
            latest = arrived.wait_timeout(latest, left).unwrap_or_else(std::sync::PoisonError::into_inner).0;
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
        Ok(MutterCapture { cast, node, reader: None })
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

    /// The monitor as it is now, BGRx: the stream's latest frame (the reader started, or
    /// started again after its stream ended, on the way).
    fn frame(&mut self) -> Result<Arc<Vec<u8>>, CaptureError> {
        if let Some(reader) = &self.reader {
            match reader.latest() {
                Ok(frame) => return Ok(frame),
                Err(Err(e)) => return Err(e),
                // Stopped while idle, or failed: started again below.
                Err(Ok(_)) => self.reader = None,
            }
        }
        let reader = self.reader.insert(Reader::start(self.node, self.cast.monitor().size)?);
        reader.latest().map_err(|e| e.map_or_else(|err| err, |why| backend(why, true)))
    }
}

/// The rows and columns of `rect` of a `width`-pixel-wide BGRx image at the origin, as
/// RGBA.
fn crop(bgrx: &[u8], width: u32, rect: Rect<deft_types::Physical>) -> Vec<u8> {
    let mut out = Vec::with_capacity(rect.w as usize * rect.h as usize * 4);
    for y in rect.y..rect.y + rect.h as i32 {
        let at = (y as usize * width as usize + rect.x as usize) * 4;
        for p in bgrx[at..at + rect.w as usize * 4].chunks_exact(4) {
            out.extend_from_slice(&[p[2], p[1], p[0], 255]);
        }
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
        let pixels = crop(&whole, bounds.w, local);
        let mut frame = Frame::new(rect.w, rect.h, pixels, rect.origin()).map_err(|e| backend(e.to_string(), false))?;
        frame.timestamp_us = timestamp_us;
        frame.monitor = Some(monitor.name);
        frame.scale = ScaleFactor::ONE;
        Ok(frame)
    }

    fn monitors(&mut self) -> Result<Vec<Monitor>, CaptureError> {
        Ok(vec![self.monitor()])
    }

    /// A frame reaches Deft a composited frame or more after the screen changed (through
    /// PipeWire and GStreamer), so a look while a press is held lags behind it: with looks
    /// as evidence here, the GTK 4 fault campaign on GNOME read a hover drawn late as a
    /// press (1 silent failure, 2 double effects in 19 actions, 2026-11-28).
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
    fn a_region_is_cut_from_the_whole_frame_row_by_row_as_rgba() {
        // 3x2 pixels of BGRx, each pixel's red channel its index, blue 9, the padding 0.
        let pixels: Vec<u8> = (0..6u8).flat_map(|i| [9, 0, i, 0]).collect();
        let cut = crop(&pixels, 3, Rect::new(1, 0, 2, 2));
        let reds: Vec<u8> = cut.chunks(4).map(|p| p[0]).collect();
        assert_eq!(reds, [1, 2, 4, 5]);
        assert!(cut.chunks(4).all(|p| p[2] == 9 && p[3] == 255), "blue in its place, opaque");
    }
}
