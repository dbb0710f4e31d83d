//! Capture speed against the peers, on fresh 1280x800 and 1920x1080 headless desktops.
//!
//! `cargo bench -p deft-capture --bench capture [--features xcap]`. One run times, per
//! screen size and as medians of SAMPLES captures after WARMUP: Deft's MIT-SHM fast path and
//! plain `GetImage` (both to an RGBA `Frame`), xcap (with the feature; in a child process,
//! since xcap reads the display from the environment), python-mss (`peers/mss_bench.py`,
//! installed with pip into a cache directory when missing) and the `scrot` and ImageMagick
//! `import` commands (whole processes writing PNG files, as they are used). It prints a
//! table with ratios to the fast path and the targets with a verdict.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use deft_capture::{Capture, CaptureTarget, X11Capture, X11Options};
use deft_harness::{Desktop, DesktopConfig};
use deft_types::Rect;

const SAMPLES: usize = 25;
const WARMUP: usize = 3;
/// The python-mss release compared against, pinned so runs compare.
const MSS_VERSION: &str = "10.2.0";
/// The targets of issue 3, at 1280x800.
const TARGET_MEDIAN_MS: f64 = 1.5;
const TARGET_RATIO_TO_MSS: f64 = 3.0;

/// One row of the table.
struct Row {
    what: String,
    median_ms: Option<f64>,
    min_ms: Option<f64>,
    note: String,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--xcap-child") {
        xcap_child();
        return;
    }
    println!("deft-capture benchmark: medians of {SAMPLES} after {WARMUP} warm-up captures");
    println!("load average at start: {}", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
    let mss_path = mss_pythonpath();
    for (w, h) in [(1280, 800), (1920, 1080)] {
        let config =
            DesktopConfig { width: w, height: h, accessibility: false, window_manager: false, ..Default::default() };
        let desktop = Desktop::start_with(&config).expect("a headless desktop starts");
        let rows = run_all(&desktop, mss_path.as_deref());
        print_table(w, h, &rows);
        if (w, h) == (1280, 800) {
            verdicts(&rows);
        }
    }
}

fn run_all(desktop: &Desktop, mss_path: Option<&Path>) -> Vec<Row> {
    let mut rows = Vec::new();
    for (label, shm) in
        [("deft x11-shm: screen to RGBA Frame", true), ("deft x11-getimage: screen to RGBA Frame", false)]
    {
        let mut cap = X11Capture::connect_with(Some(desktop.display()), &X11Options { shm }).expect("connects");
        assert_eq!(cap.backend_name() == "x11-shm", shm, "{:?}", cap.shm_unavailable());
        let times = time(|| drop(cap.capture(&CaptureTarget::Screen).expect("captures")));
        rows.push(row(label, &times, ""));
    }
    let mut cap = X11Capture::connect(Some(desktop.display())).expect("connects");
    let region = CaptureTarget::Region(Rect::new(100, 100, 200, 200));
    let times = time(|| drop(cap.capture(&region).expect("captures")));
    rows.push(row("deft x11-shm: 200x200 region", &times, "a typical verification crop"));
    rows.push(xcap_row(desktop));
    for backend in ["default", "xgetimage"] {
        rows.push(mss_row(desktop, mss_path, backend));
    }
    let png = desktop.scratch_dir().join("peer.png");
    let png = png.to_string_lossy();
    rows.push(command_row(desktop, "scrot (process, PNG)", "scrot", &["-o", &png]));
    rows.push(command_row(desktop, "ImageMagick import (process, PNG)", "import", &["-window", "root", &png]));
    rows
}

/// Milliseconds of each of SAMPLES runs of `f`, after WARMUP untimed ones.
fn time(mut f: impl FnMut()) -> Vec<f64> {
    for _ in 0..WARMUP {
        f();
    }
    (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect()
}

fn row(what: &str, times: &[f64], note: &str) -> Row {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2]
    } else {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2.0
    };
    Row { what: what.into(), median_ms: Some(median), min_ms: sorted.first().copied(), note: note.into() }
}

fn skipped(what: &str, why: String) -> Row {
    Row { what: what.into(), median_ms: None, min_ms: None, note: format!("skipped: {why}") }
}

