//! Shared setup: a desktop, the fixture app, the input backend, and the window's scale.

use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use deft_harness::fixture::{self, Event, FixtureApp, FixtureOptions};
use deft_harness::{Desktop, DesktopConfig};
use deft_input::{EnigoConfig, EnigoInput, WindowLocator, WindowQuery, X11Windows, window_scale};
use deft_types::{Logical, Physical, Rect, ScaleFactor, Size};

/// How long an expected effect may take to reach the log (generous: small shared machines).
pub const WAIT: Duration = Duration::from_secs(10);
/// How long "nothing else happened" is watched for.
pub const QUIET: Duration = Duration::from_millis(400);

/// A fresh desktop of the given size.
pub fn desktop(width: u32, height: u32) -> Desktop {
    Desktop::start_with(&DesktopConfig { width, height, ..DesktopConfig::default() })
        .unwrap_or_else(|e| panic!("desktop did not start: {e}"))
}

/// A 1280x800 desktop with the fixture app, ready.
pub fn desktop_with_app() -> (Desktop, FixtureApp) {
    let desktop = desktop(1280, 800);
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default())
        .unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    (desktop, app)
}

/// The input backend on this desktop's display (never the process's `DISPLAY`: tests run
/// in parallel, each on its own display).
pub fn input(desktop: &Desktop) -> EnigoInput {
    EnigoInput::connect(&EnigoConfig { display: Some(desktop.display().to_string()), ..EnigoConfig::default() })
        .unwrap_or_else(|e| panic!("input backend did not connect: {e}"))
}

/// A rectangle from the app's log, which holds logical bounds (what GTK and AT-SPI report).
pub fn logical(r: fixture::Rect) -> Rect<Logical> {
    Rect::new(r.x, r.y, r.w as u32, r.h as u32)
}

/// The app window's scale, derived the way Deft derives it: the logical size the app (and
/// AT-SPI) reports against the X window's physical size. Also returns the X bounds.
pub fn scale_of(desktop: &Desktop, pid: u32, window: fixture::Rect) -> (ScaleFactor, Rect<Physical>) {
    let windows = X11Windows::connect(Some(desktop.display())).unwrap();
    let found = windows.window(&WindowQuery::pid(pid)).unwrap_or_else(|e| panic!("fixture window: {e}"));
    assert!(found.title.contains("Deft Fixture"), "{found:?}");
    let scale =
        window_scale(Size::new(window.w as u32, window.h as u32), Size::new(found.bounds.w, found.bounds.h)).unwrap();
    (scale, found.bounds)
}

/// Wait until the app's window holds the keyboard focus. A click gives it focus only
/// once the window manager has reacted to it; keys sent before then go elsewhere.
pub fn wait_for_focus(desktop: &Desktop, pid: u32) {
    let windows = X11Windows::connect(Some(desktop.display())).unwrap();
    let window = windows.window(&WindowQuery::pid(pid)).unwrap();
    let start = Instant::now();
    while windows.focused().unwrap() != Some(window.id) {
        assert!(start.elapsed() < WAIT, "the fixture window never got the focus");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The fixture app started with extra environment (`GDK_SCALE=2`), which
/// `FixtureApp::launch` has no option for. Reads the same log, with the harness's parser.
pub struct ScaledApp {
    child: Child,
    log: PathBuf,
    /// The `ready` line.
    pub ready: Event,
}

impl ScaledApp {
    pub fn launch(desktop: &Desktop, env: &[(&str, &str)]) -> ScaledApp {
        let log = desktop.scratch_dir().join("scaled-fixture.log");
        let child = desktop
            .command(deft_harness::python())
            .arg(fixture::app_script())
            .arg("--log")
            .arg(&log)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let mut app = ScaledApp { child, log, ready: placeholder() };
        app.ready = app.wait_for(|e| e.kind == "ready", Duration::from_secs(30));
        app
    }

    /// Every complete line of the log so far.
    pub fn events(&self) -> Vec<Event> {
        // As the harness reads it: a line without its newline is still being written.
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let complete = text.rfind('\n').map_or("", |end| &text[..end]);
        complete.lines().filter_map(parse_event).collect()
    }

    /// The first event matching `pred`, waiting up to `limit`.
    pub fn wait_for(&self, mut pred: impl FnMut(&Event) -> bool, limit: Duration) -> Event {
        let start = Instant::now();
        loop {
            if let Some(e) = self.events().into_iter().find(|e| pred(e)) {
                return e;
            }
            assert!(start.elapsed() < limit, "awaited event not logged within {limit:?}; log: {:?}", self.events());
            std::thread::sleep(Duration::from_millis(15));
        }
    }

    /// A rectangle of the ready line (`window`, or a widget id).
    pub fn bounds(&self, id: &str) -> fixture::Rect {
        let value = if id == "window" { &self.ready.raw["window"] } else { &self.ready.raw["widgets"][id] };
        fixture::Rect::from_json(value).unwrap_or_else(|| panic!("no bounds for {id} in {:?}", self.ready.raw))
    }

    pub fn pid(&self) -> u32 {
        self.ready.raw["pid"].as_u64().unwrap() as u32
    }
}

impl Drop for ScaledApp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse_event(line: &str) -> Option<Event> {
    let raw: serde_json::Value = serde_json::from_str(line).ok()?;
    Some(Event {
        t: raw["t"].as_f64()?,
        kind: raw["event"].as_str()?.to_string(),
        widget: raw["widget"].as_str().map(str::to_string),
        raw,
    })
}

fn placeholder() -> Event {
    Event { t: 0.0, kind: String::new(), widget: None, raw: serde_json::Value::Null }
}
