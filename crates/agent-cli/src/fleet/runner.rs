//! A worker's runner: a task's body is a flow (the file's text and its variables), run on
//! this desktop step by step through the toolbelt, each step recorded in the task's record
//! before it is sent and once its effect was seen. A step an earlier attempt was in when
//! its worker died is looked for first (its own `expect`), never blindly sent again.

use std::collections::{BTreeMap, HashSet};

use async_trait::async_trait;
use deft_bus::{Bus, TraceRecorder};
use deft_fleet::{Lease, LeaseError, RunEnd, Runner, Task, TaskRecord};
use deft_toolbelt::flow::{Flow, FlowReport, Looked, StepReport, parse_flow};
use deft_toolbelt::{Toolbelt, VerifyEvent};

use super::goal::{AgentParts, GoalTask, run_goal};
use serde::{Deserialize, Serialize};

/// A task's body, as `submit` writes it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FlowTask {
    /// Always `flow` (a goal for the agent is `goal`: `goal.rs`).
    pub kind: String,
    /// The flow file's text.
    pub flow: String,
    /// The caller's `--var`s.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// The task's action policy, enforced by the worker before each step
    /// ([`deft_agent::Policy::check_written`]); none: the flow as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<deft_agent::Policy>,
    /// Resumed on another desktop with none of the earlier steps' effects visible there, do
    /// the flow from its first step (its effects stay on the desktop that did them: typed
    /// text, a local file). Off: the task fails there, since an effect confirmed only where
    /// it was done (a server's order shown by a local toast) would be done twice.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redo_elsewhere: bool,
}

impl FlowTask {
    /// Why a step of `flow` may not run under the task's policy: the first refused, with
    /// its number and line.
    pub fn refused(&self, flow: &Flow) -> Option<String> {
        let policy = self.policy.as_ref()?;
        flow.steps.iter().enumerate().find_map(|(i, step)| {
            let why = policy.check_written(&step.call).err()?;
            let line = step.line.map(|l| format!(" (line {l})")).unwrap_or_default();
            Some(format!("step {}{line} is refused by the task's policy: {why}", i + 1))
        })
    }
}

/// Called as each step ends.
pub type StepSink<'b> = Box<dyn Fn(&Task, &StepReport) + Send + Sync + 'b>;

/// Runs a worker's tasks on one toolbelt: flows step by step, goals through its agent.
pub struct TaskRunner<'b> {
    /// The desktop's toolbelt.
    pub belt: &'b Toolbelt,
    /// The worker's agent, when it has a model (goal tasks go only to such workers).
    pub agent: Option<&'b AgentParts>,
    /// Its executor's bus: each run's events are recorded and kept with the task's record
    /// (`agent-cli fleet result TASK --trace DIR`, then `agent-cli report DIR`).
    pub bus: Option<Bus<VerifyEvent>>,
    /// Where the worker's frames are written (its `--trace DIR`): the frames a run's trace
    /// refers to are kept with it.
    pub frames_dir: Option<std::path::PathBuf>,
    /// Which desktop this is (the worker's offer's `desktop`).
    pub desktop: String,
    /// Called as each step ends (the worker prints it).
    pub each: StepSink<'b>,
}

#[async_trait]
impl Runner for TaskRunner<'_> {
    async fn run(&self, task: &Task, resume: &TaskRecord, lease: &Lease<'_>) -> RunEnd {
        // The id names a file: only as `submit` checks it (a record may be written by any
        // client of the fleet).
        let name = if deft_fleet::check_name("task id", &task.id).is_ok() { task.id.as_str() } else { "task" };
        let path =
            std::env::temp_dir().join(format!("deft-worker-{}-{name}-{}.jsonl", std::process::id(), lease.attempt()));
        let recorder = self.bus.as_ref().and_then(|bus| TraceRecorder::start(bus, &path).ok());
        let end = self.run_task(task, resume, lease).await;
        let Some(recorder) = recorder else { return end };
        let kept = match recorder.finish() {
            Ok(_) if !matches!(end, RunEnd::Lost | RunEnd::Cancelled { .. }) => match std::fs::read(&path) {
                Ok(data) => {
                    let frames = self.frames_of(&data);
                    lease.attach_trace(data, frames).await.map_err(|e| e.to_string())
                }
                Err(e) => Err(e.to_string()),
            },
            Ok(_) => Ok(()),
            Err(e) => Err(e.to_string()),
        };
        let _ = std::fs::remove_file(&path);
        // A trace not kept costs the task nothing: its record says what each step did.
        if let Err(e) = kept {
            eprintln!("{}: its trace was not kept: {e}", task.id);
        }
        end
    }
}

