//! The misbehaving fixture app on a [`Desktop`], and its ground-truth log.
//!
//! The app (`tests/fixtures/app/fixture_app.py`) appends one JSON object per line for
//! every real effect. Tests judge Deft by that log, never by Deft's own report, so this
//! module only launches the app, reads the log and waits on it; it knows nothing of Deft.
//! Its ports to other toolkits ([`Toolkit`]) take the same flags and write the same log.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::{Desktop, HarnessError, procs, python, workspace_root};

mod toolkit;
pub use toolkit::Toolkit;

/// How often the log file is re-read while waiting.
const POLL: Duration = Duration::from_millis(15);
/// How long the app gets to exit after SIGTERM before it is killed. Longer than the web
/// fixture's server gives its browser (1.5 s, then SIGKILL): killed first, the server
/// would leave a browser that is slow to exit running on the desktop, and the next launch's
/// targets would match twice (seen once with Firefox in a mixed run).
const TERM_GRACE: Duration = Duration::from_secs(5);

/// The app's script.
pub fn app_script() -> PathBuf {
    workspace_root().join("tests/fixtures/app/fixture_app.py")
}

/// The independent accessibility driver (pyatspi), run with [`python`].
pub fn a11y_driver_script() -> PathBuf {
    workspace_root().join("tests/fixtures/app/a11y_driver.py")
}

/// The same driver, fit for every port (`tests/fixtures/common/a11y_ports.py`): among
/// elements of one name it prefers one that has the action, and it reads GTK 4's
/// `visible` as showing.
pub fn a11y_ports_script() -> PathBuf {
    workspace_root().join("tests/fixtures/common/a11y_ports.py")
}

/// Watches a button's states while xdotool holds the pointer button on it
/// (`tests/fixtures/common/press_probe.py`).
pub fn press_probe_script() -> PathBuf {
    workspace_root().join("tests/fixtures/common/press_probe.py")
}

/// Faults and settings for one run of the app. Everything is off by default.
#[derive(Clone, Debug)]
pub struct FixtureOptions {
    /// Which port runs (GTK 3 unless said otherwise).
    pub toolkit: Toolkit,
    /// Seed for the app's randomness (`--seed`).
    pub seed: u64,
    /// The widget id the faults act on (`--fault-target`); `None` means `submit` for
    /// click faults and `name` for key faults.
    pub fault_target: Option<String>,
    /// Swallow the first N pointer presses on the target (`--drop-clicks`).
    pub drop_clicks: u32,
    /// Apply the target's effect this long after its activation (`--delay-ms`).
    pub delay: Option<Duration>,
    /// The first activation of the target opens a covering modal "New Event!" dialog
    /// instead of taking effect (`--popup`).
    pub popup: bool,
    /// Recreate the target 60 px lower on the first pointer enter or accessibility
    /// action (`--stale`).
    pub stale: bool,
    /// The target entry ignores key events (`--ignore-keys`).
    pub ignore_keys: bool,
    /// After this many key presses on the target entry, focus jumps to `email`
    /// (`--focus-theft`).
    pub focus_theft: Option<u32>,
    /// Show the window only after this long (`--slow-start`).
    pub slow_start: Option<Duration>,
    /// Time from Save to the "Save complete" dialog (`--save-delay-ms`; app default 800 ms).
    pub save_delay: Option<Duration>,
    /// How long the loading panel spins (`--loading-ms`; app default 1500 ms).
    pub loading: Option<Duration>,
    /// A label that counts up by itself this often (`--ticker-ms`; none by default).
    pub ticker: Option<Duration>,
    /// A canvas "Notes" that takes typed text with none to read back (`--notes`).
    pub notes: bool,
    /// Each activation of the target takes effect, then every control is rebuilt exactly
    /// as it was (`--reload`; the web port reloads the page).
    pub reload: bool,
    /// The target button is reported this many pixels to the right of where it is drawn
    /// (`--geometry-off`; the GTK 3 app only).
    pub geometry_off: Option<i32>,
    /// Further arguments, passed as they are.
    pub extra_args: Vec<String>,
    /// Extra environment for the app, e.g. `GDK_SCALE=2` for a scaled window.
    pub env: Vec<(String, String)>,
    /// How long to wait for `ready`, on top of `slow_start` (a browser's cold start
    /// included).
    pub ready_timeout: Duration,
}

/// The least time a browser port gets to show its page ready.
const BROWSER_READY: Duration = Duration::from_secs(60);

