//! Another tool as a campaign driver: actions through its MCP server, kept for the run as
//! an agent keeps its tools, by `tests/peers/peer_call.py` (the official MCP Python SDK),
//! for `cargo xtask bench peers`. The time is the tool's own call (its target lookup
//! excluded), and what it says of the action is kept beside the truth the fixture's log
//! gives.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use crate::Desktop;
use crate::campaign::{CampaignAction, Reported, accessible_name};

/// One tool's client and server, started on its first action.
struct Session {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

/// The running sessions, by tool.
static SESSIONS: Mutex<Option<HashMap<String, Session>>> = Mutex::new(None);

/// Ends every tool's session (its client and server).
pub fn end_sessions() {
    let taken = SESSIONS.lock().unwrap_or_else(PoisonError::into_inner).take();
    for (_, mut s) in taken.into_iter().flatten() {
        drop(s.to);
        let _ = s.child.kill();
        let _ = s.child.wait();
    }
}

fn start(desktop: &Desktop, (tool, server): (&str, &Path), home: &Path) -> std::io::Result<Session> {
    let mut child = desktop
        .command(crate::python())
        .arg(crate::workspace_root().join("tests/peers/peer_call.py"))
        .arg(tool)
        .arg(server)
        .env("PYTHONPATH", crate::system::python_packages_dir())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let (Some(to), Some(from)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        return Err(std::io::Error::other("no pipes to the client"));
    };
    Ok(Session { child, to, from: BufReader::new(from) })
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
    let request = match action {
        CampaignAction::Click { widget } => json!({"pid": pid, "click": accessible_name(widget)}),
        CampaignAction::Type { field, text } => json!({"pid": pid, "type": [accessible_name(field), text]}),
        CampaignAction::Quit => json!({"pid": pid, "key": "alt+F4"}),
        CampaignAction::KeyOpensDialog => json!({"pid": pid, "key": "F2"}),
    };
    let mut sessions = SESSIONS.lock().unwrap_or_else(PoisonError::into_inner);
    let sessions = sessions.get_or_insert_with(HashMap::new);
    if !sessions.contains_key(tool) {
        match start(desktop, (tool, server), home) {
            Ok(s) => {
                sessions.insert(tool.to_string(), s);
            }
            Err(e) => return Reported { observed: format!("could not start {tool}: {e}"), ..Reported::default() },
        }
    }
    let answer = sessions.get_mut(tool).and_then(|s| {
        writeln!(s.to, "{request}").ok()?;
        s.to.flush().ok()?;
        let mut line = String::new();
        s.from.read_line(&mut line).ok().filter(|n| *n > 0)?;
        serde_json::from_str::<Value>(&line).ok()
    });
    let Some(v) = answer else {
        // The client or its server died: the next action starts them again.
        if let Some(mut s) = sessions.remove(tool) {
            let _ = s.child.kill();
            let _ = s.child.wait();
        }
        return Reported { observed: format!("{tool} gave no answer (its server ended)"), ..Reported::default() };
    };
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
