//! `on_fail: ask`: a failed step put to the person, and their answer carried out. The
//! question, the answers it takes and what each does are defined here once; a face puts
//! the question through the channel it has (a terminal prompt, a dialog) and hands back
//! the words.
//!
//! No answer sends an input that may double one already sent: `retry` looks for the step's
//! expectation first (the effect may have come late) and sends the step again only when it
//! does not hold; `done` (the person did it by hand) only looks.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::FlowStep;
use super::run::{StepReport, StepStatus};
use crate::belt::Toolbelt;
use crate::plan::ToolCall;
use crate::spec::ToolName;

/// How long `done` looks for the step's expectation: the person says it is there, so it is
/// a read that may catch the app mid-redraw, not a wait for an effect.
const CHECK_MS: u64 = 3000;

/// What the person can answer about a failed step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepAnswer {
    /// Look for the step's effect, and send the step again only when it is not there.
    Retry,
    /// The person did it by hand: check the step's expectation (taken on their word when
    /// the step has none) and go on.
    Done,
    /// Go on without the step.
    Skip,
    /// Stop the flow here, as `on_fail: stop` does.
    Stop,
    /// Let the agent make the step's expectation hold (only where a model is configured).
    Repair,
}

/// A failed step's question, in words, with the short answers it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepQuestion {
    /// The question: which step, what it asked, what was seen, what each answer does.
    pub text: String,
    /// The answers it takes (`retry`, `done`, `skip`, `stop`, and `repair` with a model).
    pub options: Vec<String>,
}

/// What the person was asked about a step and what came of it, kept in its report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PersonsAnswer {
    /// The question put.
    pub question: String,
    /// What they answered, in their words, in order (a word that is not an answer is asked
    /// again); empty when nobody answered.
    pub answers: Vec<String>,
    /// The answer carried out last.
    pub choice: Option<StepAnswer>,
    /// Why the step failed before the person was asked.
    pub failure: String,
    /// Why there was no answer (nobody to ask, the prompt timed out, deferred).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<String>,
    /// `done` on a step with no expectation: taken on the person's word, not checked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on_their_word: bool,
}

impl StepAnswer {
    /// Every answer, in the order the question lists them.
    pub const ALL: [StepAnswer; 5] =
        [StepAnswer::Retry, StepAnswer::Done, StepAnswer::Skip, StepAnswer::Stop, StepAnswer::Repair];

    /// Its word.
    pub fn as_str(self) -> &'static str {
        match self {
            StepAnswer::Retry => "retry",
            StepAnswer::Done => "done",
            StepAnswer::Skip => "skip",
            StepAnswer::Stop => "stop",
            StepAnswer::Repair => "repair",
        }
    }

    /// The answer `words` give (its word, its first letter, or a few plain synonyms), or
    /// what to answer instead. `repair` only when a model can repair.
    pub fn read(words: &str, can_repair: bool) -> Result<StepAnswer, String> {
        let w = words.trim().trim_end_matches(['.', '!']).to_lowercase();
        let answer = match w.as_str() {
            "retry" | "r" | "again" | "try again" => Some(StepAnswer::Retry),
            "done" | "d" | "did it" | "i did it" | "fixed" => Some(StepAnswer::Done),
            "skip" | "s" | "next" => Some(StepAnswer::Skip),
            "stop" | "q" | "quit" | "abort" | "cancel" => Some(StepAnswer::Stop),
            "repair" | "fix" => Some(StepAnswer::Repair),
            _ => None,
        };
        match answer {
            Some(StepAnswer::Repair) if !can_repair => {
                Err("`repair` needs a model (configure one, see `agent-cli run --help`); answer retry, done, skip \
                     or stop"
                    .into())
            }
            Some(a) => Ok(a),
            None => Err(format!("`{}` is not an answer here; answer {}", words.trim(), options(can_repair).join(", "))),
        }
    }
}

fn options(can_repair: bool) -> Vec<String> {
    StepAnswer::ALL.iter().filter(|a| can_repair || **a != StepAnswer::Repair).map(|a| a.as_str().to_string()).collect()
}

