//! `cargo xtask bench [NAME...]`: run the benchmarks whose results go to docs/BENCHMARKS.md.

use crate::run_step;

/// (name, package, bench target): each suite is one `cargo bench` run.
const SUITES: &[(&str, &str, &str)] = &[("bus", "deft-bus", "bus"), ("snapshot", "deft-snapshot", "diff")];

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let chosen: Vec<&(&str, &str, &str)> = if args.is_empty() {
        SUITES.iter().collect()
    } else {
        args.iter()
            .map(|a| {
                SUITES.iter().find(|(n, _, _)| n == a).ok_or_else(|| {
                    let known: Vec<&str> = SUITES.iter().map(|s| s.0).collect();
                    anyhow::anyhow!("unknown benchmark `{a}`; known: {}", known.join(", "))
                })
            })
            .collect::<anyhow::Result<_>>()?
    };
    for (name, package, bench) in chosen {
        println!("\n==> bench: {name}");
        run_step("cargo", &["bench", "--package", package, "--bench", bench])?;
    }
    Ok(())
}
