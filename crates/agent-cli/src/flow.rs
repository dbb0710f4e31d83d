//! `flow run` and `flow check`: a flow file read, handed to the toolbelt's flow parser and
//! runner (deft-toolbelt `flow`), and its outcome shown. What a flow means is the
//! toolbelt's; this face reads the file and the `--var`s and presents the result.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use deft_toolbelt::ToolOutput;
use deft_toolbelt::flow::{
    Flow, FlowEvent, FlowReport, OnFail, PersonsAnswer, RecordedStep, StepAnswer, StepReport, StepStatus, parse_flow,
};

use crate::act::{Session, wait_human};
use crate::cli::AskArg;
use crate::config::{Config, Format};
use crate::exit::{self, CliError, Exit};
use crate::flow_ask::{Asked, Asking};
use crate::flow_repair::Repairer;
use crate::flow_trace::FlowTrace;
use crate::output::{Out, Style, candidates_human, outcome_human};
use crate::run::ask::Channel;

/// What `flow` says about itself.
pub const FLOW_ABOUT: &str = "\
Replay a task written down as a flow file, every step verified, with no model.

A flow is YAML: `steps:` is a list of tool calls (the tools `agent-cli tools` lists, with
their parameters), each with an optional `name:` and `expect:` (a condition that must hold
after it, as `wait` takes them); `vars:` gives defaults for `{{name}}` in any text, and
`--var name=value` overrides them:

  flow: Submit an order
  vars: {customer: John}
  steps:
    - type: {target: Name, text: \"{{customer}}\"}
    - click: Submit order
      expect: text:\"Order submitted\"

The whole file is checked before anything runs (`flow check` only checks it); a problem is
reported with its line. A step that fails stops the flow with its outcome and the exit code
of that failure, unless it says `on_fail: repair` (the agent makes its effect hold) or
`on_fail: ask` (you answer retry, done, skip or stop; a deferred question ends with exit 8,
and `--from N` goes on from step N, sending it only if its effect is not there yet).";

/// `flow`.
#[derive(Args, Debug, Clone)]
pub struct FlowArgs {
    /// What to do with the flow.
    #[command(subcommand)]
    pub verb: FlowVerb,
}

/// `flow run` / `flow check`.
#[derive(Subcommand, Debug, Clone)]
pub enum FlowVerb {
    /// Run every step of a flow file, verified, stopping at the first that fails
    Run(FlowRunArgs),
    /// Check a flow file (YAML, tools, parameters, conditions, variables) without running it
    Check(FlowFileArgs),
    /// Watch a person do the task on this desktop and write it as a flow (on Wayland, inferred from what the apps report); Ctrl+C ends
    Record(FlowRecordArgs),
}

/// `flow record`.
#[derive(Args, Debug, Clone)]
pub struct FlowRecordArgs {
    /// Where to write the flow (YAML); an existing file is kept unless --force
    #[arg(value_name = "FLOW.yaml")]
    pub file: PathBuf,
    /// The application the first keys go to, when the task starts with keys, not a click
    #[arg(long, value_name = "NAME")]
    pub app: Option<String>,
    /// A chord that ends the recording (not recorded), beside Ctrl+C in this terminal
    #[arg(long, value_name = "CHORD")]
    pub until: Option<String>,
    /// The flow's name (`flow:` in the file) [default: the file's name]
    #[arg(long, value_name = "TEXT")]
    pub name: Option<String>,
    /// Replace the file if it exists
    #[arg(long)]
    pub force: bool,
}

/// The flow file and its variables.
#[derive(Args, Debug, Clone)]
pub struct FlowFileArgs {
    /// The flow file (YAML)
    #[arg(value_name = "FLOW.yaml")]
    pub file: PathBuf,
    /// A variable's value: --var customer=John (repeat for several; wins over the flow's `vars:`)
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
}

/// `flow run`.
#[derive(Args, Debug, Clone)]
pub struct FlowRunArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub flow: FlowFileArgs,
    /// How long each step's effect may take to show, and the longest wait for its target
    /// (a step's own timeout_ms wins) [default: 3000; target: 10000]
    #[arg(long, value_name = "MS")]
    pub timeout: Option<u64>,
    /// A retry policy file merged over the built-in policies
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Record every bus event to DIR/trace-<time>.jsonl (`agent-cli report DIR` renders it)
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
    /// When a step fails, let the agent (the configured model) make its effect hold, then go
    /// on (a step's `on_fail: repair` asks the same for that step alone)
    #[arg(long)]
    pub repair: bool,
    /// Write each repaired step back into the flow file (only that step's lines change), so
    /// the next replay needs no model
    #[arg(long)]
    pub update: bool,
    /// Start at step N (from 1): the steps before it are not run, and step N is sent only
    /// when its expectation does not hold already (e.g. after a question deferred there)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub from: Option<u64>,
    /// Where a step's `on_fail: ask` question goes
    #[arg(long, value_enum, default_value_t = AskArg::Auto)]
    pub ask: AskArg,
    /// Seconds the dialog or terminal waits for an answer
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub ask_timeout: u64,
}

