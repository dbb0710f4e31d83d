//! The report's data: the traces of a folder (or one file) read back and put in the shape
//! the viewer shows: runs, their agent steps, the executor's actions and waits with their
//! events, outcomes and frames, and the totals. Plain serde data, escaped into the page as
//! one JSON island; nothing here builds markup.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use deft_agent::AgentEvent;
use deft_bus::{Envelope, TraceRecord, read_trace};
use deft_toolbelt::flow::FlowEvent;
use deft_toolbelt::{FrameRecord, VerifyEvent};
use deft_types::{Action, Target};
use serde::Serialize;
use serde_json::Value;

/// Everything the page shows.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// What was read (a folder or a file), as given.
    pub source: String,
    /// Totals over every run.
    pub summary: Summary,
    /// One per trace file, or per agent run (its agent and executor files together).
    pub runs: Vec<Run>,
    /// Frame files by name, as `data:image/png;base64,...` URLs.
    pub frames: BTreeMap<String, String>,
}

/// Totals at the top of the page.
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub actions: u32,
    pub verified: u32,
    pub received: u32,
    pub sent: u32,
    pub retried: u32,
    pub failed: u32,
    pub unfinished: u32,
    pub waits: u32,
    pub waits_met: u32,
    /// From the first event to the last, over every run (wall clock).
    pub total_ms: u64,
    pub agent_steps: u32,
    pub model_calls: u32,
    pub prompt_tokens: u64,
    pub output_tokens: u64,
    pub frames: u32,
    pub frame_bytes: u64,
    pub frames_skipped: u32,
    /// Lines that could not be read, over every file.
    pub diagnostics: u32,
}

/// One run: what a process (or an agent run) recorded.
#[derive(Debug, Default, Serialize)]
pub struct Run {
    pub name: String,
    pub files: Vec<String>,
    /// Wall-clock start, ms since the Unix epoch.
    pub started_unix_ms: u64,
    pub duration_ms: u64,
    /// Unreadable lines and lag, in words (a torn last line: the process was killed).
    pub diagnostics: Vec<String>,
    pub goal: Option<String>,
    pub model: Option<String>,
    pub status: Option<String>,
    pub summary: Option<String>,
    pub steps: Vec<AgentStep>,
    /// The executor's actions and waits, in order.
    pub ops: Vec<Op>,
    /// When the run replayed a flow: its steps, each with the operations it made.
    pub flow: Option<super::flow::FlowRun>,
}

/// One step of the agent.
#[derive(Debug, Default, Serialize)]
pub struct AgentStep {
    pub step: u32,
    pub at_ms: u64,
    pub duration_ms: u64,
    pub thought: Option<String>,
    pub tool: Option<String>,
    /// The call's arguments in words (`target=e12 text="Ada"`), not as JSON.
    pub args: Option<String>,
    pub target: Option<String>,
    pub confidence: Option<Value>,
    pub policy_blocked: Option<String>,
    pub question: Option<String>,
    pub question_reason: Option<String>,
    pub answer: Option<String>,
    pub observation: Option<String>,
    pub ok: Option<bool>,
    pub divergence: Option<String>,
    pub stats: Option<Value>,
    /// The executor's operations carried out during this step (`op` numbers).
    pub ops: Vec<u64>,
}

/// One operation of the executor: an action or a wait.
#[derive(Debug, Default, Serialize)]
pub struct Op {
    pub op: u64,
    /// `click`, `type`, ..., `wait`.
    pub kind: String,
    /// The request in words (typed text as its length only: the trace never has it).
    pub asked: String,
    /// Since the run started.
    pub at_ms: u64,
    pub duration_ms: u64,
    /// `verified`, `received`, `sent`, `failed`, `met`, `timed_out`, `unfinished`.
    pub status: String,
    pub retried: bool,
    /// The outcome as the executor gave it (deft_types::Outcome, or a wait's outcome).
    pub outcome: Option<Value>,
    /// What happened, in order: (ms since the operation started, kind, words).
    pub events: Vec<OpEvent>,
    pub frames: Vec<FrameRecord>,
}

