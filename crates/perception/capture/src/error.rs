//! What can go wrong while capturing, with the class a caller retries by.

use deft_types::{ErrorClass, Physical, Rect, Size};

/// A capture that could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CaptureError {
    /// No display to capture from: the X server is not there, or `DISPLAY` is wrong.
    #[error(
        "cannot connect to {display}: {why}; is DISPLAY set? set DISPLAY to a running X server (e.g. DISPLAY=:0), or start a headless one with Xvfb (e.g. `Xvfb :99 &` then DISPLAY=:99)"
    )]
    NoDisplay {
        /// The display asked for, in words (`the X display ':7'`, or the one DISPLAY names).
        display: String,
        /// What the connection attempt said.
        why: String,
    },
    /// A region that covers no pixel of the screen.
    #[error("cannot capture region {} of the {}x{} screen: {why}", show_rect(region), screen.w, screen.h)]
    BadRegion {
        /// The region as asked for.
        region: Rect<Physical>,
        /// The size of the screen it was clipped to.
        screen: Size<Physical>,
        /// Why it is unusable.
        why: String,
    },
    /// No monitor of that name.
    #[error("no monitor named '{name}'; the monitors are: {}", available.join(", "))]
    MonitorNotFound {
        /// The name asked for.
        name: String,
        /// The names there are.
        available: Vec<String>,
    },
    /// No window matches, or more than one does.
    #[error("window {window} not found: {why}")]
    WindowNotFound {
        /// The window as asked for (an id or a title).
        window: String,
        /// Why: no such id, no title match, or an ambiguous title.
        why: String,
    },
    /// The window exists but shows no pixel: unmapped, minimized or off-screen.
    #[error("window {window} is not visible: {why}")]
    WindowNotVisible {
        /// The window as asked for.
        window: String,
        /// Why nothing of it can be captured.
        why: String,
    },
    /// Other windows are stacked over part of the window: a capture would show their
    /// pixels there. Raise it first (as the toolbelt's `screenshot` and `ocr` do).
    #[error("window {window} is covered by {}: a capture would show their pixels; raise it first", by.join(", "))]
    WindowCovered {
        /// The window as asked for.
        window: String,
        /// Its X window id, to raise it by.
        id: u64,
        /// Where its contents lie on screen (what a capture of that region shows now is
        /// partly the covering windows).
        bounds: Rect<Physical>,
        /// The windows over it, by title.
        by: Vec<String>,
    },
    /// The backend failed.
    #[error("{backend} capture failed: {message}")]
    Backend {
        /// Which backend (see [`crate::Capture::backend_name`]).
        backend: &'static str,
        /// What happened.
        message: String,
        /// Whether trying again may work (a race with a window or screen change) rather
        /// than fail the same way (a lost connection, an unsupported pixel format).
        transient: bool,
    },
}

impl CaptureError {
    /// How a caller should treat the error: retry (transient), re-resolve the target
    /// (stale: a window may appear or come on screen), or give up (permanent).
    pub fn class(&self) -> ErrorClass {
        match self {
            CaptureError::WindowNotFound { .. } | CaptureError::WindowNotVisible { .. } => ErrorClass::Stale,
            CaptureError::WindowCovered { .. } => ErrorClass::Transient,
            CaptureError::Backend { transient: true, .. } => ErrorClass::Transient,
            CaptureError::NoDisplay { .. }
            | CaptureError::BadRegion { .. }
            | CaptureError::MonitorNotFound { .. }
            | CaptureError::Backend { transient: false, .. } => ErrorClass::Permanent,
        }
    }

    /// Whether trying the same capture again may succeed.
    pub fn is_retryable(&self) -> bool {
        self.class() != ErrorClass::Permanent
    }
}

/// `x,y wxh`, the way regions are written in messages.
pub(crate) fn show_rect(r: &Rect<Physical>) -> String {
    format!("{},{} {}x{}", r.x, r.y, r.w, r.h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_and_how_to_fix() {
        let e = CaptureError::NoDisplay { display: "the X display ':999'".into(), why: "connection refused".into() };
        let text = e.to_string();
        assert!(text.contains("':999'") && text.contains("is DISPLAY set?") && text.contains("Xvfb"), "{text}");
        assert_eq!(e.class(), ErrorClass::Permanent);

        let e = CaptureError::BadRegion {
            region: Rect::new(5, 6, 0, 10),
            screen: Size::new(1280, 800),
            why: "it is empty".into(),
        };
        assert_eq!(e.to_string(), "cannot capture region 5,6 0x10 of the 1280x800 screen: it is empty");
        assert!(!e.is_retryable());

        let e = CaptureError::Backend { backend: "x11-shm", message: "BadMatch".into(), transient: true };
        assert_eq!(e.class(), ErrorClass::Transient);
        let e = CaptureError::WindowNotVisible { window: "0x1200003".into(), why: "it is unmapped".into() };
        assert_eq!(e.class(), ErrorClass::Stale);
    }
}
