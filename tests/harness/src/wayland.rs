//! A headless Wayland compositor beside a test desktop: sway (wlroots) on its headless
//! backend with the pixman renderer, no GPU, no XWayland; or weston on its headless
//! backend, a compositor that offers no protocol Deft can send input through (the session
//! a Deft without an input backend for it meets: GNOME's and KDE's look like that to it).
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
