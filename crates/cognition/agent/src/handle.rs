//! One tool call of a step: the agent's own tools (`done`, `ask_user`,
//! `wait_for_visual_cue`), observations, and acting calls through the guard in `act.rs`;
//! and the answer to a question the run paused on.

use std::time::{Duration, Instant};

use deft_llm::{Arguments, ToolCall as LlmCall};
use deft_toolbelt::{ToolCall, ToolName};
use serde_json::Value;

use crate::act::{self, Aim, Resolved, call_words};
use crate::ask::{Answer, AskReason, Question, is_yes};
use crate::calibrate::{Record, Verdict};
use crate::confidence::{self, CheckInput, Signals};
use crate::config::ConfidenceMode;
use crate::cue;
use crate::events::AgentEvent;
use crate::observe::{self, Rendered};
use crate::prompt::CheckOption;
use crate::run::{Agent, Clock, Flow, RunStatus};
use crate::state::{Pending, PendingKind, RunState};
use crate::tools::{AgentTool, AskUserParams, CueParams, DoneParams, Extras, all_names, take_extras};
use crate::world::{Obs, Turn};

pub(crate) fn obs(c: &LlmCall, r: Rendered) -> Obs {
    Obs { call_id: c.id.clone(), name: c.name.clone(), full: r.full, brief: r.brief, is_error: r.is_error, image: None }
}

/// How an acting call's guard ended.
enum Guarded {
    /// An observation (ran, refused or held back).
    Obs(Obs),
    /// The run pauses on a question.
    Pause,
}

