//! `cargo xtask dist`: the installable artifacts in `target/dist/`, from one build of
//! `agent-cli` (default features: no xcap, so it links only the C library):
//!
//! - the `deft-desktop` wheel (maturin's binary packaging): the binary (as `agent-cli`) and
//!   the `deft` Python package over it, manylinux-tagged by maturin's own audit of the
//!   binary's symbols;
//! - a Debian package that installs `/usr/bin/agent-cli` and depends on what it needs at
//!   run time.
//!
//! Before packing, `python/deft/_tools.py` is generated from the tools this binary lists
//! (`--check`: fail if the committed one differs) and the package's type hints are checked
//! with mypy (strict). `--try-deb` installs the built .deb into this machine, runs it and
//! removes it again (root). `--crates` packages every crate `cargo install deft-desktop`
//! would fetch and builds each from its package alone (cargo's own verification, with the
//! others from a local overlay), as the registry would serve them. `--profile dev` packs
//! the test build's profile, as `cargo xtask ci` does (a release build of every crate
//! again: 6 minutes on 2 cores); the default is `release`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail, ensure};
use deft_harness::system::python_packages_dir;

use crate::root;

/// The distribution's name on PyPI, in the Rust crate registry and in Debian (free when
/// checked, 2026-11-29).
pub const PACKAGE: &str = "deft-desktop";

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let mut profile = "release".to_string();
    let mut target: Option<String> = None;
    let mut check = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--profile" => profile = it.next().context("--profile needs a value: dev or release")?.clone(),
            "--target" => {
                target = Some(it.next().context("--target needs a value, e.g. aarch64-unknown-linux-gnu")?.clone())
            }
            "--check" => check = true,
            "--try-deb" => return try_deb(),
            "--crates" => return crates(),
            other => bail!(
                "`cargo xtask dist` takes --profile dev|release, --target TRIPLE, --check, --try-deb and --crates, got `{other}`"
            ),
        }
    }
    ensure!(matches!(profile.as_str(), "dev" | "release"), "--profile is dev or release, got `{profile}`");
    let cross = target.as_deref().map(Cross::of).transpose()?;
    let out = root().join("target/dist");
    std::fs::create_dir_all(&out)?;
    let dir = if profile == "dev" { "debug" } else { "release" };

    // The methods are generated from what a binary of this host lists (the same tools).
    crate::run_step("cargo", &["build", "-p", "deft-desktop", "--locked", "--profile", &profile])?;
    generate(&root().join("target").join(dir).join("agent-cli"), check)?;
    typecheck()?;
    let binary = match &cross {
        None => root().join("target").join(dir).join("agent-cli"),
        Some(c) => {
            let mut cmd = Command::new("cargo");
            cmd.args(["build", "-p", "deft-desktop", "--locked", "--profile", &profile, "--target", c.triple])
                .env(c.linker_var(), c.linker)
                .current_dir(root());
            let status = cmd.status().context("could not run cargo")?;
            ensure!(status.success(), "cargo build --target {} failed ({status})", c.triple);
            root().join("target").join(c.triple).join(dir).join("agent-cli")
        }
    };
    let wheel = wheel(&profile, cross.as_ref(), &out)?;
    let deb = deb(&binary, cross.as_ref(), &out)?;
    println!("dist: {}\ndist: {}", wheel.display(), deb.display());
    Ok(())
}

/// A target other than this host's: built with the Debian cross toolchain
/// (`gcc-aarch64-linux-gnu`; `rustup target add aarch64-unknown-linux-gnu`).
struct Cross {
    triple: &'static str,
    linker: &'static str,
    strip: &'static str,
    deb_arch: &'static str,
    wheel_arch: &'static str,
}

impl Cross {
    fn of(triple: &str) -> anyhow::Result<Cross> {
        ensure!(
            triple == "aarch64-unknown-linux-gnu",
            "--target {triple}: only aarch64-unknown-linux-gnu is set up (this host builds x86_64 without --target)"
        );
        let cross = Cross {
            triple: "aarch64-unknown-linux-gnu",
            linker: "aarch64-linux-gnu-gcc",
            strip: "aarch64-linux-gnu-strip",
            deb_arch: "arm64",
            wheel_arch: "aarch64",
        };
        ensure!(
            Path::new("/usr/bin").join(cross.linker).exists(),
            "{} is missing: `sudo apt-get install gcc-aarch64-linux-gnu` and `rustup target add {}`",
            cross.linker,
            cross.triple
        );
        Ok(cross)
    }

    fn linker_var(&self) -> String {
        format!("CARGO_TARGET_{}_LINKER", self.triple.to_uppercase().replace('-', "_"))
    }
}

/// A command from the Python packages `cargo xtask setup` installs (`system::PIP`).
fn tool(name: &str) -> anyhow::Result<PathBuf> {
    let path = python_packages_dir().join("bin").join(name);
    ensure!(path.is_file(), "{} is missing: run `cargo xtask setup`", path.display());
    Ok(path)
}

