//! `cargo xtask windows`: the platform-neutral crates and the seams compile for Windows.
//!
//! Deft runs on Linux today; the layers above the platform backends are meant to take a
//! Windows backend (UI Automation behind `Accessibility`, SendInput behind `Input`) without
//! change. Compiling them for a Windows target keeps that a fact rather than a claim: a
//! Unix-only call slipping into the executor or the toolbelt fails here. `cargo check`
//! only, so no Windows linker is needed; the agent, LLM and fleet crates are left out because
//! their TLS stack (ring) builds C code, which needs a Windows C compiler.

use crate::run_step;

/// The target checked: the GNU one, whose standard library rustup installs alone.
pub const TARGET: &str = "x86_64-pc-windows-gnu";

/// Every crate checked, lowest layer first: the core types, the pure verification crates,
/// the backends' traits (each crate with its Linux backend gated off by `cfg`), the
/// executor and the toolbelt.
const CRATES: &[&str] = &[
    "deft-types",
    "deft-bus",
    "deft-trace",
    "deft-x11",
    "deft-wayland",
    "deft-diff",
    "deft-ocr",
    "deft-capture",
    "deft-input",
    "deft-a11y",
    "deft-snapshot",
    "deft-retry",
    "deft-verify",
    "deft-toolbelt",
];

pub fn run(args: &[String]) -> anyhow::Result<()> {
    crate::no_args("windows", args)?;
    let mut argv = vec!["check", "--locked", "--target", TARGET];
    for c in CRATES {
        argv.extend(["-p", c]);
    }
    run_step("cargo", &argv)
}
