//! `cargo xtask layers`: no crate may depend on a crate of a higher layer.
//!
//! A crate's layer is given by where it lives (see docs/ARCHITECTURE.md). Crates of the
//! same layer depend on each other only through the edges listed in [`SAME_LAYER`].
//! Tooling (xtask, the test harness, end-to-end tests) sits outside the layers: it may use
//! any crate, and a layered crate may use tooling only for its own tests.

use std::collections::BTreeMap;
use std::fmt;

use anyhow::Context;

/// Layer of each folder of the workspace, lowest first.
const LAYERS: &[(&str, Layer)] = &[
    ("crates/core/types", Layer::At(0)),
    ("crates/core/bus", Layer::At(1)),
    // What a run leaves beside its trace (frames within a budget) and the redaction of secrets.
    ("crates/core/trace", Layer::At(1)),
    // The fleet's queue: tasks are opaque to it, so it sits beside the bus, below every
    // crate that runs a task.
    ("crates/core/fleet", Layer::At(1)),
    // Platform readings shared by perception and actuation (the one X11 window finder).
    ("crates/platform/", Layer::At(1)),
    ("crates/perception/", Layer::At(2)),
    ("crates/actuation/", Layer::At(2)),
    ("crates/verification/", Layer::At(3)),
    // The toolbelt: one definition of each tool, below every face (the CLI, the agent,
    // the MCP server), above the executor it runs them through.
    ("crates/toolbelt", Layer::At(4)),
    ("crates/cognition/", Layer::At(5)),
    ("crates/agent-cli", Layer::At(6)),
    ("xtask", Layer::Tooling),
    ("tests/", Layer::Tooling),
];

/// The only dependencies allowed between crates of one layer: (from, to).
const SAME_LAYER: &[(&str, &str)] =
    &[("deft-verify", "deft-snapshot"), ("deft-verify", "deft-retry"), ("deft-agent", "deft-llm")];

/// The executor: crates above the toolbelt (the faces) reach it only through the toolbelt,
/// which re-exports what they configure and follow it with.
const THROUGH_TOOLBELT: &[&str] = &["deft-verify"];

/// The toolbelt's layer: crates above it are faces.
const TOOLBELT: u8 = 4;

/// Names of platform backends, which only the desktop wiring (deft-verify's `desktop.rs`)
/// and the layers below it may name: the toolbelt and the faces get every backend from the
/// desktop, so a platform is added in one place.
const BACKEND_NAMES: &[&str] =
    &["AtSpi", "EnigoInput", "X11Windows", "X11Capture", "open_default", "deft_x11", "deft_wayland"];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layer {
    At(u8),
    Tooling,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layer::At(n) => write!(f, "L{n}"),
            Layer::Tooling => f.write_str("tooling"),
        }
    }
}

/// One workspace crate as the check sees it.
#[derive(Clone, Debug)]
pub struct Crate {
    pub name: String,
    /// Folder relative to the workspace root, with `/` separators.
    pub dir: String,
    /// (dependency name, is a dev-dependency), workspace crates only.
    pub deps: Vec<(String, bool)>,
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    crate::no_args("layers", args)?;
    let crates = workspace_crates()?;
    let mut problems = check(&crates);
    problems.extend(backends_named(&crates)?);
    if problems.is_empty() {
        println!("layers: {} crates, every dependency points down", crates.len());
        return Ok(());
    }
    anyhow::bail!("layering violations:\n  {}\nsee the crate map in docs/ARCHITECTURE.md", problems.join("\n  "))
}

pub fn layer_of(dir: &str) -> Option<Layer> {
    LAYERS.iter().find(|(prefix, _)| dir == prefix.trim_end_matches('/') || dir.starts_with(prefix)).map(|&(_, l)| l)
}

/// Every rule broken by `crates`, in plain words.
pub fn check(crates: &[Crate]) -> Vec<String> {
    let mut problems = Vec::new();
    let layers: BTreeMap<&str, Option<Layer>> = crates.iter().map(|c| (c.name.as_str(), layer_of(&c.dir))).collect();
    for c in crates {
        let Some(from) = layers[c.name.as_str()] else {
            problems.push(format!(
                "{} (in {}) is in no layer: place it in the LAYERS table of xtask/src/layers.rs",
                c.name, c.dir
            ));
            continue;
        };
        let Layer::At(from_n) = from else { continue };
        for (dep, dev) in &c.deps {
            let Some(&Some(to)) = layers.get(dep.as_str()) else { continue };
            let ok = match to {
                Layer::Tooling => *dev,
                Layer::At(to_n) => {
                    to_n < from_n || (to_n == from_n && SAME_LAYER.contains(&(c.name.as_str(), dep.as_str())))
                }
            };
            if !ok {
                let kind = if *dev { "dev-dependency" } else { "dependency" };
                let why = match to {
                    Layer::Tooling => "tooling is for tests only".to_string(),
                    Layer::At(n) if n == from_n => "same layer, and not an allowed edge in SAME_LAYER".to_string(),
                    Layer::At(_) => "a higher layer".to_string(),
                };
                problems.push(format!("{} ({from}) has a {kind} on {dep} ({to}): {why}", c.name));
            }
            if from_n > TOOLBELT && !*dev && THROUGH_TOOLBELT.contains(&dep.as_str()) {
                problems.push(format!(
                    "{} ({from}) has a dependency on {dep}: faces reach the executor only through the toolbelt \
                     (re-export what they need from deft-toolbelt)",
                    c.name
                ));
            }
        }
    }
    problems
}

