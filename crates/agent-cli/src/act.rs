//! The action verbs and `wait`, carried out by deft-verify's executor. This module only
//! connects the executor, hands it the action, and turns its outcome into output and an
//! exit code: resolving, acting, verifying and retrying are the executor's.

use std::sync::Arc;
use std::time::Duration;

use deft_a11y::{AtSpi, AtSpiConfig, SnapshotOptions};
use deft_bus::{Bus, BusConfig, Received};
use deft_types::{Action, ActionKind, AttemptResult, Condition, ErrorClass, Outcome, SuggestedAction, Target};
use deft_verify::{ActionOptions, Executor, ExecutorConfig, ScreenText, VerifyError, VerifyEvent, WaitOutcome};
use serde::Serialize;

use crate::actions::Planned;
use crate::config::{Config, Format};
use crate::desktop::{self, a11y_error, normalise, normalise_patiently};
use crate::exit::{Candidate, CliError, Exit};
use crate::expect;
use crate::output::{Out, outcome_human};
use crate::spinner::Spinner;
use crate::trace::Trace;

/// The executor and what records or displays its events.
pub struct Session {
    executor: Executor<AtSpi>,
    bus: Option<Bus<VerifyEvent>>,
    trace: Option<Trace>,
    spinner: bool,
}

impl Session {
    /// Connect the executor on the desktop of `DISPLAY` and the session bus.
    pub async fn connect(config: &Config, verify: bool) -> Result<Session, CliError> {
        let spinner = Spinner::wanted(config.format.value == Format::Human);
        let bus = (config.trace_dir.is_some() || spinner).then(|| Bus::new(BusConfig::default()));
        let exec_config = ExecutorConfig {
            verify,
            verify_delay_ms: config.verify_delay_ms.as_ref().map(|s| s.value),
            max_retries: config.max_retries.as_ref().map(|s| s.value),
            timeout_ms: config.timeout_ms.as_ref().map(|s| s.value),
            policies: config.policies()?,
            bus: bus.clone(),
            // --timeout bounds every wait, including the wait for the target to be found
            // and actionable.
            actionability_timeout_ms: config
                .timeout_ms
                .as_ref()
                .map_or(ExecutorConfig::default().actionability_timeout_ms, |t| t.value),
            ..ExecutorConfig::default()
        };
        // Inconsistent flags are usage errors, reported before touching the desktop.
        for kind in deft_retry::ALL_KINDS {
            exec_config.policies.get(kind).with_overrides(kind, exec_config.overrides()).map_err(|e| {
                CliError::usage(format!("the {} policy with these settings is invalid: {e}", kind.verb()))
            })?;
        }
        let trace = match (&bus, &config.trace_dir) {
            (Some(bus), Some(dir)) => Some(Trace::start(bus, &dir.value)?),
            _ => None,
        };
        let ocr: Box<dyn ScreenText> = Box::new(crate::screen::LazyOcr::default());
        let executor =
            Executor::connect_with(exec_config, AtSpiConfig::default(), Some(ocr)).await.map_err(|e| match e {
                VerifyError::Policy { .. } => CliError::usage(e.to_string()),
                VerifyError::Backend { .. } => CliError::environment(e.to_string()),
            })?;
        Ok(Session { executor, bus, trace, spinner })
    }

    fn progress(&self, message: String) -> Progress {
        let spinner = Arc::new(Spinner::start(self.spinner, message));
        let task = self.bus.as_ref().filter(|_| self.spinner).map(|bus| {
            let mut sub = bus.subscribe("progress");
            let spinner = Arc::clone(&spinner);
            tokio::spawn(async move {
                while let Some(r) = sub.recv().await {
                    if let Received::Event(env) = r
                        && let Some(m) = progress_message(&env.event)
                    {
                        spinner.set_message(m);
                    }
                }
            })
        });
        Progress { spinner, task }
    }

    fn finish(self) {
        if let Some(t) = self.trace {
            t.finish();
        }
    }
}

struct Progress {
    spinner: Arc<Spinner>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Progress {
    fn stop(self) {
        self.spinner.stop();
        if let Some(t) = self.task {
            t.abort();
        }
    }
}

/// What the spinner says for an executor event.
fn progress_message(e: &VerifyEvent) -> Option<String> {
    match e {
        VerifyEvent::Resolved { target, .. } => Some(format!("found {:?}", target.name)),
        VerifyEvent::NotActionable { reason, .. } => Some(format!("waiting for the target: {reason}")),
        VerifyEvent::InputSent { what, .. } => Some(format!("sent {what}; verifying")),
        VerifyEvent::WaitStarted { condition, .. } => Some(format!("waiting until {}", expect::describe(condition))),
        _ => None,
    }
}

/// The outcome document: the contract's fields, plus the candidates of a target that was
/// not found or was ambiguous.
#[derive(Serialize)]
struct OutcomeDoc<'a> {
    #[serde(flatten)]
    outcome: &'a Outcome,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    candidates: Vec<Candidate>,
}

