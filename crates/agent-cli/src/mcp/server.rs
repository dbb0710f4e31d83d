//! The MCP handler: `tools/list` from the toolbelt's specs, `tools/call` through one
//! toolbelt shared for the server's lifetime, actions one at a time.

use std::sync::{Arc, Mutex as StdMutex, PoisonError};
use std::time::Duration;

use deft_bus::{Bus, BusConfig};
use deft_toolbelt::{AsParams, BeltSettings, Plan, Request, ToolCall, ToolError, ToolName, ToolOutput, Toolbelt};
use deft_toolbelt::{DesktopConfig, ExecutorConfig, VerifyEvent};
use deft_types::ActionKind;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, model::Tool};
use serde_json::Value;
use tokio::sync::Mutex;

use super::progress::{Follow, Progress};
use super::task::{self, TaskCall, Tasks};
use super::{catalog, flow, results};
use crate::config::Config;
use crate::exit::CliError;
use crate::trace::Trace;

/// The toolbelt the server keeps.
pub type Belt = Toolbelt;

const INSTRUCTIONS: &str = "Deft: desktop actions that check their own effect. Call `read` (or `find`) to see \
the UI as an outline with refs (e12), then act on a ref or on visible text with click, type, set_value, key, \
scroll or action. Every action is verified and retried through a fallback chain when it had no effect; a \
failed one is an error result that says what was expected, what was observed, what blocks it and what to do \
next, with `changes`: what changed in the window, with refs for the next call. A ref from an older outline \
whose element is gone fails with `stale_ref`: read again. Actions run one at a time.";

/// What the server keeps for its lifetime.
pub struct State {
    /// How to connect the executor (cloned for each attempt).
    exec_config: ExecutorConfig,
    /// Fields masked like passwords (`mask_fields`).
    mask_fields: Vec<String>,
    bus: Bus<VerifyEvent>,
    /// The toolbelt, once connected.
    belt: Mutex<Option<Arc<Belt>>>,
    /// Held by the action in flight.
    actions: Arc<Mutex<()>>,
    /// Set when stdin reached its end: the client is gone.
    gone: tokio::sync::watch::Sender<bool>,
    trace: StdMutex<Option<Trace>>,
    /// `run_task`'s model, settings and paused runs.
    tasks: Tasks,
}

impl State {
    /// The settings the server runs with: the CLI's configuration (policies, timeouts,
    /// trace), verification on.
    pub fn new(config: &Config) -> Result<Arc<State>, CliError> {
        let bus = Bus::new(BusConfig::default());
        // An agent calling a tool wants to know whether it worked.
        let mut exec_config = crate::act::executor_config(config, true, Some(bus.clone()))?;
        let trace = match &config.trace_dir {
            Some(dir) => Some(Trace::start_with_frames(&bus, &dir.value)?),
            None => None,
        };
        exec_config.frames = trace.as_ref().and_then(Trace::frame_sink);
        Ok(Arc::new(State {
            exec_config,
            mask_fields: config.mask_fields(),
            bus,
            belt: Mutex::new(None),
            actions: Arc::new(Mutex::new(())),
            gone: tokio::sync::watch::Sender::new(false),
            trace: StdMutex::new(trace),
            tasks: Tasks::new(config),
        }))
    }

    /// The toolbelt, connected on first use; a failed connection is retried by the next call.
    async fn belt(&self) -> Result<Arc<Belt>, ToolError> {
        let mut slot = self.belt.lock().await;
        if let Some(b) = slot.as_ref() {
            return Ok(Arc::clone(b));
        }
        let belt = Arc::new(
            Toolbelt::connect(
                self.exec_config.clone(),
                DesktopConfig::default(),
                BeltSettings::for_models()
                    .with_secrets(crate::secrets::from_env())
                    .with_mask_fields(self.mask_fields.clone()),
            )
            .await?,
        );
        *slot = Some(Arc::clone(&belt));
        Ok(belt)
    }

    /// The client is gone (stdin closed): calls in flight are cancelled.
    pub fn client_gone(&self) {
        self.gone.send_replace(true);
    }