impl FixtureOptions {
    /// The longest the app may take to show itself ready: its cold start (a browser's is
    /// longer), plus `slow_start`.
    pub fn ready_limit(&self) -> Duration {
        let cold_start = match self.toolkit {
            Toolkit::Chromium | Toolkit::Firefox => self.ready_timeout.max(BROWSER_READY),
            _ => self.ready_timeout,
        };
        cold_start + self.slow_start.unwrap_or_default()
    }
}

impl Default for FixtureOptions {
    fn default() -> Self {
        FixtureOptions {
            toolkit: Toolkit::Gtk3,
            seed: 0,
            fault_target: None,
            drop_clicks: 0,
            delay: None,
            popup: false,
            stale: false,
            ignore_keys: false,
            focus_theft: None,
            slow_start: None,
            save_delay: None,
            loading: None,
            ticker: None,
            notes: false,
            reload: false,
            geometry_off: None,
            extra_args: Vec::new(),
            env: Vec::new(),
            ready_timeout: Duration::from_secs(20),
        }
    }
}

impl FixtureOptions {
    /// The app's command-line arguments, `--log` excepted.
    pub fn args(&self) -> Vec<String> {
        let ms = |d: Duration| d.as_millis().to_string();
        let mut args = vec!["--seed".to_string(), self.seed.to_string()];
        let mut push = |flag: &str, value: String| {
            args.push(flag.to_string());
            args.push(value);
        };
        if let Some(target) = &self.fault_target {
            push("--fault-target", target.clone());
        }
        if self.drop_clicks > 0 {
            push("--drop-clicks", self.drop_clicks.to_string());
        }
        if let Some(d) = self.delay {
            push("--delay-ms", ms(d));
        }
        if let Some(n) = self.focus_theft {
            push("--focus-theft", n.to_string());
        }
        if let Some(d) = self.slow_start {
            push("--slow-start", ms(d));
        }
        if let Some(d) = self.save_delay {
            push("--save-delay-ms", ms(d));
        }
        if let Some(d) = self.loading {
            push("--loading-ms", ms(d));
        }
        if let Some(d) = self.ticker {
            push("--ticker-ms", ms(d));
        }
        if let Some(px) = self.geometry_off {
            push("--geometry-off", px.to_string());
        }
        let flags = [
            (self.popup, "--popup"),
            (self.stale, "--stale"),
            (self.ignore_keys, "--ignore-keys"),
            (self.notes, "--notes"),
            (self.reload, "--reload"),
        ];
        for (on, flag) in flags {
            if on {
                args.push(flag.to_string());
            }
        }
        args.extend(self.extra_args.iter().cloned());
        args
    }
}

/// A rectangle in screen (root) coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width.
    pub w: i32,
    /// Height.
    pub h: i32,
}

impl Rect {
    /// The centre point, where a test clicks.
    pub fn center(&self) -> (i32, i32) {
        (self.x + self.w / 2, self.y + self.h / 2)
    }

    /// Whether the point lies inside.
    pub fn contains(&self, (px, py): (i32, i32)) -> bool {
        px >= self.x && px < self.x + self.w && py >= self.y && py < self.y + self.h
    }

    /// Parse the log's `[x, y, w, h]`.
    pub fn from_json(value: &Value) -> Option<Rect> {
        let v: Vec<i32> = value.as_array()?.iter().map(|n| n.as_i64().map(|n| n as i32)).collect::<Option<_>>()?;
        match v[..] {
            [x, y, w, h] => Some(Rect { x, y, w, h }),
            _ => None,
        }
    }
}

/// The app's `ready` line: where everything is on screen.
#[derive(Clone, Debug)]
pub struct Ready {
    /// The app's process id.
    pub pid: u32,
    /// When it was logged (app's monotonic clock, ms).
    pub t: f64,
    /// The main window's client area.
    pub window: Rect,
    /// Every widget by id (`hello`, `submit`, `name`, `item_3`, ...).
    pub widgets: BTreeMap<String, Rect>,
}

impl Ready {
    fn from_event(event: &Event) -> Result<Ready, HarnessError> {
        let bad =
            |what: &str| HarnessError::Other(format!("fixture app's ready line has no valid {what}: {}", event.raw));
        let widgets = event.raw["widgets"]
            .as_object()
            .ok_or_else(|| bad("widgets"))?
            .iter()
            .filter_map(|(id, r)| Some((id.clone(), Rect::from_json(r)?)))
            .collect();
        Ok(Ready {
            pid: event.raw["pid"].as_u64().ok_or_else(|| bad("pid"))? as u32,
            t: event.t,
            window: Rect::from_json(&event.raw["window"]).ok_or_else(|| bad("window"))?,
            widgets,
        })
    }

