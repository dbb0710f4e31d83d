//! What a run leaves beside its trace, and what it must never leave: frames stored as PNG
//! files named by their digest within a size budget, and the redaction of secrets.
//!
//! # The key decision: secrets are taken out where they are made, not searched for later
//!
//! A trace, a report, a log or a prompt is only as safe as the least careful line that
//! writes into it, and text from the screen or typed by a caller can reach any of them. So
//! the things that carry secrets are redacted by the code that produces them, with the one
//! set of functions here: an action's typed text or set value becomes its length
//! ([`redact::action`]), and a frame's secret areas (password fields) are painted over
//! before the frame leaves the code that captured it ([`redact::mask`]). Nothing
//! downstream has to recognise a secret to keep it out.
//!
//! Frames ([`FrameStore`]) are downscaled so their longest side fits a limit, digested
//! (XXH3-64 of size and pixels) and written once per digest as `frames/<digest>.png`
//! beside the JSON lines: the same screen seen twice costs one file. Each file is written
//! under a temporary name and renamed, so a killed process leaves whole PNGs or none. A
//! run's store has a byte budget; once spent, later frames are refused with the reason,
//! which the caller records in the trace. Depends only on deft-types: it knows frames and
//! rectangles, not the executor, the bus or any event.

pub mod redact;
mod scale;
mod store;

pub use scale::{downscale, factor_for};
pub use store::{FRAMES_DIR, FrameBudget, FrameStore, Stored, TraceStoreError};
