//! Errors of deft-ocr: each says what went wrong and what to do about it.

use std::path::PathBuf;

use deft_types::{Physical, Rect};

/// Why OCR could not run. Bad input never panics; it is one of these.
#[derive(Debug, thiserror::Error)]
pub enum OcrError {
    /// A model file's SHA-256 is not the expected one.
    #[error(
        "model file {file} has SHA-256 {actual}, expected {expected}: the file is corrupt or not the \
         official ocrs model; replace it with the official file, or load it without a hash check"
    )]
    ModelHash {
        /// The file (or `embedded:<name>` for a model compiled into the binary).
        file: PathBuf,
        /// The expected SHA-256, hex.
        expected: String,
        /// The SHA-256 of the bytes found, hex.
        actual: String,
    },
    /// A model file could not be read or is not a model rten can load.
    #[error("could not load model file {file}: {why}; expect an ONNX (.onnx) or RTen (.rten) ocrs model")]
    ModelLoad {
        /// The file.
        file: PathBuf,
        /// What failed.
        why: String,
    },
    /// The frame (or region) is larger than OCR accepts.
    #[error("a {w}x{h} image is too large for OCR (at most {max} pixels): pass a region")]
    FrameTooLarge {
        /// Width in pixels.
        w: u32,
        /// Height in pixels.
        h: u32,
        /// Largest accepted pixel count.
        max: u64,
    },
    /// The region is empty or does not overlap the frame.
    #[error("region {region} is empty or lies outside the frame at {frame}: pass a region inside the frame")]
    BadRegion {
        /// The region asked for, in screen coordinates.
        region: Rect<Physical>,
        /// Where the frame lies on screen.
        frame: Rect<Physical>,
    },
    /// The recognition backend failed on valid input (a bug or a model that does not fit).
    #[error("the OCR backend failed: {0}")]
    Backend(String),
}