pub(crate) fn parse_var(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("`{s}` is not NAME=VALUE (e.g. --var customer=John)")),
    }
}

/// `flow run` or `flow check`.
pub fn flow(out: &Out, config: &Config, a: &FlowArgs) -> Result<Exit, CliError> {
    match &a.verb {
        FlowVerb::Check(f) => {
            let (path, flow) = load(f)?;
            let summary = Checked { file: &path, flow: flow.name.as_deref(), steps: flow.steps.len() };
            out.print(&summary, |st| {
                format!("{} {} is a flow of {} steps, ready to run\n", st.green("✓"), path.display(), flow.steps.len())
            })?;
            Ok(Exit::Ok)
        }
        FlowVerb::Record(r) => crate::app::runtime()?.block_on(crate::flow_record::record(out, config, r)),
        FlowVerb::Run(r) => {
            // The file is checked before anything touches the desktop.
            let (_, flow) = load(&r.flow)?;
            let from = usize::try_from(r.from.unwrap_or(1)).unwrap_or(usize::MAX);
            if from > flow.steps.len() {
                return Err(CliError::usage(format!(
                    "--from {from}: the flow has {} steps; give one of 1..={}",
                    flow.steps.len(),
                    flow.steps.len()
                )));
            }
            let json = out.format != Format::Human;
            let repairs = r.repair || flow.steps.iter().any(|s| s.on_fail == OnFail::Repair);
            let asks = flow.steps.iter().any(|s| s.on_fail == OnFail::Ask);
            let repairer = match (repairs, asks) {
                (true, _) => Some(Repairer::new(config, json)?),
                // A question offers `repair` only when a model is configured.
                (false, true) => Repairer::new(config, json).ok(),
                (false, false) => None,
            };
            if r.update && repairer.is_none() {
                return Err(CliError::usage(
                    "--update writes repaired steps back: it goes with --repair, or with a step's on_fail: repair or ask (answered `repair`), and a configured model",
                ));
            }
            crate::app::runtime()?.block_on(run(out, config, &flow, r, repairer.as_ref()))
        }
    }
}

#[derive(serde::Serialize)]
struct Checked<'a> {
    file: &'a Path,
    flow: Option<&'a str>,
    steps: usize,
}

/// Reads and checks the flow file.
fn load(f: &FlowFileArgs) -> Result<(PathBuf, Flow), CliError> {
    let text = std::fs::read_to_string(&f.file)
        .map_err(|e| CliError::usage(format!("cannot read the flow file {}: {e}", f.file.display())))?;
    let vars: BTreeMap<String, String> = f.vars.iter().cloned().collect();
    let flow = parse_flow(&text, &vars).map_err(|e| CliError::usage(format!("{}: {e}", f.file.display())))?;
    Ok((f.file.clone(), flow))
}

