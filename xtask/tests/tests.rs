//! `cargo xtask` as a user runs it: bad input is explained, and the desktop is torn down
//! however the command ends.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn xtask() -> Command {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
}

/// The X display a desktop run reported on stderr, and the rest of stderr.
fn run_desktop(cmd: &[&str]) -> (i32, String, String) {
    let out = xtask().arg("desktop").arg("--").args(cmd).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let display = display_in(&stderr).expect(&stderr);
    (out.status.code().unwrap_or(-1), display, stderr)
}

fn display_in(stderr: &str) -> Option<String> {
    let rest = stderr.split("DISPLAY=").nth(1)?;
    Some(rest.split_whitespace().next()?.to_string())
}

/// The X server of `display` is gone: nothing answers there any more.
fn assert_display_gone(display: &str) {
    let n = display.trim_start_matches(':');
    assert!(!std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists(), "lock file of {display} left behind");
    let probe = Command::new("xdpyinfo")
        .args(["-display", display])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!probe.success(), "something still answers on {display}");
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
    let (code, display, _) = run_desktop(&["sh", "-c", "xdpyinfo >/dev/null && exit 3"]);
    assert_eq!(code, 3, "the command's own exit code (3) means it reached the X server");
    assert_display_gone(&display);
}

#[test]
fn a_crashing_command_is_reported_and_the_desktop_torn_down() {
    let (code, display, stderr) = run_desktop(&["sh", "-c", "sleep 600 & kill -SEGV $$"]);
    assert_eq!(code, 128 + 11);
    assert!(stderr.contains("crashed: killed by signal 11"), "{stderr}");
    assert_display_gone(&display);
}

#[test]
fn a_missing_command_is_named() {
    let (code, display, stderr) = run_desktop(&["no-such-program-deft"]);
    assert_eq!(code, 127);
    assert!(stderr.contains("could not start `no-such-program-deft`"), "{stderr}");
    assert_display_gone(&display);
}

#[test]
fn terminating_xtask_tears_the_desktop_down() {
    let mut child = xtask().args(["desktop", "--", "sleep", "600"]).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let display = display_in(&line).expect(&line);
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
    assert_display_gone(&display);
}

#[test]
fn desktop_without_a_command_is_a_usage_error() {
    let out = xtask().args(["desktop", "--size", "huge", "--", "true"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not WIDTHxHEIGHT"));
}
