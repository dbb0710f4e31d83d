//! What a flow run tells its trace: the flow, each step as it starts (its name, line, call
//! and expectation) and ends (its status, and what the person or the agent did about it).
//! A face publishes these on a bus of their own, recorded beside the executor's events,
//! so a report shows each step with the actions it made.

use serde::{Deserialize, Serialize};

use super::ask::PersonsAnswer;
use super::run::{StepReport, StepStatus};
use super::{FlowStep, OnFail};
use crate::spelling::AsParams;

/// One thing that happened in a flow run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "flow_event", rename_all = "snake_case")]
pub enum FlowEvent {
    /// The run began.
    FlowStarted {
        /// Its `flow:` name.
        flow: Option<String>,
        /// How many steps the flow has.
        steps_total: usize,
        /// The step it starts at (from 1).
        from_step: usize,
    },
    /// A step began.
    StepStarted {
        /// Its number, from 1.
        step: usize,
        /// Its line in the flow file.
        line: Option<usize>,
        /// Its `name:`.
        name: Option<String>,
        /// The tool it calls.
        tool: String,
        /// The call in words (its target, its condition; never the text it types).
        asked: String,
        /// Its `expect`, as written.
        expect: Option<String>,
        /// What a failure does: stop, repair, ask.
        on_fail: String,
    },
    /// A step ended.
    StepEnded {
        /// Its number, from 1.
        step: usize,
        /// Done, failed, error, skipped.
        status: StepStatus,
        /// Why it failed, in words (none when it was done).
        failure: Option<String>,
        /// Whether the agent's repair made its effect hold, when it was repaired.
        repaired: Option<bool>,
        /// What the person was asked and answered.
        person: Option<PersonsAnswer>,
    },
    /// The run ended.
    FlowFinished {
        /// Every step from the first run to the last done (or repaired, or skipped).
        ok: bool,
        /// Steps the person answered to go on without.
        skipped: usize,
    },
}

impl FlowEvent {
    /// Step `n` (`step`) starting.
    pub fn started(step: &FlowStep, n: usize) -> FlowEvent {
        let args = step.call.args();
        FlowEvent::StepStarted {
            step: n,
            line: step.line,
            name: step.name.clone(),
            tool: step.call.name().as_str().to_string(),
            // As the run will say it (typed text never in it); planned without the session's
            // refs, as the flow was checked.
            asked: step.call.plan(&AsParams, None, true).map(|p| p.asked).unwrap_or_default(),
            expect: args.get("expect").and_then(|e| e.as_str()).map(String::from),
            on_fail: match step.on_fail {
                OnFail::Stop => "stop",
                OnFail::Repair => "repair",
                OnFail::Ask => "ask",
            }
            .into(),
        }
    }

    /// The step `report` tells of, ended.
    pub fn ended(report: &StepReport) -> FlowEvent {
        FlowEvent::StepEnded {
            step: report.step,
            status: report.status,
            failure: (report.status != StepStatus::Done).then(|| report.failure()),
            repaired: report.repaired.as_ref().map(|r| r.ok),
            person: report.person.clone(),
        }
    }
}
