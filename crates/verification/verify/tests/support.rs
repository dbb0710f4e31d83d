//! A desktop, the fixture app and an executor on it; log checks.

use std::time::Duration;

use deft_a11y::selector;
use deft_harness::Desktop;
use deft_harness::fixture::{Event, FixtureApp, FixtureOptions};
use deft_types::{Action, MouseButton, Outcome, Selector, Target};
use deft_verify::{DesktopConfig, Executor, ExecutorConfig};

/// How long "nothing more happened" is watched for after an action.
pub const QUIET: Duration = Duration::from_millis(700);
/// How long an effect may take to reach the log.
pub const WAIT: Duration = Duration::from_secs(10);

/// One test's world. Fields drop in order: the executor (and its event task) before the
/// runtime, the app before its desktop.
pub struct World {
    pub exec: Executor,
    pub rt: tokio::runtime::Runtime,
    pub app: FixtureApp,
    /// Kept alive for the test's length: dropping it tears the desktop down.
    pub _desktop: Desktop,
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime")
}

/// Runs `test` on a thread with an 8 MiB stack, as agent-cli runs actions: a debug build's
/// action future, with every fallback of a browser's chain, needs more than a test
/// thread's 2 MiB. A panic in it is the test's.
pub fn on_big_stack(test: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(8 << 20).spawn(test).expect("a test thread");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

pub fn desktop() -> Desktop {
    Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"))
}

pub fn config(_desktop: &Desktop, verify: bool) -> ExecutorConfig {
    ExecutorConfig { verify, ..ExecutorConfig::default() }
}

/// A verifying executor's configuration for `desktop`.
pub fn config_for(desktop: &Desktop) -> ExecutorConfig {
    config(desktop, true)
}

/// The test desktop, as the executor names a desktop.
pub fn desktop_config(desktop: &Desktop) -> DesktopConfig {
    DesktopConfig {
        display: Some(desktop.display().to_string()),
        session_bus: Some(desktop.bus_address().to_string()),
        ..DesktopConfig::default()
    }
}

pub fn connect(rt: &tokio::runtime::Runtime, desktop: &Desktop, config: ExecutorConfig) -> Executor {
    rt.block_on(Executor::connect(config, &desktop_config(desktop)))
        .unwrap_or_else(|e| panic!("executor did not connect: {e}"))
}

/// A desktop with the fixture app ready and a verifying executor on it.
pub fn start(opts: FixtureOptions) -> World {
    start_with(opts, |c| c)
}

pub fn start_with(opts: FixtureOptions, tweak: impl FnOnce(ExecutorConfig) -> ExecutorConfig) -> World {
    let desktop = desktop();
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let rt = runtime();
    let exec = connect(&rt, &desktop, tweak(config(&desktop, true)));
    World { exec, rt, app, _desktop: desktop }
}

impl World {
    pub fn perform(&self, action: &Action) -> Outcome {
        let outcome = self.rt.block_on(self.exec.perform(action));
        eprintln!("{}", serde_json::to_string_pretty(&outcome).unwrap_or_default());
        outcome
    }

    /// Asserts that no event matching `pred` is logged within [`QUIET`].
    pub fn quiet(&self, what: &str, pred: impl Fn(&Event) -> bool) {
        let before = self.app.events().iter().filter(|e| pred(e)).count();
        std::thread::sleep(QUIET);
        let after = self.app.events().iter().filter(|e| pred(e)).count();
        assert_eq!(before, after, "unexpected {what} after the action; log: {:#?}", self.log());
    }

    pub fn log(&self) -> Vec<String> {
        self.app.events().iter().map(|e| e.raw.to_string()).collect()
    }
}

/// A selector in the text syntax.
pub fn sel(text: &str) -> Selector {
    selector::parse(text).unwrap_or_else(|e| panic!("bad selector {text:?}: {e}"))
}

pub fn click(selector: &str) -> Action {
    Action::Click { target: Target::Selector(sel(selector)), button: MouseButton::Left, count: 1 }
}

pub fn is_activation(e: &Event) -> bool {
    matches!(e.kind.as_str(), "button_activated" | "order_submitted" | "checkbox_toggled")
}
