//! The corpus of real applications on a [`Desktop`], each started with the environment its
//! toolkit needs to be on the accessibility bus, and checks that it is still alive and
//! answering, made without Deft (procfs, `dbus-send`, `xdotool`).
//!
//! The packages are in [`crate::system::CORPUS`], which `cargo xtask setup` installs, so in
//! CI every app is there; a test skips an app only when its program is really absent.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::{Desktop, HarnessError, procs, workspace_root};

/// One application of the corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CorpusApp {
    /// GTK 3 (atk-bridge): gtk3-widget-factory, every GTK 3 widget.
    Gtk3WidgetFactory,
    /// GTK 4 (its own AT-SPI over GDBus): gtk4-widget-factory.
    Gtk4WidgetFactory,
    /// Qt 5: FeatherPad, a text editor.
    FeatherPad,
    /// Qt 6: Qt Designer (its "New Form" dialog opens at start).
    QtDesigner,
    /// GTK 3 (atk-bridge), a plain editor: Mousepad.
    Mousepad,
    /// Chromium on the local web fixture page (`tests/fixtures/web/form.html`).
    Chromium,
    /// Firefox ESR on the same page.
    Firefox,
    /// LibreOffice Writer (VCL on its GTK 3 plugin, which reports itself as `gtk` 3.24).
    LibreOfficeWriter,
    /// LibreOffice Calc, the same way: a sheet that says it has 2^31 - 1 cells.
    LibreOfficeCalc,
    /// LibreOffice Impress, the same way: its template dialog at start, slides whose
    /// placeholders keep their text in a paragraph inside them.
    LibreOfficeImpress,
    /// GNOME Calculator: GTK 4 with libadwaita (a header bar, popover menus).
    GnomeCalculator,
    /// KCalc: Qt 5 with KDE Frameworks (its display is a frame whose name is the number).
    KCalc,
    /// gtk-demo of GTK 2 (GAIL and the GTK 2 atk-bridge module): GTK 2's widgets, menus and
    /// dialogs, as GIMP 2 has them.
    Gtk2Demo,
    /// qmmp: Qt 5 with custom widgets (a music player playing a generated tone to its null
    /// output: a position that ticks by itself, sliders that follow only a person's input).
    Qmmp,
}

impl CorpusApp {
    /// Every app of the corpus.
    pub const ALL: [CorpusApp; 14] = [
        CorpusApp::Gtk3WidgetFactory,
        CorpusApp::Gtk4WidgetFactory,
        CorpusApp::FeatherPad,
        CorpusApp::QtDesigner,
        CorpusApp::Mousepad,
        CorpusApp::Chromium,
        CorpusApp::Firefox,
        CorpusApp::LibreOfficeWriter,
        CorpusApp::LibreOfficeCalc,
        CorpusApp::LibreOfficeImpress,
        CorpusApp::GnomeCalculator,
        CorpusApp::KCalc,
        CorpusApp::Gtk2Demo,
        CorpusApp::Qmmp,
    ];

