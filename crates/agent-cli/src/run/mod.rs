//! `run` and `calibrate`: the agent's face. Settings and the model from the config file
//! and the environment, the toolbelt on the display, a channel for questions, the
//! step-by-step display, traces; the run itself is deft-agent's.

pub(crate) mod ask;
pub(crate) mod saving;
mod settings;
pub(crate) mod show;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use deft_agent::{Agent, AgentEvent, RunReport, RunState, RunStatus};
use deft_bus::{Bus, BusConfig, TraceRecorder};
use deft_toolbelt::{BeltSettings, Toolbelt};
use deft_toolbelt::{DesktopConfig, ExecutorConfig, VerifyEvent};
use serde::Serialize;

pub use settings::{AgentSection, ModelSection, model_config};

use crate::cli::{AskArg, CalibrateArgs, RunArgs};
use crate::config::{Config, Format};
use crate::exit::{CliError, Exit};
use crate::output::Out;

/// `run --help`.
pub const RUN_ABOUT: &str = "\
Pursue a goal with a model: each step the model reads the goal and what the desktop shows
(an outline of the accessibility tree with refs), thinks, and calls one tool; the action is
carried out by the verified executor and its outcome (expected, observed, retried, what
blocks it) is the next observation, until the model calls done or a budget runs out.

Below the model: an action policy (--allow-app, --allow-window, --deny-key, --confirm) is
enforced on the resolved target, text read from the screen reaches the model only as
untrusted data, and a second, focused check scores the confidence in each action: below
--threshold the action is not run and the person is asked (--ask: a dialog on the desktop,
the terminal, or a needs_input result with exit 8 and `run --resume RUN --answer TEXT`).

The model comes from the [model] section of the config file or DEFT_MODEL_PROVIDER,
DEFT_MODEL, DEFT_MODEL_BASE_URL (keys from ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY),
e.g. a local Ollama: DEFT_MODEL_PROVIDER=openai-compatible DEFT_MODEL=qwen2.5vl
DEFT_MODEL_BASE_URL=http://localhost:11434/v1 agent-cli run \"Type Ada into Name and press Save\"

Without a model: DEFT_MODEL_PROVIDER=scripted DEFT_MODEL=turns.jsonl answers each call with
the next turn of a file you write (one JSON object per line, e.g. {\"reply\": {\"text\": \"Done.\",
\"tool_calls\": [{\"name\": \"done\", \"arguments\": {\"summary\": \"ok\", \"goal_met\": true}}]}};
the format is in crates/cognition/llm/README.md), and `cargo xtask demo` in a clone of Deft runs
the agent on a test app with a deterministic test model.";

/// The JSON result of `run`.
#[derive(Serialize)]
struct RunDoc<'a> {
    ok: bool,
    #[serde(flatten)]
    report: &'a RunReport,
    ask_channel: &'static str,
    /// The command that continues a paused run.
    resume: Option<String>,
    /// Where the paused run is saved.
    state_file: Option<PathBuf>,
    /// The flow `--save-flow` wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    saved_flow: Option<PathBuf>,
}

fn run_id() -> String {
    let stamp = crate::trace::utc_stamp(SystemTime::now());
    format!("run-{}-{}", stamp.replace('.', "").trim_end_matches('Z'), std::process::id())
}