/// One thing the executor did or saw during an operation.
#[derive(Debug, Serialize)]
pub struct OpEvent {
    pub at_ms: Option<u64>,
    pub kind: String,
    pub text: String,
}

/// Reads `path` (a trace folder or one `.jsonl` file) into a report.
pub fn read(path: &Path) -> Result<Report, String> {
    let (dir, files) = if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        (path.to_path_buf(), files)
    } else if path.is_file() {
        (path.parent().unwrap_or(Path::new(".")).to_path_buf(), vec![path.to_path_buf()])
    } else {
        return Err(format!("{} is neither a trace folder nor a trace file", path.display()));
    };
    if files.is_empty() {
        return Err(format!("{} holds no trace (*.jsonl): record one with --trace DIR", path.display()));
    }
    let mut groups: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for f in files {
        let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let key = ["-agent.jsonl", "-executor.jsonl", "-flow.jsonl"]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .map(|k| k.trim_end_matches("-resumed").to_string())
            .unwrap_or_else(|| name.trim_end_matches(".jsonl").to_string());
        groups.entry(key).or_default().push(f);
    }
    let mut report = Report { source: path.display().to_string(), ..Report::default() };
    for (name, files) in groups {
        report.runs.push(read_run(name, &files)?);
    }
    if report.runs.iter().all(|r| r.ops.is_empty() && r.steps.is_empty() && r.flow.is_none()) {
        return Err(format!(
            "{} holds no event agent-cli records (not a trace, or an empty one): give the folder that --trace DIR \
             wrote, or one of its *.jsonl files",
            path.display()
        ));
    }
    report.runs.sort_by_key(|r| r.started_unix_ms);
    embed_frames(&mut report, &dir);
    summarise(&mut report);
    Ok(report)
}

/// Events of a run on one wall clock (µs since the Unix epoch).
pub(super) struct Timed<E> {
    pub wall_us: u64,
    pub env: Envelope<E>,
}

fn timed<E: Clone>(records: &[TraceRecord<E>], diagnostics: &mut Vec<String>) -> Vec<Timed<E>> {
    let mut origin = 0u64;
    let mut out = Vec::new();
    for r in records {
        match r {
            TraceRecord::Started { bus_started_unix_ms } => origin = bus_started_unix_ms * 1000,
            TraceRecord::Event(env) => out.push(Timed { wall_us: origin + env.at_us, env: env.clone() }),
            TraceRecord::Lagged { missed } => {
                diagnostics.push(format!("the recorder fell behind: {missed} events are missing here"))
            }
            TraceRecord::Unserializable { seq, error } => {
                diagnostics.push(format!("event {seq} was not recorded: {error}"))
            }
        }
    }
    out
}

