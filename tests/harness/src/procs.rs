//! Finding, signalling and reaping every process that belongs to one desktop.
// Signals, prctl and waitpid have no safe std wrappers; each call is a plain syscall on a
// pid we found ourselves, with no memory handed over.
#![allow(unsafe_code)]

use std::time::{Duration, Instant};

/// The environment variable that marks a desktop's processes.
pub const MARKER_VAR: &str = "DEFT_DESKTOP_ID";

/// Make this process a child subreaper: orphaned descendants are re-parented to us instead
/// of to PID 1 (which, on the machines Deft is tested on, never reaps them), so that we
/// can reap them at teardown.
pub fn become_subreaper() {
    // SAFETY: prctl with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Pids of live processes whose environment holds `MARKER_VAR=marker`.
pub fn marked(marker: &str) -> Vec<i32> {
    let needle = format!("{MARKER_VAR}={marker}");
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    let me = std::process::id() as i32;
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != me)
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|kv| kv == needle.as_bytes()))
        })
        .collect()
}

/// Wait for an exclusive lock on `file` (`flock`), held until the file is closed: across
/// threads and processes of the same machine.
pub fn lock_exclusive(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor the caller's open file owns; no memory is passed.
    match unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Send `signal` to `pid`, ignoring processes that are already gone.
pub fn signal(pid: i32, signal: i32) {
    // SAFETY: kill(2) with a positive pid never touches our memory.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// Whether `pid` is gone. Reaps it when it is our (zombie) child.
pub fn reap_if_exited(pid: i32) -> bool {
    let mut status = 0;
    // SAFETY: waitpid on one specific pid with WNOHANG; `status` outlives the call.
    let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
    if r == pid {
        return true;
    }
    // Not our child (or not exited): look at /proc. A zombie we cannot reap counts as gone.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Terminate every process marked with `marker`: SIGTERM, then SIGKILL for whatever is
/// still alive after `grace`, then reap. Rescans, because a dying daemon may still spawn.
pub fn terminate_marked(marker: &str, grace: Duration) {
    let mut quiet_scans = 0;
    let mut sig = libc::SIGTERM;
    for _ in 0..6 {
        let pids = marked(marker);
        if pids.is_empty() {
            // A process in the middle of exec reads as having no environment for a moment:
            // only a second empty scan, a little later, means everything is gone.
            quiet_scans += 1;
            if quiet_scans == 2 {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        quiet_scans = 0;
        for &pid in &pids {
            signal(pid, sig);
        }
        wait_all_gone(&pids, grace);
        sig = libc::SIGKILL;
    }
}

/// Wait until every pid is gone, reaping ours, for at most `limit`.
pub fn wait_all_gone(pids: &[i32], limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        // Evaluate every pid each round so all zombies get reaped, not just the first.
        let gone = pids.iter().filter(|&&p| reap_if_exited(p)).count();
        if gone == pids.len() {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Ask the kernel to SIGKILL the child when the thread that spawned it exits: a safety net
/// for a test binary that is itself killed before it can tear its desktop down.
pub fn die_with_parent(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe, and the closure allocates nothing.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            Ok(())
        });
    }
}

/// Where each thread of `pid` is, for an app that froze: gdb's backtraces cut to the
/// function names, or why they could not be taken. A hang seen once in many runs is
/// explained by its stacks or not at all (a frozen app logs nothing).
pub fn stacks(pid: i32) -> String {
    let out = std::process::Command::new("timeout")
        .args(["30", "gdb", "-p", &pid.to_string(), "-batch", "-nx", "-ex", "thread apply all bt 16"])
        .stdin(std::process::Stdio::null())
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) => return format!("(no stacks: could not run gdb: {e})"),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let frames: Vec<String> = text.lines().filter_map(frame_summary).collect();
    if frames.is_empty() {
        let err = String::from_utf8_lossy(&out.stderr);
        return format!("(no stacks from gdb: {})", err.lines().last().unwrap_or("").trim());
    }
    frames.join(" / ")
}

/// `Thread 2 (...)` stays as the thread's start; `#3  0x... in func (args) at file` becomes
/// `func`; everything else (symbol loading chatter) goes.
fn frame_summary(line: &str) -> Option<String> {
    if line.starts_with("Thread ") {
        return Some(format!("[{}]", line.split(" (").next().unwrap_or(line)));
    }
    let rest = line.strip_prefix('#')?;
    let after_in =
        rest.split_once(" in ").map(|(_, f)| f).unwrap_or_else(|| rest.split_once("  ").map_or(rest, |(_, f)| f));
    let func = after_in.split([' ', '(']).next().unwrap_or("?");
    Some(func.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backtrace_becomes_thread_starts_and_function_names() {
        let bt = "Thread 1 (Thread 0x7f (LWP 5) \"python3\"):\n\
                  #0  0x00007f in __GI___poll (fds=0x1, nfds=1) at poll.c:29\n\
                  #1  0x00007f in wl_display_dispatch_queue () from /lib/libwayland-client.so.0\n\
                  Reading symbols from /lib/x.so...\n";
        let got: Vec<String> = bt.lines().filter_map(frame_summary).collect();
        assert_eq!(got, ["[Thread 1]", "__GI___poll", "wl_display_dispatch_queue"]);
    }

    #[test]
    fn a_live_process_has_stacks_or_says_why_not() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let stacks = stacks(child.id() as i32);
        let _ = child.kill();
        let _ = child.wait();
        assert!(stacks.contains("[Thread 1]") || stacks.starts_with("(no stacks"), "{stacks}");
    }
}
