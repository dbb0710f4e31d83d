//! `cargo xtask tidy`: the house rules a reviewer would otherwise repeat (STYLE.md), checked
//! on every Rust file of the workspace by `ci`.
//!
//! - every file opens with a `//!` line that says what it is;
//! - no file is longer than [`MAX_LINES`] unless [`LONG_FILES`] gives the reason;
//! - no `todo!`, `unimplemented!` or `dbg!` is left in;
//! - no package registry host name is written into the sources (the project's notes and
//!   commits never name them; the tools find them themselves).

use std::path::{Path, PathBuf};

/// Past this many lines a file usually holds two ideas (STYLE.md).
const MAX_LINES: usize = 600;

/// Files allowed to be longer, each with the reason.
const LONG_FILES: &[(&str, &str)] = &[
    ("crates/verification/retry/tests/scenarios.rs", "one transcript per scenario: data, read one at a time"),
    ("tests/harness/src/campaign.rs", "the campaign's judge, plan and table in one place, as the benchmark reads"),
];

/// Words that must not be left in the code.
const FORBIDDEN: &[&str] = &["todo!(", "unimplemented!(", "dbg!("];

pub fn run(args: &[String]) -> anyhow::Result<()> {
    crate::no_args("tidy", args)?;
    let root = crate::root();
    let mut files = Vec::new();
    for dir in ["crates", "tests", "xtask"] {
        collect(&root.join(dir), &mut files)?;
    }
    let problems: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let rel = f.strip_prefix(&root).unwrap_or(f).to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(f).unwrap_or_default();
            check(&rel, &text)
        })
        .collect();
    if problems.is_empty() {
        println!("tidy: {} Rust files follow the house rules", files.len());
        return Ok(());
    }
    anyhow::bail!("house rules broken (STYLE.md):\n  {}", problems.join("\n  "))
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                collect(&path, out)?;
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Every rule `text` (the file at `rel`) breaks, in plain words.
pub fn check(rel: &str, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if !text.starts_with("//!") {
        problems.push(format!("{rel}: does not open with a `//!` line saying what the file is"));
    }
    let lines = text.lines().count();
    if lines > MAX_LINES && !LONG_FILES.iter().any(|(f, _)| *f == rel) {
        problems.push(format!(
            "{rel}: {lines} lines (more than {MAX_LINES}): split it, or add it to LONG_FILES in xtask/src/tidy.rs with the reason"
        ));
    }
    // This file names the words it looks for; it is the one place that may.
    if rel != "xtask/src/tidy.rs" {
        for (n, line) in text.lines().enumerate() {
            if let Some(w) = FORBIDDEN.iter().find(|w| line.contains(*w)) {
                problems.push(format!("{rel}:{}: `{w}` left in", n + 1));
            }
            if registry_host(line) {
                problems.push(format!("{rel}:{}: names a package registry's host", n + 1));
            }
        }
    }
    problems
}

/// Whether a line names a package registry's host (written in parts, so that this file
/// does not name one either).
fn registry_host(line: &str) -> bool {
    let hosts = [["crates", "io"], ["pypi", "org"], ["npmjs", "org"]];
    hosts.iter().any(|[a, b]| line.contains(&format!("{a}.{b}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_catch_what_they_name() {
        assert!(check("a.rs", "//! Fine.\nfn main() {}\n").is_empty());
        assert!(check("a.rs", "fn main() {}\n")[0].contains("does not open with"));
        let long = format!("//! Long.\n{}", "x\n".repeat(MAX_LINES + 1));
        assert!(check("a.rs", &long)[0].contains("more than 600"));
        assert!(check(LONG_FILES[0].0, &long).is_empty());
        let left = format!("//! x\nfn f() {{ {}) }}\n", FORBIDDEN[0]);
        assert!(check("a.rs", &left)[0].contains("left in"));
        let host = format!("//! x\n// see {}.{}\n", "crates", "io");
        assert!(check("a.rs", &host)[0].contains("registry"));
    }

    #[test]
    fn the_workspace_is_tidy() {
        // The same check `ci` runs, so a developer sees it in `cargo test` too.
        run(&[]).unwrap();
    }
}