fn python_env(cmd: &mut Command) -> &mut Command {
    cmd.env("PYTHONPATH", python_packages_dir()).env("PYTHONDONTWRITEBYTECODE", "1").current_dir(root().join("python"))
}

fn generate(binary: &Path, check: bool) -> anyhow::Result<()> {
    let mut cmd = Command::new(deft_harness::python());
    python_env(&mut cmd).arg("generate.py").arg("--binary").arg(binary);
    if check {
        cmd.arg("--check");
    }
    let status = cmd.status().context("could not run python/generate.py")?;
    ensure!(status.success(), "python/generate.py failed ({status})");
    Ok(())
}

fn typecheck() -> anyhow::Result<()> {
    let mut cmd = Command::new(deft_harness::python());
    python_env(&mut cmd).args([
        "-m",
        "mypy",
        "--strict",
        "--python-version",
        "3.10",
        "--cache-dir",
        "../target/mypy-cache",
        "deft",
    ]);
    let status = cmd.status().context("could not run mypy")?;
    ensure!(status.success(), "mypy --strict found errors in python/deft ({status})");
    Ok(())
}

fn wheel(profile: &str, cross: Option<&Cross>, out: &Path) -> anyhow::Result<PathBuf> {
    let arch = cross.map_or(std::env::consts::ARCH, |c| c.wheel_arch);
    let ending = format!("_{arch}.whl");
    for old in list(out, &ending)? {
        std::fs::remove_file(old)?;
    }
    let mut cmd = Command::new(tool("maturin")?);
    python_env(&mut cmd).args(["build", "--locked", "--profile", profile, "--out"]).arg(out);
    if let Some(c) = cross {
        cmd.args(["--target", c.triple]).env(c.linker_var(), c.linker);
    }
    let status = cmd.status().context("could not run maturin")?;
    ensure!(status.success(), "maturin build failed ({status})");
    let mut wheels = list(out, &ending)?;
    ensure!(wheels.len() == 1, "maturin left {} {arch} wheels in {}", wheels.len(), out.display());
    Ok(wheels.remove(0))
}

fn list(dir: &Path, ending: &str) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.to_string_lossy().ends_with(ending) {
            found.push(path);
        }
    }
    Ok(found)
}

/// A Debian package built with dpkg-deb alone: `/usr/bin/agent-cli`, its documentation,
/// and the dependencies a user's desktop needs for it (the C library version its symbols
/// ask for, the accessibility bus, a session bus).
fn deb(binary: &Path, cross: Option<&Cross>, out: &Path) -> anyhow::Result<PathBuf> {
    let arch = match cross {
        Some(c) => c.deb_arch,
        None => host_deb_arch()?,
    };
    for old in list(out, &format!("_{arch}.deb"))? {
        std::fs::remove_file(old)?;
    }
    let version = env!("CARGO_PKG_VERSION");
    let stage = root().join("target/dist/deb-root");
    if stage.exists() {
        std::fs::remove_dir_all(&stage)?;
    }
    let bin = stage.join("usr/bin");
    let docs = stage.join(format!("usr/share/doc/{PACKAGE}"));
    std::fs::create_dir_all(&bin)?;
    std::fs::create_dir_all(&docs)?;
    std::fs::create_dir_all(stage.join("DEBIAN"))?;
    let status = Command::new(cross.map_or("strip", |c| c.strip))
        .arg("--strip-debug")
        .arg("-o")
        .arg(bin.join("agent-cli"))
        .arg(binary)
        .status()
        .context("could not run strip (package binutils)")?;
    ensure!(status.success(), "strip failed ({status})");
    std::fs::copy(root().join("README.md"), docs.join("README.md"))?;
    let glibc = glibc_needed(binary)?;
    let kib = (std::fs::metadata(bin.join("agent-cli"))?.len() + std::fs::metadata(docs.join("README.md"))?.len())
        .div_ceil(1024);
    let control = format!(
        "Package: {PACKAGE}\nVersion: {version}\nArchitecture: {arch}\nMaintainer: Deft developers <deft@example.invalid>\n\
         Section: utils\nPriority: optional\nInstalled-Size: {kib}\nDepends: libc6 (>= {glibc}), at-spi2-core, dbus\n\
         Recommends: xvfb\nSuggests: gstreamer1.0-pipewire, gstreamer1.0-tools\n\
         Description: desktop actions that check their own effect (agent-cli)\n \
         Deft clicks, types and reads on Linux desktops (X11, sway, GNOME) through the\n \
         accessibility tree, verifies every action's effect, retries one that silently\n \
         did nothing, and serves its tools to other agents over MCP (agent-cli mcp).\n"
    );
    std::fs::write(stage.join("DEBIAN/control"), control)?;
    let deb = out.join(format!("{PACKAGE}_{version}_{arch}.deb"));
    let status = Command::new("dpkg-deb")
        .args(["--root-owner-group", "--build"])
        .arg(&stage)
        .arg(&deb)
        .status()
        .context("could not run dpkg-deb")?;
    ensure!(status.success(), "dpkg-deb failed ({status})");
    std::fs::remove_dir_all(&stage)?;
    Ok(deb)
}