/// Every place the toolbelt or a face names a platform backend in its sources (tests and
/// benches aside): those come from the desktop.
fn backends_named(crates: &[Crate]) -> anyhow::Result<Vec<String>> {
    let root = crate::root();
    let mut problems = Vec::new();
    for c in crates {
        let Some(Layer::At(n)) = layer_of(&c.dir) else { continue };
        if n < TOOLBELT {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&root.join(&c.dir).join("src"), &mut files)?;
        for file in files {
            let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
            let shown = file.strip_prefix(&root).unwrap_or(&file).display().to_string();
            problems.extend(names_in(&text).into_iter().map(|(line, name)| {
                format!("{shown}:{line} names the backend `{name}`: get it from the desktop (deft_verify::Desktop)")
            }));
        }
    }
    Ok(problems)
}

/// (line, backend name) for every backend name in `text`, as a whole word.
fn names_in(text: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for name in BACKEND_NAMES {
            let whole = line.match_indices(name).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + name.len()..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                !word(before) && !word(after)
            });
            if whole {
                found.push((i + 1, *name));
            }
        }
    }
    found
}

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

fn workspace_crates() -> anyhow::Result<Vec<Crate>> {
    let root = crate::root();
    let out = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(&root)
        .output()
        .context("could not run cargo metadata")?;
    anyhow::ensure!(out.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let packages = meta["packages"].as_array().context("cargo metadata: no packages")?;
    let names: Vec<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut crates = Vec::new();
    for p in packages {
        let manifest = std::path::Path::new(p["manifest_path"].as_str().unwrap_or_default());
        let dir =
            manifest.parent().and_then(|d| d.strip_prefix(&root).ok()).map(|d| d.to_string_lossy().replace('\\', "/"));
        let deps = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| {
                let name = d["name"].as_str()?;
                names.contains(&name).then(|| (name.to_string(), d["kind"].as_str() == Some("dev")))
            })
            .collect();
        crates.push(Crate {
            name: p["name"].as_str().unwrap_or_default().to_string(),
            dir: dir.unwrap_or_default(),
            deps,
        });
    }
    Ok(crates)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn krate(name: &str, dir: &str, deps: &[(&str, bool)]) -> Crate {
        Crate { name: name.into(), dir: dir.into(), deps: deps.iter().map(|&(d, dev)| (d.into(), dev)).collect() }
    }

    fn base() -> Vec<Crate> {
        vec![
            krate("deft-types", "crates/core/types", &[]),
            krate("deft-bus", "crates/core/bus", &[("deft-types", false)]),
            krate("deft-a11y", "crates/actuation/a11y", &[("deft-types", false), ("deft-harness", true)]),
            krate("deft-input", "crates/actuation/input", &[]),
            krate("deft-snapshot", "crates/verification/snapshot", &[]),
            krate("deft-verify", "crates/verification/verify", &[("deft-snapshot", false), ("deft-a11y", false)]),
            krate("deft-harness", "tests/harness", &[("deft-a11y", false)]),
            krate("xtask", "xtask", &[("deft-harness", false)]),
        ]
    }

    fn check_with(extra: Crate, expected: &[&str]) {
        let mut crates = base();
        crates.push(extra);
        let problems = check(&crates);
        assert_eq!(problems.len(), expected.len(), "{problems:#?}");
        for (p, e) in problems.iter().zip(expected) {
            assert!(p.contains(e), "{p:?} should mention {e:?}");
        }
    }

    #[test]
    fn a_sound_graph_passes() {
        assert_eq!(check(&base()), Vec::<String>::new());
    }

    #[test]
    fn importing_a_higher_layer_fails() {
        check_with(
            krate("deft-diff", "crates/perception/diff", &[("deft-verify", false)]),
            &["deft-diff (L2) has a dependency on deft-verify (L3): a higher layer"],
        );
        check_with(
            krate("deft-ocr", "crates/perception/ocr", &[("deft-verify", true)]),
            &["dev-dependency on deft-verify"],
        );
    }

    #[test]
    fn same_layer_needs_an_allowed_edge() {
        check_with(krate("deft-capture", "crates/perception/capture", &[("deft-a11y", false)]), &["same layer"]);
        check_with(krate("deft-retry", "crates/verification/retry", &[]), &[]);
    }

    #[test]
    fn tooling_only_for_tests() {
        check_with(
            krate("deft-ocr", "crates/perception/ocr", &[("deft-harness", false)]),
            &["tooling is for tests only"],
        );
    }

    #[test]
    fn faces_reach_the_executor_only_through_the_toolbelt() {
        let faces = |deps: &[(&str, bool)]| krate("agent-cli", "crates/agent-cli", deps);
        check_with(faces(&[("deft-verify", false)]), &["faces reach the executor only through the toolbelt"]);
        check_with(faces(&[("deft-verify", true), ("deft-a11y", false)]), &[]);
        check_with(krate("deft-toolbelt", "crates/toolbelt", &[("deft-verify", false)]), &[]);
    }

    #[test]
    fn a_backend_is_named_as_a_whole_word_only() {
        let text = "use deft_a11y::AtSpi;\nlet a = AtSpiConfig::default();\n// X11Windows and EnigoInputs\n";
        assert_eq!(names_in(text), vec![(1, "AtSpi"), (3, "X11Windows")]);
        assert!(names_in("let belt = Toolbelt::connect(config, desktop, settings);").is_empty());
    }

    #[test]
    fn unplaced_crates_are_named() {
        check_with(krate("stray", "somewhere/else", &[]), &["stray (in somewhere/else) is in no layer"]);
    }

    #[test]
    fn the_real_workspace_passes() {
        let crates = workspace_crates().unwrap();
        assert!(crates.len() >= 14, "{crates:?}");
        assert_eq!(check(&crates), Vec::<String>::new());
        assert_eq!(backends_named(&crates).unwrap(), Vec::<String>::new());
    }
}