fn read_run(name: String, files: &[PathBuf]) -> Result<Run, String> {
    let mut run = Run { name, ..Run::default() };
    let mut exec: Vec<Timed<VerifyEvent>> = Vec::new();
    let mut agent: Vec<Timed<AgentEvent>> = Vec::new();
    let mut flow: Vec<Timed<FlowEvent>> = Vec::new();
    for f in files {
        run.files.push(f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        let v = read_trace::<VerifyEvent>(f).map_err(|e| e.to_string())?;
        let a = read_trace::<AgentEvent>(f).map_err(|e| e.to_string())?;
        let fl = read_trace::<FlowEvent>(f).map_err(|e| e.to_string())?;
        let label = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // A file holds one kind of event: the reading that understood more of it.
        let (diags, n) = if fl.events().count() > v.events().count().max(a.events().count()) {
            let d = fl.diagnostics.clone();
            flow.extend(timed(&fl.records, &mut run.diagnostics));
            (d, fl.events().count())
        } else if a.events().count() > v.events().count() {
            let d = a.diagnostics.clone();
            agent.extend(timed(&a.records, &mut run.diagnostics));
            (d, a.events().count())
        } else {
            let d = v.diagnostics.clone();
            exec.extend(timed(&v.records, &mut run.diagnostics));
            (d, v.events().count())
        };
        run.diagnostics.extend(diags.iter().map(|d| format!("{label}: {d}")));
        if n == 0 && diags.is_empty() {
            run.diagnostics.push(format!("{label}: no events"));
        }
    }
    let walls =
        || exec.iter().map(|t| t.wall_us).chain(agent.iter().map(|t| t.wall_us)).chain(flow.iter().map(|t| t.wall_us));
    let (first, last) = (walls().min().unwrap_or(0), walls().max().unwrap_or(0));
    run.started_unix_ms = first / 1000;
    run.duration_ms = (last - first) / 1000;
    let mut starts: Vec<(u64, u64)> = Vec::new();
    run.ops = ops(&exec, first, &mut starts);
    run.steps = steps(&mut run, &agent, first, &starts);
    run.flow = super::flow::read(&flow, first, &starts);
    Ok(run)
}

fn ops(events: &[Timed<VerifyEvent>], first: u64, starts: &mut Vec<(u64, u64)>) -> Vec<Op> {
    let mut ops: BTreeMap<u64, Op> = BTreeMap::new();
    let mut began: BTreeMap<u64, u64> = BTreeMap::new();
    let mut asked_by_id: BTreeMap<u64, (Action, bool)> = BTreeMap::new();
    for t in events {
        let e = &t.env.event;
        let op_id = e.op();
        let op = ops.entry(op_id).or_insert_with(|| Op { op: op_id, status: "unfinished".into(), ..Op::default() });
        let since = |at: u64| Some(at);
        match e {
            VerifyEvent::ActionStarted { action, verify, .. } => {
                began.insert(op_id, t.wall_us);
                starts.push((t.wall_us, op_id));
                op.at_ms = (t.wall_us - first) / 1000;
                op.kind = action.kind().verb().to_string();
                op.asked = asked(action, *verify, None);
                asked_by_id.insert(op_id, (action.clone(), *verify));
            }
            VerifyEvent::WaitStarted { condition, timeout_ms, .. } => {
                began.entry(op_id).or_insert(t.wall_us);
                if op.kind.is_empty() {
                    starts.push((t.wall_us, op_id));
                    op.at_ms = (t.wall_us - first) / 1000;
                    op.kind = "wait".into();
                    op.asked = format!(
                        "wait until {} (timeout {timeout_ms} ms)",
                        deft_a11y::selector::describe_condition(condition)
                    );
                }
            }
            VerifyEvent::Resolved { at_ms, target, channel, .. } => op.events.push(OpEvent {
                at_ms: since(*at_ms),
                kind: "resolved".into(),
                text: format!("found {} (through {})", target_words(target), words(channel)),
            }),
            VerifyEvent::NotActionable { at_ms, reason, .. } => {
                op.events.push(OpEvent { at_ms: since(*at_ms), kind: "not_actionable".into(), text: reason.clone() })
            }
            VerifyEvent::Step { step, .. } => {
                op.events.push(OpEvent { at_ms: None, kind: "step".into(), text: step.to_string() })
            }
            VerifyEvent::Observed { observation, .. } => op.events.push(OpEvent {
                at_ms: Some(observation.at_ms),
                kind: "observed".into(),
                text: report_words(&observation.report),
            }),
            VerifyEvent::InputSent { at_ms, what, .. } => {
                op.events.push(OpEvent { at_ms: since(*at_ms), kind: "input".into(), text: what.clone() })
            }
            VerifyEvent::Held { at_ms, for_ms, why, .. } => op.events.push(OpEvent {
                at_ms: since(*at_ms),
                kind: "held".into(),
                text: format!("held up to {for_ms} ms: {why}"),
            }),
            VerifyEvent::Evidence { evidence, .. } => op.events.push(OpEvent {
                at_ms: None,
                kind: "evidence".into(),
                text: format!("{}: {}", words(&evidence.channel), evidence.what),
            }),
            VerifyEvent::ActionFinished { outcome, .. } => {
                op.status = match (outcome.ok, outcome.verified) {
                    (false, _) => "failed",
                    (true, Some(true)) => "verified",
                    (true, Some(false)) => "received",
                    (true, None) => "sent",
                }
                .into();
                op.retried = outcome.retried;
                op.duration_ms = outcome.elapsed_ms;
                op.outcome = serde_json::to_value(outcome).ok();
                // Aimed by id (an agent's ref): titled by what the id was found to be.
                if let (Some((action, verify)), Some(found)) = (asked_by_id.get(&op_id), &outcome.target)
                    && matches!(action.target(), Some(Target::Selector(s)) if s.id.is_some())
                {
                    op.asked = asked(action, *verify, Some(found));
                }
            }
            VerifyEvent::WaitFinished { outcome, .. } => {
                if op.outcome.is_none() {
                    op.status = if outcome.met { "met" } else { "timed_out" }.into();
                    op.duration_ms = outcome.elapsed_ms;
                    op.outcome = serde_json::to_value(outcome).ok();
                }
            }
            VerifyEvent::Frame(f) => op.frames.push(f.clone()),
        }
        if op.outcome.is_none()
            && let Some(b) = began.get(&op_id)
        {
            op.duration_ms = (t.wall_us.saturating_sub(*b)) / 1000;
        }
    }
    let mut ops: Vec<Op> = ops.into_values().filter(|o| !o.kind.is_empty()).collect();
    for o in &mut ops {
        o.frames.sort_by_key(|f| (f.attempt, f.phase == deft_toolbelt::FramePhase::After));
    }
    ops.sort_by_key(|o| o.at_ms);
    ops
}

fn steps(run: &mut Run, events: &[Timed<AgentEvent>], first: u64, starts: &[(u64, u64)]) -> Vec<AgentStep> {
    let mut steps: BTreeMap<u32, (AgentStep, u64, u64)> = BTreeMap::new();
    for t in events {
        let at = |step: u32, steps: &mut BTreeMap<u32, (AgentStep, u64, u64)>| {
            let s =
                steps.entry(step).or_insert_with(|| (AgentStep { step, ..AgentStep::default() }, t.wall_us, t.wall_us));
            s.1 = s.1.min(t.wall_us);
            s.2 = s.2.max(t.wall_us);
        };
        match &t.env.event {
            AgentEvent::RunStarted { goal, model, .. } => {
                run.goal = Some(goal.clone());
                run.model = Some(model.clone());
            }
            AgentEvent::Finished { status, summary, .. } => {
                run.status = Some(status.clone());
                run.summary = Some(summary.clone());
            }
            AgentEvent::ThoughtDelta { .. } => {}
            e => {
                let Some(n) = step_of(e) else { continue };
                at(n, &mut steps);
                let s = &mut steps.get_mut(&n).map(|s| &mut s.0);
                let Some(s) = s else { continue };
                match e {
                    AgentEvent::Thought { text, .. } => s.thought = Some(text.clone()),
                    AgentEvent::Proposed { tool, args, target, .. } => {
                        s.tool = Some(tool.clone());
                        s.args = Some(args_words(args));
                        s.target = target.clone();
                    }
                    AgentEvent::Confidence { .. } => s.confidence = serde_json::to_value(e).ok(),
                    AgentEvent::PolicyBlocked { reason, .. } => s.policy_blocked = Some(reason.clone()),
                    AgentEvent::Asked { question, reason, .. } => {
                        s.question = Some(question.clone());
                        s.question_reason = Some(reason.clone());
                    }
                    AgentEvent::Answered { answer, .. } => {
                        s.answer = Some(answer.clone().unwrap_or_else(|| "(no answer yet: the run paused)".into()))
                    }
                    AgentEvent::Observation { tool, ok, summary, .. } => {
                        s.tool.get_or_insert_with(|| tool.clone());
                        s.ok = *ok;
                        s.observation = Some(without_markup(summary));
                    }
                    AgentEvent::Divergence { believed, observed, .. } => {
                        s.divergence = Some(format!("believed {believed}; observed {observed}"))
                    }
                    AgentEvent::StepStats { .. } => s.stats = serde_json::to_value(e).ok(),
                    _ => {}
                }
            }
        }
    }
    steps
        .into_values()
        .map(|(mut s, from, to)| {
            s.at_ms = from.saturating_sub(first) / 1000;
            s.duration_ms = (to - from) / 1000;
            s.ops = starts.iter().filter(|(w, _)| *w >= from && *w <= to).map(|(_, op)| *op).collect();
            s
        })
        .collect()
}

fn step_of(e: &AgentEvent) -> Option<u32> {
    match e {
        AgentEvent::Thought { step, .. }
        | AgentEvent::Proposed { step, .. }
        | AgentEvent::Confidence { step, .. }
        | AgentEvent::PolicyBlocked { step, .. }
        | AgentEvent::Asked { step, .. }
        | AgentEvent::Answered { step, .. }
        | AgentEvent::Observation { step, .. }
        | AgentEvent::Divergence { step, .. }
        | AgentEvent::StepStats { step, .. } => Some(*step),
        _ => None,
    }
}

/// The request in words; the action in the trace already has typed text as its length.
/// The request in words; `found`, the target as resolved, names one aimed by id (an id
/// is an address, not something a person reads).
fn asked(action: &Action, verify: bool, found: Option<&deft_types::TargetInfo>) -> String {
    let target = |t: &Target| match (t, found) {
        (Target::Selector(s), Some(f)) if s.id.is_some() => target_words(f),
        (Target::Selector(s), _) => deft_a11y::selector::format(s),
        (Target::Text(t), _) => deft_a11y::selector::describe_text(t),
        (Target::Point(p), _) => format!("({}, {})", p.x, p.y),
        (Target::Focused, _) => "the focused element".into(),
    };
    let verified = if verify { "" } else { " (not verified)" };
    let what = match action {
        Action::Type { target: t, text } => format!("type {text} into {}", target(t)),
        Action::SetValue { target: t, value } => format!("set {} to {value}", target(t)),
        Action::Invoke { target: t, name } => format!("{name:?} on {}", target(t)),
        Action::Key { chord, target: Target::Focused } => format!("key {}", compact(chord)),
        Action::Key { chord, target: t } => format!("key {} in {}", compact(chord), target(t)),
        other => match other.target() {
            Some(t) => format!("{} {}", other.kind().verb(), target(t)),
            None => other.kind().verb().to_string(),
        },
    };
    format!("{what}{verified}")
}

/// A call's arguments as a person reads them: `target=e12 text="Ada Lovelace"`.
fn args_words(args: &Value) -> String {
    match args {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) if !s.is_empty() && !s.contains([' ', '"', '=']) => format!("{k}={s}"),
                Value::String(s) => format!("{k}={s:?}"),
                other => format!("{k}={other}"),
            })
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

