//! `run_task`: deft-agent's ReAct loop as one MCP tool, on the server's toolbelt.
//!
//! Questions (the model's `ask_user`, a low-confidence action, a confirmation) go to the
//! person through the client, in the way the session's protocol allows:
//!
//! - **2025-11-25 and before**, client with elicitation: an `elicitation/create` request
//!   in the middle of the call; the run goes on with the answer.
//! - **2026-07-28**, which forbids server requests, client with elicitation: the run pauses
//!   and the call returns an input-required result holding the question; the client asks
//!   its person and calls again with the answer, and the run resumes where it paused.
//! - **No elicitation**: the run pauses and the call returns `needs_input` (the question
//!   and a `run_id`); the calling model calls `run_task` again with `run_id` and `answer`.
//!
//! Paused runs are kept in the server's memory for its lifetime (the same toolbelt, so the
//! same refs). A run holds the action lock from start to end, so no other call's input
//! interleaves with its plan. Cancelling it stops it between two tool calls (an action in
//! flight finishes first, see the module docs of `mcp`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex, PoisonError};

use deft_agent::{
    Agent, AgentConfig, AgentEvent, Answer, Asker, BoxFuture, Desktop, Question, RunReport, RunState, RunStatus,
    SavedRef,
};
use deft_llm::ProviderConfig;
use deft_toolbelt::{AsParams, ToolCall, ToolError, ToolErrorKind, ToolOutput};
use rmcp::model::{
    CallToolResponse, CallToolResult, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequests, InputRequiredResult, InputResponses, ProtocolVersion, Tool,
    ToolAnnotations,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::progress::Progress;
use super::results;
use super::server::Belt;
use crate::config::Config;

/// The tool's name.
pub const NAME: &str = "run_task";

/// `run_task`'s parameters.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunTaskParams {
    /// The goal in plain words, e.g. Type "Ada" into Name and press Save.
    #[serde(default)]
    pub goal: Option<String>,
    /// Show the model this application at the start (else the whole desktop).
    #[serde(default)]
    pub app: Option<String>,
    /// Continue a paused run: the run_id its needs_input result gave.
    #[serde(default)]
    pub run_id: Option<String>,
    /// The answer to the paused run's question (with run_id).
    #[serde(default)]
    pub answer: Option<String>,
}

/// The MCP tool.
pub fn tool() -> Tool {
    let schema = match deft_toolbelt::schema_of::<RunTaskParams>() {
        Value::Object(o) => o,
        _ => Default::default(),
    };
    let title = "Run a task";
    Tool::new(
        NAME,
        "Pursue a goal with Deft's agent: it reads the screen, acts through the verified tools step by step and asks \
         the person (through you) when it is unsure; returns how it ended. Needs a model configured for the server.",
        Arc::new(schema),
    )
    .with_title(title)
    .annotate(ToolAnnotations::with_title(title).read_only(false).destructive(true).idempotent(false).open_world(true))
}

/// What `run_task` needs for the server's lifetime.
pub struct Tasks {
    /// The model, or why there is none.
    model: Result<ProviderConfig, String>,
    /// The `[agent]` section.
    agent: AgentConfig,
    /// Paused runs by id.
    paused: StdMutex<HashMap<String, RunState>>,
}

impl Tasks {
    /// From the CLI's configuration: the `[model]` section and `DEFT_MODEL_*`, the
    /// `[agent]` section. A missing model is reported by the first call, not at start.
    pub fn new(config: &Config) -> Tasks {
        let env = |k: &str| std::env::var(k).ok();
        let model = crate::run::model_config(config.model.as_ref(), &env).map_err(|e| e.message);
        let agent = config.agent.as_ref().map(|s| s.0.clone()).unwrap_or_default();
        Tasks { model, agent, paused: StdMutex::new(HashMap::new()) }
    }

    fn take_paused(&self, id: &str) -> Option<RunState> {
        self.paused.lock().unwrap_or_else(PoisonError::into_inner).remove(id)
    }
}

/// How questions reach the person in this call.
#[derive(Clone)]
enum Asking {
    /// An elicitation request now (sessions before 2026-07-28).
    Elicit(Peer<RoleServer>),
    /// Pause; the call returns an input-required result (2026-07-28).
    InputRequired,
    /// Pause; the call returns `needs_input`.
    NeedsInput,
}

impl Asking {
    fn of(context: &RequestContext<RoleServer>) -> Asking {
        let can_elicit = context.client_capabilities().is_some_and(|c| c.elicitation.is_some());
        let modern = context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        match (can_elicit, modern) {
            (false, _) => Asking::NeedsInput,
            (true, true) => Asking::InputRequired,
            (true, false) => Asking::Elicit(context.peer.clone()),
        }
    }
}

