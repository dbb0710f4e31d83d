//! `cargo xtask test --no-desktop`: every test that needs no display, no accessibility bus
//! and no root, in a few minutes: the unit tests of every crate and the integration tests
//! of the crates that are pure (no I/O) or talk only to loopback. `cargo xtask ci` runs
//! everything, desktops included.

use crate::run_step;

/// Crates whose integration tests need no desktop.
const PURE: &[&str] =
    &["deft-types", "deft-bus", "deft-diff", "deft-snapshot", "deft-retry", "deft-llm", "deft-toolbelt"];

/// Unit tests that start a desktop (left out with `--skip`): xtask renders the OCR
/// fixture screens on one to check they are fresh.
const DESKTOP_UNIT_TESTS: &[&str] = &["committed_fixtures_are_fresh"];

pub fn run(args: &[String]) -> anyhow::Result<()> {
    match args {
        [flag] if flag == "--no-desktop" => {}
        _ => anyhow::bail!(
            "usage: cargo xtask test --no-desktop (the tests that need no display, bus or root; `cargo xtask ci` runs all)"
        ),
    }
    let mut unit: Vec<String> = ["test", "--workspace", "--all-features", "--locked", "--lib", "--bins", "--"]
        .into_iter()
        .map(String::from)
        .collect();
    for skip in DESKTOP_UNIT_TESTS {
        unit.extend(["--skip".to_string(), skip.to_string()]);
    }
    run_step("cargo", &unit.iter().map(String::as_str).collect::<Vec<_>>())?;
    let mut integration = vec!["test", "--all-features", "--locked", "--tests"];
    for p in PURE {
        integration.extend(["-p", p]);
    }
    run_step("cargo", &integration)?;
    // The CLI's argument tests run the binary without a desktop.
    run_step("cargo", &["test", "-p", "deft-desktop", "--all-features", "--locked", "--test", "tests", "--", "args::"])
}
