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

/// Packages needed to run the desktop tests: the desktop and its tools, then the corpus of
/// real applications ([`CORPUS`]), which setup installs like the rest.
pub const RUNTIME: &[Requirement] = &RUNTIME_ALL;

/// The corpus of real applications the desktop tests read and act on, one per toolkit
/// (`deft_harness::apps`): the tail of [`RUNTIME`].
///
/// Measured on this kind of machine (2 cores, Debian 12, `apt-get install
/// --no-install-recommends`; `docs/real-apps.md`): 328 MB downloaded, 1.1 GB on disk, about
/// 63 s, Chromium, Firefox ESR and LibreOffice most of each.
pub const CORPUS: &[Requirement] = RUNTIME_ALL.split_at(RUNTIME_BASE).1;

/// How many of [`RUNTIME_ALL`] come before the corpus.
const RUNTIME_BASE: usize = 35;

const RUNTIME_ALL: [Requirement; RUNTIME_BASE + 22] = [
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
        package: "nodejs",
        probe: Probe::File("/usr/bin/node"),
        why: "runs the MCP Inspector (an official TypeScript client) in the MCP tests",
    },
    Requirement { package: "npm", probe: Probe::File("/usr/bin/npm"), why: "installs the MCP Inspector" },
    Requirement {
        package: "xterm",
        probe: Probe::File("/usr/bin/xterm"),
        why: "a terminal with no accessibility at all: typing there must never be sent twice (0.9 MB)",
    },
    Requirement {
        package: "python3-venv",
        probe: Probe::Glob("/usr/share/python-wheels/pip-*.whl"),
        why: "a fresh virtual environment that the deft-desktop wheel is installed into in its tests",
    },
    Requirement {
        package: "python3-yaml",
        probe: Probe::PythonModule("yaml"),
        why: "a plain YAML loader (PyYAML's safe_load) that reads agent-cli's --yaml output in its tests",
    },
    Requirement {
        package: "x11-xserver-utils",
        probe: Probe::File("/usr/bin/xsetroot"),
        why: "xsetroot paints known pixels for capture tests",
    },
    Requirement {
        package: "nats-server",
        probe: Probe::File("/usr/sbin/nats-server"),
        why: "the fleet's queue (NATS JetStream) for deft-fleet's contract tests (one binary, about 11 MB)",
    },
    Requirement {
        package: "sway",
        probe: Probe::File("/usr/bin/sway"),
        why: "a headless Wayland compositor (wlroots) for the Wayland session tests (5 packages, about 3 MB)",
    },
    Requirement {
        package: "galculator",
        probe: Probe::File("/usr/bin/galculator"),
        why: "outside the corpus: a GTK 3 calculator whose keys are toggle buttons that spring back (one package, 1.5 MB)",
    },
    Requirement {
        package: "lxterminal",
        probe: Probe::File("/usr/bin/lxterminal"),
        why: "outside the corpus: a GTK 3 terminal (VTE): a shell's line typed, wrapped at its width, never replaced with select-all keys (3 packages, about 3 MB)",
    },
    Requirement {
        package: "wtype",
        probe: Probe::File("/usr/bin/wtype"),
        why: "a person's keys on a Wayland session (its own virtual keyboard, not Deft's): the Wayland recording test (one package, 30 kB)",
    },
    Requirement {
        package: "weston",
        probe: Probe::File("/usr/bin/weston"),
        why: "a headless Wayland compositor with no protocol Deft sends input through: the refusal test (5 packages, 2.3 MB)",
    },
    Requirement {
        package: "mutter",
        probe: Probe::File("/usr/bin/mutter"),
        why: "GNOME's compositor, headless, for the GNOME session tests: input through its RemoteDesktop API",
    },
    Requirement {
        package: "gnome-shell",
        probe: Probe::File("/usr/bin/gnome-shell"),
        why: "GNOME Shell, headless, with Deft's extension: the GNOME session tests and campaign (84 packages with mutter's, installed in about 20 s)",
    },
    Requirement {
        package: "pipewire",
        probe: Probe::File("/usr/bin/pipewire"),
        why: "mutter's remote desktop sessions record the screen through PipeWire, and will not start without it",
    },
    Requirement {
        package: "wireplumber",
        probe: Probe::File("/usr/bin/wireplumber"),
        why: "PipeWire's session manager: it links mutter's screen cast to the reader of its frames",
    },
    Requirement {
        package: "gstreamer1.0-pipewire",
        probe: Probe::File("/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstpipewire.so"),
        why: "GStreamer's PipeWire source: Deft reads GNOME's screen cast through it",
    },
    Requirement {
        package: "gstreamer1.0-tools",
        probe: Probe::File("/usr/bin/gst-launch-1.0"),
        why: "gst-launch-1.0, which runs the pipeline that reads one frame of GNOME's screen cast",
    },
    Requirement {
        package: "gstreamer1.0-plugins-base",
        probe: Probe::File("/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstvideoconvertscale.so"),
        why: "videoconvert: GNOME's frames to RGBA",
    },
    Requirement {
        package: "grim",
        probe: Probe::File("/usr/bin/grim"),
        why: "an independent screenshot client of wlroots compositors: the truth Deft's Wayland captures are checked against (49 kB)",
    },
    // Qt's Wayland platform plugins: the Qt ports as native Wayland clients on sway
    // (measured with the rest installed: 10 packages, 3.1 MB, 4 s for the two).
    Requirement {
        package: "qtwayland5",
        probe: Probe::File("/usr/lib/x86_64-linux-gnu/qt5/plugins/platforms/libqwayland-generic.so"),
        why: "Qt 5's Wayland platform plugin: the Qt 5 fixture as a native Wayland client",
    },
    Requirement {
        package: "qt6-wayland",
        probe: Probe::File("/usr/lib/x86_64-linux-gnu/qt6/plugins/platforms/libqwayland-generic.so"),
        why: "Qt 6's Wayland platform plugin: the Qt 6 fixture as a native Wayland client",
    },
    // The fixture app's ports (`deft_harness::fixture::Toolkit`). Measured with
    // `apt-get install --no-install-recommends` on Debian 12, the corpus already there:
    // 8.8 MB downloaded, 44 MB on disk, 6 s for the three.
    Requirement {
        package: "gir1.2-gtk-4.0",
        probe: Probe::Typelib("Gtk-4.0"),
        why: "the GTK 4 fixture app (tests/fixtures/gtk4)",
    },
    Requirement {
        package: "python3-pyqt5",
        probe: Probe::PythonModule("PyQt5.QtWidgets"),
        why: "the Qt 5 fixture app",
    },
    Requirement {
        package: "python3-pyqt6",
        probe: Probe::PythonModule("PyQt6.QtWidgets"),
        why: "the Qt 6 fixture app",
    },
    Requirement {
        package: "zenity",
        probe: Probe::File("/usr/bin/zenity"),
        why: "`agent-cli run --ask dialog`: the agent's question as a dialog on the user's desktop",
    },
    Requirement {
        package: "gtk-3-examples",
        probe: Probe::File("/usr/bin/gtk3-widget-factory"),
        why: "corpus: GTK 3 (atk-bridge), every GTK 3 widget; also the benchmarks' large app",
    },
    Requirement {
        package: "gtk-4-examples",
        probe: Probe::File("/usr/bin/gtk4-widget-factory"),
        why: "corpus: GTK 4 (its own AT-SPI over GDBus)",
    },
    Requirement {
        package: "featherpad",
        probe: Probe::File("/usr/bin/featherpad"),
        why: "corpus: Qt 5, a text editor",
    },
    Requirement {
        package: "designer-qt6",
        probe: Probe::File("/usr/lib/qt6/bin/designer"),
        why: "corpus: Qt 6 (Qt Designer)",
    },
    Requirement {
        package: "qt6-qpa-plugins",
        probe: Probe::Glob("/usr/lib/*/qt6/plugins/platforms/libqxcb.so"),
        why: "corpus: Qt 6's X11 platform plugin (only recommended by Qt 6, so not pulled in)",
    },
    Requirement {
        package: "mousepad",
        probe: Probe::File("/usr/bin/mousepad"),
        why: "corpus: GTK 3 (atk-bridge), a plain editor with menus and file dialogs",
    },
    Requirement {
        package: "chromium",
        probe: Probe::File("/usr/bin/chromium"),
        why: "corpus: Chromium (atk-bridge) on a local page",
    },
    Requirement {
        package: "firefox-esr",
        probe: Probe::File("/usr/bin/firefox-esr"),
        why: "corpus: Firefox ESR (atk-bridge) on a local page",
    },
    Requirement {
        package: "libreoffice-writer",
        probe: Probe::File("/usr/lib/libreoffice/program/soffice.bin"),
        why: "corpus: LibreOffice Writer, an office app",
    },
    Requirement {
        package: "libreoffice-calc",
        probe: Probe::File("/usr/lib/libreoffice/program/libsclo.so"),
        why: "corpus: LibreOffice Calc, whose sheet says it has 2^31 - 1 cells",
    },
    Requirement {
        package: "libreoffice-impress",
        probe: Probe::File(crate::apps::IMPRESS_LIBRARY),
        why: "corpus: LibreOffice Impress, its template dialog and slides whose text is inside their shapes",
    },
    Requirement {
        package: "libreoffice-gtk3",
        probe: Probe::File("/usr/lib/libreoffice/program/libvclplug_gtk3lo.so"),
        why: "corpus: LibreOffice's GTK 3 plugin, which carries its accessibility (only recommended)",
    },
    Requirement {
        package: "gnome-calculator",
        probe: Probe::File("/usr/bin/gnome-calculator"),
        why: "corpus: GTK 4 with libadwaita (GNOME Calculator)",
    },
    Requirement {
        package: "kcalc",
        probe: Probe::File("/usr/bin/kcalc"),
        why: "corpus: Qt 5 with KDE Frameworks (KCalc)",
    },
    Requirement {
        package: "qmmp",
        probe: Probe::File("/usr/bin/qmmp"),
        why: "corpus: Qt 5 with custom widgets (qmmp, a music player: a ticking clock, sliders a person drags)",
    },
    Requirement {
        package: "gtk2.0-examples",
        probe: Probe::File("/usr/bin/gtk-demo"),
        why: "corpus: GTK 2 (gtk-demo: GTK 2's widgets, menus and dialogs)",
    },
    Requirement {
        package: "libgail-common",
        probe: Probe::Glob("/usr/lib/*/gtk-2.0/modules/libgail.so"),
        why: "corpus: GAIL, GTK 2's accessibility module",
    },
    Requirement {
        package: "libatk-adaptor",
        probe: Probe::Glob("/usr/lib/*/gtk-2.0/modules/libatk-bridge.so"),
        why: "corpus: the module that puts GTK 2's accessibility on the AT-SPI bus",
    },
    // Java Swing through the ATK wrapper: the Swing fixture runs as a single source file,
    // so the JDK's compiler is needed, not only the runtime.
    Requirement {
        package: "openjdk-17-jdk",
        probe: Probe::File(crate::swing::JAVA),
        why: "corpus: Java Swing (the Swing fixture, tests/fixtures/swing)",
    },
    Requirement {
        package: "libatk-wrapper-java-jni",
        probe: Probe::Glob("/usr/lib/*/jni/libatk-wrapper.so"),
        why: "corpus: the ATK wrapper that puts Java Swing on the accessibility bus",
    },
];

