//! `worker`, `submit` and `fleet`: this desktop as one of many, behind one queue
//! (deft-fleet). A task is a flow; a worker runs it verified, step by step, recording each
//! in the task's record so a task delivered again after its worker died never repeats an
//! effect. With no `--fleet`, `submit` runs the task here through the in-process queue (the
//! same records and rules, no server).

mod goal;
mod runner;
mod show;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};
use deft_fleet::{
    MemoryQueue, NatsOptions, NatsQueue, Needs, Offer, Queue, QueueConfig, RunEnd, Served, SubmitError, Task,
    TaskRecord, Worker, lease,
};
use deft_toolbelt::DesktopConfig;

use crate::act::Session;
use crate::config::Config;
use crate::exit::{CliError, Exit};
use crate::output::Out;
use goal::{AgentParts, GoalTask};
use runner::{FlowTask, TaskRunner};
pub use show::fleet;
use show::show_record;

/// What every fleet verb's help says first: the fleet in one paragraph, and its queue.
macro_rules! fleet_intro {
    () => {
        "\
Many desktops, one queue. A worker on each desktop advertises its session, its running
applications and whether its agent has a model, and takes its pool's tasks: a flow (steps
checked one by one) or a goal for its agent. A worker that dies mid-task is replaced: the
task is delivered again, and the next worker goes on from the task's record (steps done,
the one in flight looked for before anything is sent again), so no effect happens twice.

The queue is NATS JetStream (`nats-server -js`); sign in with --creds FILE, an nkey seed
in DEFT_FLEET_NKEY, or user:password@ in the URL."
    };
}

/// `worker --help`.
pub const WORKER_ABOUT: &str = concat!(
    fleet_intro!(),
    "\n\n\
`agent-cli worker --pool NAME --fleet nats://HOST:4222` takes the pool's tasks on this
desktop, one at a time, until Ctrl+C (which stops after the task in hand). With a model
configured here ([model] in the config file, or DEFT_MODEL_PROVIDER), it takes goal tasks
too. With --trace DIR, each run's trace and frames are also kept with its task's record."
);

/// `submit --help`.
pub const SUBMIT_ABOUT: &str = concat!(
    fleet_intro!(),
    "\n\n\
`agent-cli submit FLOW.yaml --pool NAME --fleet ...` queues a flow, `submit --goal TEXT`
a goal for a worker's agent; either is refused at once when no live worker of the pool can
run it (`--needs app=NAME`, `--needs session=x11`; a goal needs a worker with a model).
--wait waits for its result (--timeout S gives up waiting; the task goes on). Without
--fleet (or DEFT_FLEET), the task runs on this desktop through an in-process queue with the
same rules."
);

/// `fleet --help`.
pub const FLEET_SHOW_ABOUT: &str = concat!(
    fleet_intro!(),
    "\n\n\
`agent-cli fleet --fleet ...` lists the live workers and every task; `fleet result TASK`
shows one task's record (its attempts, the steps done, its result; --trace DIR writes its
runs' traces and frames for `agent-cli report DIR`); `fleet cancel TASK` stops a task
(queued: it never runs; running: after the step in hand)."
);

/// Where the fleet is.
#[derive(Args, Debug, Clone, Default)]
pub struct FleetArgs {
    /// The fleet's NATS server (nats://HOST:4222) [env: DEFT_FLEET]
    #[arg(long, value_name = "URL", global = true)]
    pub fleet: Option<String>,
    /// A NATS credentials file (user JWT and nkey seed) [env: DEFT_FLEET_CREDS]
    #[arg(long, value_name = "FILE", global = true)]
    pub creds: Option<PathBuf>,
    /// How long a worker may stop answering before its task goes to another; fixed when a
    /// pool's consumer is first made on the server [default: 30]
    #[arg(long, value_name = "SECONDS", global = true, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub ack_wait: Option<u64>,
}

/// `worker`.
#[derive(Args, Debug, Clone)]
pub struct WorkerArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub fleet: FleetArgs,
    /// The pool whose tasks it takes
    #[arg(long, value_name = "NAME")]
    pub pool: String,
    /// Its name in the fleet [default: the host name and process id]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Run at most this many tasks, then stop (default: until Ctrl+C)
    #[arg(long, value_name = "N")]
    pub tasks: Option<u32>,
    /// Record every bus event to DIR/trace-<time>.jsonl (`agent-cli report DIR` renders it)
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
}

