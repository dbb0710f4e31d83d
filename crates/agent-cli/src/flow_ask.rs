//! `on_fail: ask` in `flow run`: the failed step's question (deft-toolbelt's
//! `StepQuestion`) put to the person through `run`'s channels (a terminal prompt, a dialog,
//! or deferral: the flow stops as `needs_input`), and their answer carried out by the
//! toolbelt. What the question says and what each answer does are the toolbelt's.

use deft_agent::{Answer, AskReason, Asker, Question};
use deft_toolbelt::Toolbelt;
use deft_toolbelt::flow::{FlowStep, PersonsAnswer, RecordedStep, StepAnswer, StepQuestion, StepReport};

use crate::flow_repair::Repairer;
use crate::run::ask::Channel;

/// Most answers to one step's question: a word that is not an answer, or an answer whose
/// check fails, asks again, but not forever.
const MOST_ANSWERS: usize = 5;

/// How the asking ended.
pub enum Asked {
    /// The step's report after the person's answer (done, skipped, or still failed when
    /// they chose to stop or could not be asked), and the steps a repair did instead.
    Answered(StepReport, Option<Vec<RecordedStep>>),
    /// Nobody could answer now: the flow stops as `needs_input`, the question in the report.
    Deferred(StepReport),
}

/// What asking needs from the run.
pub struct Asking<'a> {
    pub belt: &'a Toolbelt,
    pub channel: &'a Channel,
    pub flow: Option<&'a str>,
    pub total: usize,
    pub repairer: Option<&'a Repairer>,
    /// The steps done before this one (for a repair's goal).
    pub done: &'a [StepReport],
    /// Each answer's effect, said as it happens (the face shows it).
    pub say: &'a dyn Fn(&str),
}

impl Asking<'_> {
    /// Asks about `step` (number `failed.step`), which failed as `failed` says, until an
    /// answer is carried out.
    pub async fn ask(&self, step: &FlowStep, failed: StepReport) -> Asked {
        let can_repair = self.repairer.is_some();
        let question = StepQuestion::of(self.flow, &failed, self.total, can_repair, step.checkable());
        let mut person = PersonsAnswer {
            question: question.text.clone(),
            answers: Vec::new(),
            choice: None,
            failure: failed.failure(),
            unanswered: None,
            on_their_word: false,
        };
        let mut report = failed.clone();
        let mut instead = None;
        let mut text = question.text.clone();
        while person.answers.len() < MOST_ANSWERS {
            let q = Question {
                run_id: format!("flow-{}", std::process::id()),
                step: u32::try_from(failed.step).unwrap_or(u32::MAX),
                text: text.clone(),
                reason: AskReason::FlowStepFailed,
                options: question.options.clone(),
            };
            let words = match self.channel.ask(&q).await {
                Answer::Text(w) => w,
                Answer::Later => {
                    person.unanswered = Some(format!(
                        "deferred: answer by running the flow again from this step (--from {}), or do it by hand \
                         first",
                        failed.step
                    ));
                    report.person = Some(person);
                    return Asked::Deferred(report);
                }
                Answer::Unavailable(why) => {
                    person.unanswered = Some(why);
                    break;
                }
            };
            person.answers.push(words.clone());
            let answer = match StepAnswer::read(&words, can_repair) {
                Ok(a) => a,
                Err(why) => {
                    text = question.again_because(&why);
                    continue;
                }
            };
            person.choice = Some(answer);
            report = match (answer, self.repairer) {
                (StepAnswer::Stop, _) => failed.clone(),
                (StepAnswer::Repair, Some(agent)) => {
                    (self.say)(&format!("repairing step {}", failed.step));
                    let (repair, steps) =
                        agent.repair(self.belt, self.flow, self.done, step, &failed, self.total).await;
                    instead = repair.ok.then_some(steps);
                    StepReport { repaired: Some(repair), ..failed.clone() }
                }
                _ => self.belt.answer_step(step, failed.step, answer, &failed).await,
            };
            person.on_their_word = answer == StepAnswer::Done && report.output.is_none() && report.error.is_none();
            if report.done() || answer == StepAnswer::Stop {
                break;
            }
            (self.say)(&format!("after {}: {}", answer.as_str(), report.failure()));
            text = question.again_after(answer, &report);
        }
        report.person = Some(person);
        Asked::Answered(report, instead)
    }
}