/// `run`.
pub async fn run(out: &Out, config: &Config, a: &RunArgs) -> Result<Exit, CliError> {
    let env = |k: &str| std::env::var(k).ok();
    let goal = a.goal.as_deref().map(str::trim).unwrap_or_default().to_string();
    if a.resume.is_none() && goal.is_empty() {
        return Err(CliError::usage(
            "the goal is empty: say what the agent should do, e.g. agent-cli run \"Type Ada into Name and press Save\"",
        ));
    }
    let agent_cfg = settings::agent_config(config.agent.as_ref(), a)?;
    let tighten = match &a.resume {
        Some(_) => Some(settings::tighten(a)?),
        None => None,
    };
    let provider = settings::model_config(config.model.as_ref(), &env)?;
    let model = provider.build().map_err(|e| CliError::usage(e.to_string()))?;
    let state_dir = settings::state_dir(a.runs_dir.as_deref(), &env)?;
    let runs = state_dir.join("runs");
    let resumed: Option<RunState> = match &a.resume {
        Some(id) => Some(load(&runs, id)?),
        None => None,
    };

    let display = env("DISPLAY").filter(|d| !d.is_empty());
    // A resumed run asks where it asked before, unless told otherwise.
    let ask_arg = match (&resumed, a.ask) {
        (Some(s), AskArg::Auto) => s.ask_channel.as_deref().and_then(ask::Channel::arg_named).unwrap_or(AskArg::Auto),
        _ => a.ask,
    };
    let channel =
        ask::Channel::choose(ask_arg, out.format != Format::Human, display.clone(), Duration::from_secs(a.ask_timeout));
    let verify_bus = config.trace_dir.as_ref().map(|_| Bus::<VerifyEvent>::new(BusConfig::default()));
    let agent_bus = config.trace_dir.as_ref().map(|_| Bus::<AgentEvent>::new(BusConfig::default()));
    let id = resumed.as_ref().map_or_else(run_id, |s| s.run_id.clone());
    let mut recorders = Vec::new();
    let mut frames = None;
    if let Some(dir) = &config.trace_dir {
        std::fs::create_dir_all(&dir.value)
            .map_err(|e| CliError::usage(format!("cannot create the trace directory {}: {e}", dir.value.display())))?;
        let part = if resumed.is_some() { "resumed-" } else { "" };
        if let Some(b) = &agent_bus {
            let p = dir.value.join(format!("{id}-{part}agent.jsonl"));
            recorders.push(TraceRecorder::start(b, &p).map_err(|e| CliError::usage(e.to_string()))?);
            eprintln!("trace: agent events to {}", p.display());
        }
        if let Some(b) = &verify_bus {
            let p = dir.value.join(format!("{id}-{part}executor.jsonl"));
            recorders.push(TraceRecorder::start(b, &p).map_err(|e| CliError::usage(e.to_string()))?);
            frames = Some(crate::trace::frame_recorder(b, &dir.value)?);
        }
    }
    let exec = ExecutorConfig {
        frames: frames.clone().map(|f| f as std::sync::Arc<dyn deft_toolbelt::FrameSink>),
        verify: true,
        policies: config.policies()?,
        bus: verify_bus,
        ..ExecutorConfig::default()
    };
    let settings =
        BeltSettings::for_models().with_secrets(crate::secrets::from_env()).with_mask_fields(config.mask_fields());
    let on = DesktopConfig { display: display.clone(), ..DesktopConfig::default() };
    let belt = Toolbelt::connect(exec, on, settings).await?;
    if let Some(f) = &a.save_flow
        && f.exists()
    {
        return Err(CliError::usage(format!("{} exists: --save-flow keeps files; give another name", f.display())));
    }
    let saving = saving::Saving::new(&belt);
    let desktop: &dyn deft_agent::Desktop = if a.save_flow.is_some() { &saving } else { &belt };
    let shown = show::Display::new(out.color && std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let sink = |e: &AgentEvent| shown.show(e);
    let agent = Agent {
        model: &model,
        vision: Some(&model),
        desktop,
        asker: &channel,
        config: &agent_cfg,
        scope: a.app.clone(),
        sink: (!a.quiet).then_some(&sink as &(dyn Fn(&AgentEvent) + Send + Sync)),
        bus: agent_bus,
    };
    let report = match resumed {
        Some(state) => {
            let tighten = tighten.unwrap_or_default();
            agent.resume(state, a.answer.as_deref().unwrap_or_default(), &tighten).await
        }
        None => agent.run(&goal, &id).await,
    }
    .map_err(|e| match e {
        deft_agent::AgentError::Scope(e) => CliError::from(e),
        e => CliError::usage(e.to_string()),
    })?;
    // The app may still be handling the last keys: never drop its connection then.
    belt.executor().settle().await;
    // Frames first: their records are published on the bus the executor's trace records.
    if let Some(f) = &frames {
        crate::trace::say_frames(&f.finish());
    }
    for r in recorders {
        let _ = r.finish();
    }
    append_calibration(&state_dir, &report)?;
    let mut state_file = None;
    let path = runs.join(format!("{}.json", report.run_id));
    match &report.state {
        Some(state) => {
            let mut state = state.clone();
            state.ask_channel = Some(channel.name().to_string());
            save(&path, &state)?;
            state_file = Some(path);
        }
        None => {
            let _ = std::fs::remove_file(&path);
        }
    }
    let saved_flow = match &a.save_flow {
        Some(f) if report.status == RunStatus::GoalMet => {
            let text = deft_toolbelt::flow::write_flow(&goal, &saving.steps());
            std::fs::write(f, text)
                .map_err(|e| CliError::environment(format!("cannot write the flow {}: {e}", f.display())))?;
            eprintln!("flow: {} steps written to {}", saving.steps().len(), f.display());
            Some(f.clone())
        }
        Some(f) => {
            eprintln!("flow: not written to {} (the goal was not met)", f.display());
            None
        }
        None => None,
    };
    let paused = report.status == RunStatus::NeedsInput;
    let doc = RunDoc {
        ok: report.status == RunStatus::GoalMet,
        report: &report,
        ask_channel: channel.name(),
        resume: paused.then(|| format!("agent-cli run --resume {} --answer \"...\"", report.run_id)),
        state_file,
        saved_flow,
    };
    out.print(&doc, |st| {
        let mut s = format!(
            "{} {} after {} step(s), {} model call(s): {}\n",
            if doc.ok {
                st.green("✓")
            } else if paused {
                st.yellow("?")
            } else {
                st.red("✗")
            },
            report.status.as_str(),
            report.steps,
            report.model_calls,
            report.summary
        );
        if let Some(q) = &report.question {
            s.push_str(&format!(
                "question: {}\ncontinue with: agent-cli run --resume {} --answer \"...\"\n",
                q.text, report.run_id
            ));
        }
        s.push_str(&st.dim(&format!("model: {}; {}\n", report.model, report.usage)));
        s
    })?;
    Ok(match report.status {
        RunStatus::GoalMet => Exit::Ok,
        RunStatus::NeedsInput => Exit::NeedsInput,
        RunStatus::GoalNotMet | RunStatus::Budget | RunStatus::Failed => Exit::Failed,
    })
}

fn load(runs: &Path, id: &str) -> Result<RunState, CliError> {
    if id.is_empty() || id.contains('/') || id.contains("..") {
        return Err(CliError::usage(format!("{id:?} is not a run id (as the needs_input result gives it)")));
    }
    let path = runs.join(format!("{id}.json"));
    let text = std::fs::read_to_string(&path).map_err(|e| {
        CliError::usage(format!("no paused run {id} in {} ({e}); runs that finished are not kept", runs.display()))
    })?;
    let state: RunState = serde_json::from_str(&text)
        .map_err(|e| CliError::usage(format!("the saved run {} is not readable: {e}", path.display())))?;
    if state.version != deft_agent::STATE_VERSION {
        return Err(CliError::usage(format!(
            "the saved run {id} is of format {}, this agent-cli reads {}",
            state.version,
            deft_agent::STATE_VERSION
        )));
    }
    Ok(state)
}

fn save(path: &Path, state: &RunState) -> Result<(), CliError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| CliError::usage(format!("cannot create {}: {e}", dir.display())))?;
    }
    let text = serde_json::to_string(state).map_err(|e| CliError::new(Exit::Failed, e.to_string()))?;
    std::fs::write(path, text)
        .map_err(|e| CliError::usage(format!("cannot save the paused run to {}: {e}", path.display())))
}

