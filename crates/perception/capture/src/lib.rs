//! Screen and window capture: the seam between Deft and the pixels on screen.
//!
//! The seam is [`Capture`]: capture a [`CaptureTarget`] (the screen, a monitor, a window, a region)
//! as a [`Frame`] that carries its screen position, a `CLOCK_MONOTONIC` timestamp, the
//! monitor and the scale factor; its coordinates are [`deft_types::Physical`] pixels.
//!
//! The key design decision is that **a capturer is a long-lived object, not a function**.
//! Verifying an action takes frames before and after it, often many in a row while waiting
//! for the screen to settle, so the cost that matters is the cost of the *next* capture.
//! [`X11Capture`] keeps one X connection for its whole life and, where the server offers
//! MIT-SHM, one shared memory segment attached once and grown only when a larger capture
//! needs it: a capture is then one request, the server copying pixels straight into our
//! memory, and one conversion pass to RGBA. xcap, the portable backend (`XcapCapture`,
//! feature `xcap`), opens a new connection and moves every pixel through the socket on
//! each call, which costs several times more on X11; it stays for Wayland, Windows and
//! macOS.
//!
//! [`open_default`] chooses: X11 (with MIT-SHM when available, plain `GetImage` otherwise)
//! whenever an X display answers, because without MIT-SHM xcap would do the same plain
//! `GetImage`, plus a new connection per call; xcap when no X display does and the feature
//! is on. On a wlroots compositor (sway and its kin) with no X display, [`WlrCapture`]
//! copies the outputs with the compositor's screencopy protocol; on GNOME, [`MutterCapture`]
//! reads mutter's screen cast of the primary monitor through PipeWire. [`FakeCapture`] serves tests of
//! the crates above from a picture in memory, with the same target rules and errors.
//!
//! The only unsafe code (mapping the shared segment, reading the clock) sits in one small
//! module, `sys`, with the reasons written there.

mod error;
mod fake;
#[cfg(target_os = "linux")]
mod mutter;
mod pixels;
#[cfg(target_os = "linux")]
mod sys;
mod target;
#[cfg(target_os = "linux")]
mod wlr;
#[cfg(target_os = "linux")]
mod x11;
#[cfg(feature = "xcap")]
mod xcap_backend;

pub use deft_types::Frame;
pub use error::CaptureError;
pub use fake::{FakeCapture, FakeWindow};
#[cfg(target_os = "linux")]
pub use mutter::MutterCapture;
pub use target::{CaptureTarget, Monitor, WindowRef};
#[cfg(target_os = "linux")]
pub use wlr::WlrCapture;
#[cfg(target_os = "linux")]
pub use x11::{X11Capture, X11Options};
#[cfg(feature = "xcap")]
pub use xcap_backend::XcapCapture;

/// Something that captures the screen.
pub trait Capture {
    /// Capture `what` now.
    fn capture(&mut self, what: &CaptureTarget) -> Result<Frame, CaptureError>;

    /// The monitors, in the screen's physical pixels; never empty on a working display.
    fn monitors(&mut self) -> Result<Vec<Monitor>, CaptureError>;

    /// Whether frames come fast enough to watch a press: a frame taken a few milliseconds
    /// apart from the last shows what changed between (a button's look before and while it
    /// is held). True by default; false for a backend whose every frame costs a process.
    fn watches_presses(&self) -> bool {
        true
    }

    /// Which backend this is: `x11-shm`, `x11-getimage`, `wlr-screencopy`, `mutter-screencast`,
    /// `xcap` or `fake`.
    fn backend_name(&self) -> &'static str;
}

/// The best capturer for `display` (an X display such as `":7"`, or `None` for the
/// platform's default): X11 when the display answers (MIT-SHM if it can), else xcap when
/// compiled in and no particular display was named (xcap cannot be pointed at one).
/// [`Capture::backend_name`] says which was chosen.
pub fn open_default(display: Option<&str>) -> Result<Box<dyn Capture + Send>, CaptureError> {
    #[cfg(target_os = "linux")]
    {
        match X11Capture::connect(display) {
            Ok(x11) => Ok(Box::new(x11)),
            Err(e) => fallback(display, e),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        fallback(
            display,
            CaptureError::NoDisplay {
                display: display.map_or_else(|| "the default display".into(), |d| format!("display '{d}'")),
                why: "only the xcap backend captures on this platform".into(),
            },
        )
    }
}

/// xcap when it is compiled in and may serve `display`; otherwise `err`.
fn fallback(display: Option<&str>, err: CaptureError) -> Result<Box<dyn Capture + Send>, CaptureError> {
    #[cfg(feature = "xcap")]
    if display.is_none()
        && let Ok(xcap) = XcapCapture::new()
    {
        return Ok(Box::new(xcap));
    }
    let _ = display;
    Err(err)
}

/// Now, in microseconds of `CLOCK_MONOTONIC` on Linux (comparable with other processes'
/// readings of that clock, e.g. Python's `time.monotonic()`); elsewhere, microseconds
/// since this process first asked, which only orders frames among themselves.
pub(crate) fn now_us() -> u64 {
    #[cfg(target_os = "linux")]
    {
        sys::monotonic_us()
    }
    #[cfg(not(target_os = "linux"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static BASE: OnceLock<Instant> = OnceLock::new();
        u64::try_from(BASE.get_or_init(Instant::now).elapsed().as_micros()).unwrap_or(u64::MAX)
    }
}