/// A text the model read, for a person: the untrusted-data tags that fence screen text
/// for the model (`<screen_text trust="untrusted">`) are left out, their content kept.
fn without_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("<screen_text") {
        out.push_str(&rest[..i]);
        match rest[i..].find('>') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.replace("</screen_text>", "")
}

fn target_words(t: &deft_types::TargetInfo) -> String {
    match &t.role {
        Some(r) => format!("{r} {:?}", t.name),
        None => format!("{:?}", t.name),
    }
}

/// A serde value in a few words: `act {"method":"coordinate_click"}` for `{"act":{..}}`.
/// What the executor told the retry engine, in words.
fn report_words(r: &deft_retry::Report) -> String {
    use deft_retry::{Feedback, Report};
    match r {
        Report::Sent => "sent".into(),
        Report::SendUncertain { message } => format!("may not have gone out: {message}"),
        Report::Refused(s) => format!("refused: {}", s.describe()),
        Report::Verified { observed } => format!("verified: {observed}"),
        Report::Received { observed } => format!("received, with no effect elsewhere: {observed}"),
        Report::NoChange(s) => {
            let feedback = match s.feedback {
                Feedback::Seen => "; the app showed it received the input",
                Feedback::NotSeen => "; no sign of receipt",
                Feedback::Unknown => "",
            };
            let loading = if s.loading { "; loading" } else { "" };
            let blocking =
                s.blocking.as_ref().map(|b| format!("; {} {:?} appeared", b.role, b.name)).unwrap_or_default();
            format!("no change yet{feedback}{loading}{blocking}")
        }
        Report::Unreadable { message } => format!("could not read the UI: {message}"),
        Report::Resolved => "found again".into(),
        Report::Dismissed => "dismissed".into(),
    }
}