/// This host's architecture as Debian names it.
fn host_deb_arch() -> anyhow::Result<&'static str> {
    Ok(match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => bail!("no Debian architecture name is known here for {other}"),
    })
}

/// The newest `GLIBC_2.N` version the binary's symbol versions need (its version-needs
/// section, as `readelf -V` lists it), as Debian's libc6 version.
fn glibc_needed(binary: &Path) -> anyhow::Result<String> {
    let out = Command::new("readelf").arg("-V").arg(binary).output().context("could not run readelf (binutils)")?;
    ensure!(out.status.success(), "readelf -V {} failed", binary.display());
    let text = String::from_utf8_lossy(&out.stdout);
    let newest = text
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("GLIBC_2."))
        .filter_map(|v| v.split('.').next()?.parse::<u32>().ok())
        .max();
    let newest =
        newest.with_context(|| format!("{} needs no GLIBC symbol version: not a glibc binary?", binary.display()))?;
    Ok(format!("2.{newest}"))
}

/// Install the Debian package into this machine as a user would (`apt-get install
/// ./FILE.deb`, root), run the installed `agent-cli --version`, then remove it again.
fn try_deb() -> anyhow::Result<()> {
    let arch = host_deb_arch()?;
    let debs = list(&root().join("target/dist"), &format!("_{arch}.deb"))?;
    let [deb] = debs.as_slice() else { bail!("expected one {arch} .deb in target/dist: run `cargo xtask dist`") };
    crate::run_step("apt-get", &["install", "-y", "--no-install-recommends", &deb.to_string_lossy()])?;
    let result = (|| {
        let out = Command::new("/usr/bin/agent-cli").arg("--version").output().context("the installed agent-cli")?;
        let text = String::from_utf8_lossy(&out.stdout);
        ensure!(
            out.status.success() && text.trim() == format!("agent-cli {}", env!("CARGO_PKG_VERSION")),
            "the installed agent-cli --version said {text:?} ({})",
            out.status
        );
        println!("dist: the .deb installs, and /usr/bin/agent-cli says {}", text.trim());
        Ok(())
    })();
    crate::run_step("apt-get", &["remove", "-y", PACKAGE])?;
    result
}

/// The crates of `cargo install deft-desktop`, packaged and each built from its package
/// (everything but the repository's own tooling and tests).
fn crates() -> anyhow::Result<()> {
    forget_extracted_packages()?;
    let mut args = vec!["package", "--workspace"];
    for name in NOT_PACKAGED {
        args.extend(["--exclude", name]);
    }
    args.push("--locked");
    crate::run_step("cargo", &args)
}

/// The workspace's own tooling and tests, never packaged.
const NOT_PACKAGED: [&str; 3] = ["xtask", "deft-harness", "deft-e2e"];

/// Cargo verifies each package against the others through a local registry, extracted
/// under `$CARGO_HOME/registry/src/` once per name and version and never again, and builds
/// it into the workspace's target directory, where registry code is never rebuilt: a second
/// run at the same version built against the first run's sources and artifacts (deft-input
/// failed on a module deft-x11 had gained since). So our packages' extracted copies and
/// their builds (`cargo clean -p`, which takes every build of a name) go before packaging.
fn forget_extracted_packages() -> anyhow::Result<()> {
    let meta = std::process::Command::new("cargo")
        .args(["metadata", "--no-deps", "--format-version", "1", "--locked"])
        .current_dir(crate::root())
        .output()?;
    let meta: serde_json::Value = serde_json::from_slice(&meta.stdout)?;
    let names: Vec<String> = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str().map(String::from))
        .filter(|n| n.starts_with("deft-") && !NOT_PACKAGED.contains(&n.as_str()))
        .collect();
    // Verification builds with the dev profile: the release builds (benchmarks) stay.
    let mut clean = vec!["clean".to_string(), "--profile".into(), "dev".into()];
    for n in &names {
        clean.extend(["-p".to_string(), n.clone()]);
    }
    let args: Vec<&str> = clean.iter().map(String::as_str).collect();
    crate::run_step("cargo", &args)?;
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")));
    let Some(src) = home.map(|h| h.join("registry/src")) else { return Ok(()) };
    let Ok(registries) = std::fs::read_dir(&src) else { return Ok(()) };
    let version = env!("CARGO_PKG_VERSION");
    for registry in registries.flatten() {
        // Not the public registry's own copies: only a local one holds our packages.
        if registry.file_name().to_string_lossy().starts_with("index.") {
            continue;
        }
        for entry in std::fs::read_dir(registry.path())?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if names.iter().any(|n| name == format!("{n}-{version}")) {
                std::fs::remove_dir_all(entry.path())?;
            }
        }
    }
    Ok(())
}
