//! The action verbs and `wait`, carried out by the toolbelt over one executor. This module
//! connects it, hands it the call, and turns its result into output and an exit code:
//! resolving, acting, verifying and retrying are below.

use std::sync::Arc;

use deft_bus::{Bus, BusConfig, Received};
use deft_toolbelt::{AsFlags, BeltSettings, OutlineStyle, ToolCall, ToolOutput, Toolbelt, WaitReport};
use deft_toolbelt::{DesktopConfig, ExecutorConfig, VerifyEvent};

use crate::config::{Config, Format};
use crate::exit::{self, CliError, Exit};
use crate::output::{Out, candidates_human, outcome_human};
use crate::spinner::Spinner;
use crate::trace::Trace;

/// The toolbelt and what records or displays its events.
pub struct Session {
    belt: Toolbelt,
    bus: Option<Bus<VerifyEvent>>,
    trace: Option<Trace>,
    spinner: bool,
}

/// The executor's settings from the configuration, shared by the verbs and the MCP server:
/// policies with the flags' overrides (inconsistent ones are usage errors, reported before
/// touching the desktop), and `--timeout` bounding every wait, including the wait for the
/// target to be found and actionable.
pub fn executor_config(
    config: &Config,
    verify: bool,
    bus: Option<Bus<VerifyEvent>>,
) -> Result<ExecutorConfig, CliError> {
    let exec_config = ExecutorConfig {
        verify,
        verify_delay_ms: config.verify_delay_ms.as_ref().map(|s| s.value),
        max_retries: config.max_retries.as_ref().map(|s| s.value),
        timeout_ms: config.timeout_ms.as_ref().map(|s| s.value),
        policies: config.policies()?,
        bus,
        actionability_timeout_ms: config
            .timeout_ms
            .as_ref()
            .map_or(ExecutorConfig::default().actionability_timeout_ms, |t| t.value),
        ..ExecutorConfig::default()
    };
    for kind in deft_retry::ALL_KINDS {
        exec_config
            .policies
            .get(kind)
            .with_overrides(kind, exec_config.overrides())
            .map_err(|e| CliError::usage(format!("the {} policy with these settings is invalid: {e}", kind.verb())))?;
    }
    Ok(exec_config)
}

impl Session {
    /// Connect the executor on the desktop of `DISPLAY` and the session bus.
    pub async fn connect(config: &Config) -> Result<Session, CliError> {
        Session::connect_for(config, false).await
    }

    /// [`Session::connect`], its outlines and refs for a model when `model_reads` (the agent
    /// repairs a flow's step through it) rather than for people.
    pub async fn connect_for(config: &Config, model_reads: bool) -> Result<Session, CliError> {
        Session::open(config, model_reads, false).await
    }

    /// [`Session::connect_for`] with its executor's events on a bus whether or not they
    /// are traced here (a fleet worker keeps each task's trace with its record).
    pub async fn connect_with_bus(config: &Config, model_reads: bool) -> Result<Session, CliError> {
        Session::open(config, model_reads, true).await
    }

    async fn open(config: &Config, model_reads: bool, bus: bool) -> Result<Session, CliError> {
        let spinner = Spinner::wanted(config.format.value == Format::Human);
        let bus = (bus || config.trace_dir.is_some() || spinner).then(|| Bus::new(BusConfig::default()));
        let mut exec_config = executor_config(config, config.verify.value, bus.clone())?;
        let trace = match (&bus, &config.trace_dir) {
            (Some(bus), Some(dir)) => Some(Trace::start_with_frames(bus, &dir.value)?),
            _ => None,
        };
        exec_config.frames = trace.as_ref().and_then(Trace::frame_sink);
        let settings = match model_reads {
            true => BeltSettings::for_models()
                .with_secrets(crate::secrets::from_env())
                .with_mask_fields(config.mask_fields()),
            false => BeltSettings {
                verify_by_default: config.verify.value,
                outline: OutlineStyle::detailed(false),
                session_refs: false,
                changes_after_action: None,
                secrets: crate::secrets::from_env(),
                mask_fields: config.mask_fields(),
            },
        };
        let belt = Toolbelt::connect(exec_config, DesktopConfig::default(), settings).await?;
        Ok(Session { belt, bus, trace, spinner })
    }

    /// The toolbelt.
    pub fn belt(&self) -> &Toolbelt {
        &self.belt
    }

    /// The file its executor's events are traced to (`--trace`), when they are.
    pub fn trace_path(&self) -> Option<&std::path::Path> {
        self.trace.as_ref().map(Trace::path)
    }

    /// Its executor's bus, when it has one.
    pub fn bus(&self) -> Option<Bus<VerifyEvent>> {
        self.bus.clone()
    }

    pub(crate) fn progress(&self, message: String) -> Progress {
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

    pub(crate) fn finish(self) {
        if let Some(t) = self.trace {
            t.finish();
        }
    }
}

pub(crate) struct Progress {
    spinner: Arc<Spinner>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Progress {
    /// Say this instead of the first message.
    pub(crate) fn say(&self, message: String) {
        self.spinner.set_message(message);
    }

    pub(crate) fn stop(self) {
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
        VerifyEvent::Held { for_ms, why, .. } => Some(format!("holding up to {for_ms} ms: {why}")),
        VerifyEvent::WaitStarted { condition, .. } => {
            Some(format!("waiting until {}", deft_a11y::selector::describe_condition(condition)))
        }
        _ => None,
    }
}

/// Carry out one action verb or `wait`.
pub async fn act(out: &Out, config: &Config, call: ToolCall) -> Result<Exit, CliError> {
    // Usage errors are reported before touching the desktop (the CLI has no refs).
    let plan = call.plan(&AsFlags, None, config.verify.value)?;
    let session = Session::connect(config).await?;
    let verb = verb_of(&call);
    let progress = session.progress(format!("{verb} {}", plan.asked));
    let asked = plan.asked.clone();
    let result = session.belt.run(plan).await;
    // The app may still be handling the keys just sent: never drop its connection then.
    session.belt.executor().settle().await;
    progress.stop();
    session.finish();
    match result? {
        ToolOutput::Action(report) => {
            let o = &report.outcome;
            out.print(&report, |st| {
                let mut text = outcome_human(o, &asked, st);
                if let Some(f) = &o.failure {
                    text.push_str(&candidates_human(&f.candidates, st));
                }
                text
            })?;
            Ok(exit::of_outcome(o))
        }
        ToolOutput::Wait(w) => {
            out.print(&w, |st| wait_human(&w, st))?;
            Ok(if w.ok { Exit::Ok } else { Exit::TimedOut })
        }
        _ => Err(CliError::new(Exit::Failed, format!("`{verb}` returned no outcome"))),
    }
}

/// The verb as the command line spells it.
fn verb_of(call: &ToolCall) -> String {
    deft_toolbelt::Spelling::tool(&AsFlags, call.name().as_str())
}

pub(crate) fn wait_human(d: &WaitReport, st: &crate::output::Style) -> String {
    let o = &d.outcome;
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
}
