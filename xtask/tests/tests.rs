//! `cargo xtask` as a user runs it: bad input is explained, and the desktop is torn down
//! however the command ends.

use std::process::Command;
use std::time::{Duration, Instant};

fn xtask() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
}

/// Run `cmd` under `xtask desktop`, recording the desktop's marker first; returns the exit
/// code, the marker and stderr.
fn run_desktop(cmd: &[&str]) -> (i32, String, String) {
    let marker_file = marker_file();
    let out = xtask().arg("desktop").arg("--").args(wrapped(&marker_file, cmd)).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    (out.status.code().unwrap_or(-1), read_marker(&marker_file), stderr)
}

fn marker_file() -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("deft-xtask-test-{}-{n}", std::process::id()))
}

/// `cmd`, preceded by a shell that writes the desktop's marker to `file` and then execs it.
fn wrapped(file: &std::path::Path, cmd: &[&str]) -> Vec<String> {
    let script = format!("echo \"$DEFT_DESKTOP_ID\" > '{}'; exec \"$@\"", file.display());
    ["sh", "-c", &script, "sh"].into_iter().chain(cmd.iter().copied()).map(String::from).collect()
}

fn read_marker(file: &std::path::Path) -> String {
    let start = Instant::now();
    loop {
        if let Some(m) = std::fs::read_to_string(file).ok().map(|s| s.trim().to_string()).filter(|m| !m.is_empty()) {
            let _ = std::fs::remove_file(file);
            return m;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "the command never started on the desktop");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Nothing that ran on the desktop is left: no process carries its marker. (Display numbers
/// are reused at once by parallel tests, so "nothing answers on :N" would prove nothing.)
fn assert_desktop_gone(marker: &str) {
    let needle = format!("DEFT_DESKTOP_ID={marker}");
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|kv| kv == needle.as_bytes()))
        })
        .map(|pid| std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default().replace('\0', " "))
        .collect();
    assert!(left.is_empty(), "left running after teardown: {left:?}");
}

#[test]
fn unknown_command_is_explained() {
    let out = xtask().arg("frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown command `frobnicate`") && err.contains("usage:"), "{err}");
}

#[test]
fn desktop_passes_the_exit_code_and_tears_down() {
    let (code, marker, _) = run_desktop(&["sh", "-c", "xdpyinfo >/dev/null && exit 3"]);
    assert_eq!(code, 3, "the command's own exit code (3) means it reached the X server");
    assert_desktop_gone(&marker);
}

#[test]
fn a_crashing_command_is_reported_and_the_desktop_torn_down() {
    let (code, marker, stderr) = run_desktop(&["sh", "-c", "sleep 600 & kill -SEGV $$"]);
    assert_eq!(code, 128 + 11);
    assert!(stderr.contains("crashed: killed by signal 11"), "{stderr}");
    assert_desktop_gone(&marker);
}

#[test]
fn a_missing_command_is_named() {
    let out = xtask().args(["desktop", "--", "no-such-program-deft"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(127));
    assert!(stderr.contains("could not start `no-such-program-deft`"), "{stderr}");
}

#[test]
fn terminating_xtask_tears_the_desktop_down() {
    let marker_file = marker_file();
    let mut child = xtask().arg("desktop").arg("--").args(wrapped(&marker_file, &["sleep", "600"])).spawn().unwrap();
    let marker = read_marker(&marker_file);
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let start = Instant::now();
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "xtask did not exit after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(exit.code(), Some(128 + 15));
    assert_desktop_gone(&marker);
}

#[test]
fn desktop_without_a_command_is_a_usage_error() {
    let out = xtask().args(["desktop", "--size", "huge", "--", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not WIDTHxHEIGHT"));
}