    /// Carry out one call; every failure is a tool result. `cancelled` completes when the
    /// client cancels the request; the call is cancelled too when the client is gone.
    pub async fn call(
        &self,
        call: ToolCall,
        cancelled: impl Future<Output = ()>,
        progress: Option<Arc<Progress>>,
    ) -> CallToolResult {
        let cancelled = self.cancellation(cancelled);
        tokio::pin!(cancelled);
        let name = call.name();
        if name == ToolName::Doctor {
            // Without the toolbelt: the diagnosis is what a client asks for when the
            // toolbelt cannot connect. It only reads; dropping it on cancel is safe.
            let desktop = DesktopConfig { secret_fields: self.mask_fields.clone(), ..DesktopConfig::default() };
            return tokio::select! {
                d = deft_toolbelt::observe::doctor(&desktop) => results::of_output(&ToolOutput::Doctor(d)),
                () = &mut cancelled => results::cancelled(),
            };
        }
        let belt = match self.belt().await {
            Ok(b) => b,
            Err(e) => return results::of_error(&e),
        };
        // Usage errors and unknown refs are reported before anything is queued or sent.
        let plan = match belt.plan(&call, &AsParams) {
            Ok(p) => p,
            Err(e) => return results::of_error(&e),
        };
        let follow = follow(&belt, &plan);
        let outcome = if name.acts() {
            // Queued behind the action in flight; a call cancelled while queued never starts.
            let guard = tokio::select! {
                g = Arc::clone(&self.actions).lock_owned() => g,
                () = &mut cancelled => return results::cancelled(),
            };
            let bus = self.bus.clone();
            // Spawned, so that an action runs to completion even if this future is dropped
            // (see the module docs: a half-sent input must not be abandoned).
            let task = tokio::spawn(async move {
                let _forwarding = progress.map(|p| p.forward(&bus, follow));
                let out = belt.run(plan).await;
                drop(guard);
                out
            });
            task.await
        } else {
            let bus = self.bus.clone();
            let blocking = matches!(name, ToolName::Screenshot | ToolName::Ocr);
            let handle = tokio::runtime::Handle::current();
            let mut task = tokio::spawn(async move {
                let _forwarding = progress.map(|p| p.forward(&bus, follow));
                if blocking {
                    // Capture and OCR are synchronous CPU work: off the async workers.
                    let work = tokio::task::spawn_blocking(move || handle.block_on(belt.run(plan)));
                    work.await
                        .unwrap_or_else(|e| Err(ToolError::new(deft_toolbelt::ToolErrorKind::Failed, e.to_string())))
                } else {
                    belt.run(plan).await
                }
            });
            tokio::select! {
                r = &mut task => r,
                () = &mut cancelled => {
                    // Observations only read: dropping them is safe.
                    task.abort();
                    return results::cancelled();
                }
            }
        };
        match outcome {
            Ok(Ok(out)) => results::of_output(&out),
            Ok(Err(e)) => results::of_error(&e),
            Err(join) => results::internal(&join.to_string()),
        }
    }

    /// `run_task`: the agent, holding the action lock for the whole run.
    pub async fn run_task(
        &self,
        call: TaskCall,
        context: &RequestContext<RoleServer>,
        progress: Option<Arc<Progress>>,
    ) -> CallToolResponse {
        let cancelled = self.cancellation(context.ct.clone().cancelled_owned());
        tokio::pin!(cancelled);
        let belt = match self.belt().await {
            Ok(b) => b,
            Err(e) => return results::of_error(&e).into(),
        };
        let guard = tokio::select! {
            g = Arc::clone(&self.actions).lock_owned() => g,
            () = &mut cancelled => return results::cancelled().into(),
        };
        self.tasks.call(belt, guard, call, context, cancelled, progress).await
    }