/// Carry out one action verb.
pub async fn act(out: &Out, config: &Config, planned: Planned, expect: Option<Condition>) -> Result<Exit, CliError> {
    let verify = config.verify.value || expect.is_some();
    let session = Session::connect(config, verify).await?;
    let patience = Duration::from_millis(session.executor.config().actionability_timeout_ms);
    let action = normalise_action(session.executor.a11y(), planned.action, patience).await?;
    let progress = session.progress(format!("{} {}", action.kind().verb(), planned.asked));
    let options = ActionOptions { verify: Some(verify), expect, idempotent: false };
    let outcome = session.executor.perform_with(&action, &options).await;
    progress.stop();
    let (exit, miss) = classify(&session, &action, &outcome).await;
    session.finish();
    let doc =
        OutcomeDoc { outcome: &outcome, candidates: miss.as_ref().map(|m| m.candidates.clone()).unwrap_or_default() };
    out.print(&doc, |st| match &miss {
        // The executor's message lists every candidate inline; people get one per line.
        Some(m) => {
            let verb = outcome.action.verb();
            let head = format!("{} {verb} {}: {}", st.red("✗"), planned.asked, m.message);
            let listed = crate::output::error_human(m, st);
            let rest = listed.split_once('\n').map_or("", |(_, rest)| rest);
            format!("{head} {}\n{rest}", st.dim(&format!("[{} ms]", outcome.elapsed_ms)))
        }
        None => outcome_human(&outcome, &planned.asked, st),
    })?;
    Ok(exit)
}

/// The executor resolves targets itself; the CLI only applies its conveniences first
/// (`--app` naming a window title, short numeric ids).
async fn normalise_action(a11y: &AtSpi, action: Action, patience: Duration) -> Result<Action, CliError> {
    let fix = async |t: Target| -> Result<Target, CliError> {
        match t {
            Target::Selector(s) => Ok(Target::Selector(normalise_patiently(a11y, s, patience).await?)),
            other => Ok(other),
        }
    };
    Ok(match action {
        Action::Click { target, button, count } => Action::Click { target: fix(target).await?, button, count },
        Action::Type { target, text } => Action::Type { target: fix(target).await?, text },
        Action::SetValue { target, value } => Action::SetValue { target: fix(target).await?, value },
        Action::Invoke { target, name } => Action::Invoke { target: fix(target).await?, name },
        Action::Scroll { target, dx, dy } => Action::Scroll { target: fix(target).await?, dx, dy },
        other @ (Action::Key { .. } | Action::Wait { .. }) => other,
    })
}

/// The exit code of an outcome. A target the executor could not pin down is resolved once
/// more here, only to tell "not found" (3) from "ambiguous" (4) and list the candidates.
async fn classify(session: &Session, action: &Action, o: &Outcome) -> (Exit, Option<CliError>) {
    if o.ok {
        return (Exit::Ok, None);
    }
    if o.blocking.is_some() {
        return (Exit::Blocked, None);
    }
    let permanent_miss =
        o.attempts.iter().all(|a| matches!(a.result, AttemptResult::Failed { class: ErrorClass::Permanent, .. }));
    if o.suggested_action == Some(SuggestedAction::RefineSelector) || (o.target.is_none() && permanent_miss) {
        let sel = match action.target() {
            Some(Target::Selector(s)) => Some(s.clone()),
            Some(Target::Text(t)) => Some(deft_types::Selector { text: Some(t.clone()), ..Default::default() }),
            _ => None,
        };
        if let Some(sel) = sel {
            return match deft_a11y::find(session.executor.a11y(), &sel, &SnapshotOptions::default()).await {
                Err(e) => {
                    let e = a11y_error(e);
                    match e.exit {
                        Exit::NotFound | Exit::Ambiguous => (e.exit, Some(e)),
                        _ => (Exit::NotFound, None),
                    }
                }
                // It is there now (it appeared after the executor gave up): still a miss.
                Ok(_) => (Exit::NotFound, None),
            };
        }
    }
    if o.action == ActionKind::Wait {
        return (Exit::TimedOut, None);
    }
    (Exit::Failed, None)
}