/// Peers that the benchmarks compare Deft with, in the same run.
pub const BENCH: &[Requirement] = &[
    Requirement { package: "scrot", probe: Probe::File("/usr/bin/scrot"), why: "capture peer" },
    Requirement { package: "imagemagick", probe: Probe::File("/usr/bin/import"), why: "capture peer (import)" },
    Requirement { package: "tesseract-ocr", probe: Probe::File("/usr/bin/tesseract"), why: "OCR peer" },
    Requirement { package: "python3-dogtail", probe: Probe::PythonModule("dogtail"), why: "accessibility peer" },
    Requirement {
        package: "python3-pip",
        probe: Probe::PythonModule("pip"),
        why: "installs the mss capture peer and the Python packages of [`PIP`]",
    },
];

/// A Python package from PyPI that tests need, at an exact version. `cargo xtask setup`
/// installs it with pip into [`python_packages_dir`], never into the system's
/// site-packages (Debian owns those); scripts get that directory as `PYTHONPATH`.
#[derive(Clone, Copy, Debug)]
pub struct PipRequirement {
    /// The distribution name on PyPI.
    pub package: &'static str,
    /// The exact version (tests are written against its API).
    pub version: &'static str,
    /// A module it provides, whose import proves it is there.
    pub module: &'static str,
    /// Why Deft needs it.
    pub why: &'static str,
}

