//! `AgentConfig`: budgets, the executive function, the world model's size, the policy.
//! Deserializable, so agent-cli embeds it as the `[agent]` section of its config file.

use serde::{Deserialize, Serialize};

use crate::policy::Policy;

/// How the confidence in a proposed action is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfidenceMode {
    /// A focused second call framed as a choice among the candidate targets plus "ask":
    /// the option's token probability where the provider returns log-probabilities,
    /// agreement across samples otherwise.
    Separate,
    /// The model states its confidence in the same call (a `confidence` argument): no
    /// round trip, weaker calibration.
    Inline,
    /// No model-based score; only the signals that cost no call.
    Off,
}

/// The executive function's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConfidenceConfig {
    /// How the model's part is measured.
    pub mode: ConfidenceMode,
    /// Below this combined score the action is not run and the person is asked.
    pub threshold: f64,
    /// Samples for the agreement estimate (providers without log-probabilities).
    pub samples: u32,
}

impl Default for ConfidenceConfig {
    fn default() -> Self {
        ConfidenceConfig { mode: ConfidenceMode::Separate, threshold: 0.85, samples: 5 }
    }
}

/// Everything a run may spend. Each limit ends the run when reached, with a report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Budget {
    /// Model turns (steps).
    pub max_steps: u32,
    /// Tokens sent and generated, over every call of the run.
    pub max_tokens: Option<u64>,
    /// Estimated cost in US dollars (calls of unknown price count as unknown, not zero:
    /// with this set, a model without a price ends the run at once).
    pub max_cost_usd: Option<f64>,
    /// Wall time of the run, in ms (model calls are cut at what is left of it).
    pub max_wall_ms: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { max_steps: 40, max_tokens: Some(400_000), max_cost_usd: None, max_wall_ms: 900_000 }
    }
}

/// A run's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentConfig {
    /// Limits of the run.
    pub budget: Budget,
    /// The executive function.
    pub confidence: ConfidenceConfig,
    /// Questions per task (model questions, low confidence and repeated failures; the
    /// policy's confirmations are never skipped, and over the cap the action is refused).
    pub max_questions: u32,
    /// Let one reply carry a short sequence of tool calls, run one by one and stopped at
    /// the first surprise (one model call for a whole form).
    pub multi_action: bool,
    /// The most recent steps whose observations stay whole; older ones shrink to a line.
    pub keep_full: usize,
    /// Steps kept as the conversation's turns; past them, the oldest are folded into one
    /// line each in the opening message, `history_chunk` at a time (so the request's cached
    /// first part changes once per chunk, not at every step).
    pub history_steps: usize,
    /// How many of the oldest steps are folded at once.
    pub history_chunk: usize,
    /// Mark the requests' stable first part for the provider's prompt cache (Anthropic's
    /// breakpoints: cached input costs a tenth; off, every call pays its whole input).
    pub prompt_cache: bool,
    /// The model takes images: screenshots reach it, and visual cues that name no text
    /// or element are decided by it (only when the pixels changed).
    pub vision: bool,
    /// Vision calls one `wait_for_visual_cue` may make.
    pub max_vision_calls: u32,
    /// How long an action's `expected_outcome` is waited for after it, in ms.
    pub expected_outcome_ms: u64,
    /// Tokens the model may generate per reply.
    pub max_output_tokens: u32,
    /// Sampling temperature of the main calls (the provider's default when absent).
    pub temperature: Option<f64>,
    /// The action policy.
    pub policy: Policy,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            budget: Budget::default(),
            confidence: ConfidenceConfig::default(),
            max_questions: 3,
            multi_action: false,
            keep_full: 3,
            history_steps: 16,
            history_chunk: 8,
            prompt_cache: true,
            vision: false,
            max_vision_calls: 4,
            expected_outcome_ms: 2_000,
            max_output_tokens: 1_024,
            temperature: None,
            policy: Policy::default(),
        }
    }
}

impl AgentConfig {
    /// Checks values that would only fail later.
    pub fn check(&self) -> Result<(), String> {
        let c = &self.confidence;
        if !(0.0..=1.0).contains(&c.threshold) {
            return Err(format!("confidence.threshold is {}: give a number from 0.0 to 1.0", c.threshold));
        }
        if c.samples == 0 {
            return Err("confidence.samples must be at least 1".into());
        }
        if self.budget.max_steps == 0 {
            return Err("budget.max_steps must be at least 1".into());
        }
        if self.budget.max_wall_ms == 0 {
            return Err("budget.max_wall_ms must be more than 0".into());
        }
        if self.keep_full == 0 {
            return Err("keep_full must be at least 1: the newest observation is always whole".into());
        }
        if self.history_steps < self.keep_full || self.history_chunk == 0 {
            return Err(format!(
                "history_steps ({}) must be at least keep_full ({}), and history_chunk at least 1",
                self.history_steps, self.keep_full
            ));
        }
        self.policy.check_lifts().map_err(|e| format!("policy.{e}"))
    }
}

