//! A desktop with the fixture app and a connected [`AtSpi`], for each test.

use std::future::Future;
use std::time::{Duration, Instant};

use deft_a11y::{Accessibility, AppInfo, AtSpi, AtSpiConfig, Node, Scope, SnapshotOptions, Tree};
use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_types::{ElementId, Logical, Rect};

/// The fixture app's accessible name (its program name; its window is "Deft Fixture").
pub const APP: &str = "deft-fixture";
/// The fixture window's title.
pub const WINDOW: &str = "Deft Fixture";

/// One test's world: its own desktop, the fixture app on it, a runtime and a backend.
pub struct Session {
    a11y: Option<AtSpi>,
    pub rt: tokio::runtime::Runtime,
    pub app: FixtureApp,
    /// Kept until the end of the test: dropping it tears the desktop down.
    pub desktop: Desktop,
}

impl Drop for Session {
    fn drop(&mut self) {
        // The backend's connections clean up with tasks on the runtime: drop them inside it.
        let _inside = self.rt.enter();
        drop(self.a11y.take());
    }
}

/// The backend configuration for `desktop`: its own session bus, short timeouts.
pub fn config(desktop: &Desktop) -> AtSpiConfig {
    AtSpiConfig {
        session_bus: Some(desktop.bus_address().to_string()),
        call_timeout: Duration::from_secs(2),
        read_deadline: Duration::from_secs(8),
        display: Some(desktop.display().to_string()),
        ..AtSpiConfig::default()
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime")
}

pub fn desktop() -> Desktop {
    Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"))
}

/// A desktop with the fixture app started with `opts`, registered on the AT-SPI bus.
pub fn session_with(opts: &FixtureOptions) -> Session {
    let desktop = desktop();
    let app = FixtureApp::launch(&desktop, opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let rt = runtime();
    let a11y = rt.block_on(AtSpi::connect(config(&desktop))).unwrap_or_else(|e| panic!("connect: {e}"));
    let s = Session { a11y: Some(a11y), rt, app, desktop };
    s.app_info(); // waits until registered
    s
}

pub fn session() -> Session {
    session_with(&FixtureOptions::default())
}

impl Session {
    /// The backend.
    pub fn a11y(&self) -> &AtSpi {
        self.a11y.as_ref().expect("connected until dropped")
    }

    pub fn block<F: Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// The fixture app as listed, waiting (bounded) for it to register.
    pub fn app_info(&self) -> AppInfo {
        wait_for_app(&self.rt, self.a11y(), APP)
    }

    /// A snapshot of the fixture app.
    pub fn tree(&self) -> Tree {
        let id = self.app_info().id;
        self.block(self.a11y().snapshot(&Scope::App(id), &SnapshotOptions::default())).expect("snapshot")
    }

    /// The id of the fixture element named `name` with role `role`.
    pub fn id(&self, role: &str, name: &str) -> ElementId {
        named(&self.tree(), role, name).element.id.clone()
    }
}

/// Poll the application list until `name` is there with a window (bounded).
pub fn wait_for_app(rt: &tokio::runtime::Runtime, a11y: &AtSpi, name: &str) -> AppInfo {
    let start = Instant::now();
    loop {
        let apps = rt.block_on(a11y.applications()).expect("applications");
        if let Some(a) = apps.into_iter().find(|a| a.name == name && !a.windows.is_empty()) {
            return a;
        }
        assert!(start.elapsed() < Duration::from_secs(15), "{name} never registered on the AT-SPI bus");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The one node with this role and name; panics listing the tree otherwise.
pub fn named<'t>(tree: &'t Tree, role: &str, name: &str) -> &'t Node {
    let found: Vec<&Node> =
        tree.nodes.iter().filter(|n| n.element.role.as_str() == role && n.element.name == name).collect();
    match found[..] {
        [one] => one,
        _ => panic!(
            "expected one {role} {name:?}, found {}; tree:\n{}",
            found.len(),
            tree.nodes.iter().map(|n| n.element.describe()).collect::<Vec<_>>().join("\n")
        ),
    }
}

/// The harness's rectangle as a logical one (the desktop is unscaled).
pub fn rect(r: deft_harness::fixture::Rect) -> Rect<Logical> {
    Rect::new(r.x, r.y, r.w as u32, r.h as u32)
}

/// Send a signal to a process with the `kill` program.
pub fn signal(pid: u32, sig: &str) {
    let ok = std::process::Command::new("kill").args([&format!("-{sig}"), &pid.to_string()]).status();
    assert!(ok.is_ok_and(|s| s.success()), "kill -{sig} {pid} failed");
}
