//! The desktop harness on a real Xvfb: it starts, it isolates, it tears everything down.

use std::process::Stdio;

use deft_harness::Desktop;

fn marker_of(desktop: &Desktop) -> String {
    desktop.env().into_iter().find(|(k, _)| k == "DEFT_DESKTOP_ID").map(|(_, v)| v).unwrap()
}

fn processes_with(marker: &str) -> Vec<String> {
    let needle = format!("DEFT_DESKTOP_ID={marker}");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|kv| kv == needle.as_bytes()))
        })
        .map(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default().trim().to_string())
        .collect()
}

#[test]
fn desktop_has_a_screen_a_bus_accessibility_and_a_window_manager() {
    let desktop = Desktop::start().unwrap();
    let out = desktop.command("xdpyinfo").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("1280x800 pixels"));

    let a11y = desktop
        .command("dbus-send")
        .args(["--session", "--print-reply", "--dest=org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&a11y.stdout).contains("unix:"), "{a11y:?}");

    let wm = desktop.command("xprop").args(["-root", "_NET_SUPPORTING_WM_CHECK"]).output().unwrap();
    assert!(String::from_utf8_lossy(&wm.stdout).contains("window id"));
}

#[test]
fn parallel_desktops_are_isolated() {
    let a = Desktop::start().unwrap();
    let b = Desktop::start().unwrap();
    assert_ne!(a.display(), b.display());
    assert_ne!(a.bus_address(), b.bus_address());
}

#[test]
fn teardown_ends_every_process_including_stray_commands() {
    let desktop = Desktop::start().unwrap();
    let marker = marker_of(&desktop);
    // A command that forks a grandchild and exits: the grandchild is orphaned.
    let status = desktop.command("sh").args(["-c", "sleep 600 & exit 0"]).stdout(Stdio::null()).status().unwrap();
    assert!(status.success());
    let mut stray = desktop.command("sleep").arg("600").spawn().unwrap();
    // The orphan may not have exec'd `sleep` yet (it shows as `sh`), and while it execs its
    // environment reads as empty for a moment: look until both are seen.
    let strays = |procs: &[String]| procs.iter().filter(|c| *c == "sleep" || *c == "sh").count();
    let start = std::time::Instant::now();
    let mut before = processes_with(&marker);
    while strays(&before) < 2 && start.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(10));
        before = processes_with(&marker);
    }
    assert_eq!(strays(&before), 2, "{before:?}");
    assert!(before.iter().any(|c| c == "Xvfb"), "{before:?}");
    let scratch = desktop.scratch_dir().to_path_buf();
    drop(desktop);
    assert_eq!(processes_with(&marker), Vec::<String>::new());
    assert!(!scratch.exists());
    // The stray child was ended (and reaped) by the teardown, not left running.
    assert!(stray.try_wait().map(|s| s.is_some()).unwrap_or(true));
}