    /// `run_flow`: the flow checked before anything is queued, then its steps one after
    /// another, holding the action lock for the whole flow. A cancel stops the flow after
    /// the step in flight (never inside one).
    pub async fn run_flow(
        &self,
        args: Value,
        cancelled: impl Future<Output = ()>,
        progress: Option<Arc<Progress>>,
    ) -> CallToolResult {
        let (flow, from) = match flow::load(args) {
            Ok(f) => f,
            Err(e) => return results::of_error(&e),
        };
        let cancelled = self.cancellation(cancelled);
        tokio::pin!(cancelled);
        let belt = match self.belt().await {
            Ok(b) => b,
            Err(e) => return results::of_error(&e),
        };
        let guard = tokio::select! {
            g = Arc::clone(&self.actions).lock_owned() => g,
            () = &mut cancelled => return results::cancelled(),
        };
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let mut task = tokio::spawn(async move {
            let total = flow.steps.len();
            let mut report = belt
                .run_flow_from(&flow, from, |step| {
                    if let Some(p) = &progress {
                        let (p, m) =
                            (Arc::clone(p), format!("step {} of {total} {}: {:?}", step.step, step.tool, step.status));
                        tokio::spawn(async move { p.say(m).await });
                    }
                    match stopped.load(std::sync::atomic::Ordering::Relaxed) {
                        true => std::ops::ControlFlow::Break(()),
                        false => std::ops::ControlFlow::Continue(()),
                    }
                })
                .await;
            drop(guard);
            report.note_unasked(&flow, flow::UNASKED);
            report
        });
        let report = tokio::select! {
            r = &mut task => r,
            () = &mut cancelled => {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                task.await
            }
        };
        match report {
            Ok(r) => flow::result(&r),
            Err(join) => results::internal(&join.to_string()),
        }
    }

    /// Completes when the request is cancelled or the client is gone.
    fn cancellation(&self, cancelled: impl Future<Output = ()>) -> impl Future<Output = ()> {
        let mut gone = self.gone.subscribe();
        async move {
            tokio::select! {
                () = cancelled => {}
                _ = gone.wait_for(|g| *g) => {}
            }
        }
    }

    /// Wait (at most `limit`) for the action in flight to finish. False if it did not.
    pub async fn drain(&self, limit: Duration) -> bool {
        tokio::time::timeout(limit, self.actions.lock()).await.is_ok()
    }

    /// Before the server ends: the app may still be handling the last keys sent to it, and
    /// its connection must not go away under it (`deft_toolbelt::Executor::settle`).
    pub async fn settle(&self) {
        let belt = self.belt.lock().await.clone();
        if let Some(b) = belt {
            b.executor().settle().await;
        }
    }

    /// Stop the trace, if one is being recorded.
    pub fn finish(&self) {
        if let Some(t) = self.trace.lock().unwrap_or_else(PoisonError::into_inner).take() {
            t.finish();
        }
    }
}

/// Which bus operations are the call's, for its progress.
fn follow(belt: &Belt, plan: &Plan) -> Follow {
    match &plan.request {
        Request::Act { .. } => Follow::Action,
        Request::Wait { condition, timeout_ms } => Follow::Wait {
            condition: Box::new(condition.clone()),
            timeout_ms: timeout_ms.unwrap_or_else(|| belt.executor().policy(ActionKind::Wait).window_ms),
        },
        _ => Follow::Nothing,
    }
}

/// The handler rmcp serves.
#[derive(Clone)]
pub struct DeftServer {
    state: Arc<State>,
    tools: Arc<Vec<Tool>>,
}

impl DeftServer {
    /// A handler over `state`.
    pub fn new(state: Arc<State>) -> DeftServer {
        DeftServer { state, tools: Arc::new(catalog::tools()) }
    }
}

impl ServerHandler for DeftServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("deft", env!("CARGO_PKG_VERSION"))
                    .with_title("Deft: desktop actions that check their own effect"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == task::NAME {
            let input = request.request_state.map(|handle| (request.input_responses, handle));
            let call = TaskCall { args: request.arguments.map_or(Value::Null, Value::Object), input };
            return Ok(self.state.run_task(call, &context, Progress::of(&context)).await);
        }
        if request.name == flow::NAME {
            let args = request.arguments.map_or(Value::Null, Value::Object);
            let cancelled = context.ct.clone().cancelled_owned();
            return Ok(self.state.run_flow(args, cancelled, Progress::of(&context)).await.into());
        }
        // An unknown tool is the one protocol error (the request cannot be routed); bad
        // arguments are tool errors the model reads and corrects.
        if ToolName::parse(&request.name).is_none() {
            let names: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).chain([flow::NAME, task::NAME]).collect();
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{}`; the tools are: {}", request.name, names.join(", ")),
                None,
            ));
        }
        let args = request.arguments.map_or(Value::Null, Value::Object);
        let result = match ToolCall::parse(&request.name, args) {
            Ok(call) => self.state.call(call, context.ct.clone().cancelled_owned(), Progress::of(&context)).await,
            Err(e) => results::of_error(&e),
        };
        Ok(result.into())
    }
}