/// `submit`.
#[derive(Args, Debug, Clone)]
pub struct SubmitArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub fleet: FleetArgs,
    /// The flow file (YAML) the task runs
    #[arg(value_name = "FLOW.yaml", required_unless_present = "goal")]
    pub file: Option<PathBuf>,
    /// Instead of a flow: a goal the worker's own agent pursues with its model (only
    /// workers with a model configured take it; what it did is recorded action by action)
    #[arg(long, value_name = "TEXT", conflicts_with = "file")]
    pub goal: Option<String>,
    /// With --goal: the application the agent is shown at the start (its windows'
    /// outline), by the name `agent-cli doctor` lists [default: the whole desktop]
    #[arg(long, value_name = "NAME", requires = "goal")]
    pub app: Option<String>,
    /// A variable's value: --var customer=John
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = crate::flow::parse_var)]
    pub vars: Vec<(String, String)>,
    /// The pool to queue it in
    #[arg(long, value_name = "NAME", default_value = "default")]
    pub pool: String,
    /// What the desktop must offer: app=NAME (running there, by the name `agent-cli doctor`
    /// lists), session=x11|wayland|wayland/mutter...
    #[arg(long = "needs", value_name = "KEY=VALUE")]
    pub needs: Vec<String>,
    /// The task's id [default: one made from the time]
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// How many times it may be started (a worker that dies is one start)
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub max_attempts: u32,
    /// Wait for the result and exit with its outcome (always so without --fleet)
    #[arg(long)]
    pub wait: bool,
    /// With --wait: give up waiting after this many seconds (exit 6, the task left as it
    /// is: `agent-cli fleet result TASK` later, `agent-cli fleet cancel TASK` to stop it)
    #[arg(long, value_name = "SECONDS", requires = "wait", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
    /// The task's action policy, checked here and enforced by the worker before each step
    /// (with any of these, the built-in denials and confirmation words hold too: a step that
    /// would need a person's confirmation is refused)
    #[command(flatten)]
    pub policy: crate::cli::PolicyArgs,
    /// A built-in confirmation word lifted for this task (repeatable): send, delete, pay, ...
    #[arg(long, value_name = "WORD")]
    pub no_confirm: Vec<String>,
    /// When a worker dies and another desktop takes the task with none of the done steps'
    /// effects visible there, do the flow again from its first step there (for flows whose
    /// effects stay on the desktop that did them); without it the task fails, saying why
    #[arg(long)]
    pub redo_elsewhere: bool,
}

/// `fleet`.
#[derive(Args, Debug, Clone)]
pub struct FleetShowArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub fleet: FleetArgs,
    /// Show one task's whole record (`fleet result TASK`), or everything (no verb)
    #[command(subcommand)]
    pub verb: Option<FleetVerb>,
}

/// `fleet result`, `fleet cancel`.
#[derive(Subcommand, Debug, Clone)]
pub enum FleetVerb {
    /// One task's record: its attempts, the steps done, its result
    Result {
        /// The task's id
        task: String,
        /// Also write the traces its workers kept into DIR, one file per attempt
        /// (`agent-cli report DIR` renders them)
        #[arg(long, value_name = "DIR")]
        trace: Option<PathBuf>,
    },
    /// Cancel a task: queued, it never runs; running, its worker stops after the step in
    /// hand (a step is never cut in half)
    Cancel {
        /// The task's id
        task: String,
        /// Why, for its record
        #[arg(long, value_name = "TEXT", default_value = "")]
        why: String,
    },
}

impl FleetArgs {
    fn url(&self) -> Option<String> {
        self.fleet.clone().or_else(|| std::env::var("DEFT_FLEET").ok().filter(|u| !u.is_empty()))
    }

    async fn connect(&self) -> Result<NatsQueue, CliError> {
        let Some(url) = self.url() else {
            return Err(CliError::usage("no fleet given: --fleet nats://HOST:4222 (or DEFT_FLEET)"));
        };
        let mut options = NatsOptions::new(&url);
        options.credentials = self.creds.clone().or_else(|| std::env::var_os("DEFT_FLEET_CREDS").map(PathBuf::from));
        // A seed is a secret: from the environment only, never a flag (flags show in `ps`).
        options.nkey = std::env::var("DEFT_FLEET_NKEY").ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        if let Some(s) = self.ack_wait {
            options.config.ack_wait = Duration::from_secs(s.max(1));
        }
        NatsQueue::connect(&options).await.map_err(|e| match e {
            deft_fleet::FleetError::Invalid(why) => CliError::usage(why),
            e => CliError::environment(e.to_string()),
        })
    }
}