/// What `wait` prints: the contract's `ok`/`action`/`expected`, then the executor's wait
/// outcome (met, evidence, channel, last observed, elapsed).
#[derive(Serialize)]
struct WaitDoc<'a> {
    ok: bool,
    action: &'static str,
    expected: String,
    timeout_ms: u64,
    #[serde(flatten)]
    outcome: &'a WaitOutcome,
}

/// `wait`.
pub async fn wait(out: &Out, config: &Config, condition: Condition) -> Result<Exit, CliError> {
    let session = Session::connect(config, true).await?;
    let condition = normalise_condition(session.executor.a11y(), condition).await?;
    let timeout_ms = match &config.timeout_ms {
        Some(t) => t.value,
        None => config.policies()?.get(ActionKind::Wait).window_ms,
    };
    let expected = expect::describe(&condition);
    let progress = session.progress(format!("waiting until {expected}"));
    let outcome = session.executor.wait(&condition, Duration::from_millis(timeout_ms)).await;
    progress.stop();
    session.finish();
    let doc = WaitDoc { ok: outcome.met, action: "wait", expected, timeout_ms, outcome: &outcome };
    out.print(&doc, |st| wait_human(&doc, st))?;
    Ok(if outcome.met { Exit::Ok } else { Exit::TimedOut })
}

/// Conditions take selectors too; apply the same conveniences to them.
async fn normalise_condition(a11y: &AtSpi, c: Condition) -> Result<Condition, CliError> {
    let needs = |s: &deft_types::Selector| {
        s.app.is_some() || s.window.is_some() || s.id.as_ref().is_some_and(|i| desktop::is_short_id(&i.0))
    };
    let sel = match &c {
        Condition::ElementExists(s) | Condition::ElementGone(s) => s,
        Condition::ElementState { selector, .. } | Condition::Value { selector, .. } => selector,
        _ => return Ok(c),
    };
    if !needs(sel) {
        return Ok(c);
    }
    let fixed = normalise(a11y, sel.clone()).await?;
    Ok(match c {
        Condition::ElementExists(_) => Condition::ElementExists(fixed),
        Condition::ElementGone(_) => Condition::ElementGone(fixed),
        Condition::ElementState { state, present, .. } => Condition::ElementState { selector: fixed, state, present },
        Condition::Value { value, .. } => Condition::Value { selector: fixed, value },
        other => other,
    })
}

fn wait_human(d: &WaitDoc<'_>, st: &crate::output::Style) -> String {
    let o = d.outcome;
    let channel = o.channel.map(|c| format!(" (seen through {})", crate::output::snake(&c))).unwrap_or_default();
    let elapsed = st.dim(&format!("[{} ms]", o.elapsed_ms));
    let mut out = if o.met {
        format!("{} {}{channel} {elapsed}\n", st.green("✓"), d.expected)
    } else {
        format!(
            "{} timed out after {} ms waiting until {}: last observed {} {elapsed}\n",
            st.red("✗"),
            d.timeout_ms,
            d.expected,
            o.last_observed
        )
    };
    for e in &o.evidence {
        out.push_str(&format!(
            "  {} {} {}\n",
            st.dim(&crate::output::snake(&e.channel)),
            e.what,
            st.dim(&format!("+{} ms", e.after_ms))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use deft_types::{Attempt, Method};

    use super::*;

    #[test]
    fn progress_messages() {
        let m = progress_message(&VerifyEvent::NotActionable { op: 1, at_ms: 5, reason: "not enabled".into() });
        assert_eq!(m.as_deref(), Some("waiting for the target: not enabled"));
        assert_eq!(
            progress_message(&VerifyEvent::InputSent { op: 1, at_ms: 5, what: "click at (1, 2)".into() }).as_deref(),
            Some("sent click at (1, 2); verifying")
        );
    }

    #[test]
    fn outcome_doc_adds_candidates_only_when_there_are_some() {
        let o = Outcome {
            ok: false,
            action: ActionKind::Click,
            verified: None,
            retried: false,
            retry_reason: None,
            target: None,
            expected: "the target".into(),
            observed: "no element matches".into(),
            attempts: vec![Attempt {
                method: Method::CoordinateClick,
                result: AttemptResult::Failed { class: ErrorClass::Permanent, message: "no element".into() },
                elapsed_ms: 1,
                observed: None,
            }],
            blocking: None,
            suggested_action: Some(SuggestedAction::RefineSelector),
            evidence: vec![],
            elapsed_ms: 3,
        };
        let v = serde_json::to_value(OutcomeDoc { outcome: &o, candidates: vec![] }).unwrap();
        assert!(v.get("candidates").is_none());
        assert_eq!(v["ok"], false);
        assert_eq!(v["suggested_action"], "refine_selector");
    }
}
