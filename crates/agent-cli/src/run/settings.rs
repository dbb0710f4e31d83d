//! `run`'s settings: the `[model]` section (deft-llm's `ProviderConfig`) with the
//! `DEFT_MODEL_*` variables over it, the `[agent]` section (deft-agent's `AgentConfig`)
//! with the flags over it, and where paused runs and calibration pairs are kept.

use std::path::{Path, PathBuf};

use deft_agent::{AgentConfig, ConfidenceMode, Policy, Tighten};
use deft_llm::{ProviderConfig, ProviderKind};
use serde::{Deserialize, Serialize};

use crate::cli::RunArgs;
use crate::exit::CliError;

/// The `[model]` section. (A newtype so the config layers stay `Eq`: prices are floats,
/// but a section read from a file is compared only for equality of what was written.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ModelSection(pub ProviderConfig);
impl Eq for ModelSection {}

/// The `[agent]` section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AgentSection(pub AgentConfig);
impl Eq for AgentSection {}

/// The model: the file's section, with `DEFT_MODEL_PROVIDER`, `DEFT_MODEL` and
/// `DEFT_MODEL_BASE_URL` over it, the key from the environment.
pub fn model_config(
    file: Option<&ModelSection>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ProviderConfig, CliError> {
    let get = |k: &str| env(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let provider = match get("DEFT_MODEL_PROVIDER") {
        None => None,
        Some(p) => Some(
            serde_json::from_value::<ProviderKind>(serde_json::Value::String(p.clone())).map_err(|_| {
                CliError::usage(format!(
                    "DEFT_MODEL_PROVIDER={p:?} is not a provider: use anthropic, openai, openai-compatible, gemini or scripted"
                ))
            })?,
        ),
    };
    let mut cfg = match (file.map(|m| m.0.clone()), provider) {
        (Some(mut c), Some(p)) => {
            if c.provider != p {
                c = ProviderConfig::new(p, c.model.clone());
            }
            c
        }
        (Some(c), None) => c,
        (None, Some(p)) => ProviderConfig::new(p, get("DEFT_MODEL").unwrap_or_default()),
        (None, None) => {
            return Err(CliError::usage(
                "no model is configured for `run`: add a [model] section to the config file (provider, model, \
                 base_url for a local server), or set DEFT_MODEL_PROVIDER and DEFT_MODEL (and DEFT_MODEL_BASE_URL); \
                 see the README",
            ));
        }
    };
    if let Some(m) = get("DEFT_MODEL") {
        cfg.model = m;
    }
    if let Some(u) = get("DEFT_MODEL_BASE_URL") {
        cfg.base_url = Some(u);
    }
    // `DEFT_MODEL_PROVIDER=scripted DEFT_MODEL=turns.jsonl`: the model of a script is its file.
    if cfg.provider == ProviderKind::Scripted && cfg.script.is_none() && !cfg.model.trim().is_empty() {
        cfg.script = Some(std::path::PathBuf::from(cfg.model.trim()));
    }
    cfg.resolve_key(|v| env(v));
    cfg.check().map_err(|e| CliError::usage(format!("the model settings: {e}")))?;
    Ok(cfg)
}

/// The agent's settings: the file's `[agent]` section with the flags over it.
pub fn agent_config(file: Option<&AgentSection>, a: &RunArgs) -> Result<AgentConfig, CliError> {
    let mut c = file.map(|s| s.0.clone()).unwrap_or_default();
    if let Some(n) = a.max_steps {
        c.budget.max_steps = n;
    }
    if let Some(n) = a.max_tokens {
        c.budget.max_tokens = Some(n);
    }
    if let Some(x) = a.max_cost {
        c.budget.max_cost_usd = Some(x);
    }
    if let Some(ms) = a.max_time {
        c.budget.max_wall_ms = ms;
    }
    if let Some(t) = a.threshold {
        c.confidence.threshold = t;
    }
    if let Some(m) = a.confidence {
        c.confidence.mode = match m {
            crate::cli::ConfidenceArg::Separate => ConfidenceMode::Separate,
            crate::cli::ConfidenceArg::Inline => ConfidenceMode::Inline,
            crate::cli::ConfidenceArg::Off => ConfidenceMode::Off,
        };
    }
    if let Some(n) = a.max_questions {
        c.max_questions = n;
    }
    if a.multi_action {
        c.multi_action = true;
    }
    if a.vision {
        c.vision = true;
    }
    c.policy.apps.extend(a.policy.allow_app.iter().cloned());
    c.policy.windows.extend(a.policy.allow_window.iter().cloned());
    c.policy.deny_keys.extend(a.policy.deny_key.iter().cloned());
    c.policy.confirm.extend(a.policy.confirm.iter().cloned());
    c.check().map_err(|e| CliError::usage(format!("the agent settings: {e}")))?;
    Ok(c)
}

/// What the flags of `run --resume` ask to tighten in the paused run's settings (the
/// config file is not read for them: the run keeps what it was started with). Flags that
/// could only loosen or change how it decides are refused by name.
pub fn tighten(a: &RunArgs) -> Result<Tighten, CliError> {
    let refused = [
        ("--confidence", a.confidence.is_some()),
        ("--max-questions", a.max_questions.is_some()),
        ("--multi-action", a.multi_action),
        ("--vision", a.vision),
        ("--app", a.app.is_some()),
    ];
    if let Some((flag, _)) = refused.iter().find(|(_, given)| *given) {
        return Err(CliError::usage(format!(
            "{flag} cannot be given with --resume: a paused run keeps the settings it was started with, and a \
             resume may only tighten them (--deny-key, --confirm, --allow-app, --allow-window to narrow, lower \
             budgets, a higher --threshold)"
        )));
    }
    Ok(Tighten {
        policy: Policy {
            apps: a.policy.allow_app.clone(),
            windows: a.policy.allow_window.clone(),
            deny_keys: a.policy.deny_key.clone(),
            confirm: a.policy.confirm.clone(),
            ..Policy::default()
        },
        max_steps: a.max_steps,
        max_tokens: a.max_tokens,
        max_cost_usd: a.max_cost,
        max_wall_ms: a.max_time,
        threshold: a.threshold,
    })
}

/// Where paused runs and calibration pairs live: `DEFT_RUNS_DIR`, else
/// `$XDG_STATE_HOME/deft`, else `~/.local/state/deft`.
pub fn state_dir(flag: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf, CliError> {
    if let Some(p) = flag {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = env("DEFT_RUNS_DIR").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    if let Some(p) = env("XDG_STATE_HOME").filter(|p| Path::new(p).is_absolute()) {
        return Ok(Path::new(&p).join("deft"));
    }
    match env("HOME").filter(|h| !h.is_empty()) {
        Some(h) => Ok(Path::new(&h).join(".local/state/deft")),
        None => Err(CliError::usage("no place for run state: set DEFT_RUNS_DIR, XDG_STATE_HOME or HOME")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_names_the_model_over_the_file() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        let c = model_config(
            None,
            &env(&[
                ("DEFT_MODEL_PROVIDER", "openai-compatible"),
                ("DEFT_MODEL", "qwen2.5vl"),
                ("DEFT_MODEL_BASE_URL", "http://localhost:11434/v1"),
            ]),
        )
        .unwrap();
        assert_eq!((c.provider, c.model.as_str()), (ProviderKind::OpenaiCompatible, "qwen2.5vl"));
        let file: ModelSection = toml::from_str("provider = \"anthropic\"\nmodel = \"claude-sonnet-4-5\"\n").unwrap();
        let c = model_config(Some(&file), &env(&[("ANTHROPIC_API_KEY", "k")])).unwrap();
        assert_eq!(c.key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
        let e = model_config(None, &env(&[])).unwrap_err();
        assert!(e.message.contains("DEFT_MODEL_PROVIDER"), "{e}");
        assert!(model_config(None, &env(&[("DEFT_MODEL_PROVIDER", "gpt")])).is_err());
    }
}
