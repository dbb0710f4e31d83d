//! A goal task: the worker's own agent (its model, its key never in the queue) pursues the
//! goal on this desktop. Each action it takes is recorded in the task's record before it is
//! sent (what it aims at, by name) and once it worked (the flow step it makes, with the
//! change it brought about), so an attempt after a worker died starts from a note of what
//! was done and where, and the action that was in flight is never sent again unasked.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use deft_agent::{Agent, AgentConfig, BoxFuture, Desktop, Policy, RunStatus, SavedRef};
use deft_fleet::{Lease, LeaseError, RunEnd, Task, TaskRecord};
use deft_llm::AnyModel;
use deft_toolbelt::{ToolCall, ToolError, ToolErrorKind, ToolOutput, Toolbelt};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A goal task's body, as `submit --goal` writes it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GoalTask {
    /// Always `goal`.
    pub kind: String,
    /// What the agent is to do, in the submitter's words.
    pub goal: String,
    /// The application shown to the agent at the start (none: the whole desktop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    /// The task's action policy, added to the worker's own (never loosening it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<Policy>,
}

/// What a worker's agent thinks with: built once when the worker starts, from its own
/// configuration (`[model]` and `[agent]`, `DEFT_MODEL_*`).
pub struct AgentParts {
    /// The model.
    pub model: AnyModel,
    /// The agent's settings (the task's policy is added per task).
    pub config: AgentConfig,
}

/// Run `body` on `belt` with `parts`, recording each action through `lease`.
pub(super) async fn run_goal(
    belt: &Toolbelt,
    parts: &AgentParts,
    task: &Task,
    body: GoalTask,
    resume: &TaskRecord,
    lease: &Lease<'_>,
) -> RunEnd {
    let failed = |summary: String, output: Value| RunEnd::Failed { summary, output };
    let mut config = parts.config.clone();
    if let Some(p) = &body.policy {
        config.policy.apps.extend(p.apps.iter().cloned());
        config.policy.windows.extend(p.windows.iter().cloned());
        config.policy.deny_keys.extend(p.deny_keys.iter().cloned());
        config.policy.confirm.extend(p.confirm.iter().cloned());
        config.policy.no_confirm.extend(p.no_confirm.iter().cloned());
    }
    let goal = match resume_note(resume) {
        Some(note) => format!("{}\n\n{note}", body.goal.trim()),
        None => body.goal.trim().to_string(),
    };
    let desktop = Recording {
        belt,
        lease,
        next: AtomicUsize::new(
            resume
                .done
                .iter()
                .map(|d| d.step.saturating_add(1))
                .chain(resume.in_flight.map(|s| s.saturating_add(1)))
                .max()
                .unwrap_or(0),
        ),
        held_back: Mutex::new(resume.in_flight_what.clone().filter(|_| in_flight_before(resume))),
        ended: Mutex::new(None),
        stop: tokio::sync::Notify::new(),
    };
    // Nobody answers a fleet task's questions: a question ends the run, saying what it asked.
    let asker = crate::run::ask::Channel::Defer;
    // The worker's stderr shows each step, as `agent-cli run` does.
    let shown = crate::run::show::Display::new(false);
    let sink = |e: &deft_agent::AgentEvent| shown.show(e);
    let agent = Agent {
        model: &parts.model,
        vision: Some(&parts.model),
        desktop: &desktop,
        asker: &asker,
        config: &config,
        scope: body.app.clone(),
        sink: Some(&sink),
        bus: None,
    };
    let run_id = format!("{}-attempt{}", task.id, lease.attempt());
    let report = tokio::select! {
        r = agent.run(&goal, &run_id) => r,
        () = desktop.stop.notified() => return desktop.ended.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or(RunEnd::Lost),
    };
    // The app may still be handling the last keys.
    belt.executor().settle().await;
    if let Some(end) = desktop.ended.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return end;
    }
    let report = match report {
        Ok(r) => r,
        Err(e) => return failed(format!("the agent could not run: {e}"), Value::Null),
    };
    let output = serde_json::to_value(&report).unwrap_or_default();
    match report.status {
        RunStatus::GoalMet => RunEnd::Done { summary: format!("goal met: {}", report.summary), output },
        RunStatus::NeedsInput => {
            let asked = report.question.as_ref().map_or_else(|| report.summary.clone(), |q| q.text.clone());
            failed(
                format!(
                    "the agent asked \"{asked}\", and nobody answers a fleet task's questions: re-submit it with the \
                     answer in the goal"
                ),
                output,
            )
        }
        s => failed(format!("{}: {}", s.as_str(), report.summary), output),
    }
}

