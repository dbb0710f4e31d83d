//! Frames: captured pixels with where, when and at what scale they were taken.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::geometry::{Physical, Point, Rect, ScaleFactor};

/// A captured image of (part of) the screen, RGBA8, rows top to bottom, no padding.
///
/// Shared by capture (which makes frames), diff and OCR (which read them), so none of those
/// depends on another. Pixels are in physical pixels; `origin` places the frame on screen.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
    /// Screen position of the frame's top-left pixel.
    pub origin: Point<Physical>,
    /// Capture time in microseconds of the monotonic clock (CLOCK_MONOTONIC on Linux).
    pub timestamp_us: u64,
    /// Which monitor, when the frame came from one (its backend's name or index).
    pub monitor: Option<String>,
    /// The scale factor of what was captured (a window's, or the monitor's).
    pub scale: ScaleFactor,
}

/// A frame whose pixel buffer does not match its size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameError(pub String);

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FrameError {}

impl Frame {
    /// Largest side accepted: far beyond any real screen, small enough that
    /// `width * height * 4` never overflows.
    pub const MAX_SIDE: u32 = 32_768;

    /// A frame from RGBA8 pixels; fails unless `pixels.len() == width * height * 4` and
    /// both sides are at most [`Frame::MAX_SIDE`].
    pub fn new(width: u32, height: u32, pixels: Vec<u8>, origin: Point<Physical>) -> Result<Frame, FrameError> {
        if width > Self::MAX_SIDE || height > Self::MAX_SIDE {
            return Err(FrameError(format!(
                "a {width}x{height} frame is too large: each side must be at most {}",
                Self::MAX_SIDE
            )));
        }
        let expected = width as usize * height as usize * 4;
        if pixels.len() != expected {
            return Err(FrameError(format!(
                "a {width}x{height} RGBA frame needs {expected} bytes, got {}",
                pixels.len()
            )));
        }
        Ok(Frame { width, height, pixels, origin, timestamp_us: 0, monitor: None, scale: ScaleFactor::ONE })
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The RGBA8 bytes.
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// One row of RGBA8 bytes, or `None` past the bottom.
    pub fn row(&self, y: u32) -> Option<&[u8]> {
        let stride = self.width as usize * 4;
        let start = (y as usize).checked_mul(stride)?;
        self.pixels.get(start..start + stride)
    }

    /// The RGBA value at `(x, y)` in frame coordinates, or `None` outside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width {
            return None;
        }
        let i = x as usize * 4;
        self.row(y).map(|r| [r[i], r[i + 1], r[i + 2], r[i + 3]])
    }

    /// Where the frame lies on screen.
    pub fn screen_rect(&self) -> Rect<Physical> {
        Rect::new(self.origin.x, self.origin.y, self.width, self.height)
    }

    /// Take the pixel buffer back.
    pub fn into_pixels(self) -> Vec<u8> {
        self.pixels
    }
}

impl fmt::Debug for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Frame")
            .field("size", &format_args!("{}x{}", self.width, self.height))
            .field("origin", &self.origin)
            .field("timestamp_us", &self.timestamp_us)
            .field("monitor", &self.monitor)
            .field("scale", &self.scale.get())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_must_match_buffer() {
        let f = Frame::new(2, 1, vec![1, 2, 3, 4, 5, 6, 7, 8], Point::new(10, 20)).unwrap();
        assert_eq!(f.pixel(1, 0), Some([5, 6, 7, 8]));
        assert_eq!(f.pixel(2, 0), None);
        assert_eq!(f.pixel(0, 1), None);
        assert_eq!(f.screen_rect(), Rect::new(10, 20, 2, 1));
        let e = Frame::new(2, 2, vec![0; 3], Point::new(0, 0)).unwrap_err();
        assert!(e.0.contains("needs 16 bytes, got 3"), "{e}");
        assert!(Frame::new(40_000, 1, vec![], Point::new(0, 0)).unwrap_err().0.contains("too large"));
    }
}
