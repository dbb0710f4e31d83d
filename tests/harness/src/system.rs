//! The system packages Deft needs, and how to tell whether each is present.

use std::path::Path;

/// What a package provides that proves it is installed.
#[derive(Clone, Copy, Debug)]
pub enum Probe {
    /// An executable at this absolute path.
    File(&'static str),
    /// A `pkg-config` module.
    PkgConfig(&'static str),
    /// A Python module importable by [`crate::python`].
    PythonModule(&'static str),
    /// A GObject introspection typelib, e.g. `Gtk-3.0`.
    Typelib(&'static str),
}

/// A Debian package and the probe that tells whether it is installed.
#[derive(Clone, Copy, Debug)]
pub struct Requirement {
    /// The Debian/Ubuntu package name.
    pub package: &'static str,
    /// How to tell it is there without asking dpkg (works on other distributions too).
    pub probe: Probe,
    /// Why Deft needs it.
    pub why: &'static str,
}

/// Packages needed to build the workspace.
pub const BUILD: &[Requirement] = &[
    Requirement {
        package: "pkg-config",
        probe: Probe::File("/usr/bin/pkg-config"),
        why: "finds C libraries at build time",
    },
    Requirement { package: "libxcb1-dev", probe: Probe::PkgConfig("xcb"), why: "X11 capture (xcap, x11rb)" },
];

/// Packages needed to run the desktop tests.
pub const RUNTIME: &[Requirement] = &[
    Requirement { package: "xvfb", probe: Probe::File("/usr/bin/Xvfb"), why: "the headless X server" },
    Requirement { package: "dbus", probe: Probe::File("/usr/bin/dbus-daemon"), why: "the session bus" },
    Requirement {
        package: "dbus-x11",
        probe: Probe::File("/usr/bin/dbus-launch"),
        why: "D-Bus helpers for X sessions",
    },
    Requirement {
        package: "at-spi2-core",
        probe: Probe::File("/usr/libexec/at-spi-bus-launcher"),
        why: "the accessibility bus",
    },
    Requirement {
        package: "openbox",
        probe: Probe::File("/usr/bin/openbox"),
        why: "a window manager, so windows can be listed and placed",
    },
    Requirement {
        package: "x11-utils",
        probe: Probe::File("/usr/bin/xprop"),
        why: "xprop, to tell when the window manager is up",
    },
    Requirement { package: "python3-gi", probe: Probe::PythonModule("gi"), why: "the GTK fixture app" },
    Requirement { package: "gir1.2-gtk-3.0", probe: Probe::Typelib("Gtk-3.0"), why: "the GTK fixture app" },
    Requirement {
        package: "xdotool",
        probe: Probe::File("/usr/bin/xdotool"),
        why: "an input driver independent of Deft, and a peer in benchmarks",
    },
    Requirement {
        package: "python3-pyatspi",
        probe: Probe::PythonModule("pyatspi"),
        why: "an accessibility driver independent of Deft, and a peer in benchmarks",
    },
    Requirement { package: "gir1.2-atspi-2.0", probe: Probe::Typelib("Atspi-2.0"), why: "pyatspi's bindings" },
];

impl Requirement {
    /// Whether the requirement is met on this machine.
    pub fn is_met(&self) -> bool {
        match self.probe {
            Probe::File(path) => Path::new(path).exists(),
            Probe::PkgConfig(module) => {
                std::process::Command::new("pkg-config").args(["--exists", module]).status().is_ok_and(|s| s.success())
            }
            Probe::PythonModule(module) => std::process::Command::new(crate::python())
                .args(["-c", &format!("import {module}")])
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success()),
            Probe::Typelib(name) => {
                ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/usr/lib64"]
                    .iter()
                    .any(|dir| Path::new(dir).join("girepository-1.0").join(format!("{name}.typelib")).exists())
            }
        }
    }
}

/// The requirements among `reqs` that are not met.
pub fn missing(reqs: &[Requirement]) -> Vec<Requirement> {
    reqs.iter().filter(|r| !r.is_met()).copied().collect()
}