async fn run(
    out: &Out,
    config: &Config,
    flow: &Flow,
    r: &FlowRunArgs,
    repairer: Option<&Repairer>,
) -> Result<Exit, CliError> {
    let session = Session::connect_for(config, repairer.is_some()).await?;
    let belt = session.belt();
    let total = flow.steps.len();
    let progress = session.progress(format!("step 1 of {total}"));
    let human = out.format == Format::Human;
    let started = std::time::Instant::now();
    let mut reports: Vec<StepReport> = Vec::new();
    let mut repaired: Vec<(usize, Vec<RecordedStep>)> = Vec::new();
    let from = usize::try_from(r.from.unwrap_or(1)).unwrap_or(1);
    let display = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
    let channel = Channel::choose(r.ask, !human, display, std::time::Duration::from_secs(r.ask_timeout));
    let mut deferred = false;
    let steps_told = FlowTrace::start(session.bus().as_ref(), session.trace_path())?;
    steps_told.say(FlowEvent::FlowStarted { flow: flow.name.clone(), steps_total: total, from_step: from });
    for (i, step) in flow.steps.iter().enumerate().skip(from - 1) {
        progress.say(format!("step {} of {total}", i + 1));
        steps_told.say(FlowEvent::started(step, i + 1));
        let mut report = belt.start_flow_step(step, i + 1, i + 1 == from && from > 1).await;
        let repair = r.repair || step.on_fail == OnFail::Repair;
        if !report.done() && step.on_fail == OnFail::Ask && !r.repair {
            if human {
                let _ = out.print(&(), |st| step_human(&report, total, st));
            }
            progress.say(format!("asking about step {} of {total}", i + 1));
            let say = |m: &str| progress.say(m.to_string());
            let asking = Asking {
                belt,
                channel: &channel,
                flow: flow.name.as_deref(),
                total,
                repairer,
                done: &reports,
                say: &say,
            };
            match asking.ask(step, report).await {
                Asked::Answered(answered, instead) => {
                    report = answered;
                    if let Some(steps) = instead {
                        repaired.push((i, steps));
                    }
                }
                Asked::Deferred(answered) => {
                    report = answered;
                    deferred = true;
                }
            }
        } else if let (false, true, Some(agent)) = (report.done(), repair, repairer) {
            if human {
                let _ = out.print(&(), |st| step_human(&report, total, st));
            }
            progress.say(format!("repairing step {} of {total}", i + 1));
            let (done, steps) = agent.repair(belt, flow.name.as_deref(), &reports, step, &report, total).await;
            if done.ok {
                repaired.push((i, steps));
            }
            report.repaired = Some(done);
        }
        // Skipped, stopped or unanswered: the failure is on the screen already.
        let said = report
            .person
            .as_ref()
            .filter(|p| p.choice.is_none_or(|c| matches!(c, StepAnswer::Skip | StepAnswer::Stop)));
        if let (true, Some(p)) = (human, said) {
            let _ = out.print(&(), |st| person_human(p, &report, st));
        } else if human && (report.repaired.is_some() || report.person.is_some() || !repair || report.done()) {
            // Each step as it ends: a long flow shows where it is.
            let _ = out.print(&(), |st| step_human(&report, total, st));
        }
        steps_told.say(FlowEvent::ended(&report));
        let done = report.done();
        reports.push(report);
        if !done {
            break;
        }
    }
    // The app may still be handling the keys just sent: never drop its connection then.
    belt.executor().settle().await;
    progress.stop();
    let report = FlowReport::of(flow, reports, started);
    steps_told.say(FlowEvent::FlowFinished { ok: report.ok, skipped: report.skipped });
    steps_told.finish();
    session.finish();
    if r.update && report.ok && !repaired.is_empty() {
        update(&r.flow.file, flow, &repaired)?;
        if human {
            let _ = out.print(&(), |st| {
                format!(
                    "{} {}: {} repaired step(s) written back\n",
                    st.green("✓"),
                    r.flow.file.display(),
                    repaired.len()
                )
            });
        }
    }
    out.print(&report, |st| summary_human(&report, st))?;
    if deferred {
        return Ok(Exit::NeedsInput);
    }
    Ok(exit_of(&report))
}

/// Writes the repaired steps back into the flow file, last first (so the lines of the
/// earlier ones stay where they were), each in place of the step it repaired.
fn update(file: &Path, flow: &Flow, repaired: &[(usize, Vec<RecordedStep>)]) -> Result<(), CliError> {
    let mut text = std::fs::read_to_string(file)
        .map_err(|e| CliError::environment(format!("cannot read {} to update it: {e}", file.display())))?;
    for (i, steps) in repaired.iter().rev() {
        let step = &flow.steps[*i];
        let Some(line) = step.line else {
            return Err(CliError::usage(format!(
                "{}: step {} is written inline, so it cannot be rewritten in place: write the steps one per line",
                file.display(),
                i + 1
            )));
        };
        let next = flow.steps.get(i + 1).and_then(|s| s.line);
        text = crate::flow_repair::replace_step(&text, line, next, step.name.as_deref(), steps);
    }
    write_whole(file, &text)
}

/// Writes `text` to `path` whole or not at all (a temporary file beside it, renamed).
pub(crate) fn write_whole(path: &Path, text: &str) -> Result<(), CliError> {
    let tmp = path.with_extension("yaml.partial");
    let failed = |e: std::io::Error| CliError::environment(format!("cannot write {}: {e}", path.display()));
    std::fs::write(&tmp, text).map_err(failed)?;
    std::fs::rename(&tmp, path).map_err(failed)
}