/// What a resumed run may change in the settings it was started with: only ways to be
/// stricter. A paused run keeps its policy, budgets, confidence mode and threshold; a
/// resume may add denials and confirmation words, narrow the allowed apps and windows,
/// lower a budget and raise the threshold, never the other way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tighten {
    /// Apps and windows to narrow to, key chords, tools and confirmation words to add.
    /// Its `allow_keys` and `no_confirm` must be empty: a resume lifts nothing.
    pub policy: Policy,
    /// A lower step budget.
    pub max_steps: Option<u32>,
    /// A lower token budget.
    pub max_tokens: Option<u64>,
    /// A lower cost budget.
    pub max_cost_usd: Option<f64>,
    /// A lower wall-time budget.
    pub max_wall_ms: Option<u64>,
    /// A higher confidence threshold.
    pub threshold: Option<f64>,
}

impl AgentConfig {
    /// These settings made stricter by `t`; an error names what `t` would loosen.
    pub fn tightened(&self, t: &Tighten) -> Result<AgentConfig, String> {
        let mut c = self.clone();
        let p = &t.policy;
        if !p.allow_keys.is_empty() || !p.no_confirm.is_empty() {
            return Err(
                "a resumed run keeps the denials it was started with: allow_keys and no_confirm cannot lift one".into(),
            );
        }
        c.policy.apps = narrowed("applications", &self.policy.apps, &p.apps)?;
        c.policy.windows = narrowed("windows", &self.policy.windows, &p.windows)?;
        let add = |to: &mut Vec<String>, from: &[String]| {
            for x in from {
                if !to.iter().any(|y| y.eq_ignore_ascii_case(x)) {
                    to.push(x.clone());
                }
            }
        };
        add(&mut c.policy.deny_keys, &p.deny_keys);
        add(&mut c.policy.deny_tools, &p.deny_tools);
        add(&mut c.policy.confirm, &p.confirm);
        let b = &mut c.budget;
        if let Some(n) = t.max_steps {
            b.max_steps = b.max_steps.min(n);
        }
        if let Some(n) = t.max_tokens {
            b.max_tokens = Some(b.max_tokens.map_or(n, |m| m.min(n)));
        }
        if let Some(x) = t.max_cost_usd {
            b.max_cost_usd = Some(b.max_cost_usd.map_or(x, |m| m.min(x)));
        }
        if let Some(ms) = t.max_wall_ms {
            b.max_wall_ms = b.max_wall_ms.min(ms);
        }
        if let Some(th) = t.threshold {
            c.confidence.threshold = c.confidence.threshold.max(th);
        }
        c.check()?;
        Ok(c)
    }
}

/// An allow-list narrowed: any list when none was in force, else only what was allowed.
fn narrowed(what: &str, was: &[String], asked: &[String]) -> Result<Vec<String>, String> {
    if asked.is_empty() {
        return Ok(was.to_vec());
    }
    if was.is_empty() {
        return Ok(asked.to_vec());
    }
    match asked.iter().find(|a| !was.iter().any(|w| w.trim().eq_ignore_ascii_case(a.trim()))) {
        None => Ok(asked.to_vec()),
        Some(a) => Err(format!(
            "the run was started allowing only the {what} {}; a resume can narrow that, not add {a:?}",
            was.iter().map(|w| format!("{w:?}")).collect::<Vec<_>>().join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resume_only_tightens() {
        let mut started = AgentConfig::default();
        started.policy.deny_keys = vec!["ctrl+q".into()];
        started.policy.windows = vec!["Deft Fixture".into()];
        started.confidence.mode = ConfidenceMode::Off;
        started.confidence.threshold = 0.5;
        // Nothing given: everything as started.
        assert_eq!(started.tightened(&Tighten::default()), Ok(started.clone()));
        let t = Tighten {
            policy: Policy { deny_keys: vec!["ctrl+w".into()], ..Policy::default() },
            max_steps: Some(5),
            threshold: Some(0.9),
            ..Tighten::default()
        };
        let c = started.tightened(&t).unwrap();
        assert_eq!(c.policy.deny_keys, ["ctrl+q", "ctrl+w"]);
        assert_eq!((c.budget.max_steps, c.confidence.threshold), (5, 0.9));
        assert_eq!(c.confidence.mode, ConfidenceMode::Off);
        // Looser asks are refused or ignored, never applied.
        let wider =
            Tighten { policy: Policy { windows: vec!["Other".into()], ..Policy::default() }, ..Tighten::default() };
        assert!(started.tightened(&wider).unwrap_err().contains("\"Other\""));
        let lift = Tighten {
            policy: Policy { allow_keys: vec!["super+l".into()], ..Policy::default() },
            ..Tighten::default()
        };
        assert!(started.tightened(&lift).is_err());
        let more = Tighten { max_steps: Some(1000), threshold: Some(0.1), ..Tighten::default() };
        let c = started.tightened(&more).unwrap();
        assert_eq!((c.budget.max_steps, c.confidence.threshold), (started.budget.max_steps, 0.5));
    }
}
