//! Retry policies as plain data: one [`ActionPolicy`] per action kind, and their rules.

use deft_types::{ActionKind, Method};
use serde::{Deserialize, Serialize};

use crate::error::PolicyError;

/// Everything the engine needs to know to retry one kind of action. Times in milliseconds.
///
/// Built by [`crate::PolicySet`] from TOML (see `defaults.toml` for what each key means);
/// constructing one by hand is fine too, [`ActionPolicy::validate`] says whether it is sane.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ActionPolicy {
    /// The fallback chain, first method first. Never empty.
    pub chain: Vec<Method>,
    /// Wait after an input before the first verification read.
    pub verify_delay_ms: u64,
    /// How long an input's effect may take to show before it counts as no effect.
    pub window_ms: u64,
    /// Interval between verification reads inside the window.
    pub poll_ms: u64,
    /// Retries after the first attempt: at most `max_retries + 1` inputs are sent.
    pub max_retries: u32,
    /// Time budget for the whole action.
    pub max_total_ms: u64,
    /// When a pointer input without feedback may be taken as dropped before its window ends.
    pub early_fallback: EarlyFallback,
    /// How long a pointer input must show no feedback before an early fallback.
    pub early_fallback_ms: u64,
    /// What to do about loading.
    pub loading: LoadingPolicy,
    /// What to do about a blocking popup.
    pub blocked: BlockedPolicy,
    /// What to do about a stale target.
    pub stale: StalePolicy,
    /// What to do about backend errors.
    pub transient: TransientPolicy,
    /// What to do when nothing changed.
    pub no_effect: NoEffectPolicy,
}

/// When an input that showed no feedback may be taken as dropped before its window ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EarlyFallback {
    /// Always wait the whole window.
    Never,
    /// Only on targets the caller marked idempotent.
    Idempotent,
    /// On any target that is not a toggle.
    NoFeedback,
}

/// Loading: wait longer, never send a second input.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct LoadingPolicy {
    /// Each extension of the wait while loading evidence persists.
    pub extend_ms: u64,
    /// All extensions of one action together stay within this.
    pub max_extra_ms: u64,
}

/// Blocked: report the popup, or dismiss it when the rule says so.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct BlockedPolicy {
    /// Dismiss a popup that intercepted an input before it was sent, then retry.
    pub auto_dismiss: bool,
    /// At most this many dismissals per action.
    pub max_dismissals: u32,
}

/// Stale: find the target again, retry the same method.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct StalePolicy {
    /// At most this many re-resolutions per action.
    pub max_reresolves: u32,
}

/// Transient: retry the same method after a deterministic exponential backoff.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct TransientPolicy {
    /// At most this many retries per action (and as many failed reads).
    pub max_retries: u32,
    /// Backoff before the first retry.
    pub backoff_initial_ms: u64,
    /// Each further backoff is this many times the one before.
    pub backoff_factor: u32,
    /// No backoff is longer than this.
    pub backoff_max_ms: u64,
}

impl TransientPolicy {
    /// The backoff before the `retry`-th retry (1-based): `initial * factor^(retry-1)`,
    /// capped. Deterministic, so a transcript can be checked to the millisecond.
    pub fn backoff_ms(&self, retry: u32) -> u64 {
        let factor = u64::from(self.backoff_factor).saturating_pow(retry.saturating_sub(1));
        self.backoff_initial_ms.saturating_mul(factor).min(self.backoff_max_ms)
    }
}

/// No effect: next method of the chain.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct NoEffectPolicy {
    /// Try the next method; with `false` the action fails at once.
    pub fallback: bool,
    /// When the app showed it received the input (feedback seen) but nothing visible
    /// changed within the window, stop instead of falling back: the input worked as far
    /// as can be seen, and a second one could double an effect that does not show. Applies
    /// to activations (`click`, `action`); text entry always falls back, since its goal
    /// is a value that can be checked and set again.
    pub stop_when_received: bool,
}

/// CLI flags that override a policy, as the CLI names them.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Overrides {
    /// `--verify-delay <ms>`: sets `verify_delay_ms`.
    pub verify_delay_ms: Option<u64>,
    /// `--max-retries <n>`: sets `max_retries`.
    pub max_retries: Option<u32>,
    /// `--timeout <ms>`: sets `window_ms` (for `wait`, its timeout).
    pub timeout_ms: Option<u64>,
}

/// A rule a policy breaks: the keys involved (relative to the action's table) and why.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Violation {
    pub keys: &'static [&'static str],
    pub reason: String,
}

impl ActionPolicy {
    /// Inputs that may be sent in all.
    pub fn max_attempts(&self) -> u32 {
        self.max_retries.saturating_add(1)
    }

    /// Checks the policy makes sense for `kind`; the error names the offending key.
    pub fn validate(&self, kind: ActionKind) -> Result<(), PolicyError> {
        self.violation(kind).map_or(Ok(()), |v| {
            Err(PolicyError::Invalid {
                key: format!("{}.{}", table_name(kind), v.keys[0]),
                line: None,
                reason: v.reason,
            })
        })
    }