impl TaskRunner<'_> {
    /// The frames `trace` refers to (`frames/<digest>.png`) that are in the worker's frames
    /// folder, with their bytes.
    fn frames_of(&self, trace: &[u8]) -> Vec<(String, Vec<u8>)> {
        let Some(dir) = &self.frames_dir else { return Vec::new() };
        let text = String::from_utf8_lossy(trace);
        let mut paths: Vec<&str> = text
            .match_indices("frames/")
            .filter_map(|(i, _)| text.get(i..i + "frames/".len() + 16 + ".png".len()))
            .filter(|p| deft_fleet::TraceRef::is_frame_path(p))
            .collect();
        paths.sort_unstable();
        paths.dedup();
        paths.into_iter().filter_map(|p| Some((p.to_string(), std::fs::read(dir.join(p)).ok()?))).collect()
    }

    async fn run_task(&self, task: &Task, resume: &TaskRecord, lease: &Lease<'_>) -> RunEnd {
        let failed = |summary: String| RunEnd::Failed { summary, output: serde_json::Value::Null };
        if task.body["kind"] == "goal" {
            return match (serde_json::from_value::<GoalTask>(task.body.clone()), self.agent) {
                (Ok(body), Some(parts)) => run_goal(self.belt, parts, task, body, resume, lease).await,
                (Err(e), _) => failed(format!("the task is not a goal task: {e}")),
                (Ok(_), None) => failed("this worker has no model for the agent (DEFT_MODEL_PROVIDER)".into()),
            };
        }
        self.run_flow(task, resume, lease).await
    }

    async fn run_flow(&self, task: &Task, resume: &TaskRecord, lease: &Lease<'_>) -> RunEnd {
        let failed = |summary: String| RunEnd::Failed { summary, output: serde_json::Value::Null };
        let body: FlowTask = match serde_json::from_value::<FlowTask>(task.body.clone()) {
            Ok(b) if b.kind == "flow" => b,
            Ok(b) => return failed(format!("this worker runs flow and goal tasks, not {:?}", b.kind)),
            Err(e) => return failed(format!("the task is not a flow task: {e}")),
        };
        let flow = match parse_flow(&body.flow, &body.vars) {
            Ok(f) => f,
            Err(e) => return failed(format!("the flow does not check: {e}")),
        };
        // Checked at submit too; the worker is where it is enforced.
        if let Some(why) = body.refused(&flow) {
            return failed(why);
        }
        let started = std::time::Instant::now();
        let plan = match self.resume_point(&flow, resume, body.redo_elsewhere).await {
            Ok(p) => p,
            Err(why) => return failed(why),
        };
        let mut reports = Vec::new();
        for (i, step) in flow.steps.iter().enumerate() {
            if plan.skip.contains(&i) {
                continue;
            }
            let n = i + 1;
            let mut report = None;
            if plan.look_first == Some(i) {
                match self.belt.look_for_step(step, n).await {
                    Looked::There(r) => report = Some(*r),
                    // An observation, or an action whose input had not gone out yet, runs;
                    // but an action may have been sent with its effect still to come (an
                    // app slower than the hand-over): never sent again.
                    Looked::NotThere if step.call.name().acts() => {
                        return failed(format!(
                            "step {n} ({} {}) was being sent when its worker stopped, and its expectation does not \
                             hold: its input may have landed with the effect still to come, or never gone out; it \
                             is not sent again (look at the app, then re-submit what is left)",
                            step.call.name().as_str(),
                            step.call.args().get("target").and_then(|t| t.as_str()).unwrap_or("")
                        ));
                    }
                    Looked::NotThere => {}
                    Looked::CannotTell(why) => return failed(why),
                }
            }
            let report = match report {
                Some(r) => r,
                None => {
                    if let Err(e) = lease.started(i).await {
                        return lost_or_failed(e);
                    }
                    self.belt.run_flow_step(step, n).await
                }
            };
            (self.each)(task, &report);
            let done = report.done();
            if done {
                let outcome = serde_json::to_value(&report).unwrap_or_default();
                if let Err(e) = lease.done(i, outcome).await {
                    return lost_or_failed(e);
                }
            }
            reports.push(report);
            if !done {
                break;
            }
        }
        // The app may still be handling the keys just sent.
        self.belt.executor().settle().await;
        let mut report = FlowReport::of(&flow, reports, started);
        report.note_unasked(
            &flow,
            "a fleet worker has nobody to ask: look at the desktop, then re-submit the steps that are left (with the \
             failed one, if it still needs doing)",
        );
        let skipped = flow.steps.len() - report.steps.len();
        // Steps an earlier attempt did are in the task's record, not in this run's report.
        let all_done = report.steps.iter().all(StepReport::done);
        report.ok = all_done;
        let output = serde_json::to_value(&report).unwrap_or_default();
        if all_done {
            let earlier =
                if skipped > 0 { format!(" ({skipped} of them by an earlier attempt)") } else { String::new() };
            RunEnd::Done { summary: format!("{} steps done{earlier}", flow.steps.len()), output }
        } else {
            let last = report.steps.last();
            let at = last.map(|s| format!("step {} ({} {})", s.step, s.tool, s.asked)).unwrap_or_default();
            // What the step itself said: its error, or what its action observed.
            let why = last.and_then(|s| match (&s.error, &s.output) {
                (Some(e), _) => Some(e.message.clone()),
                (_, Some(deft_toolbelt::ToolOutput::Action(a))) => Some(a.outcome.observed.clone()),
                _ => None,
            });
            let summary = format!("stopped at {at}: {}", why.unwrap_or_else(|| "its effect was not seen".into()));
            RunEnd::Failed { summary, output }
        }
    }
}