fn compact<T: Serialize>(v: &T) -> String {
    let s = match serde_json::to_value(v) {
        Ok(Value::Object(m)) if m.len() == 1 => {
            let (k, v) = m.into_iter().next().unwrap_or_default();
            if v.is_null() { k } else { format!("{k} {v}") }
        }
        Ok(Value::String(s)) => s,
        Ok(v) => v.to_string(),
        Err(e) => format!("(unreadable: {e})"),
    };
    if s.chars().count() > 400 { format!("{}…", s.chars().take(400).collect::<String>()) } else { s }
}

fn words<T: Serialize>(v: &T) -> String {
    compact(v).replace('_', " ")
}

fn embed_frames(report: &mut Report, dir: &Path) {
    use base64::Engine;
    for f in report.runs.iter_mut().flat_map(|r| r.ops.iter_mut()).flat_map(|o| o.frames.iter_mut()) {
        let Some(file) = f.file.clone() else { continue };
        if report.frames.contains_key(&file) {
            continue;
        }
        // Only names the frame store writes: `frames/<hex>.png`, never a path elsewhere.
        let safe = file
            .strip_prefix("frames/")
            .and_then(|n| n.strip_suffix(".png"))
            .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()));
        match safe.then(|| std::fs::read(dir.join(&file))) {
            Some(Ok(png)) if png.starts_with(b"\x89PNG") => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(png);
                report.frames.insert(file, format!("data:image/png;base64,{b64}"));
            }
            Some(_) => {
                f.skipped = Some(format!("{file} is missing or not a PNG (the trace folder was changed?)"));
                f.file = None;
            }
            None => {
                f.skipped = Some("the frame's file name is not one the frame store writes; not shown".into());
                f.file = None;
            }
        }
    }
}

