//! A headless Wayland compositor beside a test desktop: sway (wlroots) on its headless
//! backend with the pixman renderer, no GPU, no XWayland; or weston on its headless
//! backend, a compositor that offers no protocol Deft can send input through (the session
//! a Deft without an input backend for it meets: KDE's looks like that to it); or mutter,
//! GNOME's compositor, headless, with the PipeWire daemon its remote desktop sessions need.
//!
//! sway refuses to run as root (it checks that root cannot be regained), so it runs as
//! `nobody` through `setpriv`, in a runtime directory of its own that `nobody` owns; root's
//! clients (the apps and Deft) connect to its socket by path. It shares the desktop's
//! accessibility bus with the apps: a native Wayland app registers there as on X11.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::desktop::{Desktop, HarnessError};

/// The uid and gid sway runs as: `nobody` and `nogroup` on Debian.
const NOBODY: u32 = 65534;

/// A running sway; stopped when dropped (and with its desktop in any case).
pub struct Sway {
    child: Child,
    socket: PathBuf,
}

impl Sway {
    /// The compositor's socket, as `WAYLAND_DISPLAY` takes it (an absolute path).
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// sway's IPC socket (`sway-ipc.UID.PID.sock`, beside the Wayland socket), for swaymsg's
    /// `SWAYSOCK` and for Deft's window geometry.
    pub fn ipc(&self) -> PathBuf {
        let dir = self.socket.parent().unwrap_or(Path::new("/"));
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("sway-ipc.")))
            .unwrap_or_else(|| dir.join("sway-ipc.sock"))
    }

    /// The environment a native Wayland client of this compositor needs, on top of the
    /// desktop's: the socket, GTK and Qt told to use Wayland, and no X display (so nothing
    /// can fall back to X11 unnoticed).
    pub fn client_env(&self) -> Vec<(String, String)> {
        client_env(&self.socket)
    }
}

/// The environment a native Wayland client of the compositor at `socket` needs, on top of
/// the desktop's.
fn client_env(socket: &Path) -> Vec<(String, String)> {
    vec![
        ("WAYLAND_DISPLAY".into(), socket.display().to_string()),
        ("GDK_BACKEND".into(), "wayland".into()),
        ("QT_QPA_PLATFORM".into(), "wayland".into()),
        // Empty, not unset: the desktop's command sets it, and an empty one opens nothing.
        ("DISPLAY".into(), String::new()),
    ]
}

/// A running weston; stopped when dropped (and with its desktop in any case).
pub struct Weston {
    child: Child,
    socket: PathBuf,
}

impl Weston {
    /// The compositor's socket, as `WAYLAND_DISPLAY` takes it (an absolute path).
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// As [`Sway::client_env`].
    pub fn client_env(&self) -> Vec<(String, String)> {
        client_env(&self.socket)
    }
}

