//! One headless desktop: Xvfb, a session D-Bus, the AT-SPI bus and openbox.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::procs::{self, MARKER_VAR};

/// What went wrong while starting or using a desktop.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// A program the desktop needs is not installed.
    #[error(
        "{program} is not installed (package {package}); run `cargo xtask setup` as root to install what Deft needs"
    )]
    Missing {
        /// The program.
        program: String,
        /// The Debian package that provides it.
        package: String,
    },
    /// A part of the desktop did not start.
    #[error("{what} did not start: {detail}")]
    StartFailed {
        /// Which part.
        what: &'static str,
        /// Why, with the tail of its log.
        detail: String,
    },
    /// Something did not happen in time.
    #[error("{what} did not happen within {waited:?}")]
    Timeout {
        /// What was waited for.
        what: String,
        /// How long.
        waited: Duration,
    },
    /// An I/O error, with what was being done.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        source: std::io::Error,
    },
    /// Anything else, in plain words.
    #[error("{0}")]
    Other(String),
}

/// How to start a desktop.
#[derive(Clone, Debug)]
pub struct DesktopConfig {
    /// Screen width in pixels.
    pub width: u32,
    /// Screen height in pixels.
    pub height: u32,
    /// Start the AT-SPI bus and mark accessibility enabled.
    pub accessibility: bool,
    /// Start the openbox window manager (without one, windows cannot be listed).
    pub window_manager: bool,
    /// How long each part may take to come up.
    pub startup_timeout: Duration,
}

impl Default for DesktopConfig {
    fn default() -> Self {
        DesktopConfig {
            width: 1280,
            height: 800,
            accessibility: true,
            window_manager: true,
            startup_timeout: Duration::from_secs(20),
        }
    }
}

/// A running headless desktop. Everything it started is torn down when it is dropped.
///
/// The daemons die with the thread that started the desktop (a safety net for a killed
/// test binary), so keep a desktop on the thread that created it.
pub struct Desktop {
    display: String,
    bus_address: String,
    marker: String,
    scratch: PathBuf,
    daemons: Vec<(&'static str, Child)>,
}

impl Desktop {
    /// A 1280x800 desktop with accessibility and a window manager.
    pub fn start() -> Result<Desktop, HarnessError> {
        Desktop::start_with(&DesktopConfig::default())
    }

    /// A desktop as configured.
    pub fn start_with(config: &DesktopConfig) -> Result<Desktop, HarnessError> {
        procs::become_subreaper();
        let marker = unique_marker();
        let scratch = std::env::temp_dir().join(format!("deft-desktop-{marker}"));
        let runtime = scratch.join("runtime");
        std::fs::create_dir_all(&runtime)
            .map_err(|source| HarnessError::Io { context: format!("creating {}", runtime.display()), source })?;
        set_private(&runtime);
        // From here on, dropping `desktop` tears down whatever has started so far.
        let mut desktop =
            Desktop { display: String::new(), bus_address: String::new(), marker, scratch, daemons: Vec::new() };
        let limit = config.startup_timeout;

        let geometry = format!("{}x{}x24", config.width, config.height);
        let (xvfb, display) = desktop.spawn_reporting(
            "Xvfb",
            "xvfb",
            &["-displayfd", "1", "-screen", "0", &geometry, "-nolisten", "tcp", "-dpi", "96", "-noreset"],
            limit,
        )?;
        desktop.daemons.push(("Xvfb", xvfb));
        desktop.display = format!(":{}", display.trim());

        let bus_listen = format!("--address=unix:path={}", desktop.scratch.join("bus").display());
        let (dbus, address) = desktop.spawn_reporting(
            "dbus-daemon",
            "dbus",
            &["--session", "--nofork", "--print-address=1", &bus_listen],
            limit,
        )?;
        desktop.daemons.push(("dbus-daemon", dbus));
        desktop.bus_address = address.trim().to_string();

        if config.accessibility {
            let launcher =
                desktop.spawn_daemon("/usr/libexec/at-spi-bus-launcher", "at-spi2-core", &["--launch-immediately"])?;
            desktop.daemons.push(("at-spi-bus-launcher", launcher));
            // Ask whether the launcher owns its name before calling it: a call to an unowned
            // name would make D-Bus activate a second launcher, and ours would then quit.
            desktop.poll_until("the AT-SPI bus launcher to take its name", limit, |d| {
                d.command("dbus-send")
                    .args(["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus"])
                    .args(["org.freedesktop.DBus.NameHasOwner", "string:org.a11y.Bus"])
                    .stderr(Stdio::null())
                    .output()
                    .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("boolean true"))
            })?;
            desktop.poll_until("the AT-SPI bus to answer", limit, |d| {
                d.run_quiet(
                    "dbus-send",
                    &["--session", "--print-reply", "--dest=org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus.GetAddress"],
                )
            })?;
            // GTK registers on its own; other toolkits (Qt, Chromium) wait for this flag.
            desktop.run_quiet(
                "dbus-send",
                &[
                    "--session",
                    "--print-reply",
                    "--dest=org.a11y.Bus",
                    "/org/a11y/bus",
                    "org.freedesktop.DBus.Properties.Set",
                    "string:org.a11y.Status",
                    "string:IsEnabled",
                    "variant:boolean:true",
                ],
            );
        }

