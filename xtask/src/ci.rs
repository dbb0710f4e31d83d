//! `cargo xtask ci`: the one test command, the same on a laptop and in CI.

use std::time::Instant;

use crate::run_step;

pub fn run(args: &[String]) -> anyhow::Result<()> {
    crate::no_args("ci", args)?;
    let start = Instant::now();
    let mut timings = Vec::new();
    let mut step = |name: &str, f: &dyn Fn() -> anyhow::Result<()>| -> anyhow::Result<()> {
        println!("\n==> ci: {name}");
        let t = Instant::now();
        f().map_err(|e| e.context(format!("ci step `{name}` failed")))?;
        timings.push((name.to_string(), t.elapsed()));
        Ok(())
    };
    step("setup", &|| crate::setup::run(&[]))?;
    // --all-features everywhere: one build configuration, and the optional backends
    // (xcap) are linted and tested too.
    step("fmt", &|| run_step("cargo", &["fmt", "--all", "--check"]))?;
    step("clippy", &|| {
        run_step(
            "cargo",
            &["clippy", "--workspace", "--all-targets", "--all-features", "--locked", "--", "-D", "warnings"],
        )
    })?;
    step("layers", &|| crate::layers::run(&[]))?;
    step("tidy", &|| crate::tidy::run(&[]))?;
    step("windows", &|| crate::windows::run(&[]))?;
    // Advisories need the internet, which CI machines do not have; see deny.toml.
    step("deny", &|| run_step("cargo", &["deny", "--locked", "check", "bans", "licenses", "sources"]))?;
    // The wheel and the .deb, from the test profile (the Python API's tests install the
    // wheel); --check: the generated Python methods match the tools the binary lists.
    step("dist", &|| crate::dist::run(&["--profile".into(), "dev".into(), "--check".into()]))?;
    step("deb", &|| crate::dist::run(&["--try-deb".into()]))?;
    // --no-fail-fast: one failing test binary must not hide how the others did.
    step("test", &|| run_step("cargo", &["test", "--workspace", "--all-features", "--locked", "--no-fail-fast"]))?;
    // What `cargo install deft-desktop` would build: every crate from its package alone.
    step("crates", &|| crate::dist::run(&["--crates".into()]))?;
    // The matrix in docs/ is this run's: every campaign recorded its cells.
    step("evidence", &|| crate::evidence::run(&["--check".to_string()]))?;
    println!("\n==> ci: all steps passed in {:.0?}", start.elapsed());
    for (name, took) in &timings {
        println!("    {name:<8} {took:.1?}");
    }
    Ok(())
}
