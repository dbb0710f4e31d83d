//! The verified executor of Deft: resolve the target, wait until it is actionable, act,
//! verify, classify a failure and fall back; and wait for conditions.
//!
//! # The key decision: the executor only carries out steps
//!
//! Every decision about retrying (when a delayed effect may still come, when a toggle may
//! be pressed again, which method is next, when the budget is spent) is taken by the pure
//! engine of `deft-retry`. This crate carries out its steps (`Act`, `Verify`, `ReResolve`,
//! `DismissBlocking`) with real perception and actuation and reports what it saw as
//! observations, so the hazard rules live in one tested place and cannot be bypassed here.
//!
//! What this crate decides is *what was seen*:
//!
//! - **actionability** before an input: present, shown, enabled, stable
//!   (the same bounds in two reads a frame apart), and receiving events (the hit test at
//!   the point where the input lands returns the target or a descendant; a covering popup
//!   is reported as `blocking`, never clicked through);
//! - **effects** after it: a state diff (`deft-snapshot`) of the target's application
//!   before and after, judged relative to the target, with incidental changes (focus and
//!   window activation moving, child counts) and re-created widgets (destroyed and rebuilt
//!   equal, elsewhere) left out; a dialog that is the *only* change is a popup that blocks
//!   the target, not an effect; `type` and `set-value` check the target's text or value;
//!   an explicit expectation replaces "any change";
//! - the **signals** the engine needs while no effect shows yet: immediate feedback (the
//!   target took the focus, was pressed, went busy), loading, a toggle's state;
//! - cheap first: the accessibility tree (milliseconds) decides wherever it can; pixels
//!   decide only for a target accessibility does not know (raw coordinates on an
//!   inaccessible app, text found by OCR), with what changes by itself masked; OCR reads
//!   only the regions that changed, for an expected text the tree does not show.
//!
//! Changes that explain themselves are not effects: work that was already loading before
//! the input finishing during the window (counting it would verify a click that did
//! nothing), focus moving between windows, a tooltip.
//!
//! Watching is event-driven: accessibility events wake a read at once, and without them
//! reads back off to a capped poll (50 ms by default; a poll interval, not a sleep: the
//! watch ends at the first read that shows the change). The only fixed waits are the
//! engine's own `not_before_ms` (the verify delay and backoffs), the one frame the
//! stability rule needs between two reads, and, for a target accessibility does not know,
//! the 60 ms between the two frames that tell what changes by itself.
//!
//! Without verification (`ExecutorConfig::verify == false`) an action finds its target
//! and sends one input: no actionability reads, no snapshots.
//!
//! Every step is published on the bus as a [`VerifyEvent`].
//!
//! See `docs/ARCHITECTURE.md` and `docs/VERIFICATION.md` (the contract).

mod act;
mod around;
mod asked;
mod attribution;
mod backends;
mod clock;
mod condition;
mod config;
mod desktop;
mod desktop_input;
mod dismiss;
mod distro;
mod doctor;
mod editor_inside;
mod elsewhere;
mod error;
mod event;
mod executor;
mod field_changes;
mod first_key;
mod frames;
mod held;
mod help;
mod in_view;
mod insertion;
mod keyfocus;
mod observe;
mod on_top;
mod opened_on_approach;
mod outcome;
mod paste;
mod pixels;
mod popup;
mod press;
mod press_look;
mod pump;
mod quitting;
mod read;
mod ready;
mod receipt;
mod resolve;
mod resolve_wait;
mod run;
mod send;
mod set_from_outside;
mod shot;
mod strays;
mod typed;
mod wait;
mod wait_outcome;
mod watch;

#[cfg(test)]
mod tests;

pub use backends::{Backends, ScreenText, TextHit};
pub use config::{ActionOptions, DismissRule, ExecutorConfig};
pub use desktop::{Desktop, DesktopConfig, Session};
pub use doctor::{AppCheck, Diagnosis, PartCheck};
pub use error::VerifyError;
pub use event::VerifyEvent;
pub use executor::Executor;
pub use frames::{FramePhase, FrameRecord, FrameRecorder, FrameShot, FrameSink, FramesSummary};
pub use wait_outcome::WaitOutcome;