fn command_row(desktop: &Desktop, what: &str, program: &str, args: &[&str]) -> Row {
    let run = || {
        desktop
            .command(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !run() {
        return skipped(what, format!("`{program}` failed or is not installed"));
    }
    let times = time(|| assert!(run(), "{program} failed"));
    row(what, &times, "")
}

/// A directory holding python-mss for the peer script, installed with pip when missing.
fn mss_pythonpath() -> Option<PathBuf> {
    let dir = std::env::temp_dir().join(format!("deft-bench-peers/mss-{MSS_VERSION}"));
    let importable = |dir: &Path| {
        Command::new(deft_harness::python())
            .args(["-c", "import mss"])
            .env("PYTHONPATH", dir)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !importable(&dir) {
        println!("installing python-mss {MSS_VERSION} into {} (pip --target)", dir.display());
        let spec = format!("mss=={MSS_VERSION}");
        let ok = Command::new(deft_harness::python())
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target"])
            .arg(&dir)
            .arg(&spec)
            .status()
            .is_ok_and(|s| s.success());
        if !ok || !importable(&dir) {
            println!("could not install python-mss; its rows are skipped");
            return None;
        }
    }
    Some(dir)
}

fn mss_row(desktop: &Desktop, path: Option<&Path>, backend: &str) -> Row {
    let what = format!("python-mss ({backend} backend): screen to RGB");
    let Some(path) = path else { return skipped(&what, "python-mss is not installed".into()) };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/peers/mss_bench.py");
    let out = desktop
        .command(deft_harness::python())
        .arg(script)
        .arg(SAMPLES.to_string())
        .arg(backend)
        .env("PYTHONPATH", path)
        .output();
    let out = match out {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => return skipped(&what, String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("").into()),
        Err(e) => return skipped(&what, e.to_string()),
    };
    let field = |key: &str| -> Option<f64> {
        out.split_whitespace().find_map(|kv| kv.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
    };
    let version = out.split_whitespace().nth(1).unwrap_or("?");
    Row {
        what,
        median_ms: field("median_ms"),
        min_ms: field("min_ms"),
        note: format!("mss {version}, in-process timing"),
    }
}

#[cfg(feature = "xcap")]
fn xcap_row(desktop: &Desktop) -> Row {
    let what = "xcap: Monitor::capture_image (RGBA)";
    let exe = std::env::current_exe().expect("the bench knows its path");
    let out = desktop.command(exe).arg("--xcap-child").output();
    let out = match out {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        Ok(out) => return skipped(what, String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("").into()),
        Err(e) => return skipped(what, e.to_string()),
    };
    let mut numbers = out.split_whitespace().filter_map(|n| n.parse::<f64>().ok());
    Row { what: what.into(), median_ms: numbers.next(), min_ms: numbers.next(), note: "xcap 0.9, child process".into() }
}

#[cfg(not(feature = "xcap"))]
fn xcap_row(_desktop: &Desktop) -> Row {
    skipped("xcap: Monitor::capture_image (RGBA)", "built without `--features xcap`".into())
}

/// In a child with `DISPLAY` set: time xcap as its users call it, print "MEDIAN MIN".
#[cfg(feature = "xcap")]
fn xcap_child() {
    let monitors = xcap::Monitor::all().expect("xcap finds the display");
    let monitor = &monitors[0];
    let times = time(|| drop(monitor.capture_image().expect("xcap captures")));
    let r = row("xcap", &times, "");
    println!("{} {}", r.median_ms.unwrap_or(f64::NAN), r.min_ms.unwrap_or(f64::NAN));
}

#[cfg(not(feature = "xcap"))]
fn xcap_child() {}

fn print_table(w: u32, h: u32, rows: &[Row]) {
    let base = rows[0].median_ms.unwrap_or(f64::NAN);
    println!("\n{w}x{h} Xvfb\n");
    println!("| capture | median ms | min ms | median / deft x11-shm | note |");
    println!("|---|---:|---:|---:|---|");
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    for r in rows {
        let ratio = r.median_ms.map_or("-".to_string(), |m| format!("{:.1}x", m / base));
        println!("| {} | {} | {} | {} | {} |", r.what, show(r.median_ms), show(r.min_ms), ratio, r.note);
    }
}

fn verdicts(rows: &[Row]) {
    let shm = rows[0].median_ms.unwrap_or(f64::NAN);
    let verdict = |ok: bool| if ok { "PASS" } else { "FAIL" };
    println!(
        "\ntarget: deft x11-shm median {shm:.3} ms <= {TARGET_MEDIAN_MS} ms at 1280x800: {}",
        verdict(shm <= TARGET_MEDIAN_MS)
    );
    for r in rows.iter().filter(|r| r.what.starts_with("python-mss")) {
        match r.median_ms {
            Some(m) => println!(
                "target: {} / deft x11-shm = {:.1}x >= {TARGET_RATIO_TO_MSS}x: {}",
                r.what,
                m / shm,
                verdict(m / shm >= TARGET_RATIO_TO_MSS)
            ),
            None => println!("target: vs {}: not measured ({})", r.what, r.note),
        }
    }
}