    /// The program started.
    pub fn program(self) -> &'static str {
        match self {
            CorpusApp::Gtk3WidgetFactory => "/usr/bin/gtk3-widget-factory",
            CorpusApp::Gtk4WidgetFactory => "/usr/bin/gtk4-widget-factory",
            CorpusApp::FeatherPad => "/usr/bin/featherpad",
            CorpusApp::QtDesigner => "/usr/lib/qt6/bin/designer",
            CorpusApp::Mousepad => "/usr/bin/mousepad",
            CorpusApp::Chromium => "/usr/bin/chromium",
            CorpusApp::Firefox => "/usr/bin/firefox-esr",
            // The program itself: `lowriter` goes through `oosplash`, which forks it, and
            // the harness tells the app on the bus by its process id.
            CorpusApp::LibreOfficeWriter | CorpusApp::LibreOfficeCalc | CorpusApp::LibreOfficeImpress => LIBREOFFICE,
            CorpusApp::GnomeCalculator => "/usr/bin/gnome-calculator",
            CorpusApp::KCalc => "/usr/bin/kcalc",
            CorpusApp::Gtk2Demo => "/usr/bin/gtk-demo",
            CorpusApp::Qmmp => "/usr/bin/qmmp",
        }
    }

    /// The Debian package that provides [`CorpusApp::program`].
    pub fn package(self) -> &'static str {
        match self {
            CorpusApp::Gtk3WidgetFactory => "gtk-3-examples",
            CorpusApp::Gtk4WidgetFactory => "gtk-4-examples",
            CorpusApp::FeatherPad => "featherpad",
            CorpusApp::QtDesigner => "designer-qt6",
            CorpusApp::Mousepad => "mousepad",
            CorpusApp::Chromium => "chromium",
            CorpusApp::Firefox => "firefox-esr",
            CorpusApp::LibreOfficeWriter => "libreoffice-writer",
            CorpusApp::LibreOfficeCalc => "libreoffice-calc",
            CorpusApp::LibreOfficeImpress => "libreoffice-impress",
            CorpusApp::GnomeCalculator => "gnome-calculator",
            CorpusApp::KCalc => "kcalc",
            CorpusApp::Gtk2Demo => "gtk2.0-examples",
            CorpusApp::Qmmp => "qmmp",
        }
    }

    /// The application's accessible name on the bus (its root's `Name`).
    pub fn accessible_name(self) -> &'static str {
        match self {
            CorpusApp::Gtk3WidgetFactory => "gtk3-widget-factory",
            CorpusApp::Gtk4WidgetFactory => "gtk4-widget-factory",
            CorpusApp::FeatherPad => "FeatherPad",
            CorpusApp::QtDesigner => "Designer",
            CorpusApp::Mousepad => "mousepad",
            CorpusApp::Chromium => "Chromium",
            CorpusApp::Firefox => "Firefox",
            CorpusApp::LibreOfficeWriter | CorpusApp::LibreOfficeCalc | CorpusApp::LibreOfficeImpress => "soffice",
            CorpusApp::GnomeCalculator => "gnome-calculator",
            CorpusApp::KCalc => "kcalc",
            CorpusApp::Gtk2Demo => "gtk-demo",
            CorpusApp::Qmmp => "qmmp",
        }
    }

    /// The app and its toolkit, for tables.
    pub fn label(self) -> &'static str {
        match self {
            CorpusApp::Gtk3WidgetFactory => "gtk3-widget-factory (GTK 3)",
            CorpusApp::Gtk4WidgetFactory => "gtk4-widget-factory (GTK 4)",
            CorpusApp::FeatherPad => "FeatherPad (Qt 5)",
            CorpusApp::QtDesigner => "Qt Designer (Qt 6)",
            CorpusApp::Mousepad => "Mousepad (GTK 3)",
            CorpusApp::Chromium => "Chromium (web page)",
            CorpusApp::Firefox => "Firefox (web page)",
            CorpusApp::LibreOfficeWriter => "LibreOffice Writer (VCL)",
            CorpusApp::LibreOfficeCalc => "LibreOffice Calc (VCL)",
            CorpusApp::LibreOfficeImpress => "LibreOffice Impress (VCL)",
            CorpusApp::GnomeCalculator => "GNOME Calculator (GTK 4 + libadwaita)",
            CorpusApp::KCalc => "KCalc (Qt 5 + KDE Frameworks)",
            CorpusApp::Gtk2Demo => "gtk-demo (GTK 2)",
            CorpusApp::Qmmp => "qmmp (Qt 5, custom widgets)",
        }
    }

    /// Whether it runs once per user whatever the desktop: a second start hands its
    /// arguments to the first and exits (qmmp: its socket is `/tmp/qmmp.sock.<uid>`, fixed
    /// in the program). Such an app is started by one test at a time.
    pub fn one_per_user(self) -> bool {
        self == CorpusApp::Qmmp
    }

    /// Whether its accessibility places elements relative to their window rather than on
    /// the screen (GTK 4 on X11).
    pub fn places_relative_to_window(self) -> bool {
        matches!(self, CorpusApp::Gtk4WidgetFactory | CorpusApp::GnomeCalculator)
    }

    /// Whether its program is installed (LibreOffice's modules share one program: a
    /// module's own library tells whether that module is there).
    pub fn is_installed(self) -> bool {
        let module = match self {
            CorpusApp::LibreOfficeCalc => Some(CALC_LIBRARY),
            CorpusApp::LibreOfficeImpress => Some(IMPRESS_LIBRARY),
            _ => None,
        };
        std::path::Path::new(self.program()).exists() && module.is_none_or(|m| std::path::Path::new(m).exists())
    }

    /// Why it cannot run here, or `None` when it can: what a test prints when it skips.
    pub fn missing(self) -> Option<String> {
        (!self.is_installed()).then(|| {
            format!(
                "{} is not installed (package {}); `cargo xtask setup` installs the corpus",
                self.program(),
                self.package()
            )
        })
    }

    /// The environment the app needs beyond the desktop's own.
    pub fn env(self) -> Vec<(&'static str, &'static str)> {
        match self {
            // Qt joins the accessibility bus only when asked (or when it sees a screen
            // reader); without these it is invisible to AT-SPI clients.
            CorpusApp::FeatherPad | CorpusApp::QtDesigner | CorpusApp::KCalc | CorpusApp::Qmmp => {
                vec![("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"), ("QT_ACCESSIBILITY", "1"), ("QT_QPA_PLATFORM", "xcb")]
            }
            // GTK 4's GL renderer fails on Xvfb's llvmpipe and the app never registers.
            CorpusApp::Gtk4WidgetFactory | CorpusApp::GnomeCalculator => vec![("GSK_RENDERER", "cairo")],
            // GTK 2 loads its accessibility as modules, only when told to: GAIL (the
            // widgets' ATK side) and the bridge that puts ATK on the AT-SPI bus.
            CorpusApp::Gtk2Demo => vec![("GTK_MODULES", "gail:atk-bridge")],
            CorpusApp::Firefox => vec![("MOZ_CRASHREPORTER_DISABLE", "1")],
            // Its accessibility goes through the GTK 3 plugin; left to itself, on a desktop
            // that names no desktop environment, it may pick the plain X11 one, which has none.
            CorpusApp::LibreOfficeWriter | CorpusApp::LibreOfficeCalc | CorpusApp::LibreOfficeImpress => {
                vec![("SAL_USE_VCLPLUGIN", "gtk3")]
            }
            _ => Vec::new(),
        }
    }

    /// The arguments; `profile` is a fresh directory for the app's settings.
    pub fn args(self, profile: &std::path::Path) -> Vec<String> {
        let page = format!("file://{}", web_fixture().display());
        match self {
            CorpusApp::Chromium => {
                let mut args: Vec<String> = [
                    // Without this, Chromium builds its accessibility tree only for a screen
                    // reader it recognises.
                    "--force-renderer-accessibility",
                    // What this machine needs: root in a container, no GPU, no network.
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--no-default-browser-check",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--disable-quic",
                    "--password-store=basic",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
                args.push(format!("--user-data-dir={}", profile.display()));
                args.push(page);
                args
            }
            CorpusApp::Firefox => {
                vec!["--no-remote".into(), "--profile".into(), profile.display().to_string(), page]
            }
            CorpusApp::LibreOfficeWriter | CorpusApp::LibreOfficeCalc | CorpusApp::LibreOfficeImpress => {
                let module = match self {
                    CorpusApp::LibreOfficeCalc => "--calc",
                    CorpusApp::LibreOfficeImpress => "--impress",
                    _ => "--writer",
                };
                let mut args: Vec<String> = [module, "--norestore", "--nologo"].map(String::from).to_vec();
                args.push(libreoffice_profile(profile));
                args
            }
            CorpusApp::Qmmp => crate::qmmp::TRACKS.iter().map(|t| profile.join(t).display().to_string()).collect(),
            _ => Vec::new(),
        }
    }

    /// Settings written into a fresh profile before the start.
    pub(crate) fn prepare(self, profile: &std::path::Path) -> std::io::Result<()> {
        std::fs::create_dir_all(profile)?;
        if self == CorpusApp::Firefox {
            // No first-run pages, no default-browser question, nothing phoned home.
            let prefs = [
                ("browser.shell.checkDefaultBrowser", "false"),
                ("browser.aboutwelcome.enabled", "false"),
                ("datareporting.policy.dataSubmissionEnabled", "false"),
                ("toolkit.telemetry.reportingpolicy.firstRun", "false"),
                ("browser.startup.homepage_override.mstone", "\"ignore\""),
                ("app.update.auto", "false"),
                ("app.normandy.enabled", "false"),
                ("network.captive-portal-service.enabled", "false"),
                ("browser.tabs.warnOnClose", "false"),
            ];
            let text: String = prefs.iter().map(|(k, v)| format!("user_pref(\"{k}\", {v});\n")).collect();
            std::fs::write(profile.join("user.js"), text)?;
        }
        if self == CorpusApp::Qmmp {
            crate::qmmp::prepare(profile)?;
        }
        if matches!(self, CorpusApp::LibreOfficeWriter | CorpusApp::LibreOfficeCalc | CorpusApp::LibreOfficeImpress) {
            // On a fresh profile LibreOffice exits with 81 ("restart me") once it has set the
            // profile up, which `oosplash` would handle; the harness starts the program
            // itself, so it sets the profile up first, headless (0.1 s here).
            let status = Command::new(LIBREOFFICE)
                .args(["--headless", "--terminate_after_init", "--norestore"])
                .arg(libreoffice_profile(profile))
                .env_remove("DISPLAY")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()?;
            if !status.success() && status.code() != Some(81) {
                return Err(std::io::Error::other(format!("setting up a LibreOffice profile: {LIBREOFFICE} {status}")));
            }
        }
        Ok(())
    }
}