    /// A widget's bounds at startup; panics with the known ids when `id` is unknown
    /// (a test bug, not a runtime condition).
    pub fn widget(&self, id: &str) -> Rect {
        match self.widgets.get(id) {
            Some(r) => *r,
            None => {
                panic!("the fixture app has no widget {id:?}; it has {:?}", self.widgets.keys().collect::<Vec<_>>())
            }
        }
    }
}

/// One line of the ground-truth log.
#[derive(Clone, Debug)]
pub struct Event {
    /// The app's monotonic clock in ms.
    pub t: f64,
    /// The `event` field: `button_activated`, `fault`, `text_changed`, ...
    pub kind: String,
    /// The `widget` field, when there is one.
    pub widget: Option<String>,
    /// The whole line.
    pub raw: Value,
}

impl Event {
    fn parse(line: &str) -> Option<Event> {
        let raw: Value = serde_json::from_str(line).ok()?;
        Some(Event {
            t: raw["t"].as_f64()?,
            kind: raw["event"].as_str()?.to_string(),
            widget: raw["widget"].as_str().map(str::to_string),
            raw,
        })
    }

    /// Whether this is a `kind` event (about `widget`, when given).
    pub fn is(&self, kind: &str, widget: Option<&str>) -> bool {
        self.kind == kind && (widget.is_none() || self.widget.as_deref() == widget)
    }

    /// A string field, e.g. `value`, `title`, `kind` (of a fault).
    pub fn str(&self, field: &str) -> Option<&str> {
        self.raw[field].as_str()
    }
}

/// A running fixture app. Terminated (SIGTERM, then SIGKILL) and reaped on drop.
pub struct FixtureApp {
    child: Mutex<Child>,
    log: PathBuf,
    stderr: PathBuf,
    ready: Ready,
    toolkit: Toolkit,
}

impl FixtureApp {
    /// Start the app on `desktop` and wait until it has logged `ready`.
    pub fn launch(desktop: &Desktop, opts: &FixtureOptions) -> Result<FixtureApp, HarnessError> {
        static RUN: AtomicU32 = AtomicU32::new(0);
        let n = RUN.fetch_add(1, Ordering::Relaxed);
        let log = desktop.scratch_dir().join(format!("fixture-{n}.log"));
        let stderr = desktop.scratch_dir().join(format!("fixture-{n}.stderr"));
        let stderr_file = std::fs::File::create(&stderr)
            .map_err(|source| HarnessError::Io { context: format!("creating {}", stderr.display()), source })?;
        let toolkit = opts.toolkit;
        // (The GTK3 app's start stays as it always was: its packages are the desktop's.)
        if let Some(why) = (toolkit != Toolkit::Gtk3).then(|| toolkit.missing()).flatten() {
            return Err(HarnessError::Other(why));
        }
        let profile = desktop.scratch_dir().join(format!("fixture-{n}-profile"));
        toolkit
            .prepare(&profile)
            .map_err(|source| HarnessError::Io { context: format!("preparing {}", profile.display()), source })?;
        let (before, mut after) = toolkit.args(&profile);
        // Chromium picks X11 unless told: on a Wayland compositor it is told (Firefox and
        // the toolkits follow WAYLAND_DISPLAY and an empty DISPLAY by themselves).
        if toolkit == Toolkit::Chromium && crate::wayland::socket_in(&opts.env).is_some() {
            after.push("--ozone-platform=wayland".into());
        }
        let mut cmd = desktop.command(python());
        cmd.arg(toolkit.script()).args(before).arg("--log").arg(&log).args(opts.args()).args(after);
        cmd.envs(toolkit.env()).envs(opts.env.iter().cloned());
        if toolkit.is_web() {
            // A browser's settings go to the desktop's scratch, not $HOME.
            cmd.env("XDG_CONFIG_HOME", profile.join("config"));
        }
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(stderr_file);
        let child = cmd.spawn().map_err(|source| HarnessError::Io {
            context: format!("starting the fixture app with {}", python()),
            source,
        })?;

        // A placeholder until the real one is read; `wait_for` does not look at it.
        let placeholder =
            Ready { pid: child.id(), t: 0.0, window: Rect { x: 0, y: 0, w: 0, h: 0 }, widgets: BTreeMap::new() };
        let mut app = FixtureApp { child: Mutex::new(child), log, stderr, ready: placeholder, toolkit };
        // A browser's cold start, while the other tests of a run load both cores, took more
        // than 20 s in CI (Chromium, once): a bound on a wait, not a measurement.
        let limit = opts.ready_limit();
        let ready = app.wait_for(|e| e.kind == "ready", limit)?;
        app.ready = Ready::from_event(&ready)?;
        Ok(app)
    }

