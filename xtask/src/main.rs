//! `cargo xtask`: Deft's build orchestration, in Rust so it runs wherever cargo does.
//!
//! Every subcommand is a small module; `ci` is the one test command (README.md), and it
//! runs the same steps on a developer's machine as in CI, starting with `setup`.

mod bench;
mod ci;
mod demo;
mod desktop;
mod dist;
mod evidence;
mod faults;
mod fixtures;
mod layers;
mod peers;
mod setup;
mod test_fast;
mod tidy;
mod unseen;
mod windows;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command> [args]

commands:
  setup              install the system packages and tools Deft needs (as root on Debian/Ubuntu)
  ci                 the test command: setup, fmt, clippy, layering, Windows check, cargo-deny, all tests
  dist [--profile dev|release] [--check] [--try-deb] [--crates]
                     the deft-desktop wheel (agent-cli and the Python API) and .deb in target/dist
                     (--try-deb: install the .deb here with apt-get, run it, remove it; root;
                     --crates: package the crates of `cargo install deft-desktop`, build each alone)
  desktop -- CMD...  run CMD on a fresh headless desktop (Xvfb, D-Bus, AT-SPI, openbox; --wayland sway: on sway)
  evidence [--check] write docs/EVIDENCE.md from the fault campaigns the last test run recorded, or check it
  layers             check that no crate depends on a crate of a higher layer
  fixtures [--check] render the OCR fixture screens (tests/fixtures/screens), or check they are fresh
  bench [SUITE...]   run benchmarks (all, or: bus, snapshot, perception, actuation, verify, toolbelt, faults)
  demo [--wayland sway]  a verified multi-step task through agent-cli on the faulty fixture app
  test --no-desktop  the tests that need no display, accessibility bus or root (a few minutes)
  tidy               the house rules of STYLE.md on every Rust file (also run by ci)
  windows            check that the platform-neutral crates and the seams compile for Windows (also run by ci)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result = match cmd.as_str() {
        "setup" => setup::run(rest),
        "ci" => ci::run(rest),
        "desktop" => return desktop::run(rest),
        "dist" => dist::run(rest),
        "layers" => layers::run(rest),
        "evidence" => evidence::run(rest),
        "fixtures" => fixtures::run(rest),
        "bench" => bench::run(rest),
        "demo" => demo::run(rest),
        "test" => test_fast::run(rest),
        "tidy" => tidy::run(rest),
        "windows" => windows::run(rest),
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(())
        }
        other => {
            eprintln!("error: unknown command `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Fail with a usage message when a command that takes no arguments is given some.
fn no_args(cmd: &str, args: &[String]) -> anyhow::Result<()> {
    match args.first() {
        None => Ok(()),
        Some(a) => anyhow::bail!("`cargo xtask {cmd}` takes no arguments, got `{a}`"),
    }
}

/// The workspace root.
fn root() -> std::path::PathBuf {
    deft_harness::workspace_root()
}

/// Run a command in the workspace root, streaming its output; fail with its name.
fn run_step(program: &str, args: &[&str]) -> anyhow::Result<()> {
    let status = std::process::Command::new(program)
        .args(args)
        .current_dir(root())
        .status()
        .map_err(|e| anyhow::anyhow!("could not start `{program}`: {e}"))?;
    anyhow::ensure!(status.success(), "`{program} {}` failed ({status})", args.join(" "));
    Ok(())
}
