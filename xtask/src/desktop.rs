//! `cargo xtask desktop -- CMD`: run a command on a fresh headless desktop, then tear it down.
// Signal handlers need libc; the handler only stores to an atomic, which is signal-safe.
#![allow(unsafe_code)]

use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use deft_harness::{Desktop, DesktopConfig};

/// The last termination signal xtask received, or 0.
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

extern "C" fn remember(sig: libc::c_int) {
    SIGNALLED.store(sig, Ordering::SeqCst);
}

const USAGE: &str =
    "usage: cargo xtask desktop [--size WxH] [--no-a11y] [--no-wm] [--wayland sway|gnome|mutter] -- CMD [ARGS...]";

/// What to run the command on.
#[derive(Debug, Default)]
struct Options {
    desktop: DesktopConfig,
    /// A headless Wayland compositor beside the X server, and the command on it as a
    /// Wayland client (no DISPLAY; GTK and Qt told to use Wayland).
    wayland: Option<Compositor>,
}

/// The headless compositors the harness starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compositor {
    Sway,
    /// GNOME Shell, with Deft's extension (the windows placed).
    Gnome,
    /// Bare mutter (GNOME's compositor without the Shell: no window is placed).
    Mutter,
}

/// A running compositor, kept until the command ends.
enum Running {
    Sway(deft_harness::wayland::Sway),
    Gnome(deft_harness::wayland::Mutter),
    Mutter(deft_harness::wayland::Mutter),
}

impl Running {
    fn start(desktop: &Desktop, which: Compositor) -> Result<Running, String> {
        match which {
            Compositor::Sway => {
                desktop.start_sway().map(Running::Sway).map_err(|e| format!("could not start sway: {e}"))
            }
            Compositor::Gnome => {
                desktop.start_gnome_shell().map(Running::Gnome).map_err(|e| format!("could not start GNOME Shell: {e}"))
            }
            Compositor::Mutter => {
                desktop.start_mutter().map(Running::Mutter).map_err(|e| format!("could not start mutter: {e}"))
            }
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Running::Sway(_) => "sway",
            Running::Gnome(_) => "GNOME Shell",
            Running::Mutter(_) => "GNOME's mutter",
        }
    }

    fn socket(&self) -> &std::path::Path {
        match self {
            Running::Sway(s) => s.socket(),
            Running::Gnome(m) | Running::Mutter(m) => m.socket(),
        }
    }

    fn client_env(&self) -> Vec<(String, String)> {
        match self {
            Running::Sway(s) => s.client_env(),
            Running::Gnome(m) | Running::Mutter(m) => m.client_env(),
        }
    }
}

pub fn run(args: &[String]) -> ExitCode {
    match parse(args) {
        Ok((options, cmd)) => run_on_desktop(&options, &cmd),
        Err(msg) => {
            eprintln!("error: {msg}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn parse(args: &[String]) -> Result<(Options, Vec<String>), String> {
    let mut options = Options::default();
    let config = &mut options.desktop;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--" => {
                let cmd: Vec<String> = it.cloned().collect();
                if cmd.is_empty() {
                    return Err("no command given after `--`".into());
                }
                return Ok((options, cmd));
            }
            "--size" => {
                let v = it.next().ok_or("`--size` needs a value such as 1920x1080")?;
                let (w, h) = v
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
                    .filter(|&(w, h): &(u32, u32)| (64..=8192).contains(&w) && (64..=8192).contains(&h))
                    .ok_or_else(|| format!("`--size {v}` is not WIDTHxHEIGHT with each side from 64 to 8192"))?;
                config.width = w;
                config.height = h;
            }
            "--no-a11y" => config.accessibility = false,
            "--no-wm" => config.window_manager = false,
            "--wayland" => match it.next().map(String::as_str) {
                Some("sway") => options.wayland = Some(Compositor::Sway),
                Some("gnome") => options.wayland = Some(Compositor::Gnome),
                Some("mutter") => options.wayland = Some(Compositor::Mutter),
                Some(other) => {
                    return Err(format!(
                        "`--wayland {other}`: only sway, gnome and mutter are started headless so far (kde is not yet)"
                    ));
                }
                None => return Err("`--wayland` needs a compositor: sway, gnome or mutter".into()),
            },
            other => return Err(format!("unexpected argument `{other}` (put the command after `--`)")),
        }
    }
    Err("no command given: put it after `--`".into())
}