/// One step, for people: its place, then its outcome as the verb would print it.
fn step_human(s: &StepReport, total: usize, st: &Style) -> String {
    let mut head = format!("step {} of {total}", s.step);
    if let Some(l) = s.line {
        head.push_str(&format!(", line {l}"));
    }
    if let Some(n) = &s.name {
        head.push_str(&format!(" ({n})"));
    }
    let body = match (&s.output, &s.error) {
        (Some(ToolOutput::Action(r)), _) => {
            let mut text = outcome_human(&r.outcome, &s.asked, st);
            if let Some(f) = &r.outcome.failure {
                text.push_str(&candidates_human(&f.candidates, st));
            }
            text
        }
        (Some(ToolOutput::Wait(w)), _) => wait_human(w, st),
        (_, Some(e)) => format!("{} {} {}: {}\n", st.red("✗"), s.tool, s.asked, e.message),
        (Some(_), None) => format!("{} {} {}\n", st.green("✓"), s.tool, s.asked),
        (None, None) => String::new(),
    };
    let mut text = format!("{} {body}", st.dim(&format!("{head}:")));
    match &s.repaired {
        Some(r) if r.ok => text.push_str(&format!(
            "  {} repaired by the agent ({} model calls): {}\n",
            st.green("✓"),
            r.model_calls,
            r.summary
        )),
        Some(r) => {
            text.push_str(&format!("  {} not repaired ({} model calls): {}\n", st.red("✗"), r.model_calls, r.summary))
        }
        None => {}
    }
    if let Some(p) = &s.person {
        text.push_str(&person_human(p, s, st));
    }
    text
}

/// What the person answered about a failed step, and what came of it.
fn person_human(p: &PersonsAnswer, s: &StepReport, st: &Style) -> String {
    match (p.choice, &p.unanswered) {
        (_, Some(why)) if p.choice.is_none() => format!("  {} asked, no answer: {why}\n", st.yellow("?")),
        (Some(StepAnswer::Skip), _) => {
            format!("  {} skipped: the person answered to go on without it\n", st.yellow("→"))
        }
        (Some(StepAnswer::Done), _) if p.on_their_word => {
            format!("  {} done by hand, on the person's word (the step has no expect to check it by)\n", st.yellow("✓"))
        }
        (Some(a), _) if s.done() => format!("  {} after the person's answer `{}`\n", st.green("✓"), a.as_str()),
        (Some(a), _) => format!("  {} still failed after the person's answer `{}`\n", st.red("✗"), a.as_str()),
        (None, _) => format!("  {} asked, no answer the flow could use ({} given)\n", st.red("✗"), p.answers.len()),
    }
}

fn summary_human(r: &FlowReport, st: &Style) -> String {
    let name = r.flow.as_deref().map(|n| format!(" {n:?}")).unwrap_or_default();
    let time = st.dim(&format!("[{} ms]", r.elapsed_ms));
    if r.ok {
        let skipped = match r.skipped {
            0 => String::new(),
            n => format!(" ({n} skipped by the person)"),
        };
        return format!(
            "{} flow{name}: {} of {} steps done{skipped} {time}\n",
            st.green("✓"),
            r.steps.len(),
            r.steps_total
        );
    }
    match r.steps.last() {
        Some(last) => {
            let line = last.line.map(|l| format!(" (line {l})")).unwrap_or_default();
            format!(
                "{} flow{name} stopped at step {} of {}{line}: {} {time}\n",
                st.red("✗"),
                last.step,
                r.steps_total,
                if last.status == StepStatus::Failed {
                    "its effect was not seen"
                } else {
                    "it could not be carried out"
                }
            )
        }
        None => format!("{} flow{name}: no step ran {time}\n", st.red("✗")),
    }
}

/// The exit code: 0 when every step was done, else the failed step's, as its verb's.
fn exit_of(r: &FlowReport) -> Exit {
    if r.ok {
        return Exit::Ok;
    }
    match r.steps.last() {
        Some(StepReport { output: Some(ToolOutput::Action(a)), .. }) => exit::of_outcome(&a.outcome),
        Some(StepReport { output: Some(ToolOutput::Wait(_)), .. }) => Exit::TimedOut,
        Some(StepReport { error: Some(e), .. }) => CliError::from(e.clone()).exit,
        _ => Exit::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::parse_var;

    #[test]
    fn a_var_is_a_name_and_a_value() {
        assert_eq!(parse_var("who=Ada=B").unwrap(), ("who".into(), "Ada=B".into()));
        assert_eq!(parse_var("who=").unwrap(), ("who".into(), String::new()));
        assert!(parse_var("who").unwrap_err().contains("not NAME=VALUE"));
        assert!(parse_var("=x").is_err());
    }
}