impl Drop for Weston {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Wayland socket an app's environment names (as [`Sway::client_env`] makes it), if
/// it names one.
pub fn socket_in(env: &[(String, String)]) -> Option<&str> {
    env.iter().find(|(k, _)| k == "WAYLAND_DISPLAY").map(|(_, v)| v.as_str())
}

/// Puts `cmd` (agent-cli, or any client that acts) in the session of an app started with
/// `env`: the Wayland compositor's when it names one (its socket, no X display); else it
/// stays on the desktop's X display.
pub fn in_session(cmd: &mut std::process::Command, env: &[(String, String)]) {
    if let Some(socket) = socket_in(env) {
        cmd.env_remove("DISPLAY").env("WAYLAND_DISPLAY", socket);
    }
}

impl Drop for Sway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Desktop {
    /// Starts sway beside this desktop's X server and bus. Fails with what is missing when
    /// sway or setpriv is not installed.
    pub fn start_sway(&self) -> Result<Sway, HarnessError> {
        let io = |context: String| move |source| HarnessError::Io { context, source };
        let runtime = self.scratch_dir().join("sway-runtime");
        std::fs::create_dir_all(&runtime).map_err(io(format!("creating {}", runtime.display())))?;
        std::os::unix::fs::chown(&runtime, Some(NOBODY), Some(NOBODY))
            .map_err(io(format!("giving {} to nobody", runtime.display())))?;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700))
            .map_err(io(format!("making {} private", runtime.display())))?;
        // One headless output of the size the X desktop has; alt+F4 closes a window, as the
        // X desktop's openbox does.
        let config = self.scratch_dir().join("sway.conf");
        std::fs::write(&config, "output HEADLESS-1 resolution 1280x800\nbindsym Mod1+F4 kill\n")
            .map_err(io(format!("writing {}", config.display())))?;
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644))
            .map_err(io(format!("making {} readable", config.display())))?;
        let log_path = self.scratch_dir().join("sway.log");
        let log = std::fs::File::create(&log_path).map_err(io(format!("creating {}", log_path.display())))?;
        let ids = NOBODY.to_string();
        let mut cmd = self.command("setpriv");
        cmd.args(["--reuid", &ids, "--regid", &ids, "--clear-groups", "sway", "-c"])
            .arg(&config)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("HOME", &runtime)
            .env("WLR_BACKENDS", "headless")
            .env("WLR_RENDERER", "pixman")
            .env("WLR_LIBINPUT_NO_DEVICES", "1")
            .env_remove("DISPLAY")
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        let child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                HarnessError::Missing { program: "setpriv".into(), package: "util-linux".into() }
            }
            _ => HarnessError::Io { context: "starting sway".into(), source: e },
        })?;
        let mut sway = Sway { child, socket: PathBuf::new() };
        sway.socket = await_socket(&mut sway.child, &runtime, &log_path, "sway", |log| {
            (log.contains("sway: not found") || log.contains("No such file"))
                .then(|| HarnessError::Missing { program: "sway".into(), package: "sway".into() })
        })?;
        Ok(sway)
    }
}

impl Desktop {
    /// Starts weston on its headless backend beside this desktop (as root: weston allows
    /// it), with a runtime directory of its own. Fails with what is missing when weston is
    /// not installed.
    pub fn start_weston(&self) -> Result<Weston, HarnessError> {
        let io = |context: String| move |source| HarnessError::Io { context, source };
        let runtime = self.scratch_dir().join("weston-runtime");
        std::fs::create_dir_all(&runtime).map_err(io(format!("creating {}", runtime.display())))?;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700))
            .map_err(io(format!("making {} private", runtime.display())))?;
        let log_path = self.scratch_dir().join("weston.log");
        let log = std::fs::File::create(&log_path).map_err(io(format!("creating {}", log_path.display())))?;
        let mut cmd = self.command("weston");
        cmd.args(["--backend=headless-backend.so", "--width=1280", "--height=800", "--idle-time=0"])
            .arg("--socket=wayland-weston")
            .env("XDG_RUNTIME_DIR", &runtime)
            .env_remove("DISPLAY")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        let child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                HarnessError::Missing { program: "weston".into(), package: "weston".into() }
            }
            _ => HarnessError::Io { context: "starting weston".into(), source: e },
        })?;
        let mut weston = Weston { child, socket: PathBuf::new() };
        weston.socket = await_socket(&mut weston.child, &runtime, &log_path, "weston", |_| None)?;
        Ok(weston)
    }
}