/// For a task started before: what earlier attempts did (each action that worked, and
/// where), and the action in flight when the last one stopped. `None` for a first attempt.
fn resume_note(resume: &TaskRecord) -> Option<String> {
    let (this, earlier) = resume.attempts.split_last()?;
    if earlier.is_empty() {
        return None;
    }
    let desktop_of = |attempt: u32| {
        let d = resume.attempts.iter().find(|a| a.number == attempt).map_or("", |a| a.desktop.as_str());
        if d == this.desktop { "this desktop".to_string() } else { format!("another desktop ({d}), not this one") }
    };
    let mut note = String::from(
        "This task was started before, and the worker running it stopped. Look at the desktop before acting: never \
         repeat an action whose effect is already there.",
    );
    if resume.done.is_empty() {
        note.push_str("\nNothing was done before that it saw take effect.");
    }
    for d in &resume.done {
        let observed = d.outcome["observed"].as_str().unwrap_or("");
        let what = describe(&d.outcome);
        note.push_str(&format!("\n- done: {what} (on {}; it saw: {observed})", desktop_of(d.attempt)));
    }
    if let (Some(what), Some(by)) = (&resume.in_flight_what, resume.in_flight_by) {
        note.push_str(&format!(
            "\n- in flight when it stopped: {} (on {}): its effect may have landed, or may still come",
            describe(what),
            desktop_of(by)
        ));
    }
    Some(note)
}

/// A recorded action in words: `type "Ada" into "Name"`, `click "Save"`.
fn describe(what: &Value) -> String {
    let tool = what["tool"].as_str().unwrap_or("?");
    let p = &what["params"];
    let target = ["name", "target", "text_near"].iter().find_map(|k| p[*k].as_str()).unwrap_or("");
    match tool {
        "type" | "fill" => format!("{tool} {:?} into {target:?}", p["text"].as_str().unwrap_or("")),
        "key" => format!("key {:?}", p["keys"].as_str().or(p["key"].as_str()).unwrap_or("")),
        _ if !target.is_empty() => format!("{tool} {target:?}"),
        _ => format!("{tool} {p}"),
    }
}

/// Whether the action in flight was sent by an earlier attempt, which no longer runs (it
/// may have landed: held back until the agent asks for it again).
fn in_flight_before(resume: &TaskRecord) -> bool {
    resume.in_flight_by.is_some_and(|by| resume.attempts.last().is_some_and(|a| a.number != by))
}

/// The toolbelt, recording the agent's actions in the task's record.
struct Recording<'a, 'q> {
    belt: &'a Toolbelt,
    lease: &'a Lease<'q>,
    /// The next step's number (after the record's).
    next: AtomicUsize,
    /// The action an earlier attempt was sending when it stopped: the first identical call
    /// is refused with why; a second one, after the agent looked, goes.
    held_back: Mutex<Option<Value>>,
    /// How the run ends when the lease went (lost, cancelled).
    ended: Mutex<Option<RunEnd>>,
    stop: tokio::sync::Notify,
}

impl Recording<'_, '_> {
    fn lease_gone(&self, e: LeaseError) -> ToolError {
        let end = match e {
            LeaseError::Lost { .. } => RunEnd::Lost,
            LeaseError::Cancelled { why, .. } => RunEnd::Cancelled { summary: why },
            LeaseError::Fleet(e) => RunEnd::Retry { summary: e.to_string() },
        };
        *self.ended.lock().unwrap_or_else(|p| p.into_inner()) = Some(end);
        self.stop.notify_one();
        ToolError::new(ToolErrorKind::Unavailable, "this task was taken from this worker: nothing was sent")
    }
}

