//! The loop: each step the model gets the goal, the tools and the world model, answers
//! with a thought and a tool call; the call runs (through the policy, the executive
//! function and the verified executor) and its observation is appended; until `done`, a
//! budget, or a question that must wait for its answer.

use std::time::{Duration, Instant};

use deft_bus::Bus;
use deft_llm::{AnyModel, Call, Delta, Limits, Model, Part, UsageTotals};
use deft_toolbelt::{ReadParams, TargetParams, ToolCall, ToolOutput};
use serde::Serialize;

use crate::ask::{Answer, Asker, Question};
use crate::belief::first_sentence;
use crate::calibrate::Record;
use crate::config::{AgentConfig, ConfidenceMode, Tighten};
use crate::desktop::Desktop;
use crate::events::AgentEvent;
use crate::observe;
use crate::prompt;
use crate::state::{RunState, StepStats};
use crate::tools::tool_defs;
use crate::world::{Obs, Turn, World};

/// Why a run could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The goal is empty.
    #[error(
        "the goal is empty: say what the agent should do, e.g. agent-cli run \"Type Ada into Name and press Save\""
    )]
    EmptyGoal,
    /// The settings are inconsistent.
    #[error("agent settings: {0}")]
    Config(String),
    /// The application the run was to start in (`scope`) is not there.
    #[error("{0}")]
    Scope(deft_toolbelt::ToolError),
    /// A paused run cannot resume.
    #[error("cannot resume run {run_id}: {why}")]
    Resume {
        /// The run.
        run_id: String,
        /// Why not.
        why: String,
    },
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The model called `done` saying the goal was met.
    GoalMet,
    /// The model called `done` saying it was not.
    GoalNotMet,
    /// A question waits for its answer: resume the run with it.
    NeedsInput,
    /// A budget ran out.
    Budget,
    /// The model or the loop failed.
    Failed,
}

impl RunStatus {
    /// Its serde name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::GoalMet => "goal_met",
            RunStatus::GoalNotMet => "goal_not_met",
            RunStatus::NeedsInput => "needs_input",
            RunStatus::Budget => "budget",
            RunStatus::Failed => "failed",
        }
    }
}

/// What a run came to.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// The run's id.
    pub run_id: String,
    /// How it ended.
    pub status: RunStatus,
    /// The model's summary, or why the run ended.
    pub summary: String,
    /// The question waiting for an answer (`needs_input`).
    pub question: Option<Question>,
    /// Which model ran it.
    pub model: String,
    /// Steps taken.
    pub steps: u32,
    /// Model calls (steps, confidence checks, vision looks).
    pub model_calls: u32,
    /// Questions put to the person.
    pub questions: u32,
    /// Vision calls.
    pub vision_calls: u32,
    /// Calls the policy refused.
    pub policy_blocks: u32,
    /// Tokens and estimated cost.
    pub usage: UsageTotals,
    /// Per-step tokens and time.
    pub stats: Vec<StepStats>,
    /// (confidence, outcome) pairs of this process's part of the run.
    pub calibration: Vec<Record>,
    /// The whole state, to save when the run paused.
    #[serde(skip)]
    pub state: Option<RunState>,
}

/// A display callback: every event, in order, as it happens.
pub type Sink<'a> = &'a (dyn Fn(&AgentEvent) + Send + Sync);

/// The agent: a model, a desktop, someone to ask, settings.
pub struct Agent<'a> {
    /// The model that thinks.
    pub model: &'a AnyModel,
    /// The model that looks at screenshots for visual cues (`None`: no vision channel).
    pub vision: Option<&'a AnyModel>,
    /// Where actions go.
    pub desktop: &'a dyn Desktop,
    /// Where questions go.
    pub asker: &'a dyn Asker,
    /// Settings.
    pub config: &'a AgentConfig,
    /// The application to show the model at the start (`None`: the whole desktop).
    pub scope: Option<String>,
    /// Display of events as they happen.
    pub sink: Option<Sink<'a>>,
    /// Where events are published (traces).
    pub bus: Option<Bus<AgentEvent>>,
}

/// What a step's handling decided.
pub(crate) enum Flow {
    /// Go on.
    Next,
    /// End with this status and summary.
    End(RunStatus, String),
}

/// Per-step time accounting.
#[derive(Default)]
pub(crate) struct Clock {
    /// Notes for the model after the step's results (divergences).
    pub notes: Vec<String>,
    pub model: Duration,
    pub tool: Duration,
    pub ask: Duration,
    pub model_calls: u32,
    pub prompt_tokens: u64,
    pub output_tokens: u64,
    pub actions: u32,
}

