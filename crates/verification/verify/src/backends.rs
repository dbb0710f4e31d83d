//! The backends an executor drives: accessibility, input, window geometry, capture, OCR.

use deft_a11y::AnyAccessibility;
use deft_capture::Capture;
use deft_input::{Input, WindowLocator};
use deft_types::{Frame, Physical, Rect, TextMatch};

/// The perception and actuation backends an [`crate::Executor`] carries its steps out with.
///
/// Each is chosen at runtime ([`crate::Desktop`] picks them for a session), so the CLI and
/// the tests can mix real backends and fakes freely.
pub struct Backends {
    /// The accessibility backend: finding targets, reading state, actions, events.
    pub a11y: AnyAccessibility,
    /// Mouse and keyboard, in physical pixels.
    pub input: Box<dyn Input + Send>,
    /// The display server's window geometry, for each window's scale factor (logical
    /// accessibility points to physical input pixels). `None`: scale 1 everywhere.
    pub windows: Option<Box<dyn WindowLocator + Send>>,
    /// Screen capture, for the pixel signal. `None`: verification uses accessibility only.
    pub capture: Option<Box<dyn Capture + Send>>,
    /// Text on screen, for targets that are not in the accessibility tree. `None`: such
    /// targets are not found (the outcome suggests `use_vision`).
    pub ocr: Option<Box<dyn ScreenText>>,
}

/// The seam to text recognition: find text on a frame. Kept narrow so that `deft-ocr` (or
/// a fake) plugs in without this crate depending on how recognition works.
pub trait ScreenText: Send + Sync {
    /// Places on `frame` where `text` is shown, best match first.
    fn find(&self, frame: &Frame, text: &TextMatch) -> Result<Vec<TextHit>, String>;
}

/// A shared recogniser (the executor's seam and a face's `ocr` tool use one engine).
impl<T: ScreenText + ?Sized> ScreenText for std::sync::Arc<T> {
    fn find(&self, frame: &Frame, text: &TextMatch) -> Result<Vec<TextHit>, String> {
        (**self).find(frame, text)
    }
}

/// Text found on screen.
#[derive(Clone, Debug, PartialEq)]
pub struct TextHit {
    /// The text as read.
    pub text: String,
    /// Where, in physical screen pixels.
    pub bounds: Rect<Physical>,
    /// How well it matches, in `0..=1`.
    pub score: f64,
}