fn run_on_desktop(options: &Options, cmd: &[String]) -> ExitCode {
    // Catch Ctrl-C and termination so the desktop is torn down; the command gets its own
    // Ctrl-C from the terminal, and we forward a SIGTERM sent to us alone.
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installs a handler that only stores to an atomic.
        unsafe {
            libc::signal(sig, remember as *const () as libc::sighandler_t);
        }
    }
    let desktop = match Desktop::start_with(&options.desktop) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: could not start the desktop: {e}");
            return ExitCode::FAILURE;
        }
    };
    let compositor = match options.wayland.map(|which| Running::start(&desktop, which)).transpose() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut command = desktop.command(&cmd[0]);
    command.args(&cmd[1..]);
    match &compositor {
        Some(c) => {
            command.env_remove("DISPLAY").envs(c.client_env());
            eprintln!(
                "desktop: Wayland ({}) at WAYLAND_DISPLAY={}, no X display for the command (torn down when it ends)",
                c.name(),
                c.socket().display()
            );
        }
        None => eprintln!("desktop: DISPLAY={} (torn down when the command ends)", desktop.display()),
    }
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: could not start `{}`: {e}", cmd[0]);
            return ExitCode::from(127);
        }
    };
    let mut forwarded = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(e) => {
                eprintln!("error: lost track of `{}`: {e}", cmd[0]);
                break None;
            }
        }
        let sig = SIGNALLED.load(Ordering::SeqCst);
        if sig != 0 && !forwarded {
            // SAFETY: kill(2) on our own child's pid.
            unsafe {
                libc::kill(child.id() as i32, libc::SIGTERM);
            }
            forwarded = true;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(compositor);
    drop(desktop);
    let code = exit_code(&cmd[0], status);
    let sig = SIGNALLED.load(Ordering::SeqCst);
    if sig != 0 {
        eprintln!("desktop: interrupted by signal {sig}; desktop torn down");
        return ExitCode::from(128 + sig as u8);
    }
    code
}

fn exit_code(program: &str, status: Option<std::process::ExitStatus>) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    let Some(status) = status else { return ExitCode::FAILURE };
    if let Some(code) = status.code() {
        if code != 0 {
            eprintln!("desktop: `{program}` exited with code {code}; desktop torn down");
        }
        return ExitCode::from(code.clamp(0, 255) as u8);
    }
    let sig = status.signal().unwrap_or(0);
    let core = if status.core_dumped() { " (core dumped)" } else { "" };
    eprintln!("error: `{program}` crashed: killed by signal {sig}{core}; desktop torn down");
    ExitCode::from(128u8.saturating_add(sig as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_size_and_command() {
        let (o, cmd) = parse(&args("--size 1920x1080 -- echo hi")).unwrap();
        assert_eq!((o.desktop.width, o.desktop.height, o.wayland), (1920, 1080, None));
        assert_eq!(cmd, ["echo", "hi"]);
        let (o, _) = parse(&args("--wayland sway -- true")).unwrap();
        assert_eq!(o.wayland, Some(Compositor::Sway));
        let (o, _) = parse(&args("--wayland gnome -- true")).unwrap();
        assert_eq!(o.wayland, Some(Compositor::Gnome));
    }

    #[test]
    fn bad_input_is_explained() {
        for (input, says) in [
            ("", "no command given"),
            ("--", "no command given after"),
            ("--size 10x10 -- true", "from 64 to 8192"),
            ("--size big -- true", "is not WIDTHxHEIGHT"),
            ("echo hi", "unexpected argument `echo`"),
            ("--wayland kde -- true", "only sway, gnome and mutter are started headless so far"),
            ("--wayland", "needs a compositor"),
        ] {
            let err = parse(&args(input)).unwrap_err();
            assert!(err.contains(says), "{input:?} gave {err:?}");
        }
    }
}