/// LibreOffice's program (not its `soffice` and `lowriter` wrapper scripts).
const LIBREOFFICE: &str = "/usr/lib/libreoffice/program/soffice.bin";

/// A file of the `libreoffice-calc` package: Calc's own library.
const CALC_LIBRARY: &str = "/usr/lib/libreoffice/program/libsclo.so";

/// A file of the `libreoffice-impress` package: Impress's slide show.
pub const IMPRESS_LIBRARY: &str = "/usr/lib/libreoffice/program/libslideshowlo.so";

/// LibreOffice's argument that puts its settings in `profile`.
fn libreoffice_profile(profile: &std::path::Path) -> String {
    format!("-env:UserInstallation=file://{}", profile.display())
}

/// The local page the browsers open.
pub fn web_fixture() -> PathBuf {
    workspace_root().join("tests/fixtures/web/form.html")
}

/// A running corpus app. Terminated (SIGTERM, then SIGKILL) and reaped on drop; its
/// desktop's teardown catches whatever it started.
pub struct RunningApp {
    app: CorpusApp,
    child: Child,
    log: PathBuf,
    /// The fresh directory for its settings (and its `$HOME` where it keeps them there).
    profile: PathBuf,
    /// For an app that runs once per user, the lock that keeps other tests from starting
    /// it meanwhile; released after the app is terminated (fields drop after `drop`).
    _one_at_a_time: Option<std::fs::File>,
    started: Instant,
}