/// Where a resumed run starts.
#[derive(Debug, Default)]
struct Plan {
    /// Steps not to run: their effect is there.
    skip: HashSet<usize>,
    /// A step to look for before running it (the one in flight when this desktop's
    /// earlier attempt stopped).
    look_first: Option<usize>,
}

impl TaskRunner<'_> {
    /// Where to start, from the record. On the desktop that did the earlier steps, they
    /// are done and only the step in flight is looked for. Elsewhere, the earlier steps'
    /// effects may not be here (text typed into a field on a desktop that is gone) or may
    /// be (an order sent to a server every desktop sees): the latest step whose
    /// expectation holds here is where the run goes on; steps that cannot be told are
    /// never sent again.
    async fn resume_point(&self, flow: &Flow, resume: &TaskRecord, redo_elsewhere: bool) -> Result<Plan, String> {
        let desktop_of =
            |attempt: u32| resume.attempts.iter().find(|a| a.number == attempt).map(|a| a.desktop.as_str());
        let in_flight_desktop = resume.in_flight_by.and_then(desktop_of);
        let all_here = resume.done.iter().all(|d| desktop_of(d.attempt) == Some(self.desktop.as_str()))
            && (resume.in_flight.is_none() || in_flight_desktop == Some(self.desktop.as_str()));
        if all_here {
            let skip = resume.done.iter().map(|d| d.step).collect();
            return Ok(Plan { skip, look_first: resume.in_flight });
        }
        let last = resume.done.iter().map(|d| d.step).chain(resume.in_flight).max().unwrap_or(0);
        for j in (0..=last.min(flow.steps.len().saturating_sub(1))).rev() {
            let done_here =
                resume.done.iter().any(|d| d.step == j && desktop_of(d.attempt) == Some(self.desktop.as_str()));
            match self.belt.look_for_step(&flow.steps[j], j + 1).await {
                Looked::There(_) => return Ok(Plan { skip: (0..=j).collect(), look_first: None }),
                Looked::CannotTell(_) if done_here => return Ok(Plan { skip: (0..=j).collect(), look_first: None }),
                Looked::CannotTell(why) => {
                    return Err(format!(
                        "resumed on another desktop ({}) than the one that did the earlier steps: {why}",
                        self.desktop
                    ));
                }
                Looked::NotThere => {}
            }
        }
        // No earlier step's effect is visible here: they were the other desktop's own (then
        // they are this one's to do), or confirmed only there (then doing them again here
        // would do them twice). Only the flow's author can say which.
        if redo_elsewhere {
            return Ok(Plan::default());
        }
        let others: Vec<&str> =
            resume.attempts.iter().map(|a| a.desktop.as_str()).filter(|d| *d != self.desktop).collect();
        Err(format!(
            "resumed on {} after steps were done on {}, and none of their expectations holds here: whether doing \
             them again here would do them twice cannot be told, so nothing was sent (submit it with \
             --redo-elsewhere when its effects stay on the desktop that did them)",
            self.desktop,
            others.first().copied().unwrap_or("another desktop")
        ))
    }
}

fn lost_or_failed(e: LeaseError) -> RunEnd {
    match e {
        LeaseError::Lost { .. } => RunEnd::Lost,
        LeaseError::Cancelled { why, .. } => RunEnd::Cancelled { summary: why },
        LeaseError::Fleet(e) => RunEnd::Retry { summary: e.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_the_task_s_policy_refuses_is_named_with_its_line() {
        let text = "steps:\n  - click: {target: Submit order, app: Deft Fixture}\n  - key: ctrl+q\n";
        let flow = parse_flow(text, &BTreeMap::new()).unwrap();
        let task = |policy| FlowTask {
            kind: "flow".into(),
            flow: text.into(),
            vars: BTreeMap::new(),
            policy,
            redo_elsewhere: false,
        };
        assert_eq!(task(None).refused(&flow), None, "no policy: the flow as written");
        let policy = deft_agent::Policy { deny_keys: vec!["ctrl+q".into()], ..deft_agent::Policy::default() };
        let why = task(Some(policy)).refused(&flow).unwrap();
        assert!(why.starts_with("step 2 (line 3) is refused by the task's policy: "), "{why}");
    }
}
