//! `agent-cli`: Deft's front end, for people on a terminal and for other agents.
//!
//! The key design decision: **the CLI decides nothing about actions.** It reads argv,
//! the config file and the environment (the only Deft crate that does), turns them into a
//! tool call and an `ExecutorConfig`, and hands both to deft-toolbelt, over deft-verify's executor;
//! resolving, acting, verifying and retrying all happen there. What the CLI owns is the
//! contract at the edge: clear usage errors before anything touches the desktop, the
//! outcome as JSON/YAML or a short human summary, and documented exit codes.
//!
//! Modules: `cli` (clap), `config` (defaults < file < env < flags), `calls` (a verb's
//! flags to the toolbelt's tool call), `act` (the toolbelt session for actions and
//! `wait`), `observe` (read, find, screenshot, ocr), `mcp` (the MCP server on stdio),
//! `run` (the agent's face: `run` and `calibrate`), `flow` (flow files replayed), `report` (the HTML report of a trace),
//! `output`, `exit`, `trace`, `spinner`.
//! What a tool means, how a target is resolved and what a condition says are the
//! toolbelt's (deft-toolbelt) and below: this crate only presents them.

mod act;
mod app;
mod calls;
mod cli;
mod config;
mod env_help;
mod exit;
mod fleet;
mod flow;
mod flow_ask;
mod flow_record;
mod flow_repair;
mod flow_trace;
mod mcp;
mod observe;
mod output;
mod report;
mod run;
mod secrets;
mod spinner;
mod trace;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with 0; usage errors to stderr with 2.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    app::run(cli).into()
}
