//! The `deft-desktop` wheel as a user gets it: `cargo xtask dist` built it (ci runs dist
//! before the tests); here it is installed with pip, and nothing else, into a fresh
//! virtual environment, and python/tests drives the fixture app through the Python API on
//! a headless desktop with faults on. pytest checks the API and reads the app's log; this
//! test checks the install, that pytest passed, and that the app outlived the suite.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::system::python_packages_dir;
use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};
use deft_harness::{Desktop, python, workspace_root};

use super::{Run, isolate, run, scratch};

fn wheel() -> PathBuf {
    let dist = workspace_root().join("target/dist");
    let wheels: Vec<PathBuf> = std::fs::read_dir(&dist)
        .map(|d| {
            // This machine's wheel (dist --target may have left another architecture's).
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().ends_with(&format!("_{}.whl", std::env::consts::ARCH)))
                .collect()
        })
        .unwrap_or_default();
    match wheels.as_slice() {
        [one] => one.clone(),
        _ => panic!(
            "expected one {} wheel in {}, found {wheels:?}: run `cargo xtask dist --profile dev`",
            std::env::consts::ARCH,
            dist.display()
        ),
    }
}

/// A fresh virtual environment with only the wheel installed (pip from the environment,
/// no index: the wheel must need nothing else).
fn environment(wheel: &PathBuf) -> PathBuf {
    let venv = scratch("python-venv");
    let r = run({
        let mut c = Command::new(python());
        c.args(["-m", "venv"]).arg(&venv);
        c
    });
    r.expect_code(0);
    let r = run({
        let mut c = Command::new(venv.join("bin/python"));
        c.args(["-m", "pip", "install", "--no-index", "--disable-pip-version-check", "--quiet"]).arg(wheel);
        c
    });
    r.expect_code(0);
    let r = run({
        let mut c = Command::new(venv.join("bin/python"));
        c.args(["-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"]);
        c
    });
    let installed: Vec<&str> = r.stdout.lines().map(|l| l.split("==").next().unwrap_or(l)).collect();
    assert!(installed.contains(&"deft-desktop"), "{r:#?}");
    let extra: Vec<&&str> = installed.iter().filter(|p| !["deft-desktop", "pip", "setuptools"].contains(p)).collect();
    assert!(extra.is_empty(), "the wheel pulled in {extra:?}");
    assert!(venv.join("bin/agent-cli").is_file(), "the wheel's binary is not in the environment's bin");
    venv
}

#[test]
fn the_wheel_installs_alone_and_its_python_api_drives_a_faulty_app() {
    let wheel = wheel();
    let venv = environment(&wheel);
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts = FixtureOptions { drop_clicks: 1, ignore_keys: true, ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));

    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap_or_else(|e| panic!("test model: {e}"));

    let mut cmd = desktop.command(venv.join("bin/python"));
    isolate(&mut cmd, &scratch("python-home"));
    // pytest and the MCP SDK come from setup's packages, after the environment's own
    // site-packages (PYTHONPATH goes first, so the tests assert where `deft` came from).
    cmd.env("PYTHONPATH", python_packages_dir())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("DEFT_FIXTURE_LOG", app.log_path())
        .env("DEFT_FIXTURE_PID", app.pid().to_string())
        .env("DEFT_WHEEL", &wheel)
        .env("DEFT_TEST_MODEL_URL", model.base_url())
        .env("DEFT_TEST_MODEL_NAME", MODEL_NAME)
        .env("DEFT_UV", python_packages_dir().join("bin/uv"))
        .env("UV_CACHE_DIR", scratch("uv-cache"))
        .env("UV_PYTHON", python())
        .current_dir(workspace_root().join("python/tests"))
        .args(["-m", "pytest", "-p", "no:cacheprovider", "-q", "test_desktop.py"]);
    let r: Run = run(cmd);
    assert_eq!(r.code, 0, "pytest failed:\n{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("14 passed"), "{}", r.stdout);
    app.check_alive(&desktop, Duration::from_secs(5)).unwrap_or_else(|e| panic!("the app was harmed: {e}"));
    // The whole suite pressed "Submit order" once (its first press dropped and recovered).
    assert_eq!(app.count("order_submitted", None), 1, "{:?}", app.events());
    // The example agent's model calls went to the test model (and carried no other key).
    let received = model.received();
    assert!(received.len() >= 3, "the example agent asked the test model {} times", received.len());
    assert!(received.iter().all(|r| r.credential.as_deref() == Some("test-key-not-a-secret")));
}