fn append_calibration(dir: &Path, report: &RunReport) -> Result<(), CliError> {
    if report.calibration.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| CliError::usage(format!("cannot create {}: {e}", dir.display())))?;
    let path = dir.join("calibration.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| CliError::usage(format!("cannot open {}: {e}", path.display())))?;
    for r in &report.calibration {
        let line = serde_json::to_string(r).map_err(|e| CliError::new(Exit::Failed, e.to_string()))?;
        writeln!(f, "{line}").map_err(|e| CliError::usage(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// `calibrate`.
pub fn calibrate(out: &Out, a: &CalibrateArgs) -> Result<Exit, CliError> {
    let env = |k: &str| std::env::var(k).ok();
    if !(0.0..=1.0).contains(&a.target) {
        return Err(CliError::usage(format!("--target is {}: give a share from 0.0 to 1.0", a.target)));
    }
    let dir = settings::state_dir(a.runs_dir.as_deref(), &env)?;
    let path = dir.join("calibration.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        records.push(
            serde_json::from_str::<deft_agent::calibrate::Record>(line)
                .map_err(|e| CliError::usage(format!("{} line {}: {e}", path.display(), i + 1)))?,
        );
    }
    let c = deft_agent::calibrate::calibrate(&records, a.target);
    out.print(&c, |st| {
        let mut s = format!("{} (confidence, outcome) pairs in {}; {} right\n", c.pairs, path.display(), c.right);
        for b in &c.bands {
            let right = b.right.map_or("-".into(), |r| format!("{:.0}% right", r * 100.0));
            s.push_str(&format!("  {:.2}-{:.2}: {:>4} pairs, {right}\n", b.from, b.to, b.pairs));
        }
        match (c.suggested_threshold, c.ask_rate) {
            (Some(t), Some(r)) => s.push_str(&format!(
                "{} threshold = {t:.2}: actions at or above it were right {:.0}% of the time or more; {:.0}% would have asked\n  set it with [agent.confidence] threshold = {t:.2}, or --threshold {t:.2}\n",
                st.green("suggested"),
                c.target * 100.0,
                r * 100.0
            )),
            _ if c.pairs < deft_agent::calibrate::MIN_PAIRS => s.push_str(&format!(
                "too few pairs for a suggestion (at least {}): the default threshold 0.85 stays\n",
                deft_agent::calibrate::MIN_PAIRS
            )),
            _ => s.push_str("no threshold reaches the target precision: keep asking more, or lower --target\n"),
        }
        s
    })?;
    Ok(Exit::Ok)
}
