//! The retry policy engine of Deft: error classes, fallback chains, budgets.
//!
//! The key design decision is that **the engine is a pure state machine**: given what was
//! observed, it returns the next step, and the executor only carries steps out. It reads
//! no clock (time comes in as `at_ms` on every [`Observation`]), does no I/O and never
//! sleeps (waits go out as `not_before_ms` on every [`Step`]). So the hazard rules of
//! docs/VERIFICATION.md are enforced in one place that tests can drive through any sequence of
//! observations, instead of being spread over the executor's loops:
//!
//! - a delayed effect is not a missed input: no input follows a sent one before its
//!   verification window has passed with no change, except an early fallback whose every
//!   condition is argued in `watch.rs` (in short: a pointer input that showed no feedback
//!   at all, on a target that is not a toggle and that the policy lets be pressed twice);
//! - a toggle is retried only when its state is reported unchanged;
//! - loading is waited out, never answered with a second input;
//! - a popup that appears after an input is reported, never dismissed automatically;
//! - every path ends within the attempt, time and per-class budgets.
//!
//! The protocol: [`Engine::start`] orders the first [`Step::Act`]; the executor replies to
//! each step with an [`Observation`] ([`Report::Sent`], [`Report::NoChange`], ...), and
//! [`Engine::observe`] answers with the next step until [`Step::Done`] carries the
//! [`Verdict`]. A reply that does not fit the step ends the action: stopping is always safe.
//!
//! Policies are data ([`PolicySet`]): per action kind and per error class, from TOML, with
//! built-in defaults in `defaults.toml` that document every key.

mod budget;
mod classify;
mod engine;
mod error;
mod load;
mod observation;
mod policy;
mod step;
mod watch;

pub use classify::{Symptoms, classify};
pub use engine::Engine;
pub use error::PolicyError;
pub use load::PolicySet;
pub use observation::{Feedback, Observation, Report, Signals, Toggle};
pub use policy::{
    ALL_KINDS, ActionPolicy, BlockedPolicy, EarlyFallback, LoadingPolicy, NoEffectPolicy, Overrides, StalePolicy,
    TransientPolicy, methods_for, table_name,
};
pub use step::{ActionContext, BudgetReport, Step, Verdict};