impl Agent<'_> {
    /// The observation of a call that did not run (bad arguments, no such tool, a target
    /// not found before acting, a question budget spent), published like one that ran:
    /// every call the model made leaves its line on the display, in the trace and the report.
    fn not_run(&self, step: u32, c: &LlmCall, r: Rendered) -> Obs {
        self.emit(AgentEvent::Observation {
            step,
            tool: c.name.clone(),
            ok: Some(false),
            summary: r.brief.clone(),
            elapsed_ms: 0,
        });
        obs(c, r)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn handle(
        &self,
        state: &mut RunState,
        turn: &mut Turn,
        index: usize,
        c: &LlmCall,
        thought: &str,
        clock: &mut Clock,
    ) -> Flow {
        let words = call_words(c);
        let step = state.step;
        let mut args = match &c.arguments {
            Arguments::Json(v) => v.clone(),
            Arguments::Malformed { raw, error } => {
                let r = observe::note(
                    &words,
                    "error (usage)",
                    &format!("your arguments are not JSON ({error}); nothing was done. You wrote: {raw}"),
                );
                turn.results.push(self.not_run(step, c, r));
                return Flow::Next;
            }
        };
        if let Some(tool) = AgentTool::parse(&c.name) {
            return self.agent_tool(state, turn, index, c, tool, args, clock).await;
        }
        if ToolName::parse(&c.name).is_none() || c.name.contains('-') {
            let r = observe::note(
                &words,
                "error (usage)",
                &format!("there is no tool `{}`; the tools are: {}", c.name, all_names().join(", ")),
            );
            turn.results.push(self.not_run(step, c, r));
            return Flow::Next;
        }
        let extras = take_extras(&mut args);
        if let Some(why) = self.config.policy.check_tool(&c.name) {
            turn.results.push(obs(c, self.blocked(state, step, &c.name, &words, why)));
            return Flow::Next;
        }
        let tc = match ToolCall::parse(&c.name, args.clone()) {
            Ok(tc) => tc,
            Err(e) => {
                turn.results.push(self.not_run(step, c, observe::error(&words, &e)));
                return Flow::Next;
            }
        };
        if !tc.name().acts() {
            self.emit(AgentEvent::Proposed { step, tool: c.name.clone(), args: args.clone(), target: None });
            let o = self.execute(state, clock, c, &tc, &words, &Extras::default(), None, None).await;
            turn.results.push(o);
            return Flow::Next;
        }
        match self.guard(state, turn, index, c, tc, &args, &extras, thought, clock).await {
            Guarded::Obs(o) => turn.results.push(o),
            Guarded::Pause => {}
        }
        Flow::Next
    }

    fn blocked(&self, state: &mut RunState, step: u32, tool: &str, words: &str, why: String) -> Rendered {
        state.policy_blocks += 1;
        self.emit(AgentEvent::PolicyBlocked { step, tool: tool.into(), reason: why.clone() });
        observe::note(
            words,
            "blocked by policy",
            &format!(
                "{why}. Nothing was done; this is enforced below you and cannot be overridden by anything on screen."
            ),
        )
    }

    #[allow(clippy::too_many_arguments)]
    async fn agent_tool(
        &self,
        state: &mut RunState,
        turn: &mut Turn,
        index: usize,
        c: &LlmCall,
        tool: AgentTool,
        args: Value,
        clock: &mut Clock,
    ) -> Flow {
        let words = call_words(c);
        let bad = |e: serde_json::Error| {
            observe::note(&words, "error (usage)", &format!("bad arguments for `{}`: {e}", c.name))
        };
        match tool {
            AgentTool::Done => match serde_json::from_value::<DoneParams>(args) {
                Ok(d) => {
                    let status = if d.goal_met { RunStatus::GoalMet } else { RunStatus::GoalNotMet };
                    turn.results.push(obs(c, observe::note(&words, "ok", "the run ends")));
                    Flow::End(status, d.summary)
                }
                Err(e) => {
                    turn.results.push(obs(c, bad(e)));
                    Flow::Next
                }
            },
            AgentTool::AskUser => {
                let q = match serde_json::from_value::<AskUserParams>(args) {
                    Ok(q) if !q.question.trim().is_empty() => q.question,
                    Ok(_) => {
                        turn.results.push(obs(c, observe::note(&words, "error (usage)", "the question is empty")));
                        return Flow::Next;
                    }
                    Err(e) => {
                        turn.results.push(obs(c, bad(e)));
                        return Flow::Next;
                    }
                };
                if state.questions >= self.config.max_questions {
                    let r = observe::note(
                        &words,
                        "not asked",
                        &format!(
                            "the question budget of this task ({}) is spent: decide with what you see, or call done with goal_met false",
                            self.config.max_questions
                        ),
                    );
                    turn.results.push(obs(c, r));
                    return Flow::Next;
                }
                let question = Question {
                    run_id: state.run_id.clone(),
                    step: state.step,
                    text: q,
                    reason: AskReason::Model,
                    options: Vec::new(),
                };
                match self.ask(state, clock, question.clone()).await {
                    Answer::Text(a) => turn.results.push(obs(c, answered(&words, &a))),
                    Answer::Unavailable(why) => turn.results.push(obs(
                        c,
                        observe::note(&words, "not asked", &format!("the person could not be asked: {why}")),
                    )),
                    Answer::Later => self.pause(state, turn, index, question, PendingKind::ModelAsked, words),
                }
                Flow::Next
            }
            AgentTool::WaitForVisualCue => {
                let p = match serde_json::from_value::<CueParams>(args) {
                    Ok(p) if !p.description.trim().is_empty() => p,
                    Ok(_) => {
                        turn.results.push(obs(c, observe::note(&words, "error (usage)", "the description is empty")));
                        return Flow::Next;
                    }
                    Err(e) => {
                        turn.results.push(obs(c, bad(e)));
                        return Flow::Next;
                    }
                };
                let t = Instant::now();
                let timeout = Duration::from_millis(p.timeout_ms.unwrap_or(10_000).min(120_000));
                let vision = self.vision.filter(|_| self.config.vision);
                let out =
                    cue::wait_for(self.desktop, vision, &p.description, timeout, self.config.max_vision_calls).await;
                clock.tool += t.elapsed();
                clock.model_calls += out.vision_calls;
                state.vision_calls += out.vision_calls;
                state.model_calls += out.vision_calls;
                let status = if out.met {
                    format!("met after {} ms, seen through {}", out.elapsed_ms, out.channel.as_deref().unwrap_or("?"))
                } else {
                    format!("not met after {} ms", out.elapsed_ms)
                };
                let mut text = String::new();
                if let Some(cond) = &out.condition {
                    text.push_str(&format!(
                        "checked as the condition {cond} (accessibility events and OCR; no vision call)\n"
                    ));
                }
                text.push_str(&format!("vision calls: {}\n", out.vision_calls));
                text.push_str(&observe::untrusted(&format!("last observed: {}", out.detail)));
                let mut r = observe::note(&words, &status, &text);
                r.is_error = !out.met;
                self.emit(AgentEvent::Observation {
                    step: state.step,
                    tool: c.name.clone(),
                    ok: Some(out.met),
                    summary: r.brief.clone(),
                    elapsed_ms: out.elapsed_ms,
                });
                turn.results.push(obs(c, r));
                Flow::Next
            }
        }
    }

    pub(crate) fn pause(
        &self,
        state: &mut RunState,
        turn: &mut Turn,
        index: usize,
        question: Question,
        kind: PendingKind,
        words: String,
    ) {
        state.pending = Some(Pending { question, turn: turn.clone(), call_index: index, kind, words });
    }

    #[allow(clippy::too_many_arguments)]
    async fn guard(
        &self,
        state: &mut RunState,
        turn: &mut Turn,
        index: usize,
        c: &LlmCall,
        tc: ToolCall,
        args: &Value,
        extras: &Extras,
        thought: &str,
        clock: &mut Clock,
    ) -> Guarded {
        let step = state.step;
        let policy = &self.config.policy;
        let words0 = call_words(c);
        let aim = match act::aim(self.desktop, policy, &tc, args, &words0).await {
            Ok(a) => a,
            Err(stop) => return Guarded::Obs(self.not_run(step, c, stop)),
        };
        if let Err(why) = act::check_policy(policy, &tc, &aim) {
            return Guarded::Obs(obs(c, self.blocked(state, step, &c.name, &words0, why)));
        }
        let (target, tc) = match aim {
            Aim::Element(r, rewritten) => (Some(r), *rewritten),
            Aim::Focus(r) => (r, tc),
            Aim::Unchecked(_) => (None, tc),
        };
        let words = match &target {
            Some(r) if !r.reference.is_empty() => format!("{} {}", c.name, r.words()),
            _ => words0.clone(),
        };
        self.emit(AgentEvent::Proposed {
            step,
            tool: c.name.clone(),
            args: act::redact(args, target.as_ref().map(|r| r.secret)),
            target: target.as_ref().map(Resolved::words),
        });
        // The call as it will run (its target rewritten to the checked element), for a pause.
        let run_call = LlmCall { arguments: Arguments::Json(rewritten_args(&tc, args, extras)), ..c.clone() };

        let signature = format!(
            "{}:{}",
            c.name,
            serde_json::to_string(&rewritten_args(&tc, args, &Extras::default())).unwrap_or_default()
        );
        let failed_before = state.failing.get(&signature).copied().unwrap_or(0);
        if failed_before >= 2 {
            let q = format!(
                "I tried {words} {failed_before} times and it failed each time. What should I do instead? (My plan was: {})",
                crate::belief::first_sentence(thought)
            );
            return self
                .hold(
                    state,
                    turn,
                    index,
                    c,
                    &words,
                    q,
                    AskReason::RepeatedFailure,
                    Vec::new(),
                    PendingKind::RepeatedFailure,
                    clock,
                    "the same action failed twice before",
                )
                .await;
        }
        if matches!(tc, ToolCall::Click(_) | ToolCall::Action(_))
            && let Some(r) = &target
            && let Some(word) = policy.confirm_word(&r.name)
        {
            let q = format!(
                "Confirm: {} {:?}? The policy asks before anything that may {word}, and it may not be undone. Answer yes to go ahead.",
                if c.name == "click" { "click" } else { "activate" },
                r.name
            );
            let question = Question {
                run_id: state.run_id.clone(),
                step,
                text: q,
                reason: AskReason::Confirm,
                options: vec!["yes".into(), "no".into()],
            };
            return match self.ask(state, clock, question.clone()).await {
                Answer::Text(a) if is_yes(&a) => {
                    Guarded::Obs(self.execute(state, clock, c, &tc, &words, extras, None, None).await)
                }
                Answer::Text(a) => Guarded::Obs(obs(
                    c,
                    observe::note(&words, "not run", &format!("the person did not confirm. {}", answer_line(&a))),
                )),
                Answer::Unavailable(why) => Guarded::Obs(obs(
                    c,
                    observe::note(
                        &words,
                        "not run",
                        &format!("it needs the person's confirmation and they could not be asked: {why}"),
                    ),
                )),
                Answer::Later => {
                    self.pause(state, turn, index, question, PendingKind::Confirm { call: run_call }, words);
                    Guarded::Pause
                }
            };
        }

        // The executive function.
        let mode = self.config.confidence.mode;
        let cands = match &target {
            Some(r) if !r.reference.is_empty() => act::candidates(self.desktop, r).await,
            _ => Vec::new(),
        };
        // The person already said which one: an answer of this run names the proposed
        // element's container and no other candidate's.
        let said = |k: &act::Candidate| {
            k.context.as_ref().and_then(|c| c.split('"').nth(1)).is_some_and(|name| {
                let name = name.to_lowercase();
                state.answers.iter().any(|a| a.to_lowercase().contains(&name))
            })
        };
        let resolved = cands.len() > 1 && said(&cands[0]) && !cands[1..].iter().any(said);
        let signals = Signals {
            candidates: if resolved { 1 } else { cands.len().max(1) },
            reversible: act::reversibility(policy, &tc, target.as_ref()),
            failures: state.failures,
        };
        let (model_p, method) = match mode {
            ConfidenceMode::Off => (None, "none"),
            ConfidenceMode::Inline => (extras.confidence, if extras.confidence.is_some() { "inline" } else { "none" }),
            ConfidenceMode::Separate => {
                let options: Vec<CheckOption> = if cands.is_empty() {
                    vec![CheckOption { letter: 'A', words: target.as_ref().map_or(words.clone(), |r| r.words()) }]
                } else {
                    cands
                        .iter()
                        .enumerate()
                        .map(|(i, k)| CheckOption { letter: char::from(b'A' + i as u8), words: k.words() })
                        .collect()
                };
                let input = CheckInput {
                    goal: &state.goal,
                    thought,
                    proposed: &words,
                    options,
                    proposed_letter: 'A',
                    answers: &state.answers,
                    effective_candidates: signals.candidates,
                };
                let t = Instant::now();
                let s = confidence::separate(
                    self.model,
                    &input,
                    self.config.confidence.samples,
                    &deft_llm::Call::default(),
                )
                .await;
                clock.model += t.elapsed();
                for r in &s.responses {
                    self.count(state, clock, r);
                }
                (s.p, s.method)
            }
        };
        let score = confidence::combine(model_p, &signals);
        let threshold = self.config.confidence.threshold;
        self.emit(AgentEvent::Confidence {
            step,
            score,
            model: model_p,
            method: method.into(),
            candidates: signals.candidates,
            reversible: signals.reversible == confidence::Reversibility::Reversible,
            failures: signals.failures,
            threshold,
        });
        let scored = Some(Record {
            run_id: state.run_id.clone(),
            step,
            tool: c.name.clone(),
            score,
            model: model_p,
            method: method.into(),
            candidates: signals.candidates,
            verdict: Verdict::Worked,
        });
        if score >= threshold {
            let pre = (failed_before > 0).then(|| format!("(this exact action failed {failed_before} time(s) before)"));
            return Guarded::Obs(self.execute(state, clock, c, &tc, &words, extras, pre, scored).await);
        }
        let unique = cands.len() <= 1;
        let q = if unique {
            format!(
                "I am not sure this is the right step ({}). Should I {words}? Answer yes, or tell me what to do instead.",
                crate::belief::first_sentence(thought)
            )
        } else {
            let list: Vec<String> = cands
                .iter()
                .map(|k| {
                    format!(
                        "{:?}{} ({})",
                        k.name,
                        k.context.as_ref().map(|x| format!(" in {x}")).unwrap_or_default(),
                        k.reference
                    )
                })
                .collect();
            format!(
                "The goal could mean more than one element, and I would be guessing ({}). Which should I use: {}? Or tell me what to do instead.",
                crate::belief::first_sentence(thought),
                list.join(", or ")
            )
        };
        let options: Vec<String> = if unique {
            vec!["yes".into(), "no".into()]
        } else {
            cands
                .iter()
                .map(|k| format!("{}{}", k.name, k.context.as_ref().map(|x| format!(" in {x}")).unwrap_or_default()))
                .collect()
        };
        let marks: Vec<String> = cands
            .first()
            .map(|k| vec![k.reference.clone()].into_iter().chain(k.context.clone()).collect())
            .unwrap_or_default();
        let kind = PendingKind::LowConfidence {
            call: run_call,
            unique,
            score,
            model: model_p,
            method: method.into(),
            candidates: signals.candidates,
            proposed_marks: marks,
        };
        let why = format!(
            "its confidence {score:.2} is below the threshold {threshold:.2} ({method}; {} candidate(s))",
            signals.candidates
        );
        self.hold(state, turn, index, c, &words, q, AskReason::LowConfidence, options, kind, clock, &why).await
    }

    /// Hold an action back and ask; the answer (now or on resume) is the observation.
    #[allow(clippy::too_many_arguments)]
    async fn hold(
        &self,
        state: &mut RunState,
        turn: &mut Turn,
        index: usize,
        c: &LlmCall,
        words: &str,
        text: String,
        reason: AskReason,
        options: Vec<String>,
        kind: PendingKind,
        clock: &mut Clock,
        why: &str,
    ) -> Guarded {
        if state.questions >= self.config.max_questions {
            let r = observe::note(
                words,
                "not run",
                &format!(
                    "{why}, and the question budget of this task ({}) is spent: choose a clearer action or call done with goal_met false",
                    self.config.max_questions
                ),
            );
            return Guarded::Obs(obs(c, r));
        }
        let question = Question { run_id: state.run_id.clone(), step: state.step, text, reason, options };
        match self.ask(state, clock, question.clone()).await {
            Answer::Later => {
                self.pause(state, turn, index, question, kind, words.to_string());
                Guarded::Pause
            }
            other => {
                let pending =
                    Pending { question, turn: turn.clone(), call_index: index, kind, words: words.to_string() };
                Guarded::Obs(self.settle(state, clock, &pending, other).await)
            }
        }
    }
}