fn summarise(report: &mut Report) {
    let s = &mut report.summary;
    let (mut first, mut last) = (u64::MAX, 0u64);
    for r in &report.runs {
        first = first.min(r.started_unix_ms);
        last = last.max(r.started_unix_ms + r.duration_ms);
        s.diagnostics += r.diagnostics.len() as u32;
        for o in &r.ops {
            for f in &o.frames {
                match &f.file {
                    Some(_) => s.frames += 1,
                    None => s.frames_skipped += 1,
                }
            }
            if o.kind == "wait" {
                s.waits += 1;
                s.waits_met += u32::from(o.status == "met");
                continue;
            }
            s.actions += 1;
            s.retried += u32::from(o.retried);
            match o.status.as_str() {
                "verified" => s.verified += 1,
                "received" => s.received += 1,
                "sent" => s.sent += 1,
                "failed" => s.failed += 1,
                _ => s.unfinished += 1,
            }
        }
        for st in &r.steps {
            s.agent_steps += 1;
            let field = |k: &str| st.stats.as_ref().and_then(|v| v.get(k)).and_then(Value::as_u64).unwrap_or(0);
            s.model_calls += field("model_calls") as u32;
            s.prompt_tokens += field("prompt_tokens");
            s.output_tokens += field("output_tokens");
        }
    }
    s.total_ms = last.saturating_sub(first.min(last));
    s.frame_bytes = report.frames.values().map(|d| (d.len() as u64 - 22) * 3 / 4).sum();
}