impl Desktop for Recording<'_, '_> {
    fn call<'b>(&'b self, call: &'b ToolCall) -> BoxFuture<'b, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            if !call.name().acts() {
                return Desktop::call(self.belt, call).await;
            }
            let aim = self.belt.flow_aim(call).await;
            // Its text, keys or value as called, aimed by name where the element has one.
            let params = Toolbelt::aimed_params(call, aim.clone()).map_or_else(|| call.args(), Value::Object);
            let what = json!({ "tool": call.name().as_str(), "params": params });
            {
                let mut held = self.held_back.lock().unwrap_or_else(|p| p.into_inner());
                if held.as_ref() == Some(&what) {
                    *held = None;
                    return Err(ToolError::new(
                        ToolErrorKind::Failed,
                        format!(
                            "not sent: {} was being sent when this task's previous worker stopped, so its effect may \
                             have landed or may still come. Look at the desktop: if its effect is there, go on; if \
                             not, call it again to send it",
                            describe(&what)
                        ),
                    ));
                }
            }
            let step = self.next.fetch_add(1, Ordering::SeqCst);
            if let Err(e) = self.lease.started_with(step, Some(what)).await {
                return Err(self.lease_gone(e));
            }
            let out = Desktop::call(self.belt, call).await;
            if let Ok(o) = &out
                && let Some(made) = Toolbelt::flow_step(call, aim, o)
            {
                let observed = match o {
                    ToolOutput::Action(r) => r.outcome.observed.clone(),
                    _ => String::new(),
                };
                let outcome =
                    json!({ "tool": made.tool, "params": made.params, "expect": made.expect, "observed": observed });
                if let Err(e) = self.lease.done(step, outcome).await {
                    // Its effect happened; the task is no longer this worker's to go on with.
                    let _ = self.lease_gone(e);
                }
            }
            out
        })
    }

    fn saved_refs(&self) -> Vec<SavedRef> {
        self.belt.saved_refs()
    }

    fn restore_refs(&self, saved: &[SavedRef]) -> Result<(), String> {
        self.belt.restore_refs(saved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deft_fleet::{Attempt, Needs, StepDone, TaskRecord};

    fn attempt(number: u32, desktop: &str) -> Attempt {
        Attempt { number, worker: format!("w{number}"), desktop: desktop.into(), started_ms: 0, ended: None }
    }

    #[test]
    fn a_resumed_goal_is_told_what_was_done_where_and_what_was_in_flight() {
        let task = Task {
            id: "t".into(),
            pool: "p".into(),
            needs: Needs::default(),
            body: Value::Null,
            max_attempts: 3,
            submitted_ms: 0,
        };
        let mut r = TaskRecord::queued(task);
        r.attempts = vec![attempt(1, "a/:1")];
        assert_eq!(resume_note(&r), None, "a first attempt has nothing to be told");
        r.attempts.push(attempt(2, "a/:1"));
        let typed = json!({"tool": "type", "params": {"name": "Name", "text": "Ada"}, "observed": "text \"Name\" now shows \"Ada\""});
        r.done = vec![StepDone { step: 0, attempt: 1, outcome: typed }];
        r.in_flight = Some(1);
        r.in_flight_by = Some(1);
        r.in_flight_what = Some(json!({"tool": "click", "params": {"name": "Save", "role": "push_button"}}));
        let note = resume_note(&r).unwrap();
        assert!(
            note.contains(
                "- done: type \"Ada\" into \"Name\" (on this desktop; it saw: text \"Name\" now shows \"Ada\")"
            ),
            "{note}"
        );
        assert!(note.contains("- in flight when it stopped: click \"Save\" (on this desktop)"), "{note}");
        assert!(in_flight_before(&r));
        r.attempts[1].desktop = "b/:1".into();
        assert!(resume_note(&r).unwrap().contains("on another desktop (a/:1), not this one"));
    }
}
