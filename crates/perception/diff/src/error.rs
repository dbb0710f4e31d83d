//! What can be wrong with the frames, regions or streams given to this crate.

use deft_types::{Frame, Physical, Point, Rect};
use thiserror::Error;

/// Frames, regions or streams this crate cannot work with. Each is a caller's mistake (or a
/// bad trace), never a transient condition: retrying with the same input fails the same way.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum DiffError {
    /// The two frames of a diff are not the same size.
    #[error(
        "cannot diff a {}x{} frame with a {}x{} frame: a pixel diff compares frames of one size; \
         capture the same screen rectangle twice (a resized window is a change, which \
         StabilityTracker reports as one)",
        a.0, a.1, b.0, b.1
    )]
    SizeMismatch {
        /// Width and height of the first frame.
        a: (u32, u32),
        /// Width and height of the second frame.
        b: (u32, u32),
    },
    /// The two frames of a diff were captured at different screen positions.
    #[error(
        "cannot diff frames captured at different screen positions ({}, {}) and ({}, {}): \
         regions are reported in screen coordinates; capture the same screen rectangle twice, \
         or set one frame's `origin` to the other's to compare contents regardless of position",
        a.x, a.y, b.x, b.y
    )]
    OriginMismatch {
        /// Screen position of the first frame.
        a: Point<Physical>,
        /// Screen position of the second frame.
        b: Point<Physical>,
    },
    /// A frame with no pixels.
    #[error("a {w}x{h} frame has no pixels to compare; capture a region at least 1x1")]
    EmptyFrame {
        /// Width of the frame.
        w: u32,
        /// Height of the frame.
        h: u32,
    },
    /// A frame with more pixels than the configured limit.
    #[error(
        "a {w}x{h} frame has {} pixels, more than the limit of {max_pixels}: diff a smaller \
         region (crop to the window of interest) or raise `DiffOptions::max_pixels`",
        u64::from(*w) * u64::from(*h)
    )]
    TooLarge {
        /// Width of the frame.
        w: u32,
        /// Height of the frame.
        h: u32,
        /// The limit in force.
        max_pixels: u64,
    },
    /// A frame whose buffer does not hold `width * height * 4` bytes.
    #[error(
        "a {w}x{h} frame holds {len} bytes instead of {}: it was not built by `Frame::new` \
         (a bad trace or a hand-made value?); rebuild it with `Frame::new`",
        u64::from(*w) * u64::from(*h) * 4
    )]
    BadBuffer {
        /// Width of the frame.
        w: u32,
        /// Height of the frame.
        h: u32,
        /// Bytes actually held.
        len: usize,
    },
    /// A frame placed so far out that its right or bottom edge is past the `i32` range.
    #[error(
        "a {w}x{h} frame at ({}, {}) reaches past the screen coordinate range (i32); \
         its origin is wrong",
        origin.x, origin.y
    )]
    OffScreen {
        /// Screen position of the frame.
        origin: Point<Physical>,
        /// Width of the frame.
        w: u32,
        /// Height of the frame.
        h: u32,
    },
    /// A region with no pixels (zero width or height).
    #[error("the region {rect} has no pixels (zero width or height); give a region at least 1x1")]
    EmptyRegion {
        /// The region, in screen coordinates.
        rect: Rect<Physical>,
    },
    /// A region that is not entirely inside the frame.
    #[error(
        "the region {rect} is not inside the frame {frame} (both in screen coordinates); \
         intersect it with the frame's `screen_rect()` first"
    )]
    RegionOutside {
        /// The region, in screen coordinates.
        rect: Rect<Physical>,
        /// The frame's screen rectangle.
        frame: Rect<Physical>,
    },
    /// A frame of a stream is older than the frame before it.
    #[error(
        "frame timestamps went backwards ({got_us} us after {previous_us} us): a stream must be \
         pushed in capture order, with timestamps from one monotonic clock"
    )]
    TimeWentBack {
        /// Timestamp of the previous frame, in microseconds.
        previous_us: u64,
        /// Timestamp of the frame pushed, in microseconds.
        got_us: u64,
    },
}

/// Checks one frame on its own: non-empty, within `max_pixels`, buffer of the right size,
/// and its screen rectangle inside the `i32` range.
pub(crate) fn check_frame(f: &Frame, max_pixels: u64) -> Result<(), DiffError> {
    let (w, h) = (f.width(), f.height());
    if w == 0 || h == 0 {
        return Err(DiffError::EmptyFrame { w, h });
    }
    if u64::from(w) * u64::from(h) > max_pixels {
        return Err(DiffError::TooLarge { w, h, max_pixels });
    }
    if f.pixels().len() as u64 != u64::from(w) * u64::from(h) * 4 {
        return Err(DiffError::BadBuffer { w, h, len: f.pixels().len() });
    }
    let fits = |o: i32, len: u32| i64::from(o) + i64::from(len) <= i64::from(i32::MAX);
    if !fits(f.origin.x, w) || !fits(f.origin.y, h) {
        return Err(DiffError::OffScreen { origin: f.origin, w, h });
    }
    Ok(())
}

/// Checks that a region is non-empty and inside the frame's screen rectangle.
pub(crate) fn check_region(f: &Frame, rect: Rect<Physical>) -> Result<(), DiffError> {
    if rect.is_empty() {
        return Err(DiffError::EmptyRegion { rect });
    }
    let frame = f.screen_rect();
    if !frame.contains_rect(&rect) {
        return Err(DiffError::RegionOutside { rect, frame });
    }
    Ok(())
}