impl StepQuestion {
    /// The question about `report`'s step (of `total`, in the flow named `flow`); `checked`:
    /// whether the step has an expectation to look for its effect by (an action without
    /// one is sent again by `retry` unseen, and `done` takes the person's word: said so).
    pub fn of(flow: Option<&str>, report: &StepReport, total: usize, can_repair: bool, checked: bool) -> StepQuestion {
        let name = report.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
        let of_flow = flow.map(|f| format!(" of the flow {f:?}")).unwrap_or_default();
        let (retry, done) = if checked {
            (
                "look again and send it only if its effect is not there",
                "you did it by hand (its expectation is checked)",
            )
        } else {
            (
                "send it again (it has no expect to look for its effect by: answer this only if you see it did not \
                 happen)",
                "it is done, by hand or after all (taken on your word: it has no expect)",
            )
        };
        let mut text = format!(
            "Step {} of {total}{of_flow}{name}, {} {}, failed: {}.\nretry: {retry}; done: {done}; skip: go on \
             without it; stop: end the flow here",
            report.step,
            report.tool,
            report.asked,
            short(&report.failure())
        );
        if can_repair {
            text.push_str("; repair: let the agent do it");
        }
        StepQuestion { text, options: options(can_repair) }
    }

    /// The question put again after `answer` was carried out and the step still failed as
    /// `report` says.
    pub fn again_after(&self, answer: StepAnswer, report: &StepReport) -> String {
        format!("After `{}`, the step still failed: {}.\n\n{}", answer.as_str(), short(&report.failure()), self.text)
    }

    /// The question put again after words that are not an answer (`why`, from
    /// [`StepAnswer::read`]).
    pub fn again_because(&self, why: &str) -> String {
        format!("{why}\n\n{}", self.text)
    }
}

/// A failure short enough for a question (a dialog, a prompt): what was observed, without
/// the candidates' ids, which the step's own report keeps whole.
fn short(failure: &str) -> String {
    const MOST: usize = 240;
    let head = failure.split("; closest:").next().unwrap_or(failure).trim_end_matches('.');
    match head.char_indices().nth(MOST) {
        Some((cut, _)) => format!("{}…", &head[..cut]),
        None => head.to_string(),
    }
}

impl Toolbelt {
    /// Carries out the person's `answer` (retry, done or skip) about step `n`, which failed
    /// as `failed` says: the step's report after it. `stop` and `repair` are the face's
    /// (they end the flow, or take the agent); here they give `failed` back.
    pub async fn answer_step(&self, step: &FlowStep, n: usize, answer: StepAnswer, failed: &StepReport) -> StepReport {
        let acts = step.call.name().acts();
        let expect = step.call.args().get("expect").and_then(|e| e.as_str()).map(str::to_string);
        match answer {
            StepAnswer::Skip => StepReport { status: StepStatus::Skipped, ..failed.clone() },
            StepAnswer::Stop | StepAnswer::Repair => failed.clone(),
            // An observation changes nothing, and a wait is its own look: both run again.
            _ if !acts || step.call.name() == ToolName::WaitFor => self.run_flow_step(step, n).await,
            StepAnswer::Retry => match expect {
                Some(e) => match self.check_expectation(step, n, &e, super::resume::LOOK_MS).await {
                    there if there.done() => there,
                    _ => self.run_flow_step(step, n).await,
                },
                None => self.run_flow_step(step, n).await,
            },
            StepAnswer::Done => match expect {
                Some(e) => self.check_expectation(step, n, &e, CHECK_MS).await,
                None => StepReport { status: StepStatus::Done, output: None, error: None, ..failed.clone() },
            },
        }
    }

    /// Step `n`'s expectation `expect` looked for (up to `timeout_ms`), nothing sent: the
    /// look's report, done when it holds.
    pub(super) async fn check_expectation(
        &self,
        step: &FlowStep,
        n: usize,
        expect: &str,
        timeout_ms: u64,
    ) -> StepReport {
        let look = ToolCall::parse("wait_for", json!({ "condition": expect, "timeout_ms": timeout_ms }));
        let look = match look {
            Ok(call) => call,
            Err(e) => {
                // Checked when the flow was parsed; said, should it ever not be.
                return StepReport {
                    step: n,
                    line: step.line,
                    name: step.name.clone(),
                    tool: ToolName::WaitFor.as_str().into(),
                    asked: expect.into(),
                    status: StepStatus::Error,
                    elapsed_ms: 0,
                    output: None,
                    error: Some(e),
                    repaired: None,
                    person: None,
                };
            }
        };
        let looked = FlowStep { line: step.line, name: step.name.clone(), call: look, on_fail: step.on_fail };
        self.run_flow_step(&looked, n).await
    }
}

