//! Capture speed on GNOME (mutter headless, a 1280x800 virtual monitor, PipeWire), in one
//! run: Deft's `MutterCapture` (one GStreamer reader streaming the screen cast, the latest
//! frame copied out) for the whole screen and for a button-sized region, against reading
//! one frame with a `gst-launch-1.0 ... num-buffers=1` process, as Deft did before and as a
//! script would. Medians and minimums of SAMPLES after WARMUP.
//!
//! `cargo bench -p deft-capture --bench capture_gnome` (or `cargo xtask bench gnome`).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use deft_capture::{Capture, CaptureTarget, MutterCapture};
use deft_harness::Desktop;
use deft_types::Rect;

const SAMPLES: usize = 25;
const WARMUP: usize = 3;

fn main() {
    if std::env::args().any(|a| a == "--gnome-child") {
        measure();
        return;
    }
    println!("deft-capture on GNOME: medians of {SAMPLES} after {WARMUP} warm-up captures");
    println!("load average at start: {}", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
    let desktop = Desktop::start().expect("a desktop starts");
    let mutter = desktop.start_mutter().expect("mutter starts headless");
    // In a child on the desktop's environment (its session bus, PipeWire's directory), as
    // agent-cli runs there.
    let status = desktop
        .command(std::env::current_exe().expect("this bench's path"))
        .arg("--gnome-child")
        .envs(mutter.client_env())
        .env("PIPEWIRE_RUNTIME_DIR", desktop.scratch_dir().join("runtime"))
        .status()
        .expect("the measuring child runs");
    assert!(status.success(), "the measuring child failed");
}

fn measure() {
    let mut capture = MutterCapture::connect(None).expect("mutter records its monitor");
    let region = CaptureTarget::Region(Rect::new(200, 200, 120, 36));
    let mut rows = vec![
        ("deft mutter-screencast: screen to RGBA Frame", time(|| drop(capture.capture(&CaptureTarget::Screen)))),
        ("deft mutter-screencast: 120x36 region", time(|| drop(capture.capture(&region)))),
    ];
    // A second recording of its own for the one-shot reads, so both read the same kind of stream.
    let cast = deft_wayland::mutter::RemoteDesktop::record(None).expect("a second recording");
    let node = cast.node().expect("the stream's node");
    let once = || {
        let out = Command::new("gst-launch-1.0")
            .args(["-q", "pipewiresrc", &format!("path={node}"), "num-buffers=1", "!", "videoconvert", "!"])
            .args(["video/x-raw,format=RGBA,width=1280,height=800", "!", "fdsink", "fd=1"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .expect("gst-launch-1.0 runs");
        assert_eq!(out.stdout.len(), 1280 * 800 * 4, "one whole frame");
    };
    rows.push(("gst-launch-1.0 pipewiresrc num-buffers=1 (a process a frame)", time(once)));
    let base = rows[0].1.0;
    println!("\n| what | median ms | min ms | ratio to Deft's screen |");
    println!("|---|---|---|---|");
    for (what, (median, min)) in &rows {
        println!("| {what} | {:.2} | {:.2} | {:.3}x |", ms(*median), ms(*min), ms(*median) / ms(base));
    }
}

/// Median and minimum of SAMPLES runs of `f`, after WARMUP.
fn time(mut f: impl FnMut()) -> (Duration, Duration) {
    for _ in 0..WARMUP {
        f();
    }
    let mut took: Vec<Duration> = (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    took.sort();
    (took[SAMPLES / 2], took[0])
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
