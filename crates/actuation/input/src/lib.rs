//! Mouse and keyboard input for Deft, with explicit coordinate mapping.
//!
//! The key design decision: **the [`Input`] trait takes physical pixels only**
//! (`Point<Physical>`), and turning anything else into physical pixels is an explicit,
//! per-window step in [`mapping`]. Accessibility reports logical points; on a window that
//! the toolkit scales (GTK with `GDK_SCALE=2` on X11) a logical point is half the physical
//! one, and a click at the unconverted point silently lands elsewhere. Nothing outside the
//! window tells the scale (Xvfb claims 96 dpi, captures claim scale 1.0), so
//! [`window_scale`] derives it per window by comparing the window's logical size
//! (accessibility) with its physical size (the display server, via a [`WindowLocator`]).
//! Screenshot pixels (perhaps downscaled for a vision model) go through a
//! [`ScreenshotMapping`].
//!
//! The seams are narrow so other platforms plug in without changing callers: [`Input`]
//! (five calls; clicks, drags and named chords are provided on top) and [`WindowLocator`]
//! (one call). Key names are platform-neutral ([`Chord`]); each backend maps them.
//!
//! Backends: [`EnigoInput`] (enigo 0.6; on Linux its x11rb backend, which speaks X11 and
//! XTest in pure Rust: nothing to link) behind the `enigo` feature, [`X11Windows`] behind
//! `x11`, on Wayland [`WlrInput`] (wlroots' virtual pointer and keyboard), [`RemoteDesktopInput`]
//! (GNOME's RemoteDesktop API) and [`WaylandWindows`] (sway's IPC, or Deft's GNOME Shell
//! extension) behind `wayland`, and [`RecordingInput`], a fake for the layers above.

mod error;
mod input;
mod keys;
pub mod mapping;
mod recording;
mod refusing;
mod watch;
mod windows;

#[cfg(feature = "enigo")]
mod enigo_input;
#[cfg(all(feature = "wayland", unix))]
mod remote_desktop_input;
#[cfg(feature = "wayland")]
mod wayland_windows;
#[cfg(all(feature = "wayland", unix))]
mod wlr_input;
#[cfg(feature = "x11")]
mod x11_windows;

#[cfg(feature = "enigo")]
pub use enigo_input::{EnigoConfig, EnigoInput};
pub use error::InputError;
pub use input::{ButtonAction, DragConfig, Input, drag_path};
pub use keys::{Chord, Key, Modifier, NamedKey};
pub use mapping::{ScreenshotMapping, click_point, window_scale};
pub use recording::{Recorded, RecordingInput};
pub use refusing::RefusingInput;
#[cfg(all(feature = "wayland", unix))]
pub use remote_desktop_input::RemoteDesktopInput;
#[cfg(all(feature = "x11", unix))]
pub use watch::X11InputWatch;
pub use watch::{InputWatch, Watched, chord_of, key_of_keysym};
#[cfg(feature = "wayland")]
pub use wayland_windows::WaylandWindows;
pub use windows::{Handled, WindowGeometry, WindowLocator, WindowQuery};
#[cfg(all(feature = "wayland", unix))]
pub use wlr_input::WlrInput;
#[cfg(feature = "x11")]
pub use x11_windows::X11Windows;