#[cfg(test)]
mod tests {
    use super::StepAnswer;

    #[test]
    fn an_answer_is_its_word_its_letter_or_a_plain_synonym_and_repair_needs_a_model() {
        assert_eq!(StepAnswer::read(" Retry. ", false), Ok(StepAnswer::Retry));
        assert_eq!(StepAnswer::read("d", false), Ok(StepAnswer::Done));
        assert_eq!(StepAnswer::read("I did it", false), Ok(StepAnswer::Done));
        assert_eq!(StepAnswer::read("next", false), Ok(StepAnswer::Skip));
        assert_eq!(StepAnswer::read("quit", false), Ok(StepAnswer::Stop));
        assert_eq!(StepAnswer::read("repair", true), Ok(StepAnswer::Repair));
        let e = StepAnswer::read("repair", false).unwrap_err();
        assert!(e.contains("needs a model") && e.contains("retry, done, skip or stop"), "{e}");
        let e = StepAnswer::read("maybe", false).unwrap_err();
        assert_eq!(e, "`maybe` is not an answer here; answer retry, done, skip, stop");
    }

    #[test]
    fn a_question_says_the_failure_without_the_candidates_ids() {
        assert_eq!(
            super::short("no element matches `x`; closest: filler \"C\" (id=:1.0|/a/22)"),
            "no element matches `x`"
        );
        let long = "y".repeat(300);
        assert_eq!(super::short(&long).chars().count(), 241);
    }
}

#[cfg(test)]
mod unasked {
    use std::collections::BTreeMap;
    use std::time::Instant;

    use crate::error::ToolError;
    use crate::flow::{FlowReport, StepReport, StepStatus, parse_flow};

    fn failed(step: usize, tool: &str) -> StepReport {
        StepReport {
            step,
            line: None,
            name: None,
            tool: tool.into(),
            asked: "text \"Submit\"".into(),
            status: StepStatus::Error,
            elapsed_ms: 5,
            output: None,
            error: Some(ToolError::usage("no element matches `text=\"Submit\"`; closest: button \"Send\" (id=7)")),
            repaired: None,
            person: None,
        }
    }

    /// Where nobody can be asked (MCP, a fleet), the report keeps the question it would have
    /// put and why it was not; a step that says `stop` keeps none.
    #[test]
    fn a_step_nobody_could_be_asked_about_keeps_its_question_in_the_report() {
        let flow = parse_flow(
            "flow: Order\nsteps:\n  - click: Hello\n  - click: Submit\n    on_fail: ask\n  - click: Bye\n",
            &BTreeMap::new(),
        )
        .unwrap();
        let done = StepReport { status: StepStatus::Done, error: None, ..failed(1, "click") };
        let mut r = FlowReport::of(&flow, vec![done.clone(), failed(2, "click")], Instant::now());
        r.note_unasked(&flow, "nobody here");
        let p = r.steps[1].person.as_ref().expect("the question is kept");
        assert!(p.question.starts_with("Step 2 of 3 of the flow \"Order\", click text \"Submit\", failed: no element"));
        assert!(!p.question.contains("id=7"), "{}", p.question);
        assert_eq!((p.unanswered.as_deref(), p.answers.len(), p.choice), (Some("nobody here"), 0, None));
        assert!(!r.ok);

        let mut r = FlowReport::of(&flow, vec![done.clone(), failed(2, "click"), failed(3, "click")], Instant::now());
        r.steps[1].status = StepStatus::Skipped;
        r.note_unasked(&flow, "nobody here");
        assert!(r.steps[2].person.is_none(), "step 3 says stop: no question");

        let skipped = StepReport { status: StepStatus::Skipped, ..failed(2, "click") };
        let last = StepReport { status: StepStatus::Done, error: None, ..failed(3, "click") };
        let r = FlowReport::of(&flow, vec![done.clone(), skipped, last.clone()], Instant::now());
        assert!(r.ok && r.skipped == 1, "a skipped step lets the flow end ok, counted");
        let r = FlowReport::of(&flow, vec![last], Instant::now());
        assert!(r.ok, "a run from step 3 that did step 3 is whole");
    }
}