impl Agent<'_> {
    pub(crate) fn emit(&self, e: AgentEvent) {
        if let Some(s) = self.sink {
            s(&e);
        }
        if let (Some(bus), false) = (&self.bus, matches!(e, AgentEvent::ThoughtDelta { .. })) {
            bus.publish("agent", e);
        }
    }

    /// Pursue `goal` from the desktop as it is now.
    pub async fn run(&self, goal: &str, run_id: &str) -> Result<RunReport, AgentError> {
        let goal = goal.trim();
        if goal.is_empty() {
            return Err(AgentError::EmptyGoal);
        }
        self.config.check().map_err(AgentError::Config)?;
        let started = Instant::now();
        let read = ToolCall::Read(ReadParams {
            target: TargetParams { app: self.scope.clone(), ..TargetParams::default() },
            ..ReadParams::default()
        });
        let (head, outline) = match self.desktop.call(&read).await {
            Ok(ToolOutput::Read(r)) => (
                format!(
                    "{} element(s) of {}; one per line with its ref",
                    r.count,
                    self.scope.as_deref().map_or("the desktop".to_string(), |a| format!("{a:?}"))
                ),
                r.outline.clone(),
            ),
            Ok(_) => ("nothing read".into(), String::new()),
            // A scope that names nothing running is the person's mistake: widening to the
            // whole desktop would act where they did not say.
            Err(e) if self.scope.is_some() && e.kind == deft_toolbelt::ToolErrorKind::NotFound => {
                return Err(AgentError::Scope(e));
            }
            Err(e) => (format!("it could not be read: {}; call read", e.kind.as_str()), e.message),
        };
        let world = World::new(prompt::opening(goal, &head, &outline));
        let mut state =
            RunState::new(run_id.into(), goal.into(), self.model.describe().to_string(), self.config.clone(), world);
        state.scope.clone_from(&self.scope);
        state.elapsed_ms = 0;
        self.emit(AgentEvent::RunStarted {
            run_id: run_id.into(),
            goal: goal.into(),
            model: state.model.clone(),
            resumed: false,
        });
        self.drive(state, Flow::Next, started).await
    }

    /// Continue a paused run with the person's answer.
    ///
    /// The run goes on with the settings and the model it was started with: `self.config`
    /// and `self.scope` are not used, and `tighten` may only make the settings stricter
    /// (more denials, fewer allowed places, lower budgets, a higher threshold). Another
    /// model than the one that started it is refused.
    pub async fn resume(&self, state: RunState, answer: &str, tighten: &Tighten) -> Result<RunReport, AgentError> {
        let config =
            state.config.tightened(tighten).map_err(|why| AgentError::Resume { run_id: state.run_id.clone(), why })?;
        let model = self.model.describe().to_string();
        if state.model != model {
            let why = format!(
                "it was started with the model {}, and this one is {model}: resume it with the same model (its [model] \
                 section or DEFT_MODEL_* as when it started)",
                state.model
            );
            return Err(AgentError::Resume { run_id: state.run_id, why });
        }
        // A scripted model goes on from the turn the earlier process stopped at.
        self.model.resumed_after(state.model_calls);
        let me = Agent {
            model: self.model,
            vision: self.vision,
            desktop: self.desktop,
            asker: self.asker,
            config: &config,
            scope: state.scope.clone(),
            sink: self.sink,
            bus: self.bus.clone(),
        };
        Box::pin(me.resume_as_started(state, answer)).await
    }

    async fn resume_as_started(&self, mut state: RunState, answer: &str) -> Result<RunReport, AgentError> {
        self.config.check().map_err(AgentError::Config)?;
        let started = Instant::now();
        let Some(pending) = state.pending.take() else {
            return Err(AgentError::Resume { run_id: state.run_id, why: "it is not waiting for an answer".into() });
        };
        if answer.trim().is_empty() {
            state.pending = Some(pending);
            return Err(AgentError::Resume { run_id: state.run_id, why: "the answer is empty".into() });
        }
        let refs_note = match self.desktop.restore_refs(&state.refs) {
            Ok(()) => None,
            Err(why) => Some(format!("refs shown before the pause are void ({why}): read again before acting")),
        };
        self.emit(AgentEvent::RunStarted {
            run_id: state.run_id.clone(),
            goal: state.goal.clone(),
            model: self.model.describe().to_string(),
            resumed: true,
        });
        let mut clock = Clock::default();
        self.emit(AgentEvent::Answered { step: state.step, answer: Some(answer.into()) });
        let flow = self.answer_pending(&mut state, pending, answer, &mut clock, refs_note).await;
        self.drive(state, flow, started).await
    }

    async fn drive(&self, mut state: RunState, mut flow: Flow, started: Instant) -> Result<RunReport, AgentError> {
        let base_ms = state.elapsed_ms;
        let inline = self.config.confidence.mode == ConfidenceMode::Inline;
        let system = prompt::system(self.config.multi_action, inline, self.config.vision);
        let tools = tool_defs(inline);
        loop {
            state.elapsed_ms = base_ms + started.elapsed().as_millis() as u64;
            if let Flow::End(status, summary) = flow {
                return Ok(self.finish(state, status, summary));
            }
            if state.pending.is_some() {
                return Ok(self.finish(state, RunStatus::NeedsInput, "waiting for the person's answer".into()));
            }
            if let Some(why) = self.over_budget(&state) {
                flow = Flow::End(RunStatus::Budget, why);
                continue;
            }
            flow = self.step(&mut state, &system, &tools, base_ms, started).await;
        }
    }

    fn over_budget(&self, state: &RunState) -> Option<String> {
        let b = &self.config.budget;
        if state.step >= b.max_steps {
            return Some(format!("the step budget ran out ({} steps)", b.max_steps));
        }
        let used = state.usage.usage.prompt_tokens() + state.usage.usage.output_tokens;
        if let Some(max) = b.max_tokens
            && used >= max
        {
            return Some(format!("the token budget ran out ({used} of {max} tokens)"));
        }
        if let Some(max) = b.max_cost_usd {
            match state.usage.cost_usd() {
                Some(c) if c >= max => return Some(format!("the cost budget ran out (about ${c:.4} of ${max})")),
                None if state.usage.calls > 0 => {
                    return Some(
                        "a cost budget is set but the model's price is unknown: set price in the [model] section"
                            .into(),
                    );
                }
                _ => {}
            }
        }
        if state.elapsed_ms >= b.max_wall_ms {
            return Some(format!("the time budget ran out ({} ms)", b.max_wall_ms));
        }
        None
    }

    async fn step(
        &self,
        state: &mut RunState,
        system: &str,
        tools: &[deft_llm::ToolDef],
        base_ms: u64,
        started: Instant,
    ) -> Flow {
        let t0 = Instant::now();
        state.step += 1;
        let step = state.step;
        let mut clock = Clock::default();
        let limits = Limits {
            max_tokens: self.config.max_output_tokens,
            temperature: self.config.temperature,
            stop: Vec::new(),
        };
        state.world.compact(self.config.history_steps, self.config.history_chunk);
        let request = state.world.request(system, tools, self.config.keep_full, limits, self.config.prompt_cache);
        state.world.drop_shown_images();
        let left = self.config.budget.max_wall_ms.saturating_sub(base_ms + started.elapsed().as_millis() as u64);
        let sink = |d: Delta<'_>| {
            if let Delta::Text(t) = d {
                self.emit(AgentEvent::ThoughtDelta { step, text: t.to_string() });
            }
        };
        let call = Call { timeout: Some(Duration::from_millis(left.max(1))), ..Call::streaming(&sink) };
        let tm = Instant::now();
        let response = self.model.complete(&request, &call).await;
        clock.model += tm.elapsed();
        let response = match response {
            Ok(r) => r,
            Err(e) => return Flow::End(RunStatus::Failed, format!("the model call failed: {e}")),
        };
        self.count(state, &mut clock, &response);
        let thinking: String = response
            .choice
            .parts
            .iter()
            .filter_map(|p| if let Part::Opaque(o) = p { o.thinking_text() } else { None })
            .collect();
        let thought = match (response.text().trim(), thinking.trim()) {
            ("", t) => t.to_string(),
            (t, _) => t.to_string(),
        };
        self.emit(AgentEvent::Thought { step, text: thought.clone() });
        if !thought.is_empty() {
            state.belief.doing = Some(first_sentence(&thought));
        }
        let calls: Vec<deft_llm::ToolCall> = response.tool_calls().cloned().collect();
        let mut turn = Turn { step, reply: response.choice.to_message(), results: Vec::new(), note: None };
        let mut flow = Flow::Next;
        if calls.is_empty() {
            state.idle_replies += 1;
            let cut = if response.choice.stop.reason == deft_llm::StopReason::MaxTokens {
                " (your reply was cut at the output limit: keep the thought short)"
            } else {
                ""
            };
            clock.notes.push(format!(
                "You replied without calling a tool{cut}. Reply with a short thought and exactly one tool call; call done when the goal is met or cannot be."
            ));
            if state.idle_replies >= 3 {
                flow = Flow::End(RunStatus::Failed, "the model replied 3 times in a row without calling a tool".into());
            }
        } else {
            state.idle_replies = 0;
        }
        let mut stopped: Option<String> = None;
        for (i, c) in calls.iter().enumerate() {
            if matches!(flow, Flow::End(..)) || state.pending.is_some() {
                break;
            }
            let words = crate::act::call_words(c);
            if i > 0 && !self.config.multi_action {
                turn.results.push(not_run(c, &words, "one tool call per step: call it again in your next reply"));
                continue;
            }
            if let Some(why) = &stopped {
                turn.results.push(not_run(c, &words, why));
                continue;
            }
            let before = turn.results.len();
            flow = self.handle(state, &mut turn, i, c, &thought, &mut clock).await;
            if state.pending.is_some() {
                break;
            }
            if let Some(o) = turn.results.get(before)
                && o.is_error
            {
                stopped = Some(format!("not run: call {} of this step did not work, so the sequence stopped", i + 1));
            }
        }
        let mut notes = std::mem::take(&mut clock.notes);
        if state.pending.is_none() {
            notes.push(state.belief.render());
            turn.note = Some(notes.join("\n"));
            let chars =
                turn.results.iter().map(|o| o.full.len()).sum::<usize>() + turn.note.as_ref().map_or(0, String::len);
            state.world.turns.push(turn);
            self.stats(state, step, t0, &clock, chars);
        } else if let Some(p) = state.pending.as_mut() {
            p.turn = turn;
            p.turn.note = Some(notes.join("\n"));
            self.stats(state, step, t0, &clock, 0);
        }
        flow
    }

    pub(crate) fn count(&self, state: &mut RunState, clock: &mut Clock, r: &deft_llm::Response) {
        state.usage.add(r);
        state.model_calls += 1;
        clock.model_calls += 1;
        clock.prompt_tokens += r.usage.prompt_tokens();
        clock.output_tokens += r.usage.output_tokens;
    }

    fn stats(&self, state: &mut RunState, step: u32, t0: Instant, clock: &Clock, chars: usize) {
        let total = t0.elapsed();
        let overhead = total.saturating_sub(clock.model + clock.tool + clock.ask);
        let s = StepStats {
            step,
            model_calls: clock.model_calls,
            prompt_tokens: clock.prompt_tokens,
            output_tokens: clock.output_tokens,
            observation_chars: chars,
            model_ms: clock.model.as_millis() as u64,
            tool_ms: clock.tool.as_millis() as u64,
            ask_ms: clock.ask.as_millis() as u64,
            overhead_ms: overhead.as_millis() as u64,
            actions: clock.actions,
        };
        self.emit(AgentEvent::StepStats {
            step,
            model_calls: s.model_calls,
            prompt_tokens: s.prompt_tokens,
            output_tokens: s.output_tokens,
            model_ms: s.model_ms,
            tool_ms: s.tool_ms,
            overhead_ms: s.overhead_ms,
        });
        state.stats.push(s);
    }

    fn finish(&self, mut state: RunState, status: RunStatus, summary: String) -> RunReport {
        self.emit(AgentEvent::Finished { status: status.as_str().into(), summary: summary.clone(), steps: state.step });
        let question = state.pending.as_ref().map(|p| p.question.clone());
        if status == RunStatus::NeedsInput {
            state.refs = self.desktop.saved_refs();
        }
        RunReport {
            run_id: state.run_id.clone(),
            status,
            summary,
            question,
            model: self.model.describe().to_string(),
            steps: state.step,
            model_calls: state.model_calls,
            questions: state.questions,
            vision_calls: state.vision_calls,
            policy_blocks: state.policy_blocks,
            usage: state.usage.clone(),
            stats: state.stats.clone(),
            calibration: std::mem::take(&mut state.records),
            state: (status == RunStatus::NeedsInput).then_some(state),
        }
    }

    /// Put a question; time spent waiting is the person's, not the agent's.
    pub(crate) async fn ask(&self, state: &mut RunState, clock: &mut Clock, q: Question) -> Answer {
        state.questions += 1;
        self.emit(AgentEvent::Asked { step: q.step, question: q.text.clone(), reason: q.reason.as_str().into() });
        let t = Instant::now();
        let a = self.asker.ask(&q).await;
        clock.ask += t.elapsed();
        match &a {
            Answer::Text(t) => {
                state.answers.push(t.clone());
                self.emit(AgentEvent::Answered { step: q.step, answer: Some(t.clone()) });
            }
            Answer::Later => self.emit(AgentEvent::Answered { step: q.step, answer: None }),
            Answer::Unavailable(_) => {}
        }
        a
    }
}

/// The observation of a call that was not run.
pub(crate) fn not_run(c: &deft_llm::ToolCall, words: &str, why: &str) -> Obs {
    let r = observe::note(words, "not run", why);
    Obs { call_id: c.id.clone(), name: c.name.clone(), full: r.full, brief: r.brief, is_error: true, image: None }
}
