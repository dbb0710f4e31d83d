//! `cargo xtask bench [SUITE...]`: run the benchmarks whose results go to docs/BENCHMARKS.md.
//!
//! A suite is one or more `cargo bench` targets; each target compares Deft with its peers
//! in one run, so their numbers are taken under the same load.

use crate::run_step;

/// One `cargo bench` target.
struct Target {
    package: &'static str,
    bench: &'static str,
    features: &'static [&'static str],
}

const fn target(package: &'static str, bench: &'static str, features: &'static [&'static str]) -> Target {
    Target { package, bench, features }
}

/// A suite that is a function of xtask rather than a `cargo bench` target.
type CustomSuite = fn() -> anyhow::Result<()>;

/// Custom suites by name, run after the `cargo bench` ones.
const CUSTOM: &[(&str, CustomSuite)] =
    &[("faults", crate::faults::run), ("unseen", crate::unseen::run), ("peers", crate::peers::run_bench)];

/// Suites by name, in the order `cargo xtask bench` runs them.
const SUITES: &[(&str, &[Target])] = &[
    ("bus", &[target("deft-bus", "bus", &[])]),
    ("fleet", &[target("deft-fleet", "fleet", &[]), target("deft-desktop", "fleet_desktops", &[])]),
    ("snapshot", &[target("deft-snapshot", "diff", &[])]),
    (
        "perception",
        &[
            target("deft-capture", "capture", &["xcap"]),
            target("deft-diff", "diff", &[]),
            target("deft-ocr", "ocr", &[]),
        ],
    ),
    ("gnome", &[target("deft-capture", "capture_gnome", &[])]),
    ("actuation", &[target("deft-a11y", "snapshot", &[]), target("deft-input", "latency", &[])]),
    ("verify", &[target("deft-verify", "overhead", &[])]),
    ("failfast", &[target("deft-verify", "failfast", &[])]),
    ("toolbelt", &[target("deft-toolbelt", "outline", &[])]),
    ("mcp", &[target("deft-desktop", "mcp", &[])]),
    ("flows", &[target("deft-desktop", "flows", &[])]),
    ("agent", &[target("deft-agent", "agent", &[])]),
];

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let all: Vec<&str> = SUITES.iter().map(|s| s.0).chain(CUSTOM.iter().map(|s| s.0)).collect();
    if let Some(a) = args.iter().find(|a| !all.contains(&a.as_str())) {
        anyhow::bail!("unknown benchmark suite `{a}`; known: {}", all.join(", "));
    }
    let wanted = |name: &str| args.is_empty() || args.iter().any(|a| a == name);
    let chosen: Vec<&(&str, &[Target])> = SUITES.iter().filter(|(n, _)| wanted(n)).collect();
    crate::setup::ensure_packages()?;
    for (name, targets) in chosen {
        for t in *targets {
            println!("\n==> bench {name}: {} ({})", t.bench, t.package);
            let features = t.features.join(",");
            let mut args = vec!["bench", "--locked", "--package", t.package, "--bench", t.bench];
            if !features.is_empty() {
                args.extend(["--features", &features]);
            }
            run_step("cargo", &args)?;
        }
    }
    for (name, suite) in CUSTOM.iter().filter(|(n, _)| wanted(n)) {
        println!("\n==> bench {name}");
        suite()?;
    }
    Ok(())
}