impl Asker for Asking {
    fn ask<'a>(&'a self, q: &'a Question) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let Asking::Elicit(peer) = self else { return Answer::Later };
            match peer.create_elicitation(form(q)).await {
                Ok(r) => answer_of(&r),
                Err(e) => Answer::Unavailable(format!("the client could not ask: {e}")),
            }
        })
    }
}

/// The question as a form with one text field, `answer`.
fn form(q: &Question) -> ElicitRequestParams {
    let mut message = q.text.clone();
    if !q.options.is_empty() {
        message.push_str(&format!(" (e.g. {})", q.options.join(", ")));
    }
    let schema = ElicitationSchema::builder()
        .required_string_with("answer", |s| s.title("Answer").description("Your answer to Deft's question"))
        .build()
        // Cannot fail: the one required field is defined.
        .unwrap_or_else(|_| ElicitationSchema::new(Default::default()));
    ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: schema }
}

fn answer_of(r: &ElicitResult) -> Answer {
    match r.action {
        ElicitationAction::Accept => match r.content.as_ref().and_then(|c| c["answer"].as_str()) {
            Some(a) if !a.trim().is_empty() => Answer::Text(a.to_string()),
            _ => Answer::Unavailable("the person accepted without an answer".into()),
        },
        ElicitationAction::Decline => Answer::Text("No. (The person declined to answer.)".into()),
        _ => Answer::Unavailable("the person dismissed the question".into()),
    }
}

/// The desktop the agent acts on: the server's toolbelt, behind a gate that a
/// cancellation closes only between two calls (never during one).
struct Gated {
    belt: Arc<Belt>,
    closed: Arc<Mutex<bool>>,
}

impl Desktop for Gated {
    fn call<'a>(&'a self, call: &'a ToolCall) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let closed = self.closed.lock().await;
            if *closed {
                return Err(ToolError::new(ToolErrorKind::Failed, "the task was cancelled by the client"));
            }
            self.belt.call(call, &AsParams).await
        })
    }

    fn saved_refs(&self) -> Vec<SavedRef> {
        Desktop::saved_refs(self.belt.as_ref())
    }

    fn restore_refs(&self, saved: &[SavedRef]) -> Result<(), String> {
        // A run paused in this session resumes on the same refs.
        let now = Desktop::saved_refs(self.belt.as_ref());
        if now.get(..saved.len()) == Some(saved) { Ok(()) } else { Desktop::restore_refs(self.belt.as_ref(), saved) }
    }
}

/// A call of `run_task`.
pub struct TaskCall {
    /// The arguments.
    pub args: Value,
    /// The input-required round's answers and handle, when this call is one.
    pub input: Option<(Option<InputResponses>, String)>,
}

impl Tasks {
    /// Carry out one call of `run_task` on `belt`, holding the action lock `guard`.
    pub async fn call(
        &self,
        belt: Arc<Belt>,
        guard: tokio::sync::OwnedMutexGuard<()>,
        call: TaskCall,
        context: &RequestContext<RoleServer>,
        cancelled: impl Future<Output = ()>,
        progress: Option<Arc<Progress>>,
    ) -> CallToolResponse {
        let params: RunTaskParams = match serde_json::from_value(call.args) {
            Ok(p) => p,
            Err(e) => return usage(&format!("bad arguments for `run_task`: {e}")).into(),
        };
        let provider = match &self.model {
            Ok(p) => p.clone(),
            Err(why) => return usage(why).into(),
        };
        let model = match provider.build() {
            Ok(m) => m,
            Err(e) => return usage(&e.to_string()).into(),
        };
        let start = match self.start(&params, call.input) {
            Ok(s) => s,
            Err(e) => return e.into(),
        };
        let asking = Asking::of(context);
        let closed = Arc::new(Mutex::new(false));
        let desktop = Gated { belt, closed: Arc::clone(&closed) };
        let config = self.agent.clone();
        let scope = params.app.clone();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let forward = progress.map(|p| {
            tokio::spawn(async move {
                while let Some(m) = rx.recv().await {
                    p.say(m).await;
                }
            })
        });
        let asker = asking.clone();
        let mut task = tokio::spawn(async move {
            let sink = move |e: &AgentEvent| {
                if let Some(m) = step_message(e) {
                    let _ = tx.send(m);
                }
            };
            let agent = Agent {
                model: &model,
                vision: Some(&model),
                desktop: &desktop,
                asker: &asker,
                config: &config,
                scope,
                sink: Some(&sink),
                bus: None,
            };
            let report = match start {
                Start::New(goal, id) => agent.run(&goal, &id).await,
                Start::Resume(state, answer) => agent.resume(*state, &answer, &deft_agent::Tighten::default()).await,
            };
            drop(guard);
            report
        });
        tokio::pin!(cancelled);
        let outcome = tokio::select! {
            r = &mut task => r,
            () = &mut cancelled => {
                // Between two tool calls only: the gate is taken when no call runs.
                *closed.lock().await = true;
                task.abort();
                if let Some(f) = forward { f.abort(); }
                return results::cancelled().into();
            }
        };
        if let Some(f) = forward {
            f.abort();
        }
        match outcome {
            Ok(Ok(report)) => self.finish(report, &asking),
            Ok(Err(e)) => usage(&e.to_string()).into(),
            Err(join) => results::internal(&join.to_string()).into(),
        }
    }

