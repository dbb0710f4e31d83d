//! Input and accessibility drivers independent of Deft (xdotool, pyatspi), and log checks.

use std::process::Output;
use std::time::{Duration, Instant};

use deft_harness::fixture::{Event, FixtureApp, FixtureOptions, a11y_driver_script};
use deft_harness::{Desktop, python};

/// How long an expected effect may take to show up in the log (generous: CI machines are
/// small and run several desktops at once).
pub const WAIT: Duration = Duration::from_secs(10);
/// How long "nothing happened" is watched for.
pub const QUIET: Duration = Duration::from_millis(500);
/// Upper bound for one driver command; `timeout(1)` kills it past this.
const COMMAND_LIMIT_SECS: &str = "30";

/// A fresh headless desktop.
pub fn start_desktop() -> Desktop {
    Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"))
}

/// A fresh desktop with the fixture app started as configured and ready.
pub fn start(opts: FixtureOptions) -> (Desktop, FixtureApp) {
    let desktop = start_desktop();
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    (desktop, app)
}

/// Run `program args` on the desktop under `timeout(1)`; panic with its output on failure.
fn run(desktop: &Desktop, program: &str, args: &[&str]) -> Output {
    let out = desktop
        .command("timeout")
        .arg(COMMAND_LIMIT_SECS)
        .arg(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("could not run {program}: {e}"));
    if !out.status.success() {
        panic!(
            "{program} {args:?} failed ({}): stdout: {} stderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// Move the pointer to `(x, y)` (waiting until it is there) and click button 1.
pub fn click(desktop: &Desktop, (x, y): (i32, i32)) {
    run(desktop, "xdotool", &["mousemove", "--sync", &x.to_string(), &y.to_string(), "click", "1"]);
}

/// Type `text` as key events into whatever has the keyboard focus.
pub fn type_text(desktop: &Desktop, text: &str) {
    run(desktop, "xdotool", &["type", "--delay", "20", text]);
}

fn a11y(desktop: &Desktop, args: &[&str]) -> Output {
    let script = a11y_driver_script();
    let mut full = vec![script.to_str().expect("utf-8 path"), "--app", "Deft Fixture"];
    full.extend_from_slice(args);
    run(desktop, python(), &full)
}

/// Invoke the accessibility action `click` on the element named `name`.
pub fn a11y_click(desktop: &Desktop, name: &str) {
    a11y(desktop, &["action", name, "click"]);
}

/// Set the text of the editable element named `name` through AT-SPI EditableText.
pub fn a11y_set_text(desktop: &Desktop, name: &str, value: &str) {
    a11y(desktop, &["set-text", name, value]);
}

/// The app's accessibility tree, one JSON object per node.
pub fn a11y_dump(desktop: &Desktop) -> Vec<serde_json::Value> {
    let out = a11y(desktop, &["dump"]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad dump line {l:?}: {e}")))
        .collect()
}

/// The first event matching `pred`, or a panic naming `what`.
pub fn expect(app: &FixtureApp, what: &str, pred: impl FnMut(&Event) -> bool) -> Event {
    app.wait_for(pred, WAIT).unwrap_or_else(|e| panic!("expected {what}: {e}"))
}

/// The first `fault` of `kind`.
pub fn expect_fault(app: &FixtureApp, kind: &str) -> Event {
    expect(app, &format!("a {kind} fault"), |e| e.kind == "fault" && e.str("kind") == Some(kind))
}

/// Panic if an event matching `pred` is logged during the next `window` (events already
/// in the log do not count). The one place tests wait a fixed time, because "nothing
/// happened" has no event to wait for.
pub fn assert_nothing_within(app: &FixtureApp, what: &str, window: Duration, mut pred: impl FnMut(&Event) -> bool) {
    let seen = app.events().len();
    let start = Instant::now();
    loop {
        if let Some(e) = app.events().iter().skip(seen).find(|e| pred(e)) {
            panic!("expected no {what} within {window:?}, got {} after {:?}", e.raw, start.elapsed());
        }
        if start.elapsed() >= window {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The value of the last `text_changed` on `widget`, if any.
pub fn last_text(app: &FixtureApp, widget: &str) -> Option<String> {
    app.events()
        .iter()
        .rev()
        .find(|e| e.is("text_changed", Some(widget)))
        .and_then(|e| e.str("value").map(str::to_string))
}