    /// Where everything was on screen when the app became ready.
    pub fn ready(&self) -> &Ready {
        &self.ready
    }

    /// The ground-truth log file.
    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// The app's process id (the browser's, for the web page).
    pub fn pid(&self) -> u32 {
        self.ready.pid
    }

    /// Which port this is.
    pub fn toolkit(&self) -> Toolkit {
        self.toolkit
    }

    /// Whether the app is alive and answering, checked without Deft: it is running
    /// ([`Self::check_running`]), and an accessibility client (pyatspi, `a11y_ports.py
    /// dump`) reads its window named "Deft Fixture" within `limit`: a frozen main loop
    /// (GTK, Qt) or a dead page does not answer. `Err` says what is wrong.
    pub fn check_alive(&self, desktop: &Desktop, limit: Duration) -> Result<(), String> {
        self.check_running()?;
        let script = a11y_ports_script();
        let secs = limit.as_secs().max(1).to_string();
        let out = desktop
            .command("timeout")
            .arg(&secs)
            .arg(python())
            .arg(&script)
            .args(["--app", self.toolkit.accessible_app(), "--timeout", &secs, "dump"])
            .output()
            .map_err(|e| format!("could not run {}: {e}", script.display()))?;
        let dump = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !dump.contains("\"name\": \"Deft Fixture\"") {
            return Err(format!(
                "the app did not answer an accessibility read within {limit:?} ({}, {} lines read; {})",
                out.status,
                dump.lines().count(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(())
    }

    /// Whether the app's process (and the web page's server) is running, neither a zombie
    /// nor stopped, and has not logged `exit`: all that can be checked of an app started
    /// with its accessibility off. `Err` says what is wrong.
    pub fn check_running(&self) -> Result<(), String> {
        if let Some(status) = self.exited() {
            return Err(format!("the app's process exited ({status}); {}", self.diagnostics()));
        }
        let state = std::fs::read_to_string(format!("/proc/{}/stat", self.pid()))
            .ok()
            .and_then(|s| s.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next()));
        if matches!(state, None | Some('Z' | 'T' | 't' | 'X')) {
            return Err(format!("the app (pid {}) is in process state {state:?}", self.pid()));
        }
        if let Some(exit) = self.events().iter().find(|e| e.kind == "exit") {
            return Err(format!("the app logged {}", exit.raw));
        }
        Ok(())
    }

    /// Every complete line of the log so far, in order.
    pub fn events(&self) -> Vec<Event> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        // A line without its newline is still being written: leave it for the next read.
        let complete = match text.rfind('\n') {
            Some(end) => &text[..end],
            None => "",
        };
        complete.lines().filter_map(Event::parse).collect()
    }

    /// How many `kind` events (about `widget`, when given) the log holds.
    pub fn count(&self, kind: &str, widget: Option<&str>) -> usize {
        self.events().iter().filter(|e| e.is(kind, widget)).count()
    }

    /// The first logged event matching `pred`, waiting up to `timeout` for it. Fails early
    /// when the app exits.
    pub fn wait_for(&self, pred: impl FnMut(&Event) -> bool, timeout: Duration) -> Result<Event, HarnessError> {
        let mut found = self.wait_for_count(1, pred, timeout)?;
        Ok(found.swap_remove(0))
    }

    /// The first `n` logged events matching `pred`, waiting up to `timeout` until there are
    /// that many. Fails early when the app exits.
    pub fn wait_for_count(
        &self,
        n: usize,
        mut pred: impl FnMut(&Event) -> bool,
        timeout: Duration,
    ) -> Result<Vec<Event>, HarnessError> {
        let start = Instant::now();
        let mut matching = || -> Option<Vec<Event>> {
            let found: Vec<Event> = self.events().into_iter().filter(|e| pred(e)).take(n).collect();
            (found.len() >= n).then_some(found)
        };
        loop {
            if let Some(found) = matching() {
                return Ok(found);
            }
            if let Some(status) = self.exited() {
                // One more read: the events may have been written just before exiting.
                if let Some(found) = matching() {
                    return Ok(found);
                }
                return Err(HarnessError::Other(format!(
                    "the fixture app exited ({status}) before the awaited event; {}",
                    self.diagnostics()
                )));
            }
            if start.elapsed() >= timeout {
                return Err(HarnessError::Timeout {
                    what: format!("the awaited fixture app event(s) ({})", self.diagnostics()),
                    waited: timeout,
                });
            }
            std::thread::sleep(POLL);
        }
    }

    /// Ask the app to exit (SIGTERM, so it logs `exit`), kill it if it does not, and
    /// return how it ended.
    pub fn shutdown(&self) -> Result<ExitStatus, HarnessError> {
        let mut child = self.child.lock().unwrap_or_else(|p| p.into_inner());
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {}
            // Already reaped by its desktop's teardown: its pid may belong to someone else now.
            Err(source) => {
                return Err(HarnessError::Io { context: "the fixture app outlived its desktop".into(), source });
            }
        }
        procs::signal(child.id() as i32, libc::SIGTERM);
        let start = Instant::now();
        while start.elapsed() < TERM_GRACE {
            if let Some(status) = child.try_wait().ok().flatten() {
                return Ok(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        child.wait().map_err(|source| HarnessError::Io { context: "waiting for the fixture app".into(), source })
    }

    /// That the app exited within `limit` after it was told to quit: its process ended and
    /// it logged `exit` (not a crash mid-way: a crashed app logs nothing).
    pub fn check_exited(&self, limit: Duration) -> Result<(), String> {
        let until = std::time::Instant::now() + limit;
        loop {
            let logged = self.events().iter().any(|e| e.kind == "exit");
            match self.exited() {
                Some(_) if logged => return Ok(()),
                Some(status) => return Err(format!("the app's process ended ({status}) without logging its exit")),
                None if std::time::Instant::now() >= until => {
                    let pid = self.child.lock().unwrap_or_else(|p| p.into_inner()).id() as i32;
                    return Err(format!(
                        "the app was told to quit and still runs; {}; its threads are in: {}",
                        self.diagnostics(),
                        procs::stacks(pid)
                    ));
                }
                None => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    fn exited(&self) -> Option<ExitStatus> {
        self.child.lock().unwrap_or_else(|p| p.into_inner()).try_wait().ok().flatten()
    }

    /// The tails of the log and of the app's stderr, for error messages.
    fn diagnostics(&self) -> String {
        let tail = |path: &Path, n: usize| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(n)..].join(" | ")
        };
        format!("log {} ends with: [{}]; stderr: [{}]", self.log.display(), tail(&self.log, 5), tail(&self.stderr, 10))
    }
}

impl Drop for FixtureApp {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_map_to_flags() {
        let opts = FixtureOptions {
            drop_clicks: 2,
            delay: Some(Duration::from_millis(700)),
            popup: true,
            fault_target: Some("subscribe".into()),
            ..FixtureOptions::default()
        };
        let args = opts.args().join(" ");
        assert_eq!(args, "--seed 0 --fault-target subscribe --drop-clicks 2 --delay-ms 700 --popup");
        assert_eq!(FixtureOptions::default().args(), ["--seed", "0"]);
    }

    #[test]
    fn events_parse_and_partial_lines_wait() {
        let line = r#"{"t": 12.5, "event": "button_activated", "widget": "hello"}"#;
        let e = Event::parse(line).unwrap();
        assert!(e.is("button_activated", Some("hello")));
        assert!(e.is("button_activated", None));
        assert!(!e.is("button_activated", Some("submit")));
        assert_eq!(e.t, 12.5);
        assert!(Event::parse(r#"{"t": 1.0, "event": "butt"#).is_none());
    }

    #[test]
    fn rect_from_json_and_center() {
        let r = Rect::from_json(&serde_json::json!([10, 20, 100, 40])).unwrap();
        assert_eq!(r.center(), (60, 40));
        assert!(r.contains((10, 20)) && !r.contains((110, 20)));
        assert!(Rect::from_json(&serde_json::json!([1, 2, 3])).is_none());
        assert!(Rect::from_json(&serde_json::json!(null)).is_none());
    }
}