/// `worker`: take the pool's tasks until stopped.
pub fn worker(out: &Out, config: &Config, a: &WorkerArgs) -> Result<Exit, CliError> {
    crate::app::runtime()?.block_on(async {
        let queue = a.fleet.connect().await?;
        let agent = agent_parts(config)?;
        // Its agent reads the desktop as a model does (refs in outlines); flows run the same.
        let session = Session::connect_with_bus(config, agent.is_some()).await?;
        let name = a.name.clone().unwrap_or_else(default_name);
        let model = agent.as_ref().map(|p| deft_llm::Model::describe(&p.model).to_string());
        let worker = Worker { name: name.clone(), pool: a.pool.clone(), offer: offer(model.as_deref()).await };
        eprintln!(
            "worker {name}: taking tasks of pool {:?} ({}; running {}); Ctrl+C stops after the task in hand",
            a.pool,
            worker.offer.session,
            worker.offer.apps.join(", ")
        );
        let frames = config.trace_dir.as_ref().map(|d| d.value.as_path());
        let served = serve(out, &queue, &session, frames, agent.as_ref(), worker, a.tasks, false).await;
        session.finish();
        served
    })
}

#[allow(clippy::too_many_arguments)]
async fn serve(
    out: &Out,
    queue: &dyn Queue,
    session: &Session,
    frames_dir: Option<&std::path::Path>,
    agent: Option<&AgentParts>,
    mut worker: Worker,
    limit: Option<u32>,
    quiet: bool,
) -> Result<Exit, CliError> {
    let model = worker.offer.model.clone();
    let runner = TaskRunner {
        belt: session.belt(),
        agent,
        bus: session.bus(),
        frames_dir: frames_dir.map(std::path::Path::to_path_buf),
        desktop: worker.offer.desktop.clone(),
        each: Box::new(|task, step| {
            eprintln!("{}: step {} {} {}: {:?}", task.id, step.step, step.tool, step.asked, step.status)
        }),
    };
    // Ctrl+C ends the worker between tasks, never inside one: a task dropped mid-step
    // could leave half its text typed, for the next attempt to type again.
    let stopping = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let stopping = std::sync::Arc::clone(&stopping);
        tokio::spawn(async move {
            crate::mcp::stop_signal().await;
            eprintln!("worker: stopping after the task in hand");
            stopping.store(true, std::sync::atomic::Ordering::SeqCst);
        })
    };
    let mut ran = 0;
    let mut last = Exit::Ok;
    let mut offered = std::time::Instant::now();
    while limit.is_none_or(|n| ran < n) && !stopping.load(std::sync::atomic::Ordering::SeqCst) {
        // What runs here changes: looked at anew now and then, not at every poll (reading
        // every application's tree costs the desktop the worker serves).
        if offered.elapsed() >= OFFER_EVERY {
            worker.offer = offer(model.as_deref()).await;
            offered = std::time::Instant::now();
        }
        let served = match worker.serve_one(queue, &runner, Duration::from_secs(5)).await {
            Ok(s) => s,
            // The queue's server away a moment is no reason to stop serving.
            Err(e) => {
                eprintln!("worker: {e}; trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let (id, said) = match &served {
            Served::Idle => continue,
            Served::Ended(id) => (id, "had ended already".to_string()),
            Served::Refused(id) => {
                // It may have been judged on an old look: look again.
                worker.offer = offer(model.as_deref()).await;
                offered = std::time::Instant::now();
                (id, "needs what this desktop lacks: handed back".to_string())
            }
            Served::Exhausted(id) => {
                (id, format!("failed for good before it ran (`agent-cli fleet result {id}` says why)"))
            }
            Served::Ran(id, end) => {
                ran += 1;
                // A task may have started or closed applications.
                worker.offer = offer(model.as_deref()).await;
                offered = std::time::Instant::now();
                last = exit_of_end(end);
                (id, end_words(end))
            }
        };
        if !quiet {
            let _ = out.print(&serde_json::json!({ "task": id, "worker": worker.name, "said": said }), |st| {
                format!("{} task {id}: {said}\n", st.dim("·"))
            });
        }
    }
    watcher.abort();
    Ok(last)
}

/// How often an idle worker looks again at what its desktop runs.
const OFFER_EVERY: Duration = Duration::from_secs(30);

fn end_words(end: &RunEnd) -> String {
    match end {
        RunEnd::Done { summary, .. } => format!("done: {summary}"),
        RunEnd::Failed { summary, .. } => format!("failed: {summary}"),
        RunEnd::Retry { summary } => format!("handed back: {summary}"),
        RunEnd::Lost => "lost to another worker (this one stopped answering in time)".into(),
        RunEnd::Cancelled { summary } => format!("stopped after the step in hand: {summary}"),
    }
}

fn exit_of_end(end: &RunEnd) -> Exit {
    match end {
        RunEnd::Done { .. } => Exit::Ok,
        _ => Exit::Failed,
    }
}

/// What this desktop offers: its session and the applications on its accessibility bus.
async fn offer(model: Option<&str>) -> Offer {
    let desktop = DesktopConfig::default();
    let diagnosis = deft_toolbelt::observe::doctor(&desktop).await;
    let mut apps: Vec<String> = diagnosis.applications.into_iter().filter(|a| a.readable).map(|a| a.name).collect();
    apps.sort();
    apps.dedup();
    let session = deft_toolbelt::observe::session_kind(&desktop);
    let display = std::env::var("DISPLAY")
        .ok()
        .filter(|d| !d.is_empty() && session == "x11")
        .or_else(|| std::env::var("WAYLAND_DISPLAY").ok())
        .unwrap_or_default();
    Offer {
        desktop: format!("{}/{display}", host()),
        session,
        apps,
        screen: None,
        locale: std::env::var("LANG").unwrap_or_default(),
        model: model.map(str::to_string),
    }
}

/// The worker's agent, when a model is configured where it runs (goal tasks go only to
/// such workers); a model configured wrongly is an error, none is no agent.
fn agent_parts(config: &Config) -> Result<Option<AgentParts>, CliError> {
    let env = |k: &str| std::env::var(k).ok();
    let configured = config.model.is_some() || env("DEFT_MODEL_PROVIDER").is_some_and(|p| !p.trim().is_empty());
    if !configured {
        return Ok(None);
    }
    let provider = crate::run::model_config(config.model.as_ref(), &env)?;
    let model = provider.build().map_err(|e| CliError::usage(e.to_string()))?;
    let agent = config.agent.as_ref().map(|s| s.0.clone()).unwrap_or_default();
    agent.check().map_err(|e| CliError::usage(format!("the agent settings: {e}")))?;
    Ok(Some(AgentParts { model, config: agent }))
}

/// This machine's name, as a queue name may carry it.
pub(super) fn host() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host: String =
        host.trim().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    if host.is_empty() { "desktop".into() } else { host }
}

