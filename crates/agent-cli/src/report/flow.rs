//! A flow run's steps for the report: deft-toolbelt's `FlowEvent`s (recorded as
//! `<trace>-flow.jsonl` beside the executor's events) read back into each step's name,
//! line, call, expectation, end and the person's answer, with the executor's operations
//! that ran while it did.

use deft_toolbelt::flow::FlowEvent;
use serde::Serialize;

use super::model::Timed;

/// A flow run, as the page shows it.
#[derive(Debug, Default, Serialize)]
pub struct FlowRun {
    pub name: Option<String>,
    pub steps_total: usize,
    pub from_step: usize,
    /// How it ended; none when the file ends before (the process was killed).
    pub ok: Option<bool>,
    pub skipped: usize,
    pub steps: Vec<FlowStepView>,
}

/// One step of a flow.
#[derive(Debug, Default, Serialize)]
pub struct FlowStepView {
    pub step: usize,
    pub line: Option<usize>,
    pub name: Option<String>,
    pub tool: String,
    pub asked: String,
    pub expect: Option<String>,
    pub on_fail: String,
    /// `done`, `failed`, `error`, `skipped`, or `unfinished` when it never ended.
    pub status: String,
    pub failure: Option<String>,
    pub repaired: Option<bool>,
    pub question: Option<String>,
    pub answers: Vec<String>,
    pub choice: Option<String>,
    pub unanswered: Option<String>,
    pub on_their_word: bool,
    pub at_ms: u64,
    pub duration_ms: u64,
    /// The executor's operations started while the step ran (`op` numbers).
    pub ops: Vec<u64>,
}

/// The flow run `events` tell of (none when there are none); `first` is the run's first
/// wall time (µs) and `starts` each operation's start (wall µs, op).
pub fn read(events: &[Timed<FlowEvent>], first: u64, starts: &[(u64, u64)]) -> Option<FlowRun> {
    if events.is_empty() {
        return None;
    }
    let mut run = FlowRun::default();
    // (view, started wall µs, ended wall µs)
    let mut steps: Vec<(FlowStepView, u64, Option<u64>)> = Vec::new();
    for t in events {
        match &t.env.event {
            FlowEvent::FlowStarted { flow, steps_total, from_step } => {
                run.name.clone_from(flow);
                run.steps_total = *steps_total;
                run.from_step = *from_step;
            }
            FlowEvent::StepStarted { step, line, name, tool, asked, expect, on_fail } => {
                let view = FlowStepView {
                    step: *step,
                    line: *line,
                    name: name.clone(),
                    tool: tool.clone(),
                    asked: asked.clone(),
                    expect: expect.clone(),
                    on_fail: on_fail.clone(),
                    status: "unfinished".into(),
                    ..FlowStepView::default()
                };
                steps.push((view, t.wall_us, None));
            }
            FlowEvent::StepEnded { step, status, failure, repaired, person } => {
                let Some((view, _, ended)) = steps.iter_mut().rev().find(|(v, _, _)| v.step == *step) else {
                    continue;
                };
                *ended = Some(t.wall_us);
                view.status =
                    serde_json::to_value(status).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
                view.failure.clone_from(failure);
                view.repaired = *repaired;
                if let Some(p) = person {
                    view.question = Some(p.question.clone());
                    view.answers.clone_from(&p.answers);
                    view.choice = p.choice.map(|c| c.as_str().to_string());
                    view.unanswered.clone_from(&p.unanswered);
                    view.on_their_word = p.on_their_word;
                }
            }
            FlowEvent::FlowFinished { ok, skipped } => {
                run.ok = Some(*ok);
                run.skipped = *skipped;
            }
        }
    }
    let last = events.iter().map(|t| t.wall_us).max().unwrap_or(first);
    run.steps = steps
        .into_iter()
        .map(|(mut v, from, to)| {
            let to = to.unwrap_or(last);
            v.at_ms = from.saturating_sub(first) / 1000;
            v.duration_ms = to.saturating_sub(from) / 1000;
            v.ops = starts.iter().filter(|(w, _)| *w >= from && *w <= to).map(|(_, op)| *op).collect();
            v
        })
        .collect();
    Some(run)
}
