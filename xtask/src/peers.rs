//! `cargo xtask bench peers`: Deft beside the two open tools a user would install instead,
//! on the fixture app (GTK 3) with every fault of the campaign, in one run, each action
//! judged by the app's ground-truth log (`deft_harness::campaign`): cua-driver (its PyPI
//! wheel) and computer-use-linux (`cargo install`), at pinned versions, installed once into
//! `target/peers/` and kept. Every tool is driven through its MCP server, one server per
//! tool for the run as an agent keeps its tools, by the same client (`tests/peers/
//! peer_call.py`, the official MCP Python SDK), with the call each offers closest to the
//! action; Deft also through agent-cli, a process per action, whose time includes its
//! start. Times are the tool's own call (its target lookup excluded).
//! The passes are interleaved (Deft, then each peer, `DEFT_PEERS_RUNS` times, default 3),
//! so all see the same load. The slow start is left out: both peers need the app's pid.
//! `DEFT_PEERS_TOOLS=deft,cua-driver` runs only those; `DEFT_FAULTS_BINARY` as for faults.
//! Not in CI: the install takes minutes. Tables go to stdout and `target/peers-report.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use deft_harness::Desktop;
use deft_harness::campaign::{self, ActionRecord, Driver, Fault, Report, Verdict, nearest_rank};
use deft_harness::fixture::Toolkit;

use crate::root;

const CUA_DRIVER: &str = "0.37.0";
const COMPUTER_USE_LINUX: &str = "0.7.36";
/// The tools `DEFT_PEERS_TOOLS` may name (default: all).
const TOOLS: [&str; 3] = ["deft", "cua-driver", "computer-use-linux"];

/// Where the peers are installed, kept across runs.
fn peers_dir() -> PathBuf {
    root().join("target/peers")
}

/// cua-driver in its own virtual environment.
fn install_cua_driver() -> anyhow::Result<PathBuf> {
    let venv = peers_dir().join(format!("cua-driver-{CUA_DRIVER}"));
    let bin = venv.join("bin/cua-driver");
    if !bin.exists() {
        println!("==> peers: installing cua-driver {CUA_DRIVER} into {}", venv.display());
        let python = deft_harness::python();
        run(Path::new(python), &["-m".as_ref(), "venv".as_ref(), venv.as_os_str()])?;
        let pip = venv.join("bin/pip");
        let spec = format!("cua-driver=={CUA_DRIVER}");
        run(&pip, &["install", "--quiet", "--disable-pip-version-check", &spec].map(AsRef::as_ref))?;
    }
    Ok(bin)
}

/// computer-use-linux built with `cargo install`. On X11 it activates windows with wmctrl
/// (xdotool, which it also needs, is one of Deft's test packages): installed here as root.
fn install_computer_use_linux() -> anyhow::Result<PathBuf> {
    if crate::setup::which("wmctrl").is_none() {
        anyhow::ensure!(
            crate::setup::is_root(),
            "computer-use-linux needs wmctrl on X11: `sudo apt-get install wmctrl`, then run this again"
        );
        crate::setup::apt(&["install", "-y", "--no-install-recommends", "wmctrl"])?;
    }
    let dir = peers_dir().join(format!("computer-use-linux-{COMPUTER_USE_LINUX}"));
    let bin = dir.join("bin/computer-use-linux");
    if !bin.exists() {
        println!("==> peers: building computer-use-linux {COMPUTER_USE_LINUX} into {} (minutes)", dir.display());
        let args = ["install", "computer-use-linux", "--version", COMPUTER_USE_LINUX, "--locked", "--root"];
        let mut args: Vec<&std::ffi::OsStr> = args.iter().map(AsRef::as_ref).collect();
        args.push(dir.as_os_str());
        run(Path::new("cargo"), &args)?;
    }
    Ok(bin)
}

fn run(program: &Path, args: &[&std::ffi::OsStr]) -> anyhow::Result<()> {
    let status = std::process::Command::new(program)
        .args(args)
        .status()
        .map_err(|e| anyhow::anyhow!("could not start {}: {e}", program.display()))?;
    anyhow::ensure!(status.success(), "{} failed ({status})", program.display());
    Ok(())
}

