//! Real headless desktops for Deft's tests, benchmarks and `cargo xtask desktop`.
//!
//! The key design decision: every process a desktop starts, and everything those start in
//! turn (D-Bus activates services, GTK apps spawn helpers), carries a marker in its
//! environment. Teardown finds them all by that marker, so nothing outlives its desktop
//! even when a daemon forks or the command under test crashes; and because this machine's
//! PID 1 does not reap orphans, the harness makes itself a child subreaper and reaps them.
//!
//! Each [`Desktop`] has its own display number (chosen by Xvfb with `-displayfd`), its own
//! session bus and its own runtime directory, so tests run in parallel without colliding.

pub mod apps;
pub mod campaign;
pub mod desktop;
pub mod evidence;
pub mod fixture;
pub mod nats;
pub mod peer;
mod procs;
pub mod qmmp;
pub mod swing;
pub mod system;
pub mod test_model;
pub mod unseen;
pub mod wayland;

pub use desktop::{Desktop, DesktopConfig, HarnessError};

/// The Python interpreter that has PyGObject (`gi`). The `python3` first on `PATH` may be
/// another one (pyenv) without it.
pub fn python() -> &'static str {
    "/usr/bin/python3"
}

/// The root of the Deft workspace.
pub fn workspace_root() -> std::path::PathBuf {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here).to_path_buf()
}
