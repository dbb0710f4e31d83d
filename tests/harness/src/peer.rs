//! Another tool as a campaign driver: one action through its MCP server, by
//! `tests/peers/peer_call.py` (the official MCP Python SDK), for `cargo xtask bench peers`.
//! The time is the tool's own call (its server's start and its target lookup excluded),
//! and what it says of the action is kept beside the truth the fixture's log gives.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::Desktop;
use crate::campaign::{CampaignAction, Reported};

/// The script, in the workspace.
fn script() -> std::path::PathBuf {
    crate::workspace_root().join("tests/peers/peer_call.py")
}

/// Performs `action` on the app of `pid` through `tool` (the script's name for it), whose
/// MCP server is `server`.
pub(crate) fn perform(
    desktop: &Desktop,
    (tool, server): (&str, &Path),
    action: &CampaignAction,
    pid: u32,
    home: &Path,
) -> Reported {
    let mut cmd = desktop.command(crate::python());
    cmd.arg(script()).arg(tool).arg(server).args(["--pid", &pid.to_string()]);
    match action {
        CampaignAction::Click { widget } => cmd.args(["--click", crate::campaign::accessible_name(widget)]),
        CampaignAction::Type { field, text } => cmd.args(["--type", crate::campaign::accessible_name(field), text]),
        CampaignAction::Quit => cmd.args(["--key", "alt+F4"]),
        CampaignAction::KeyOpensDialog => cmd.args(["--key", "F2"]),
    };
    cmd.env("PYTHONPATH", crate::system::python_packages_dir()).env("HOME", home).env("XDG_CONFIG_HOME", home);
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => return Reported { observed: format!("could not run {tool}: {e}"), ..Reported::default() },
    };
    let line = String::from_utf8_lossy(&out.stdout);
    let v: Value = line.lines().rev().find_map(|l| serde_json::from_str(l).ok()).unwrap_or(Value::Null);
    if v.is_null() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Reported { observed: format!("no answer from {tool}: {}", stderr.trim()), ..Reported::default() };
    }
    let ok = v["ok"].as_bool() == Some(true);
    let said = v["said"].as_str().unwrap_or_default().to_string();
    Reported {
        ok,
        exit: Some(if ok { 0 } else { 1 }),
        // A peer's failure is clear when it says what went wrong.
        clear: !ok && !said.is_empty(),
        expected: if ok { String::new() } else { "the action".into() },
        observed: said,
        retried: false,
        seen: v["claim"].as_str().unwrap_or_default().to_string(),
        call_time: v["ms"].as_f64().filter(|ms| *ms > 0.0).map(|ms| Duration::from_secs_f64(ms / 1000.0)),
    }
}