impl RunningApp {
    /// Start `app` on `desktop`. Returns at once; [`RunningApp::wait_registered`] waits for
    /// it to join the accessibility bus.
    pub fn launch(desktop: &Desktop, app: CorpusApp) -> Result<RunningApp, HarnessError> {
        static RUN: AtomicU32 = AtomicU32::new(0);
        let n = RUN.fetch_add(1, Ordering::Relaxed);
        let name = app.accessible_name().to_lowercase();
        let profile = desktop.scratch_dir().join(format!("{name}-{n}-profile"));
        let io = |context: String| move |source| HarnessError::Io { context, source };
        app.prepare(&profile).map_err(io(format!("preparing {}", profile.display())))?;
        let log = desktop.scratch_dir().join(format!("{name}-{n}.log"));
        let log_file = std::fs::File::create(&log).map_err(io(format!("creating {}", log.display())))?;
        // Held until the app is gone: tests in other threads or processes wait here.
        let one_at_a_time = match app.one_per_user() {
            true => {
                let path = std::env::temp_dir().join(format!("deft-{name}.lock"));
                let lock = std::fs::File::create(&path).map_err(io(format!("creating {}", path.display())))?;
                procs::lock_exclusive(&lock).map_err(io(format!("locking {}", path.display())))?;
                Some(lock)
            }
            false => None,
        };
        let mut cmd = desktop.command(app.program());
        cmd.args(app.args(&profile))
            .envs(app.env())
            // Settings of editors (FeatherPad, Mousepad) go to the desktop's scratch, not $HOME.
            .env("XDG_CONFIG_HOME", profile.join("config"))
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().map_err(io("duplicating a log file".into()))?)
            .stderr(log_file);
        if app == CorpusApp::Qmmp {
            // qmmp keeps its settings in $HOME/.qmmp, whatever XDG says.
            cmd.env("HOME", &profile);
        }
        let child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                HarnessError::Missing { program: app.program().into(), package: app.package().into() }
            }
            _ => HarnessError::Io { context: format!("starting {}", app.program()), source: e },
        })?;
        Ok(RunningApp { app, child, log, profile, started: Instant::now(), _one_at_a_time: one_at_a_time })
    }

    /// Which app this is.
    pub fn app(&self) -> CorpusApp {
        self.app
    }

    /// The directory its settings (and files it was given) are in.
    pub fn profile(&self) -> &std::path::Path {
        &self.profile
    }

    /// Its process id (the browsers' wrapper scripts exec the browser, keeping it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Wait until the app is on the accessibility bus with at least one window, and return
    /// its bus name. Fails early when it exits.
    pub fn wait_registered(&mut self, desktop: &Desktop, limit: Duration) -> Result<String, HarnessError> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().ok().flatten() {
                return Err(HarnessError::Other(format!(
                    "{} exited ({status}) before it joined the accessibility bus; {}",
                    self.app.program(),
                    self.log_tail()
                )));
            }
            if let Some(bus) = self.bus_name(desktop) {
                let windows = dbus(desktop, &bus, "org.a11y.atspi.Accessible.GetChildren", Duration::from_secs(2));
                if windows.is_ok_and(|out| out.contains("object path")) {
                    return Ok(bus);
                }
            }
            if start.elapsed() > limit {
                return Err(HarnessError::Timeout {
                    what: format!("{} to join the accessibility bus ({})", self.app.program(), self.log_tail()),
                    waited: limit,
                });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// How long ago it was started.
    pub fn age(&self) -> Duration {
        self.started.elapsed()
    }

    /// The app's bus name on the accessibility bus: the registered application whose
    /// connection belongs to its process.
    pub fn bus_name(&self, desktop: &Desktop) -> Option<String> {
        let a11y = a11y_address(desktop)?;
        let apps = desktop
            .command("dbus-send")
            .args([&format!("--bus={a11y}"), "--print-reply", "--reply-timeout=2000"])
            .args(["--dest=org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root"])
            .arg("org.a11y.atspi.Accessible.GetChildren")
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&apps.stdout);
        let names: Vec<&str> =
            text.lines().filter_map(|l| l.trim().strip_prefix("string \"")?.strip_suffix('"')).collect();
        names
            .into_iter()
            .find(|name| {
                let pid = desktop
                    .command("dbus-send")
                    .args([&format!("--bus={a11y}"), "--print-reply", "--reply-timeout=2000"])
                    .args(["--dest=org.freedesktop.DBus", "/org/freedesktop/DBus"])
                    .args(["org.freedesktop.DBus.GetConnectionUnixProcessID", &format!("string:{name}")])
                    .stderr(Stdio::null())
                    .output();
                pid.is_ok_and(|o| {
                    String::from_utf8_lossy(&o.stdout).split_whitespace().last() == Some(&self.pid().to_string())
                })
            })
            .map(str::to_string)
    }

    /// Whether the app is alive and answering, checked without Deft: its process is neither
    /// gone, a zombie nor stopped; it answers an AT-SPI `GetRole` on its root within
    /// `limit` (through the bus daemon, so a main thread stuck on a futex shows); and its X
    /// window is still there. `Err` says what is wrong.
    pub fn check_responsive(&mut self, desktop: &Desktop, limit: Duration) -> Result<(), String> {
        if let Some(status) = self.child.try_wait().ok().flatten() {
            return Err(format!("{} exited: {status}; {}", self.app.program(), self.log_tail()));
        }
        let state = process_state(self.pid());
        if matches!(state, Some('Z' | 'T' | 't' | 'X') | None) {
            return Err(format!("{} is in process state {state:?}", self.app.program()));
        }
        let bus = self.bus_name(desktop).ok_or_else(|| {
            format!("{} is no longer on the accessibility bus; {}", self.app.program(), self.log_tail())
        })?;
        dbus(desktop, &bus, "org.a11y.atspi.Accessible.GetRole", limit).map_err(|e| {
            format!(
                "{} (pid {}, main thread in {}) does not answer GetRole within {limit:?}: {e}",
                self.app.program(),
                self.pid(),
                wchan(self.pid())
            )
        })?;
        let windows = desktop
            .command("xdotool")
            .args(["search", "--onlyvisible", "--pid", &self.pid().to_string()])
            .stderr(Stdio::null())
            .output()
            .map_err(|e| format!("xdotool: {e}"))?;
        if String::from_utf8_lossy(&windows.stdout).trim().is_empty() {
            return Err(format!("{} has no visible X window any more", self.app.program()));
        }
        Ok(())
    }

    /// How the app ended, when it exits within `limit` (told to quit); `None` while it runs.
    pub fn exited_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let until = std::time::Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().ok().flatten() {
                return Some(status);
            }
            if std::time::Instant::now() >= until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Everything the app printed (its stack when it crashed, LibreOffice's included).
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The last lines of the app's output, for error messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        format!("its output ends with: [{}]", lines[lines.len().saturating_sub(6)..].join(" | "))
    }
}