fn default_name() -> String {
    format!("{}-{}", host(), std::process::id())
}

/// `submit`: queue a flow for a pool (or run it here, with no fleet).
pub fn submit(out: &Out, config: &Config, a: &SubmitArgs) -> Result<Exit, CliError> {
    let mut needs = parse_needs(&a.needs)?;
    let policy = (a.policy.given() || !a.no_confirm.is_empty()).then(|| deft_agent::Policy {
        apps: a.policy.allow_app.clone(),
        windows: a.policy.allow_window.clone(),
        deny_keys: a.policy.deny_key.clone(),
        confirm: a.policy.confirm.clone(),
        no_confirm: a.no_confirm.clone(),
        ..deft_agent::Policy::default()
    });
    if let Some(p) = &policy {
        p.check_lifts().map_err(|e| CliError::usage(format!("--no-confirm: {e}")))?;
    }
    let body = match (&a.file, &a.goal) {
        (Some(file), None) => flow_body(a, file, policy)?,
        (None, Some(goal)) if !goal.trim().is_empty() => {
            // The worker's own model thinks it through: only workers with one can take it.
            needs.agent = true;
            serde_json::to_value(GoalTask {
                kind: "goal".into(),
                goal: goal.trim().to_string(),
                app: a.app.clone(),
                policy,
            })
        }
        _ => {
            return Err(CliError::usage(
                "say what the task is: a flow file (agent-cli submit order.yaml) or a goal for the workers' agent \
                 (agent-cli submit --goal \"Type Ada into Name and press Save\")",
            ));
        }
    }
    .map_err(|e| CliError::usage(e.to_string()))?;
    let id = a.id.clone().unwrap_or_else(|| format!("t{}-{}", lease::now_ms(), std::process::id()));
    let task = Task {
        id: id.clone(),
        pool: a.pool.clone(),
        needs,
        body,
        max_attempts: a.max_attempts.max(1),
        submitted_ms: lease::now_ms(),
    };
    crate::app::runtime()?.block_on(async {
        if a.fleet.url().is_none() {
            return submit_here(out, config, task).await;
        }
        let queue = a.fleet.connect().await?;
        deft_fleet::submit(&queue, task).await.map_err(submit_error)?;
        if !a.wait {
            out.print(&serde_json::json!({ "task": id, "pool": a.pool, "queued": true }), |st| {
                format!("{} task {id} queued in pool {:?}\n", st.green("✓"), a.pool)
            })?;
            return Ok(Exit::Ok);
        }
        let record = wait_for_end(&queue, &id, a.timeout.map(Duration::from_secs)).await?;
        show_record(out, &record)
    })
}

