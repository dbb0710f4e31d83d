//! `agent-cli`: Deft's front end, for people and for other agents.
//!
//! The verbs (click, type, set-value, action, key, scroll, wait, read, find, screenshot,
//! ocr) arrive with the verified executor; until then the binary says so plainly instead of
//! pretending to act.

use std::process::ExitCode;

const VERBS: &[&str] =
    &["click", "type", "set-value", "action", "key", "scroll", "wait", "read", "find", "screenshot", "ocr"];

fn main() -> ExitCode {
    let arg = std::env::args().nth(1);
    match arg.as_deref() {
        Some("--version" | "-V") => {
            println!("agent-cli {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        None | Some("--help" | "-h" | "help") => {
            println!("agent-cli {}: the Deft desktop agent\n", env!("CARGO_PKG_VERSION"));
            println!("No verb is available in this build yet. Planned: {}.", VERBS.join(", "));
            ExitCode::SUCCESS
        }
        Some(verb) if VERBS.contains(&verb) => {
            eprintln!("error: `{verb}` is not available in this build yet (it arrives with the verified executor)");
            ExitCode::from(2)
        }
        Some(other) => {
            eprintln!("error: unknown verb `{other}`; planned verbs: {}", VERBS.join(", "));
            ExitCode::from(2)
        }
    }
}