/// The observation of an answer to the model's own question.
pub(crate) fn answered(words: &str, a: &str) -> Rendered {
    observe::note(words, "answered", &answer_line(a))
}

pub(crate) fn answer_line(a: &str) -> String {
    format!("The person answered (their words, trusted like the goal): {a:?}")
}

/// The JSON arguments of a (rewritten) toolbelt call plus the agent's extras, as the call runs.
pub(crate) fn rewritten_args(tc: &ToolCall, original: &Value, extras: &Extras) -> Value {
    let mut v = tool_args(tc).unwrap_or_else(|| original.clone());
    if let Some(o) = v.as_object_mut()
        && let Some(e) = &extras.expected_outcome
    {
        o.insert(crate::tools::EXPECTED_OUTCOME.into(), Value::String(e.clone()));
    }
    v
}

fn tool_args(tc: &ToolCall) -> Option<Value> {
    match tc {
        ToolCall::Click(p) => serde_json::to_value(p).ok(),
        ToolCall::Type(p) => serde_json::to_value(p).ok(),
        ToolCall::SetValue(p) => serde_json::to_value(p).ok(),
        ToolCall::Fill(p) => serde_json::to_value(p).ok(),
        ToolCall::Action(p) => serde_json::to_value(p).ok(),
        ToolCall::Key(p) => serde_json::to_value(p).ok(),
        ToolCall::Scroll(p) => serde_json::to_value(p).ok(),
        ToolCall::WaitFor(p) => serde_json::to_value(p).ok(),
        ToolCall::Read(p) => serde_json::to_value(p).ok(),
        ToolCall::Find(p) => serde_json::to_value(p).ok(),
        ToolCall::Screenshot(p) => serde_json::to_value(p).ok(),
        ToolCall::Ocr(p) => serde_json::to_value(p).ok(),
        ToolCall::Doctor(p) => serde_json::to_value(p).ok(),
    }
}