    /// A new run, or a paused one with its answer.
    fn start(
        &self,
        p: &RunTaskParams,
        input: Option<(Option<InputResponses>, String)>,
    ) -> Result<Start, CallToolResult> {
        if let Some((responses, handle)) = input {
            let state = self.take_paused(&handle).ok_or_else(|| usage("no run of this server waits for that input"))?;
            let answer = match responses.as_ref().and_then(|r| r.get("answer")).cloned() {
                Some(v) => match serde_json::from_value::<ElicitResult>(v).map(|r| answer_of(&r)) {
                    Ok(Answer::Text(a)) => a,
                    Ok(Answer::Unavailable(why)) => format!("(No answer: {why}.)"),
                    _ => "(No answer.)".into(),
                },
                None => "(No answer came back.)".into(),
            };
            return Ok(Start::Resume(Box::new(state), answer));
        }
        match (&p.run_id, &p.answer, &p.goal) {
            (Some(id), Some(answer), _) => {
                let state = self.take_paused(id).ok_or_else(|| {
                    usage(&format!("no paused run {id} in this server (runs that finished are not kept)"))
                })?;
                Ok(Start::Resume(Box::new(state), answer.clone()))
            }
            (Some(_), None, _) => Err(usage("`run_id` needs `answer`: the answer to the run's question")),
            (None, Some(_), _) => Err(usage("`answer` needs `run_id`: the run the answer is for")),
            (None, None, Some(goal)) if !goal.trim().is_empty() => Ok(Start::New(goal.clone(), new_run_id())),
            (None, None, _) => Err(usage("`run_task` needs a `goal` (or `run_id` and `answer` to continue a run)")),
        }
    }

    /// The call's result: done, or paused for an answer.
    fn finish(&self, report: RunReport, asking: &Asking) -> CallToolResponse {
        let paused = report.status == RunStatus::NeedsInput;
        if let (true, Some(state), Some(q)) = (paused, report.state.clone(), report.question.clone()) {
            self.paused.lock().unwrap_or_else(PoisonError::into_inner).insert(report.run_id.clone(), state);
            if matches!(asking, Asking::InputRequired) {
                let mut requests = InputRequests::new();
                requests.insert("answer".into(), InputRequest::Elicitation(ElicitRequest::new(form(&q))));
                return InputRequiredResult::new(Some(requests), Some(report.run_id.clone())).into();
            }
        }
        let mut text = format!(
            "{} {} after {} step(s): {}\n",
            match report.status {
                RunStatus::GoalMet => "✓",
                RunStatus::NeedsInput => "?",
                _ => "✗",
            },
            report.status.as_str(),
            report.steps,
            report.summary
        );
        if let (true, Some(q)) = (paused, &report.question) {
            text.push_str(&format!(
                "question for the person: {}\ncontinue with run_task {{\"run_id\": {:?}, \"answer\": \"...\"}}\n",
                q.text, report.run_id
            ));
        }
        let doc = json!({
            "run_id": report.run_id,
            "status": report.status,
            "summary": report.summary,
            "question": report.question,
            "steps": report.steps,
            "model_calls": report.model_calls,
            "questions": report.questions,
            "model": report.model,
        });
        let mut r = CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)]);
        r.structured_content = Some(doc);
        r.is_error = Some(!matches!(report.status, RunStatus::GoalMet | RunStatus::NeedsInput));
        r.into()
    }
}

enum Start {
    New(String, String),
    Resume(Box<RunState>, String),
}

fn usage(message: &str) -> CallToolResult {
    results::of_error(&ToolError::usage(message))
}

fn new_run_id() -> String {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stamp = crate::trace::utc_stamp(std::time::SystemTime::now());
    format!("mcp-{}-{}-{n}", stamp.replace('.', "").trim_end_matches('Z'), std::process::id())
}

/// A progress line for an agent event (`None`: not worth one).
fn step_message(e: &AgentEvent) -> Option<String> {
    match e {
        AgentEvent::Proposed { step, tool, target, .. } => {
            Some(format!("step {step}: {tool}{}", target.as_ref().map(|t| format!(" {t}")).unwrap_or_default()))
        }
        AgentEvent::Observation { step, summary, .. } => Some(format!("step {step}: {summary}")),
        AgentEvent::Asked { step, question, .. } => Some(format!("step {step}: asking: {question}")),
        AgentEvent::PolicyBlocked { step, reason, .. } => Some(format!("step {step}: refused by the policy: {reason}")),
        _ => None,
    }
}
