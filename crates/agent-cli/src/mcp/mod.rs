//! `agent-cli mcp`: the toolbelt as an MCP server on stdio, for other agents.
//!
//! The key decision: **the server is a face, like the verbs.** Its tools are
//! deft-toolbelt's [`deft_toolbelt::specs`] as they are (names, descriptions, input
//! schemas, annotations), a call is `ToolCall::parse` then `Toolbelt::call`, and what this
//! module adds is only the MCP edge: results as content blocks (a short text, the
//! structured result, a PNG), progress notifications, cancellation, and a process that
//! never writes anything but the protocol on stdout and exits cleanly when its client goes.
//!
//! Decisions a client can rely on:
//!
//! - **One toolbelt for the server's lifetime**: one executor, one accessibility
//!   connection, one table of refs, connected on the first call that needs it (so `tools/list`
//!   works without a desktop) and kept; a failed connection is a tool error and the next
//!   call tries again.
//! - **Actions are serialized, observations are not.** Two inputs at once on one desktop
//!   would interleave their clicks and keystrokes and each would see the other's effect,
//!   so actions queue on one lock; `read`, `find`, `screenshot`, `ocr` and `wait_for` send
//!   no input and run alongside.
//! - **Cancellation**: a cancelled observation or wait is dropped at once (it only reads).
//!   An action that has started is never dropped: its input may be half sent (the press in
//!   deft-verify's `press.rs` holds the mouse button down while it watches for the app's
//!   `armed` state), so it runs to completion, bounded by its retry policy, and its result
//!   is discarded. An action still queued behind another is dropped before it starts.
//! - **Shutdown**: stdin closing (the client exited or died), SIGTERM or SIGINT stop the
//!   server; an action in flight is let finish first (bounded), then the process exits.
//! - **Verification is on by default** (`BeltSettings::for_models`); a call's `verify`,
//!   `expect`, `timeout_ms` and `max_retries` apply to that call.
//!
//! Modules: `server` (the handler: listing and calling), `catalog` (specs to MCP tools and
//! their output schemas), `results` (outputs and errors to tool results), `progress`
//! (executor events and wait ticks to progress notifications), `flow` (`run_flow`: a flow
//! file replayed), `task` (`run_task`: the agent as one tool, its questions through
//! elicitation).

mod catalog;
mod flow;
mod progress;
mod results;
mod server;
mod task;

use std::path::PathBuf;
use std::time::Duration;

use rmcp::ServiceExt;

use crate::config::Config;
use crate::exit::{CliError, Exit};

/// `mcp --help`.
pub const MCP_ABOUT: &str = "\
Serve Deft's tools (click, type, set_value, action, key, scroll, wait_for, read, find,
screenshot, ocr), run_flow (a flow file replayed, every step verified: `agent-cli flow
--help`) and run_task (the agent, with the model `run` uses; its questions go to
the person through the client's elicitation) to an MCP client over stdin/stdout. Actions
are verified by default and run one at a time; a failed one is a tool result with isError
and the outcome. stdout carries only the protocol; messages go to stderr. The server
exits when stdin closes.

Client configuration (Claude Desktop, Claude Code, Cursor): command \"agent-cli\", args
[\"mcp\"], and the DISPLAY of the desktop to act on in its env (the session bus address
too, when the client does not pass DBUS_SESSION_BUS_ADDRESS on).";

/// `mcp`'s flags.
#[derive(clap::Args, Debug, Clone)]
pub struct McpArgs {
    /// Record every executor event to a JSON Lines file in this directory
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
    /// A retry policy file merged over the built-in policies
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
}

/// How long shutdown waits for an action in flight (the longest policy bound is well
/// under this; a hung backend must not keep the process alive forever).
const DRAIN: Duration = Duration::from_secs(30);

/// Serve MCP on stdin/stdout until the client goes away.
pub fn serve(config: &Config) -> Result<Exit, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // The agent's loop (`run_task`) polls deep futures on a worker; a debug build's
        // frames overflow the default 2 MiB there (measured: `run_task` aborted the process).
        .thread_stack_size(16 * 1024 * 1024)
        .enable_all()
        .build()
        .map_err(|e| CliError::environment(format!("cannot start the async runtime: {e}")))?;
    let result = runtime.block_on(run(config));
    // A read of stdin in flight cannot be cancelled; do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(200));
    result
}

async fn run(config: &Config) -> Result<Exit, CliError> {
    let state = server::State::new(config)?;
    let handler = server::DeftServer::new(state.clone());
    let stdin = WatchEof { inner: tokio::io::stdin(), state: state.clone() };
    let service = handler
        .serve((stdin, tokio::io::stdout()))
        .await
        .map_err(|e| CliError::environment(format!("the MCP session did not start: {e}")))?;
    eprintln!("agent-cli mcp: serving Deft's tools on stdio");
    let cancel = service.cancellation_token();
    let stop = tokio::spawn(async move {
        let why = stop_signal().await;
        eprintln!("agent-cli mcp: {why}; stopping");
        cancel.cancel();
    });
    let reason = service.waiting().await;
    stop.abort();
    match &reason {
        Ok(r) => eprintln!("agent-cli mcp: session ended ({r:?})"),
        Err(e) => eprintln!("agent-cli mcp: session ended with an error: {e}"),
    }
    if !state.drain(DRAIN).await {
        eprintln!("agent-cli mcp: an action was still running after {} s; exiting anyway", DRAIN.as_secs());
    }
    state.settle().await;
    state.finish();
    Ok(Exit::Ok)
}

/// stdin, telling the state when it reaches its end: the client is gone, so waits and
/// observations in flight stop at once instead of running on for nobody (rmcp itself
/// gives in-flight handlers five seconds before it cancels them).
struct WatchEof {
    inner: tokio::io::Stdin,
    state: std::sync::Arc<server::State>,
}

impl tokio::io::AsyncRead for WatchEof {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        let eof = match &poll {
            std::task::Poll::Ready(Ok(())) => buf.filled().len() == before && buf.remaining() > 0,
            std::task::Poll::Ready(Err(_)) => true,
            std::task::Poll::Pending => false,
        };
        if eof {
            self.state.client_gone();
        }
        poll
    }
}

/// SIGTERM or SIGINT, in words.
pub(crate) async fn stop_signal() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
        // Without handlers the default actions stay in force; wait for stdin to close.
        std::future::pending::<()>().await;
        return "";
    };
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    }
}