        if config.window_manager {
            let wm = desktop.spawn_daemon("openbox", "openbox", &["--sm-disable"])?;
            desktop.daemons.push(("openbox", wm));
            desktop.poll_until("the window manager to take the screen", limit, |d| {
                d.command("xprop")
                    .args(["-root", "_NET_SUPPORTING_WM_CHECK"])
                    .stderr(Stdio::null())
                    .output()
                    .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("window id"))
            })?;
        }
        Ok(desktop)
    }

    /// The X display, e.g. `:7`.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The session bus address.
    pub fn bus_address(&self) -> &str {
        &self.bus_address
    }

    /// The environment a program needs to run on this desktop.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("DISPLAY".into(), self.display.clone()),
            ("DBUS_SESSION_BUS_ADDRESS".into(), self.bus_address.clone()),
            ("XDG_RUNTIME_DIR".into(), self.scratch.join("runtime").display().to_string()),
            ("GDK_BACKEND".into(), "x11".into()),
            (MARKER_VAR.into(), self.marker.clone()),
        ]
    }

    /// A command that runs on this desktop. Whatever it starts is torn down with the
    /// desktop, even if the caller forgets it.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.envs(self.env()).env_remove("WAYLAND_DISPLAY").env_remove("NO_AT_BRIDGE");
        cmd
    }

    /// A private directory that is removed with the desktop.
    pub fn scratch_dir(&self) -> &Path {
        &self.scratch
    }

    /// Start a long-running part of the desktop in its own process group, logging to the
    /// scratch directory.
    fn spawn_daemon(&self, program: &str, package: &str, args: &[&str]) -> Result<Child, HarnessError> {
        let mut cmd = self.daemon_command(program, args)?;
        cmd.stdout(Stdio::null());
        self.spawn(cmd, program, package)
    }

    /// Start a daemon that reports one line on stdout when it is ready (Xvfb's display
    /// number, dbus-daemon's address) and return that line.
    fn spawn_reporting(
        &self,
        program: &'static str,
        package: &str,
        args: &[&str],
        limit: Duration,
    ) -> Result<(Child, String), HarnessError> {
        let mut cmd = self.daemon_command(program, args)?;
        cmd.stdout(Stdio::piped());
        let mut child = self.spawn(cmd, program, package)?;
        let stdout = child.stdout.take().expect("stdout was piped");
        match read_line_within(stdout, limit) {
            Some(line) if !line.trim().is_empty() => Ok((child, line)),
            got => {
                let _ = child.kill();
                let _ = child.wait();
                let detail = match got {
                    None => format!("no answer within {limit:?}"),
                    Some(_) => "it exited before it was ready".to_string(),
                };
                Err(HarnessError::StartFailed {
                    what: program,
                    detail: format!("{detail}; {}", self.log_tail(program)),
                })
            }
        }
    }

    fn daemon_command(&self, program: &str, args: &[&str]) -> Result<Command, HarnessError> {
        use std::os::unix::process::CommandExt;
        let log = self.scratch.join(format!("{}.log", log_name(program)));
        let log = std::fs::File::create(&log)
            .map_err(|source| HarnessError::Io { context: format!("creating {}", log.display()), source })?;
        let mut cmd = self.command(program);
        cmd.args(args).stdin(Stdio::null()).stderr(log).process_group(0);
        if self.display.is_empty() {
            cmd.env_remove("DISPLAY");
        }
        procs::die_with_parent(&mut cmd);
        Ok(cmd)
    }

    fn spawn(&self, mut cmd: Command, program: &str, package: &str) -> Result<Child, HarnessError> {
        cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                HarnessError::Missing { program: program.to_string(), package: package.to_string() }
            }
            _ => HarnessError::Io { context: format!("starting {program}"), source: e },
        })
    }

    fn run_quiet(&self, program: &str, args: &[&str]) -> bool {
        self.command(program).args(args).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
    }

    fn poll_until(
        &mut self,
        what: &str,
        limit: Duration,
        mut ready: impl FnMut(&Desktop) -> bool,
    ) -> Result<(), HarnessError> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(5);
        while !ready(self) {
            if let Some(dead) = self.dead_daemon() {
                return Err(HarnessError::StartFailed {
                    what: "desktop",
                    detail: format!("{dead} while waiting for {what}"),
                });
            }
            if start.elapsed() > limit {
                return Err(HarnessError::Timeout { what: what.to_string(), waited: limit });
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
        Ok(())
    }

    /// A description of the first daemon that has exited, if any.
    fn dead_daemon(&mut self) -> Option<String> {
        let (name, status) = self.daemons.iter_mut().find_map(|(name, c)| Some((*name, c.try_wait().ok()??)))?;
        Some(format!("{name} exited with {status}; {}", self.log_tail(name)))
    }

    fn log_tail(&self, program: &str) -> String {
        let path = self.scratch.join(format!("{}.log", log_name(program)));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect();
        if tail.is_empty() {
            "it logged nothing".to_string()
        } else {
            format!("its log ends with: {}", tail.join(" | "))
        }
    }
}

