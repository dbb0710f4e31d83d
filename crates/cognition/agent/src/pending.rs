//! The answer to a held-back call's question: now (the asker answered) or on resume (the
//! run paused and a face brought the answer back).

use deft_llm::{Arguments, ToolCall as LlmCall};
use deft_toolbelt::ToolCall;
use serde_json::Value;

use crate::act::call_words;
use crate::ask::{Answer, is_yes};
use crate::calibrate::{Record, Verdict};
use crate::handle::{answer_line, answered, obs};
use crate::observe;
use crate::run::{Agent, Clock, Flow};
use crate::state::{Pending, PendingKind, RunState};
use crate::tools::{Extras, take_extras};
use crate::world::Obs;

impl Agent<'_> {
    /// The observation of a held-back call once its question has an answer.
    pub(crate) async fn settle(&self, state: &mut RunState, clock: &mut Clock, p: &Pending, answer: Answer) -> Obs {
        let c = &p
            .turn
            .reply
            .parts
            .iter()
            .filter_map(|x| if let deft_llm::Part::ToolCall(t) = x { Some(t) } else { None })
            .nth(p.call_index)
            .cloned()
            .unwrap_or_else(|| LlmCall {
                id: "missing".into(),
                name: "unknown".into(),
                arguments: Arguments::Json(Value::Null),
                signature: None,
            });
        let words = &p.words;
        let a = match answer {
            Answer::Text(a) => a,
            Answer::Unavailable(why) => {
                return obs(c, observe::note(words, "not run", &format!("the person could not be asked: {why}")));
            }
            Answer::Later => return obs(c, observe::note(words, "not run", "no answer came")),
        };
        let run_it = |call: &LlmCall| call.arguments.json().and_then(|v| ToolCall::parse(&call.name, strip(v)).ok());
        match &p.kind {
            PendingKind::ModelAsked => obs(c, answered(words, &a)),
            PendingKind::RepeatedFailure => obs(
                c,
                observe::note(
                    words,
                    "not run",
                    &format!("it failed twice before, so I asked the person. {}", answer_line(&a)),
                ),
            ),
            PendingKind::Confirm { call } => match run_it(call) {
                Some(tc) if is_yes(&a) => {
                    self.execute(
                        state,
                        clock,
                        c,
                        &tc,
                        words,
                        &extras_of(call),
                        Some("confirmed by the person".into()),
                        None,
                    )
                    .await
                }
                _ => {
                    obs(c, observe::note(words, "not run", &format!("the person did not confirm. {}", answer_line(&a))))
                }
            },
            PendingKind::LowConfidence { call, unique, score, model, method, candidates, proposed_marks } => {
                let lower = a.to_lowercase();
                let named =
                    proposed_marks.iter().any(|m| !m.is_empty() && lower.contains(&m.to_lowercase().replace('"', "")));
                let verdict = if is_yes(&a) || named { Verdict::Confirmed } else { Verdict::Corrected };
                state.records.push(Record {
                    run_id: state.run_id.clone(),
                    step: p.question.step,
                    tool: c.name.clone(),
                    score: *score,
                    model: *model,
                    method: method.clone(),
                    candidates: *candidates,
                    verdict,
                });
                match run_it(call) {
                    Some(tc) if *unique && is_yes(&a) => {
                        self.execute(
                            state,
                            clock,
                            c,
                            &tc,
                            words,
                            &extras_of(call),
                            Some("the person said yes".into()),
                            None,
                        )
                        .await
                    }
                    _ => obs(
                        c,
                        observe::note(
                            words,
                            "not run",
                            &format!(
                                "its confidence {score:.2} was below the threshold, so I asked the person instead of guessing. {}",
                                answer_line(&a)
                            ),
                        ),
                    ),
                }
            }
        }
    }

    /// Resume: the paused call's observation from the answer, the rest of its step not run.
    pub(crate) async fn answer_pending(
        &self,
        state: &mut RunState,
        p: Pending,
        answer: &str,
        clock: &mut Clock,
        refs_note: Option<String>,
    ) -> Flow {
        state.answers.push(answer.to_string());
        let o = self.settle(state, clock, &p, Answer::Text(answer.into())).await;
        let mut notes = std::mem::take(&mut clock.notes);
        let mut turn = p.turn.clone();
        turn.results.truncate(p.call_index);
        turn.results.push(o);
        let calls: Vec<LlmCall> = turn
            .reply
            .parts
            .iter()
            .filter_map(|x| if let deft_llm::Part::ToolCall(t) = x { Some(t.clone()) } else { None })
            .collect();
        for c in calls.iter().skip(p.call_index + 1) {
            turn.results.push(crate::run::not_run(c, &call_words(c), "not run: the step paused for a question"));
        }
        if let Some(n) = refs_note {
            notes.push(n);
        }
        notes.push(state.belief.render());
        let prior = turn.note.take().filter(|n| !n.is_empty());
        turn.note = Some(prior.into_iter().chain(notes).collect::<Vec<_>>().join("\n"));
        state.world.turns.push(turn);
        Flow::Next
    }
}

fn strip(v: &Value) -> Value {
    let mut v = v.clone();
    take_extras(&mut v);
    v
}

fn extras_of(call: &LlmCall) -> Extras {
    call.arguments.json().map(|v| take_extras(&mut v.clone())).unwrap_or_default()
}