/// Python packages the tests need.
pub const PIP: &[PipRequirement] = &[
    PipRequirement {
        package: "mcp",
        version: "2.3.0",
        module: "mcp",
        why: "the official MCP SDK's client, which drives `agent-cli mcp` in its tests (tests/mcp/)",
    },
    PipRequirement {
        package: "maturin",
        version: "1.16.0",
        module: "maturin",
        why: "builds the deft-desktop wheel (the agent-cli binary and the Python API) in `cargo xtask dist`",
    },
    PipRequirement {
        package: "pytest",
        version: "9.2.0",
        module: "pytest",
        why: "runs the Python API's tests (python/tests) against the installed wheel",
    },
    PipRequirement {
        package: "mypy",
        version: "2.4.1",
        module: "mypy",
        why: "checks the Python API's type hints (strict) in `cargo xtask dist`",
    },
    PipRequirement {
        package: "langchain-core",
        // 1.8 needs a langchain-protocol newer than the index serves.
        version: "1.7.7",
        module: "langchain_core",
        why: "the Python API's LangChain tools (deft.langchain), typed and tested",
    },
    PipRequirement {
        package: "langgraph",
        version: "1.2.24",
        module: "langgraph",
        why: "the example LangGraph agent (examples/langgraph_agent.py), run against the test model",
    },
    PipRequirement {
        package: "langchain-openai",
        version: "1.7.4",
        module: "langchain_openai",
        why: "the example agent's chat model, on the OpenAI wire the test model speaks",
    },
    PipRequirement {
        package: "uv",
        version: "0.13.9",
        module: "uv",
        why: "runs the wheel as `uvx deft-desktop mcp` would, in the Python API's tests",
    },
];

