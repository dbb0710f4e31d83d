//! The Java Swing fixture (`tests/fixtures/swing/DeftSwing.java`), on the accessibility
//! bus through Debian's ATK wrapper: a button, a field known only by its label, a check
//! box and a menu bar, each effect logged as a JSON line (the ground truth).

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::desktop::Desktop;
use crate::desktop::HarnessError;

/// Debian's Java 17 (the ATK wrapper is built for it).
pub const JAVA: &str = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java";
/// The ATK wrapper's Java half.
const WRAPPER_JAR: &str = "/usr/share/java/java-atk-wrapper.jar";

/// The Swing fixture running, or why it cannot run here.
pub struct SwingApp {
    child: Child,
    log: PathBuf,
}

impl SwingApp {
    /// Why the Swing fixture cannot run here (`None`: it can).
    pub fn missing() -> Option<String> {
        let wrapper = Path::new(WRAPPER_JAR).exists()
            && ["/usr/lib/x86_64-linux-gnu/jni", "/usr/lib/aarch64-linux-gnu/jni"]
                .iter()
                .any(|d| Path::new(d).join("libatk-wrapper.so").exists());
        match (Path::new(JAVA).exists(), wrapper) {
            (true, true) => None,
            _ => Some(format!(
                "Java Swing needs {JAVA} (package openjdk-17-jdk) and the ATK wrapper (package \
                 libatk-wrapper-java-jni); `cargo xtask setup` installs them"
            )),
        }
    }

    /// Start it on `desktop` and wait (up to `limit`) until its window is shown.
    pub fn launch(desktop: &Desktop, limit: Duration) -> Result<SwingApp, HarnessError> {
        static RUN: AtomicU32 = AtomicU32::new(0);
        let n = RUN.fetch_add(1, Ordering::Relaxed);
        let log = desktop.scratch_dir().join(format!("swing-{n}.log"));
        let stderr = desktop.scratch_dir().join(format!("swing-{n}.stderr"));
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/swing/DeftSwing.java");
        let err = std::fs::File::create(&stderr)
            .map_err(|source| HarnessError::Io { context: format!("creating {}", stderr.display()), source })?;
        let child = desktop
            .command(JAVA)
            .arg("-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper")
            .args(["-cp", WRAPPER_JAR])
            .arg(&source)
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .map_err(|source| HarnessError::Io { context: format!("starting {JAVA}"), source })?;
        let mut app = SwingApp { child, log };
        let deadline = Instant::now() + limit;
        // Shown, then on the accessibility bus: the ATK wrapper registers the window a
        // while after Swing shows it (seconds, on a loaded machine).
        while !(app.events().iter().any(|e| e["event"] == "ready") && on_the_bus(desktop)) {
            if Instant::now() >= deadline || app.child.try_wait().ok().flatten().is_some() {
                let said = std::fs::read_to_string(&stderr).unwrap_or_default();
                return Err(HarnessError::Other(format!(
                    "the Swing fixture did not show its window on the accessibility bus: {said}"
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(app)
    }

    /// Everything it logged so far, in order.
    pub fn events(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }

    /// The logged events of kind `event` about `widget`.
    pub fn count(&self, event: &str, widget: &str) -> usize {
        self.events().iter().filter(|e| e["event"] == event && e["widget"] == widget).count()
    }

    /// Whether its process still runs.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().is_ok_and(|s| s.is_none())
    }
}

/// Whether an independent AT-SPI client (pyatspi) sees the fixture's window with its
/// "Hello" button shown.
fn on_the_bus(desktop: &Desktop) -> bool {
    const SEEN: &str = r#"
import sys, pyatspi
def walk(n, d=0):
    if n is None or d > 12:
        return False
    if n.getRoleName() == 'push button' and n.name == 'Hello' and n.getState().contains(pyatspi.STATE_SHOWING):
        return True
    return any(walk(c, d + 1) for c in n)
d = pyatspi.Registry.getDesktop(0)
sys.exit(0 if any(w is not None and w.name == 'Deft Swing' and walk(w) for a in d if a for w in a) else 1)
"#;
    let status =
        desktop.command(crate::python()).args(["-c", SEEN]).stdout(Stdio::null()).stderr(Stdio::null()).status();
    status.is_ok_and(|s| s.success())
}

impl Drop for SwingApp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