pub fn run_bench() -> anyhow::Result<()> {
    crate::setup::ensure_pip_packages()?;
    let runs: usize = match std::env::var("DEFT_PEERS_RUNS") {
        Ok(n) => n.parse().map_err(|e| anyhow::anyhow!("DEFT_PEERS_RUNS={n}: {e}"))?,
        Err(_) => 3,
    };
    let tools = std::env::var("DEFT_PEERS_TOOLS").unwrap_or_else(|_| TOOLS.join(","));
    let tools: Vec<&str> = tools.split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
    if let Some(t) = tools.iter().find(|t| !TOOLS.contains(t)) {
        anyhow::bail!("unknown tool `{t}` in DEFT_PEERS_TOOLS; known: {}", TOOLS.join(", "));
    }
    let mut drivers = Vec::new();
    for tool in &tools {
        match *tool {
            "deft" => {
                let deft = crate::faults::agent_cli_binary()?;
                drivers.push(Driver::Peer { tool: "deft", server: deft.clone() });
                drivers.push(Driver::AgentCli { binary: deft, verify: true });
            }
            "cua-driver" => drivers.push(Driver::Peer { tool: "cua-driver", server: install_cua_driver()? }),
            _ => drivers.push(Driver::Peer { tool: "computer-use-linux", server: install_computer_use_linux()? }),
        }
    }
    let scenarios: Vec<_> = campaign::on_toolkit(campaign::fault_scenarios(), Toolkit::Gtk3)
        .into_iter()
        .filter(|s| !matches!(s.fault, Fault::SlowStart(_)))
        .collect();
    let desktop = Desktop::start()?;
    let mut reports: Vec<Report> = Vec::new();
    for pass in 1..=runs {
        for (i, driver) in drivers.iter().enumerate() {
            println!("==> peers: pass {pass} of {runs}: {}", driver.label());
            let report = campaign::run(&desktop, &scenarios, driver);
            let report = report.inspect_err(|_| deft_harness::peer::end_sessions())?;
            match reports.get_mut(i) {
                Some(all) => all.records.extend(report.records),
                None => reports.push(report),
            }
        }
    }
    deft_harness::peer::end_sessions();
    let versions = format!(
        "cua-driver {CUA_DRIVER} (MCP, `delivery_mode` foreground for keys), computer-use-linux \
         {COMPUTER_USE_LINUX} (MCP), Deft at {} (MCP and agent-cli); {runs} passes",
        git_head()
    );
    let doc = format!("# Deft and its peers on the fixture app's faults\n\n{versions}\n\n{}", tables(&reports));
    println!("\n{doc}");
    let out = root().join("target/peers-report.md");
    std::fs::write(&out, &doc)?;
    println!("==> peers: report written to {}", out.display());
    Ok(())
}

fn git_head() -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root())
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The summary per tool, then one row per scenario and tool: the truth, what the tool
/// claimed, and its times.
fn tables(reports: &[Report]) -> String {
    let mut out = String::from(
        "| tool | actions | correct | recovered | silent failures | double effects | failed clearly | \
         unreported effects | apps crashed or frozen | median / p95 ms |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in reports {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0} / {:.0} |",
            r.driver,
            r.records.len(),
            r.count(Verdict::Correct),
            r.count(Verdict::Recovered),
            r.silent_failures(),
            r.double_effects(),
            r.count(Verdict::FailedClearly),
            r.count(Verdict::UnreportedEffect),
            r.crashed_or_frozen().len(),
            r.median_ms(),
            r.p95_ms()
        );
    }
    out.push_str(
        "\n| scenario | tool | truth (per run) | the tool claimed | median ms | p95 ms |\n|---|---|---|---|---:|---:|\n",
    );
    let mut names: Vec<&str> = Vec::new();
    for r in reports.iter().flat_map(|r| &r.records) {
        if !names.contains(&r.scenario.as_str()) {
            names.push(&r.scenario);
        }
    }
    for name in names {
        for report in reports {
            let rs: Vec<&ActionRecord> = report.records.iter().filter(|r| r.scenario == name).collect();
            if rs.is_empty() {
                continue;
            }
            let truth = counted(rs.iter().map(|r| r.verdict.label()));
            let claimed = counted(rs.iter().map(|r| if r.claim.is_empty() { "-" } else { r.claim.as_str() }));
            let ms: Vec<f64> = rs.iter().map(|r| r.elapsed.as_secs_f64() * 1000.0).collect();
            let _ = writeln!(
                out,
                "| {name} | {} | {truth} | {claimed} | {:.0} | {:.0} |",
                report.driver,
                nearest_rank(&ms, 0.5),
                nearest_rank(&ms, 0.95)
            );
        }
    }
    out.push_str("\nWhat each tool said where it failed or failed silently:\n\n");
    for report in reports {
        for r in report.records.iter().filter(|r| !matches!(r.verdict, Verdict::Correct | Verdict::Recovered)) {
            let said = if r.observed.is_empty() { "(nothing)" } else { r.observed.as_str() };
            let _ = writeln!(out, "- {}, {}: {} ({})", report.driver, r.scenario, r.verdict.label(), said);
        }
    }
    out
}

/// "3 correct, 2 silent failure": each distinct word with its count, in first-seen order.
fn counted<'a>(words: impl Iterator<Item = &'a str>) -> String {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for w in words {
        match seen.iter_mut().find(|(s, _)| *s == w) {
            Some((_, n)) => *n += 1,
            None => seen.push((w, 1)),
        }
    }
    seen.iter().map(|(w, n)| format!("{n} {w}")).collect::<Vec<_>>().join(", ")
}
