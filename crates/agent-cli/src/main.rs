//! `agent-cli`: Deft's front end, for people on a terminal and for other agents.
//!
//! The key design decision: **the CLI decides nothing about actions.** It reads argv,
//! the config file and the environment (the only Deft crate that does), turns them into a
//! `deft_types::Action` and an `ExecutorConfig`, and hands both to deft-verify's executor;
//! resolving, acting, verifying and retrying all happen there. What the CLI owns is the
//! contract at the edge: clear usage errors before anything touches the desktop, the
//! outcome as JSON/YAML or a short human summary, and documented exit codes.
//!
//! Modules: `cli` (clap), `config` (defaults < file < env < flags), `selector` and
//! `expect` (target and condition syntax), `actions` (verb arguments to actions), `act`
//! (the executor session), `observe` and `screen` (read, find, screenshot, ocr), `output`,
//! `exit`, `trace`, `spinner`, `desktop` (accessibility connection and error mapping).

mod act;
mod actions;
mod app;
mod cli;
mod config;
mod desktop;
mod exit;
mod expect;
mod observe;
mod output;
mod screen;
mod selector;
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