impl Drop for RunningApp {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        procs::signal(self.child.id() as i32, libc::SIGTERM);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(3) {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The accessibility bus address of `desktop`.
pub fn a11y_address(desktop: &Desktop) -> Option<String> {
    let out = desktop
        .command("dbus-send")
        .args(["--session", "--print-reply=literal", "--reply-timeout=2000", "--dest=org.a11y.Bus"])
        .args(["/org/a11y/bus", "org.a11y.Bus.GetAddress"])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let address = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!address.is_empty()).then_some(address)
}

/// Call `method` (no arguments) on `bus`'s root accessible through the accessibility bus
/// daemon, waiting at most `limit`; the reply's text.
fn dbus(desktop: &Desktop, bus: &str, method: &str, limit: Duration) -> Result<String, String> {
    let a11y = a11y_address(desktop).ok_or("the accessibility bus does not answer")?;
    let out: std::process::Output = Command::new("dbus-send")
        .envs(desktop.env())
        .args([&format!("--bus={a11y}"), "--print-reply", &format!("--reply-timeout={}", limit.as_millis())])
        .args([&format!("--dest={bus}"), "/org/a11y/atspi/accessible/root", method])
        .output()
        .map_err(|e| format!("dbus-send: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The process state letter from `/proc/PID/stat` (`R`, `S`, `D`, `Z`, `T`, ...).
fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// Where the process's main thread waits (`futex_do_wait` for a deadlock).
fn wchan(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/wchan")).unwrap_or_else(|_| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_app_has_a_package_and_the_browsers_get_their_flags() {
        for app in CorpusApp::ALL {
            assert!(app.program().starts_with('/'), "{app:?}");
            assert!(
                crate::system::CORPUS.iter().any(|r| r.package == app.package()),
                "{app:?}: package {} is not in system::CORPUS, so setup would not install it",
                app.package()
            );
        }
        let args = CorpusApp::Chromium.args(std::path::Path::new("/tmp/p"));
        for flag in ["--force-renderer-accessibility", "--no-sandbox", "--disable-gpu", "--user-data-dir=/tmp/p"] {
            assert!(args.iter().any(|a| a == flag), "{flag} missing from {args:?}");
        }
        assert!(args.last().is_some_and(|a| a.starts_with("file://") && a.ends_with("form.html")));
        assert!(web_fixture().exists(), "{} is missing", web_fixture().display());
        assert!(CorpusApp::QtDesigner.env().contains(&("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")));
        assert!(CorpusApp::Gtk4WidgetFactory.env().contains(&("GSK_RENDERER", "cairo")));
    }

    #[test]
    fn process_state_reads_our_own() {
        assert!(matches!(process_state(std::process::id()), Some('R' | 'S')));
        assert_eq!(process_state(u32::MAX), None);
    }
}