    /// The policy with CLI flags applied. `--timeout` sets the window, and the time budget
    /// grows when needed so that one input can still be verified over its whole window.
    pub fn with_overrides(&self, kind: ActionKind, o: Overrides) -> Result<Self, PolicyError> {
        let mut p = self.clone();
        if let Some(v) = o.verify_delay_ms {
            p.verify_delay_ms = v;
        }
        if let Some(v) = o.max_retries {
            p.max_retries = v;
        }
        if let Some(v) = o.timeout_ms {
            p.window_ms = v;
        }
        p.max_total_ms = p.max_total_ms.max(p.verify_delay_ms.saturating_add(p.window_ms));
        match p.violation(kind) {
            None => Ok(p),
            Some(v) => {
                // Name the flag the user typed when it is the culprit.
                let flags = [
                    ("verify_delay_ms", o.verify_delay_ms.is_some(), "--verify-delay"),
                    ("window_ms", o.timeout_ms.is_some(), "--timeout"),
                ];
                let culprit = v
                    .keys
                    .iter()
                    .find_map(|k| flags.iter().find(|(key, set, _)| key == k && *set).map(|(k, _, f)| (*k, *f)));
                let mut reason = v.reason;
                let key = match culprit {
                    Some((k, f)) => {
                        // A window shorter than the check's delay is mostly seconds meant.
                        if f == "--timeout" && v.keys.contains(&"verify_delay_ms") {
                            reason.push_str(&format!(
                                " (--timeout is in milliseconds unless it has a unit: `--timeout {0}s` or \
                                 `--timeout {0}000` is {0} seconds)",
                                p.window_ms
                            ));
                        }
                        format!("{f} ({}.{k})", table_name(kind))
                    }
                    None => format!("{}.{}", table_name(kind), v.keys[0]),
                };
                Err(PolicyError::Invalid { key, line: None, reason })
            }
        }
    }

    pub(crate) fn violation(&self, kind: ActionKind) -> Option<Violation> {
        let v = |keys, reason: String| Some(Violation { keys, reason });
        if self.chain.is_empty() {
            return v(&["chain"], "is empty: a chain needs at least one method".into());
        }
        if let Some(m) = self.chain.iter().find(|m| !methods_for(kind).contains(m)) {
            let allowed: Vec<_> = methods_for(kind).iter().map(|m| m.as_str()).collect();
            return v(
                &["chain"],
                format!(
                    "holds `{}`, which cannot carry out `{}` (allowed: {})",
                    m.as_str(),
                    kind.verb(),
                    allowed.join(", ")
                ),
            );
        }
        if self.window_ms == 0 {
            return v(&["window_ms"], "must be more than 0".into());
        }
        if self.poll_ms == 0 {
            return v(&["poll_ms"], "must be more than 0".into());
        }
        if self.verify_delay_ms >= self.window_ms {
            return v(
                &["verify_delay_ms", "window_ms"],
                format!(
                    "is inconsistent: verify_delay_ms ({}) must be less than window_ms ({})",
                    self.verify_delay_ms, self.window_ms
                ),
            );
        }
        let one_window = self.verify_delay_ms.saturating_add(self.window_ms);
        if self.max_total_ms < one_window {
            return v(
                &["max_total_ms", "window_ms", "verify_delay_ms"],
                format!(
                    "is inconsistent: max_total_ms ({}) must cover verify_delay_ms + window_ms ({one_window})",
                    self.max_total_ms
                ),
            );
        }
        if self.loading.extend_ms == 0 {
            return v(&["loading.extend_ms"], "must be more than 0".into());
        }
        if self.transient.backoff_factor == 0 {
            return v(&["transient.backoff_factor"], "must be at least 1".into());
        }
        if self.transient.backoff_max_ms < self.transient.backoff_initial_ms {
            return v(
                &["transient.backoff_max_ms", "transient.backoff_initial_ms"],
                format!(
                    "is inconsistent: backoff_max_ms ({}) must be at least backoff_initial_ms ({})",
                    self.transient.backoff_max_ms, self.transient.backoff_initial_ms
                ),
            );
        }
        None
    }
}

/// The methods that can carry out an action of `kind`: what its chain may hold.
pub fn methods_for(kind: ActionKind) -> &'static [Method] {
    use Method::*;
    match kind {
        ActionKind::Click => &[CoordinateClick, A11yAction, OffsetClick],
        ActionKind::Type => &[Keystrokes, A11ySet, FocusSelectAllKeystrokes, MiddleClickPaste],
        ActionKind::SetValue => &[A11ySet, FocusSelectAllKeystrokes, MiddleClickPaste],
        ActionKind::Action => &[A11yAction],
        ActionKind::Key => &[KeyChord],
        ActionKind::Scroll => &[Wheel, A11yScroll],
        ActionKind::Wait => &[Wait],
    }
}

/// An action kind's table name in a policy file (its serde name: `set_value`, not the verb).
pub fn table_name(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Click => "click",
        ActionKind::Type => "type",
        ActionKind::SetValue => "set_value",
        ActionKind::Action => "action",
        ActionKind::Key => "key",
        ActionKind::Scroll => "scroll",
        ActionKind::Wait => "wait",
    }
}

/// Every action kind, in the order policy files list them.
pub const ALL_KINDS: [ActionKind; 7] = [
    ActionKind::Click,
    ActionKind::Type,
    ActionKind::SetValue,
    ActionKind::Action,
    ActionKind::Key,
    ActionKind::Scroll,
    ActionKind::Wait,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn transient(initial: u64, factor: u32, max: u64) -> TransientPolicy {
        TransientPolicy { max_retries: 5, backoff_initial_ms: initial, backoff_factor: factor, backoff_max_ms: max }
    }

    #[test]
    fn backoff_is_exponential_and_capped() {
        let t = transient(100, 2, 500);
        let got: Vec<_> = (1..=5).map(|n| t.backoff_ms(n)).collect();
        assert_eq!(got, [100, 200, 400, 500, 500]);
    }

    #[test]
    fn backoff_never_overflows() {
        let t = transient(u64::MAX / 2, u32::MAX, u64::MAX);
        assert_eq!(t.backoff_ms(u32::MAX), u64::MAX);
    }

    #[test]
    fn every_method_fits_some_kind() {
        for m in Method::ALL {
            assert!(ALL_KINDS.iter().any(|k| methods_for(*k).contains(&m)), "{m:?}");
        }
    }
}
