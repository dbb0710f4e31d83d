//! `agent-cli mcp` called tool by tool by the two official MCP SDKs a user's client is
//! built on: the TypeScript SDK through the MCP Inspector's CLI (its Ajv checks every
//! result against the tool's output schema as a draft-07 validator), and the Python SDK
//! (`jsonschema`, 2020-12). Both must accept every result of every tool, and list the
//! tools without a warning. The calls are one list, `tests/mcp/every_tool.json`.

use std::path::PathBuf;
use std::process::Command;

use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::system::{NPM, mcp_inspector};
use deft_harness::{Desktop, workspace_root};
use serde_json::Value;

use super::{BIN, isolate, run, scratch};

/// The calls both clients make, in order: `[tool, arguments]`.
fn every_tool() -> Vec<(String, serde_json::Map<String, Value>)> {
    let path = workspace_root().join("tests/mcp/every_tool.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let calls: Vec<(String, serde_json::Map<String, Value>)> = serde_json::from_str(&text).unwrap();
    let tools: Vec<&str> = calls.iter().map(|(t, _)| t.as_str()).collect();
    for spec in deft_toolbelt::specs() {
        assert!(tools.contains(&spec.name.as_str()), "every_tool.json does not call {}", spec.name.as_str());
    }
    calls
}

/// The Inspector's CLI on `desktop`, starting `agent-cli mcp` with only the variables a
/// client's configuration gives a server (the Inspector passes its own environment on).
fn inspector(desktop: &Desktop, args: &[String]) -> Command {
    for r in NPM {
        assert!(r.is_met(), "the npm package {} is not installed: run `cargo xtask setup`", r.spec());
    }
    let mut cmd = desktop.command(mcp_inspector());
    isolate(&mut cmd, &scratch("inspector-home"));
    // Its CLI reads the working directory's package.json when there is one: run it where none is.
    cmd.current_dir(scratch("inspector-cwd")).arg("--cli").arg(PathBuf::from(BIN)).arg("mcp").args(args);
    cmd
}

/// `key=value` as the Inspector's `--tool-arg` takes it (strings; numbers are converted by
/// the schema).
fn tool_args(args: &serde_json::Map<String, Value>) -> Vec<String> {
    args.iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect()
}

#[test]
fn the_typescript_sdk_accepts_every_tool_and_every_result() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default())
        .unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    let r = run(inspector(&desktop, &["--method".into(), "tools/list".into()]));
    assert_eq!(r.code, 0, "tools/list: {r:#?}");
    assert!(!r.stderr.contains("unknown format") && !r.stderr.contains("schema"), "warnings: {}", r.stderr);
    let listed: Value = r.json();
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(deft_toolbelt::specs().len() + 2));
    for (tool, args) in every_tool() {
        let mut a = vec!["--method".to_string(), "tools/call".into(), "--tool-name".into(), tool.clone()];
        if !args.is_empty() {
            a.push("--tool-arg".into());
            a.extend(tool_args(&args));
        }
        let r = run(inspector(&desktop, &a));
        let head: String = r.stdout.chars().take(1500).collect();
        assert_eq!(r.code, 0, "{tool} {args:?}: the Inspector refused the result:\n{}\n{head}", r.stderr);
        assert!(!r.stderr.contains("does not match") && !r.stderr.contains("unknown format"), "{tool}: {}", r.stderr);
        let result: Value = r.json();
        assert!(result["structuredContent"].is_object(), "{tool}: no structured content: {head}");
        // Only the last call (an expectation never met) is a failure.
        let expect_error = args.contains_key("expect");
        assert_eq!(result["isError"].as_bool().unwrap_or(false), expect_error, "{tool} {args:?}: {head}");
    }
    app.check_alive(&desktop, std::time::Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_python_sdk_accepts_every_tool_and_every_result() {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default())
        .unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    every_tool();
    let report = super::mcp::scenario(Some(&desktop), "every-tool", "auto", &[]);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), every_tool().len(), "{report:#}");
    app.check_alive(&desktop, std::time::Duration::from_secs(5)).unwrap_or_else(|e| panic!("{e}"));
}
