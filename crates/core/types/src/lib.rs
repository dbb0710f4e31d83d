//! The shared vocabulary of Deft: geometry, elements, selectors, actions, outcomes, evidence.
//!
//! Every type here is encoded by position in bincode, so fields are never skipped when
//! serializing and enums are externally tagged (bincode cannot read internal tags).
//!
//! The key design decision is that **every coordinate carries its space in its type**.
//! The most reported failure of desktop agents is a click that lands in the wrong place
//! because a logical point (what accessibility APIs report) was used as a physical pixel
//! (what the X server and screenshots use) on a scaled window. Here a `Rect<Logical>`
//! cannot be passed where a `Rect<Physical>` is expected; converting needs a
//! [`ScaleFactor`], which is per window, never global.
//!
//! This crate does no I/O and knows no platform: it is plain data with serde, so it can be
//! sent on the bus, written to traces, and encoded compactly with bincode.

mod action;
mod element;
mod evidence;
mod frame;
mod geometry;
mod outcome;
mod selector;

pub use action::{Action, ActionKind, Condition, KeyChord, Method, MouseButton, Target};
pub use element::{Element, ElementId, Role, State, States, UnknownState};
pub use evidence::{Channel, Evidence};
pub use frame::{Frame, FrameError};
pub use geometry::{CoordSpace, Logical, Physical, Point, Rect, ScaleError, ScaleFactor, Screenshot, Size};
pub use outcome::{
    Attempt, AttemptResult, Blocking, Candidate, ErrorClass, Failure, FailureKind, Outcome, RECEIPT, Seen,
    SuggestedAction, TargetInfo,
};
pub use selector::{Selector, TextMatch};
