//! How an executor is configured, and the per-action options a caller may add.

use std::sync::Arc;

use deft_bus::Bus;
use deft_retry::{Overrides, PolicySet};
use deft_snapshot::RelevanceConfig;
use deft_types::{Condition, Role, TextMatch};

use crate::event::VerifyEvent;
use crate::shot::FrameSink;

/// Everything an [`crate::Executor`] needs besides its backends. Built by the CLI from its
/// flags and files; this crate reads no argv, environment or file.
#[derive(Clone, Debug)]
pub struct ExecutorConfig {
    /// `--verify`: verify every action and fall back when it had no effect. Without it an
    /// action is the plain input (one attempt, no reads beyond finding the target), and
    /// [`deft_types::Outcome::verified`] is `None`.
    pub verify: bool,
    /// `--verify-delay <ms>`: overrides every policy's `verify_delay_ms`.
    pub verify_delay_ms: Option<u64>,
    /// `--max-retries <n>`: overrides every policy's `max_retries`.
    pub max_retries: Option<u32>,
    /// `--timeout <ms>`: overrides every policy's verification window (for `wait`, its timeout).
    pub timeout_ms: Option<u64>,
    /// The retry policies (built-in defaults, or a user's file merged over them).
    pub policies: PolicySet,
    /// How long to wait for a target to be found and actionable (present, visible, enabled,
    /// stable, receiving events) before giving up on it.
    pub actionability_timeout_ms: u64,
    /// Longest interval between two reads while watching for a change when no accessibility
    /// event arrives (events wake a read at once; this bounds how long a change that sends
    /// no event can go unseen). Not a fixed sleep: the watch ends at the first change.
    pub poll_max_ms: u64,
    /// When a popup that intercepts the input *before* it is sent may be dismissed
    /// automatically. Empty by default: a blocking popup is reported, never dismissed.
    pub dismiss_rules: Vec<DismissRule>,
    /// Where every step is published. `None`: nothing is published.
    pub bus: Option<Bus<VerifyEvent>>,
    /// What counts as an input's effect and what as noise (deft-snapshot's rules; its
    /// `target` is set per action).
    pub relevance: RelevanceConfig,
    /// Where frames go for a person reading the trace: the screen just before each input
    /// and after the verdict, password fields painted over (see `frames.rs`). `None`: no
    /// frame is taken, at no cost.
    pub frames: Option<Arc<dyn FrameSink>>,
}

impl Default for ExecutorConfig {
    fn default() -> Self {
        ExecutorConfig {
            verify: false,
            verify_delay_ms: None,
            max_retries: None,
            timeout_ms: None,
            policies: PolicySet::defaults(),
            actionability_timeout_ms: 10_000,
            poll_max_ms: 50,
            dismiss_rules: Vec::new(),
            bus: None,
            relevance: RelevanceConfig::after_input(),
            frames: None,
        }
    }
}

impl ExecutorConfig {
    /// The CLI flags as the policy engine names them.
    pub fn overrides(&self) -> Overrides {
        Overrides { verify_delay_ms: self.verify_delay_ms, max_retries: self.max_retries, timeout_ms: self.timeout_ms }
    }
}

/// A rule that allows a blocking popup to be dismissed automatically, and says how.
///
/// Applies only to a popup that intercepts the input before it is sent (seen by the hit
/// test or as a modal dialog over the target's window); a dialog that appears *after* an
/// input is never dismissed, since it may be that input's own effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DismissRule {
    /// The popup's title or name must match.
    pub title: TextMatch,
    /// Its role must be this, when set (`dialog`, `alert`).
    pub role: Option<Role>,
    /// The name of the button to press (`OK`, `Close`); `None` presses Escape.
    pub button: Option<String>,
}

/// Per-action options on top of the executor's configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ActionOptions {
    /// Overrides [`ExecutorConfig::verify`] for this action.
    pub verify: Option<bool>,
    /// `--expect`: the condition that counts as the effect, instead of "any relevant change".
    pub expect: Option<Condition>,
    /// Activating the target twice is harmless (a tab, a link): allows an early fallback
    /// when a pointer input shows no sign of being received. Only the caller can know.
    pub idempotent: bool,
    /// Settings for this action only, over the executor's policy (a tool call's
    /// `timeout_ms`, `verify_delay_ms`, `max_retries`).
    pub overrides: Overrides,
    /// The text typed or set is a secret (filled in below the caller from a secret
    /// reference): it goes only into a password field, and when the target resolves to
    /// anything else nothing is sent.
    pub secret: bool,
}
