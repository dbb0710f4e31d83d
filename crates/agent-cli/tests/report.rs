//! `--trace` frames and `agent-cli report` end to end: a run on the fixture app recorded
//! with frames, its report rendered by a real headless Chromium (no console error, the
//! steps, a frame with its click marker and the expected/observed text in the rendered
//! DOM; on-screen HTML and script stay text), a password that is in no file the run
//! wrote (as text, and by OCR of every frame), and a run killed with SIGKILL whose trace
//! still reports.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};

use super::{BIN, Run, isolate, run, scratch};

/// The fixture's `--html-label` text, as it appears in the app.
const PAYLOAD: &str = "<script>document.title='pwned'</script>";

fn start(extra: &[&str]) -> (Desktop, FixtureApp) {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts =
        FixtureOptions { extra_args: extra.iter().map(|s| s.to_string()).collect(), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    (desktop, app)
}

fn cli(desktop: &Desktop, home: &Path, args: &[&str]) -> Run {
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, home);
    cmd.args(args);
    run(cmd)
}

fn report(trace: &Path, out: &Path) -> Run {
    let mut cmd = Command::new(BIN);
    isolate(&mut cmd, &scratch("report-home"));
    cmd.args(["report", trace.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
    run(cmd)
}

/// What headless Chromium made of a page: the DOM after its scripts ran, its console
/// lines, and a screenshot.
struct Rendered {
    dom: String,
    console: Vec<String>,
}

fn chromium(page: &Path, work: &Path, screenshot: Option<&Path>) -> Rendered {
    let profile = work.join(format!("chromium-profile-{}", screenshot.is_some()));
    let url = format!("file://{}", page.display());
    let mut cmd = Command::new("/usr/bin/chromium");
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1280,2400",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.display()));
    match screenshot {
        Some(s) => cmd.arg(format!("--screenshot={}", s.display())),
        None => cmd.arg("--dump-dom"),
    };
    cmd.arg(&url);
    let r = run_bounded(cmd, Duration::from_secs(90));
    let console = r.stderr.lines().filter(|l| l.contains("CONSOLE")).map(str::to_string).collect();
    Rendered { dom: r.stdout, console }
}

fn run_bounded(mut cmd: Command, limit: Duration) -> Run {
    let out = work_file("chromium-out");
    let err = work_file("chromium-err");
    cmd.stdout(std::fs::File::create(&out).unwrap()).stderr(std::fs::File::create(&err).unwrap());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run chromium: {e} (cargo xtask setup installs it)"));
    let until = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < until, "chromium did not finish in {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
    }
}

fn work_file(name: &str) -> PathBuf {
    scratch(name).join("out.txt")
}

/// Console lines that are errors: uncaught exceptions and refused (CSP) loads.
fn errors(console: &[String]) -> Vec<&String> {
    console.iter().filter(|l| l.contains("Uncaught") || l.contains("Refused") || l.contains("ERROR")).collect()
}

#[test]
fn the_report_renders_in_chromium_and_on_screen_markup_stays_text() {
    // The console check can see an error at all: a page with one is caught.
    let work = scratch("render");
    let bad = work.join("bad.html");
    std::fs::write(&bad, "<!doctype html><script>undefined_function_here();</script>").unwrap();
    let control = chromium(&bad, &work, None);
    assert!(!errors(&control.console).is_empty(), "the console check sees nothing: {:?}", control.console);

    let (desktop, app) = start(&["--html-label"]);
    let home = scratch("render-home");
    let trace = work.join("trace");
    let t = trace.to_str().unwrap();
    let fixture = ["--app", "Deft Fixture", "--verify", "--json", "--trace", t];
    cli(&desktop, &home, &[&["type", "--target", "Name", "--text", "Ada Lovelace"][..], &fixture].concat())
        .expect_code(0);
    let hello = cli(&desktop, &home, &[&["click", "--name", "Hello"][..], &fixture].concat());
    hello.expect_code(0);
    assert!(hello.json()["observed"].as_str().unwrap().contains(PAYLOAD), "{hello:#?}");
    let missing =
        cli(&desktop, &home, &[&["click", "--name", "No such button", "--timeout", "500"][..], &fixture].concat());
    missing.expect_code(3);
    drop(app);

    let page = work.join("report.html");
    let r = report(&trace, &page);
    r.expect_code(0);
    let v = r.json();
    assert_eq!(
        (v["actions"].as_u64(), v["verified"].as_u64(), v["failed"].as_u64()),
        (Some(3), Some(2), Some(1)),
        "{v}"
    );
    assert!(v["frames"].as_u64().unwrap() >= 4, "before and after frames: {v}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains(PAYLOAD), "the payload is in the page unescaped");

    let shot = work.join("report.png");
    let rendered = chromium(&page, &work, None);
    assert!(errors(&rendered.console).is_empty(), "console errors: {:#?}", rendered.console);
    let _ = chromium(&page, &work, Some(&shot));
    assert!(std::fs::metadata(&shot).map(|m| m.len() > 10_000).unwrap_or(false), "no screenshot at {}", shot.display());
    println!("screenshot of the report: {}", shot.display());

    let dom = &rendered.dom;
    assert!(dom.contains("Deft trace report"), "{dom}");
    // The steps, with their status.
    assert!(dom.contains("type [12 characters] into app=\"Deft Fixture\" text=Name"), "the type step: {dom}");
    assert!(dom.contains("click app=\"Deft Fixture\" name=Hello"), "the Hello step: {dom}");
    assert!(dom.contains("badge failed"), "the failed step stands out");
    // A frame with its click marker.
    assert!(dom.contains("<img") && dom.contains("src=\"data:image/png;base64,"), "no frame in the DOM");
    assert!(dom.contains("mark click-marker"), "no click marker in the DOM");
    assert!(dom.contains("mark target-box"));
    // Expected and observed.
    assert!(dom.contains("expected") && dom.contains("contains \"Ada Lovelace\""), "expected text: {dom}");
    assert!(dom.contains("observed"));
    // The app's markup is text: escaped in the DOM, never an element, never run.
    assert!(dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"), "the payload is not shown as text");
    assert!(!dom.contains(PAYLOAD), "the payload became markup");
    assert!(!dom.contains("<img src=\"x\""), "the payload's image became an element");
    assert!(!dom.contains("<title>pwned"), "the payload's script ran");
}