/// A package from the npm registry that tests need, at an exact version. `cargo xtask
/// setup` installs it with npm into [`node_packages_dir`].
#[derive(Clone, Copy, Debug)]
pub struct NpmRequirement {
    /// The package name.
    pub package: &'static str,
    /// The exact version.
    pub version: &'static str,
    /// Why Deft needs it.
    pub why: &'static str,
}

/// npm packages the tests need.
pub const NPM: &[NpmRequirement] = &[NpmRequirement {
    package: "@modelcontextprotocol/inspector",
    // What `npx @modelcontextprotocol/inspector` gives on Node.js 20 (later versions need
    // 22): the official TypeScript SDK 1.32.2, whose Ajv validates every tool result
    // against the tool's output schema as a draft-07 validator.
    version: "0.15.0",
    why: "the MCP Inspector's CLI, a second official client (TypeScript SDK) that calls every tool of `agent-cli mcp`",
}];

impl NpmRequirement {
    /// `@modelcontextprotocol/inspector@0.15.0`.
    pub fn spec(&self) -> String {
        format!("{}@{}", self.package, self.version)
    }

    /// Whether this exact version is installed in [`node_packages_dir`].
    pub fn is_met(&self) -> bool {
        let manifest = node_packages_dir().join("node_modules").join(self.package).join("package.json");
        std::fs::read_to_string(manifest)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v["version"] == self.version)
    }
}

/// Where setup installs [`NPM`]: `$XDG_CACHE_HOME/deft/node` (or `~/.cache/deft/node`).
pub fn node_packages_dir() -> std::path::PathBuf {
    python_packages_dir().with_file_name("node")
}

/// The MCP Inspector's command (installed by setup, see [`NPM`]).
pub fn mcp_inspector() -> std::path::PathBuf {
    node_packages_dir().join("node_modules/.bin/mcp-inspector")
}

/// Where setup installs [`PIP`]: `$XDG_CACHE_HOME/deft/python` (or `~/.cache/deft/python`),
/// kept across checkouts.
pub fn python_packages_dir() -> std::path::PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("deft").join("python")
}

impl PipRequirement {
    /// `mcp==2.3.0`.
    pub fn spec(&self) -> String {
        format!("{}=={}", self.package, self.version)
    }

    /// Whether this exact version is importable from [`python_packages_dir`].
    pub fn is_met(&self) -> bool {
        let check = format!(
            "import importlib.metadata as m, sys, {module}; sys.exit(m.version({package:?}) != {version:?})",
            module = self.module,
            package = self.package,
            version = self.version
        );
        std::process::Command::new(crate::python())
            .args(["-c", &check])
            .env("PYTHONPATH", python_packages_dir())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

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
