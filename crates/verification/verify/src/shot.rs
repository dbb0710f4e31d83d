//! What a frame for a person is, apart from how the executor takes it ([`crate::frames`]):
//! the sink it goes to, the shot, and the record the trace keeps. Its own module so that the
//! configuration and the events can name them without depending on the executor.

use std::fmt::Debug;

use deft_types::{Frame, Physical, Point, Rect};
use serde::{Deserialize, Serialize};

/// Where the executor hands its frames. Called on the executor's path: an implementation
/// must return at once (queue the frame, never encode or write it here).
pub trait FrameSink: Send + Sync + Debug {
    /// One frame, secret areas already painted over.
    fn shot(&self, shot: FrameShot);
}

/// When a frame was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FramePhase {
    /// Just before an attempt's input was sent.
    Before,
    /// After the verdict: what the action left on screen.
    After,
}

/// One frame with what a person needs to read it.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameShot {
    /// Operation number (as in [`VerifyEvent`]).
    pub op: u64,
    /// The attempt it belongs to, from 1 (after the verdict: the last attempt; 0 when
    /// nothing was attempted).
    pub attempt: u32,
    /// Before the input or after the verdict.
    pub phase: FramePhase,
    /// Time since the operation started.
    pub at_ms: u64,
    /// The pixels, secret areas painted over.
    pub frame: Frame,
    /// The target's bounds on screen, when known.
    pub target: Option<Rect<Physical>>,
    /// Where a pointer input lands, for a pointer method.
    pub point: Option<Point<Physical>>,
    /// The secret areas painted over, clipped to the frame.
    pub masked: Vec<Rect<Physical>>,
    /// What a reader should know about it: an `after` frame taken before the window
    /// repainted, that may not show the effect the verdict saw.
    pub note: Option<String>,
}

/// A frame as the trace records it (a [`VerifyEvent::Frame`]): the file, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrameRecord {
    /// Operation number.
    pub op: u64,
    /// The attempt it belongs to, from 1 (0: nothing was attempted).
    pub attempt: u32,
    /// Before the input or after the verdict.
    pub phase: FramePhase,
    /// Time since the operation started.
    pub at_ms: u64,
    /// The PNG, relative to the trace's folder (`frames/<digest>.png`); `None` when not saved.
    pub file: Option<String>,
    /// Why it was not saved (the budget is spent, the writer fell behind, the secret fields
    /// could not be read).
    pub skipped: Option<String>,
    /// The screen area the frame shows, in physical pixels.
    pub region: Rect<Physical>,
    /// The whole factor the stored image was downscaled by (screen pixels per image pixel).
    pub factor: u32,
    /// Bytes of the file (0 when not saved).
    pub bytes: u64,
    /// The target's bounds on screen.
    pub target: Option<Rect<Physical>>,
    /// Where a pointer input landed.
    pub point: Option<Point<Physical>>,
    /// For an `after` frame: the regions that differ from the last `before` frame of the
    /// same operation (empty when nothing changed or there is no such frame).
    pub changed: Vec<Rect<Physical>>,
    /// The secret areas painted over.
    pub masked: Vec<Rect<Physical>>,
    /// What a reader should know about the frame (see [`FrameShot::note`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