/// A flow task's body: the file checked here, before it is queued (a worker never gets a
/// flow that cannot run), with its variables and policy.
fn flow_body(
    a: &SubmitArgs,
    file: &std::path::Path,
    policy: Option<deft_agent::Policy>,
) -> Result<Result<serde_json::Value, serde_json::Error>, CliError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::usage(format!("cannot read the flow file {}: {e}", file.display())))?;
    let vars: BTreeMap<String, String> = a.vars.iter().cloned().collect();
    let flow = deft_toolbelt::flow::parse_flow(&text, &vars)
        .map_err(|e| CliError::usage(format!("{}: {e}", file.display())))?;
    let body = FlowTask { kind: "flow".into(), flow: text, vars, policy, redo_elsewhere: a.redo_elsewhere };
    if let Some(why) = body.refused(&flow) {
        return Err(CliError::usage(format!("{}: {why}", file.display())));
    }
    Ok(serde_json::to_value(&body))
}

/// With no fleet: the task through an in-process queue and a worker on this desktop.
async fn submit_here(out: &Out, config: &Config, task: Task) -> Result<Exit, CliError> {
    let queue = MemoryQueue::new(QueueConfig::default());
    let agent = agent_parts(config)?;
    let session = Session::connect_for(config, agent.is_some()).await?;
    let model = agent.as_ref().map(|p| deft_llm::Model::describe(&p.model).to_string());
    let worker = Worker { name: "here".into(), pool: task.pool.clone(), offer: offer(model.as_deref()).await };
    queue.advertise(&worker.info(None)).await.map_err(|e| CliError::environment(e.to_string()))?;
    let id = task.id.clone();
    deft_fleet::submit(&queue, task).await.map_err(submit_error)?;
    // Only the record is printed (one document with --json).
    let served = serve(out, &queue, &session, None, agent.as_ref(), worker, Some(1), true).await;
    session.finish();
    served?;
    let record = lease::record(&queue, &id).await.map_err(|e| CliError::environment(e.to_string()))?;
    let record = record.ok_or_else(|| CliError::environment(format!("task {id} has no record")))?;
    show_record(out, &record)
}

fn submit_error(e: SubmitError) -> CliError {
    match e {
        SubmitError::NoMatchingWorker { .. } => CliError::new(Exit::NotFound, e.to_string()),
        SubmitError::Fleet(deft_fleet::FleetError::Exists(_) | deft_fleet::FleetError::Invalid(_)) => {
            CliError::usage(e.to_string())
        }
        SubmitError::Fleet(e) => CliError::environment(e.to_string()),
    }
}

fn parse_needs(needs: &[String]) -> Result<Needs, CliError> {
    let mut out = Needs::default();
    for n in needs {
        match n.split_once('=') {
            Some(("app", v)) if !v.is_empty() => out.apps.push(v.to_string()),
            Some(("session", v)) if !v.is_empty() => out.session = Some(v.to_string()),
            _ => {
                return Err(CliError::usage(format!(
                    "--needs {n:?}: write app=NAME (an application running there) or session=x11|wayland"
                )));
            }
        }
    }
    Ok(out)
}

async fn wait_for_end(queue: &dyn Queue, id: &str, timeout: Option<Duration>) -> Result<TaskRecord, CliError> {
    let since = std::time::Instant::now();
    loop {
        let record = lease::record(queue, id).await.map_err(|e| CliError::environment(e.to_string()))?;
        match record {
            Some(r) if r.state.ended() => return Ok(r),
            Some(r) if timeout.is_some_and(|t| since.elapsed() >= t) => {
                let state = format!("{:?}", r.state).to_lowercase();
                let steps = r.done.len();
                return Err(CliError::new(
                    Exit::TimedOut,
                    format!(
                        "task {id} is still {state} after {}s ({steps} step(s) done, {} attempt(s)); it goes on: \
                         `agent-cli fleet result {id}` shows it later, `agent-cli fleet cancel {id}` stops it",
                        since.elapsed().as_secs(),
                        r.attempts.len()
                    ),
                ));
            }
            Some(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            None => return Err(CliError::new(Exit::NotFound, format!("no task {id:?} in the fleet"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_are_apps_and_a_session() {
        let needs = parse_needs(&["app=gedit".into(), "session=x11".into()]).unwrap();
        assert_eq!((needs.apps, needs.session.as_deref()), (vec!["gedit".to_string()], Some("x11")));
        let e = parse_needs(&["gedit".into()]).unwrap_err();
        assert!(e.message.contains("write app=NAME"), "{}", e.message);
    }
}
