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
    /// A file matching a glob with `*` in path components (versioned library paths).
    Glob(&'static str),
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
    Requirement {
        package: "libwayland-dev",
        probe: Probe::PkgConfig("wayland-client"),
        why: "the xcap capture backend",
    },
    Requirement { package: "libgbm-dev", probe: Probe::PkgConfig("gbm"), why: "the xcap capture backend" },
    Requirement { package: "libegl-dev", probe: Probe::PkgConfig("egl"), why: "the xcap capture backend" },
    Requirement {
        package: "libpipewire-0.3-dev",
        probe: Probe::PkgConfig("libpipewire-0.3"),
        why: "the xcap capture backend",
    },
    Requirement {
        package: "libclang-dev",
        probe: Probe::Glob("/usr/lib/llvm-*/lib/libclang.so*"),
        why: "bindgen, for xcap's pipewire bindings",
    },
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
    Requirement {
        package: "x11-xserver-utils",
        probe: Probe::File("/usr/bin/xsetroot"),
        why: "xsetroot paints known pixels for capture tests",
    },
    Requirement {
        package: "gtk-3-examples",
        probe: Probe::File("/usr/bin/gtk3-widget-factory"),
        why: "a large real app for accessibility tests and benchmarks",
    },
];

/// Peers that the benchmarks compare Deft with, in the same run.
pub const BENCH: &[Requirement] = &[
    Requirement { package: "scrot", probe: Probe::File("/usr/bin/scrot"), why: "capture peer" },
    Requirement { package: "imagemagick", probe: Probe::File("/usr/bin/import"), why: "capture peer (import)" },
    Requirement { package: "tesseract-ocr", probe: Probe::File("/usr/bin/tesseract"), why: "OCR peer" },
    Requirement { package: "python3-dogtail", probe: Probe::PythonModule("dogtail"), why: "accessibility peer" },
    Requirement { package: "python3-pip", probe: Probe::PythonModule("pip"), why: "installs the mss capture peer" },
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
            Probe::Glob(pattern) => glob_exists(pattern),
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

/// Whether any file matches `pattern`, where `*` matches within one path component.
fn glob_exists(pattern: &str) -> bool {
    fn walk(dir: &Path, parts: &[&str]) -> bool {
        let Some((first, rest)) = parts.split_first() else { return dir.exists() };
        if !first.contains('*') {
            return walk(&dir.join(first), rest);
        }
        let (prefix, suffix) = first.split_once('*').unwrap_or((first, ""));
        let suffix = suffix.trim_end_matches('*');
        std::fs::read_dir(dir).into_iter().flatten().flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(prefix) && name[prefix.len()..].contains(suffix) && walk(&e.path(), rest)
        })
    }
    let parts: Vec<&str> = pattern.trim_start_matches('/').split('/').collect();
    walk(Path::new("/"), &parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_versioned_paths() {
        assert!(glob_exists("/proc/self/sta*"));
        assert!(!glob_exists("/proc/self/no-such-*"));
        assert!(!glob_exists("/no-such-dir-*/x"));
    }
}