/// Waits for the socket of compositor `what` (started as `child`, logging to `log_path`) to
/// appear in `runtime`. If it exits first: the error `missing` makes of its log, or what
/// its log ends with.
fn await_socket(
    child: &mut Child,
    runtime: &Path,
    log_path: &Path,
    what: &'static str,
    missing: impl Fn(&str) -> Option<HarnessError>,
) -> Result<PathBuf, HarnessError> {
    let (limit, start) = (Duration::from_secs(20), Instant::now());
    loop {
        if let Some(socket) = wayland_socket(runtime) {
            return Ok(socket);
        }
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(log_path).unwrap_or_default();
            if let Some(e) = missing(&log) {
                return Err(e);
            }
            let tail: Vec<&str> = log.lines().rev().take(5).collect();
            let detail = format!("it exited ({status}); its log ends with: {}", tail.join(" | "));
            return Err(HarnessError::StartFailed { what, detail });
        }
        if start.elapsed() > limit {
            return Err(HarnessError::Timeout { what: format!("{what}'s socket"), waited: limit });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The compositor's socket in `runtime` (`wayland-N`, not its lock file), once it is there.
fn wayland_socket(runtime: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    std::fs::read_dir(runtime).ok()?.flatten().map(|e| e.path()).find(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        name.starts_with("wayland-")
            && !name.ends_with(".lock")
            && std::fs::metadata(p).is_ok_and(|m| m.file_type().is_socket())
    })
}

/// A running mutter (GNOME's compositor) on its headless backend with one virtual monitor,
/// and the PipeWire daemon and session manager its screen casts need; all stopped when
/// dropped.
pub struct Mutter {
    /// The pointer and keyboard a person at a GNOME desktop would have: a remote desktop
    /// session held for the compositor's life (GNOME Shell only; bare mutter is a seat
    /// with no devices of its own). Dropped before the compositor.
    seat: Option<deft_wayland::mutter::RemoteDesktop>,
    children: Vec<Child>,
    socket: PathBuf,
}

impl Mutter {
    /// The compositor's socket, as `WAYLAND_DISPLAY` takes it (an absolute path).
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// As [`Sway::client_env`].
    pub fn client_env(&self) -> Vec<(String, String)> {
        client_env(&self.socket)
    }
}

impl Drop for Mutter {
    fn drop(&mut self) {
        self.seat = None;
        // The compositor first, then PipeWire: mutter's streams end with it.
        for child in self.children.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Desktop {
    /// Starts mutter headless (`--headless --wayland --no-x11`, a 1280x800 virtual
    /// monitor) on this desktop's session bus, where it offers its RemoteDesktop and
    /// ScreenCast APIs, with a PipeWire daemon in a runtime directory the two share. As
    /// root: mutter allows it. Fails with what is missing when either is not installed.
    pub fn start_mutter(&self) -> Result<Mutter, HarnessError> {
        self.start_gnome(false)
    }

    /// Starts GNOME Shell headless instead of bare mutter (the same compositor and APIs,
    /// with the Shell's own UI), with Deft's Shell extension installed and enabled, so Deft
    /// can place windows. The Shell wants a system bus and logind: it gets a private bus
    /// of its own, and, in a mount namespace of its own, no `/run/systemd` (so it does not
    /// look for logind there). Settings come from a key file, not dconf: the extension
    /// enabled, animations off.
    pub fn start_gnome_shell(&self) -> Result<Mutter, HarnessError> {
        self.start_gnome(true)
    }

    fn start_gnome(&self, shell: bool) -> Result<Mutter, HarnessError> {
        let io = |context: String| move |source| HarnessError::Io { context, source };
        let runtime = self.scratch_dir().join("mutter-runtime");
        std::fs::create_dir_all(&runtime).map_err(io(format!("creating {}", runtime.display())))?;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700))
            .map_err(io(format!("making {} private", runtime.display())))?;
        // PipeWire (and its session manager, which links a stream to its reader) in the
        // desktop's own runtime directory, where every client of the desktop finds it; mutter
        // in one of its own, told where PipeWire is.
        let shared = self.scratch_dir().join("runtime");
        // `own`: in mutter's runtime directory; `env`: on top of the desktop's.
        let spawn = |program: &str, args: &[&str], log: &str, own: bool, env: &[(String, String)]| {
            let log_path = self.scratch_dir().join(log);
            let log = std::fs::File::create(&log_path).map_err(io(format!("creating {}", log_path.display())))?;
            self.command(program)
                .args(args)
                .env("XDG_RUNTIME_DIR", if own { &runtime } else { &shared })
                .env("PIPEWIRE_RUNTIME_DIR", &shared)
                .envs(env.iter().map(|(k, v)| (k, v)))
                .env_remove("DISPLAY")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .map_err(|e| match e.kind() {
                    std::io::ErrorKind::NotFound => {
                        HarnessError::Missing { program: program.into(), package: program.into() }
                    }
                    _ => HarnessError::Io { context: format!("starting {program}"), source: e },
                })
        };
        let pipewire = spawn("pipewire", &[], "pipewire.log", false, &[])?;
        let mut mutter = Mutter { seat: None, children: vec![pipewire], socket: PathBuf::new() };
        await_file(&shared.join("pipewire-0"), "PipeWire's socket")?;
        mutter.children.push(spawn("wireplumber", &[], "wireplumber.log", false, &[])?);
        let headless = "--headless --wayland --no-x11 --virtual-monitor 1280x800";
        if shell {
            let system_bus = self.scratch_dir().join("system-bus");
            let address = format!("unix:path={}", system_bus.display());
            let bus_args = ["--session", "--nofork", "--address", address.as_str()];
            mutter.children.push(spawn("dbus-daemon", &bus_args, "system-bus.log", false, &[])?);
            await_file(&system_bus, "the Shell's system bus")?;
            let mut env = self.gnome_settings()?;
            env.push(("DBUS_SYSTEM_BUS_ADDRESS".into(), address.clone()));
            let script = format!("mount -t tmpfs tmpfs /run/systemd && exec gnome-shell {headless}");
            let args = ["-m", "--propagation", "private", "sh", "-c", script.as_str()];
            mutter.children.push(spawn("unshare", &args, "mutter.log", true, &env)?);
        } else {
            let args: Vec<&str> = headless.split(' ').collect();
            mutter.children.push(spawn("mutter", &args, "mutter.log", true, &[])?);
        }
        let log_path = self.scratch_dir().join("mutter.log");
        let child = mutter.children.last_mut().expect("just pushed");
        mutter.socket = await_socket(child, &runtime, &log_path, "mutter", |_| None)?;
        // Its socket comes before its D-Bus API: a test acts through the API.
        let (limit, start) = (Duration::from_secs(20), Instant::now());
        while !self.bus_has("org.gnome.Mutter.RemoteDesktop") || (shell && !self.bus_has("org.deft.Windows")) {
            if start.elapsed() > limit {
                return Err(HarnessError::Timeout { what: "mutter's RemoteDesktop API".into(), waited: limit });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if shell {
            // GNOME Shell as a person's desktop: a pointer and a keyboard for as long as it
            // runs (a remote desktop session of the harness's own makes both), so Deft's
            // own devices come and go beside them. Bare mutter stays a headless seat with
            // none: each agent-cli run brings its own, as on a server.
            let seat = deft_wayland::mutter::RemoteDesktop::connect(Some(self.bus_address())).map_err(|detail| {
                HarnessError::StartFailed { what: "mutter's remote desktop (the seat's devices)", detail }
            })?;
            mutter.seat = Some(seat);
            self.close_startup_overview()?;
        }
        Ok(mutter)
    }

    /// GNOME Shell opens its overview once it has started (until then a cover of its own
    /// takes every press), and a press aimed at a window would land on the overview: once
    /// the overview is up, this closes it as a person's Escape would, and waits until the
    /// Shell says it is closed. An Escape sent before the overview is up is lost, which
    /// under load is most of the time.
    fn close_startup_overview(&self) -> Result<(), HarnessError> {
        let (limit, start) = (Duration::from_secs(30), Instant::now());
        let mut opened = false;
        loop {
            match self.overview_active() {
                Some(true) => {
                    opened = true;
                    self.set_overview(false);
                }
                Some(false) if opened => return Ok(()),
                _ => {}
            }
            if start.elapsed() > limit {
                let what = if opened { "GNOME Shell's overview to close" } else { "GNOME Shell's startup overview" };
                return Err(HarnessError::Timeout { what: what.into(), waited: limit });
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Whether GNOME Shell shows its overview (`org.gnome.Shell`'s `OverviewActive`);
    /// `None` before the Shell answers.
    pub fn overview_active(&self) -> Option<bool> {
        let said = self.overview_property("Get", None)?;
        Some(said.contains("boolean true")).filter(|_| said.contains("boolean"))
    }

    /// Asks GNOME Shell to open (`true`) or close its overview, as the Super key does.
    pub fn set_overview(&self, shown: bool) {
        let _ = self.overview_property("Set", Some(format!("variant:boolean:{shown}")));
    }

    /// `org.gnome.Shell`'s `OverviewActive` property got (`Get`) or set (`Set`, `value`)
    /// with `dbus-send`: its reply, when it succeeded.
    fn overview_property(&self, method: &str, value: Option<String>) -> Option<String> {
        let out = self
            .command("dbus-send")
            .args(["--session", "--print-reply", "--dest=org.gnome.Shell", "/org/gnome/Shell"])
            .arg(format!("org.freedesktop.DBus.Properties.{method}"))
            .args(["string:org.gnome.Shell", "string:OverviewActive"])
            .args(value)
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

impl Desktop {
    /// The environment that gives GNOME Shell its settings from a key file in this
    /// desktop's scratch directory, and Deft's Shell extension in its data directory.
    fn gnome_settings(&self) -> Result<Vec<(String, String)>, HarnessError> {
        let io = |context: String| move |source| HarnessError::Io { context, source };
        let config = self.scratch_dir().join("gnome-config");
        let keyfile = config.join("glib-2.0/settings");
        std::fs::create_dir_all(&keyfile).map_err(io(format!("creating {}", keyfile.display())))?;
        let settings = "[org/gnome/shell]\nenabled-extensions=['deft-windows@deft']\n\n\
                        [org/gnome/desktop/interface]\nenable-animations=false\n";
        std::fs::write(keyfile.join("keyfile"), settings).map_err(io("writing the Shell's settings".into()))?;
        let data = self.scratch_dir().join("gnome-data");
        let target = data.join("gnome-shell/extensions/deft-windows@deft");
        std::fs::create_dir_all(&target).map_err(io(format!("creating {}", target.display())))?;
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../crates/platform/wayland/gnome-extension/deft-windows@deft");
        for file in ["metadata.json", "extension.js"] {
            std::fs::copy(source.join(file), target.join(file))
                .map_err(io(format!("installing the extension's {file}")))?;
        }
        Ok(vec![
            ("GSETTINGS_BACKEND".into(), "keyfile".into()),
            ("XDG_CONFIG_HOME".into(), config.display().to_string()),
            ("XDG_DATA_HOME".into(), data.display().to_string()),
        ])
    }

    /// Whether a client owns `name` on this desktop's session bus.
    pub fn bus_has(&self, name: &str) -> bool {
        let asked = self
            .command("dbus-send")
            .args(["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus"])
            .arg("org.freedesktop.DBus.NameHasOwner")
            .arg(format!("string:{name}"))
            .output();
        asked.is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("boolean true"))
    }
}

/// Waits for `path` to exist (a daemon's socket), up to 20 s.
fn await_file(path: &Path, what: &str) -> Result<(), HarnessError> {
    let (limit, start) = (Duration::from_secs(20), Instant::now());
    while !path.exists() {
        if start.elapsed() > limit {
            return Err(HarnessError::Timeout { what: what.to_string(), waited: limit });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}
