//! agent-cli's integration tests: they run the built binary. One binary, one module per
//! topic: `args` needs nothing but the binary; `desktop` starts a headless desktop and the
//! fixture app for each test and judges by the app's ground-truth log; `mcp` drives
//! `agent-cli mcp` with the official MCP Python SDK.

mod agent;
mod args;
mod campaign;
mod covering;
mod desktop;
mod faces;
mod fleet;
mod flows;
mod flows_ask;
mod flows_browser;
mod gnome;
mod impress;
mod lists;
mod mcp;
mod mcp_clients;
mod outside;
mod portal;
mod python_api;
mod qmmp;
mod real_apps;
mod redact;
mod report;
mod swing;
mod unseen;
mod wayland;
mod wayland_record;

use std::path::PathBuf;
use std::process::{Command, Output};

/// GNOME Shell headless takes most of a core while it runs (software rendering): a fault
/// campaign beside it would be judged under a load no campaign is measured at. The
/// campaigns hold this for reading (they run beside each other as before), the GNOME Shell
/// tests for writing (alone among them).
pub static GNOME_SHELL_ALONE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Holds [`GNOME_SHELL_ALONE`] for a campaign (a test that failed while holding it leaves
/// it usable).
pub fn beside_campaigns() -> std::sync::RwLockReadGuard<'static, ()> {
    GNOME_SHELL_ALONE.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Holds [`GNOME_SHELL_ALONE`] for a GNOME Shell test.
pub fn apart_from_campaigns() -> std::sync::RwLockWriteGuard<'static, ()> {
    GNOME_SHELL_ALONE.write().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_agent-cli");

/// What a run printed and how it ended.
#[derive(Debug)]
pub struct Run {
    /// The exit status (-1 when killed by a signal).
    pub code: i32,
    /// stdout.
    pub stdout: String,
    /// stderr.
    pub stderr: String,
}

impl Run {
    /// Panic with the whole run unless it exited with `code`.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(self.code, code, "expected exit {code}, got {self:#?}");
        self
    }

    /// stdout as JSON.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:#?}"))
    }
}

/// A new empty directory (unique per call, so parallel tests never share one). All of a
/// run's directories sit under one folder named for this process, kept after the run so a
/// failure can be looked at, and swept by the next run once its process is gone, so test
/// runs do not pile up in the temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    static SWEEP: std::sync::Once = std::sync::Once::new();
    let root = std::env::temp_dir().join("agent-cli-tests");
    SWEEP.call_once(|| sweep_finished_runs(&root));
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = root.join(std::process::id().to_string()).join(format!("{n}-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Remove the folders of earlier runs whose process has ended (Linux: no `/proc/<pid>`;
/// elsewhere nothing is removed, as nothing can tell a finished run from a running one).
fn sweep_finished_runs(root: &std::path::Path) {
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        if pid != std::process::id() && !std::path::Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Isolate a command from the developer's settings: its own XDG config home, no DEFT_*.
pub fn isolate(cmd: &mut Command, config_home: &std::path::Path) {
    for (k, _) in std::env::vars() {
        if k.starts_with("DEFT_") || k == "NO_COLOR" {
            cmd.env_remove(k);
        }
    }
    cmd.env("XDG_CONFIG_HOME", config_home);
}

/// Run and collect.
pub fn run(mut cmd: Command) -> Run {
    let Output { status, stdout, stderr } = cmd.output().unwrap_or_else(|e| panic!("cannot run {BIN}: {e}"));
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}