impl Drop for Desktop {
    fn drop(&mut self) {
        // Everything carrying the marker: the daemons, what they activated, and whatever
        // commands ran on the desktop.
        procs::terminate_marked(&self.marker, Duration::from_secs(2));
        // The daemons were signalled and reaped above by pid. Never `kill()` them through
        // their `Child` now: std does not know they were reaped, and with pid_max at 32768
        // their pids may already belong to another test's process.
        for (_, child) in &mut self.daemons {
            let _ = child.try_wait();
        }
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

fn unique_marker() -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    format!("{}-{}-{nanos:x}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

fn log_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

fn set_private(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    // at-spi-bus-launcher and GLib refuse a runtime directory others can read.
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
}

/// Read one line from a pipe, giving up after `limit`. `Some("")` means the writer closed
/// the pipe without writing (it exited).
fn read_line_within(stdout: ChildStdout, limit: Duration) -> Option<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let mut reader = BufReader::new(stdout);
        let _ = reader.read_line(&mut line);
        let _ = tx.send(line);
        // Keep draining so the daemon never blocks on a full pipe.
        let mut sink = String::new();
        while reader.read_line(&mut sink).is_ok_and(|n| n > 0) {
            sink.clear();
        }
    });
    rx.recv_timeout(limit).ok()
}
