//! `--trace` frames and `agent-cli report` end to end: a run on the fixture app recorded
//! with frames, its report rendered by a real headless Chromium (no console error, the
//! steps, a frame with its click marker and the expected/observed text in the rendered
//! DOM; on-screen HTML and script stay text), a password that is in no file the run
//! wrote (as text, and by OCR of every frame), and a run killed with SIGKILL whose trace
//! still reports.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};

use super::{BIN, Run, isolate, run, scratch};

/// The fixture's `--html-label` text, as it appears in the app.
const PAYLOAD: &str = "<script>document.title='pwned'</script>";

fn start(extra: &[&str]) -> (Desktop, FixtureApp) {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let opts =
        FixtureOptions { extra_args: extra.iter().map(|s| s.to_string()).collect(), ..FixtureOptions::default() };
    let app = FixtureApp::launch(&desktop, &opts).unwrap_or_else(|e| panic!("fixture app did not start: {e}"));
    (desktop, app)
}

fn cli(desktop: &Desktop, home: &Path, args: &[&str]) -> Run {
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, home);
    cmd.args(args);
    run(cmd)
}

fn report(trace: &Path, out: &Path) -> Run {
    let mut cmd = Command::new(BIN);
    isolate(&mut cmd, &scratch("report-home"));
    cmd.args(["report", trace.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
    run(cmd)
}

/// What headless Chromium made of a page: the DOM after its scripts ran, its console
/// lines, and a screenshot.
struct Rendered {
    dom: String,
    console: Vec<String>,
}

fn chromium(page: &Path, work: &Path, screenshot: Option<&Path>) -> Rendered {
    let profile = work.join(format!("chromium-profile-{}", screenshot.is_some()));
    let url = format!("file://{}", page.display());
    let mut cmd = Command::new("/usr/bin/chromium");
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1280,2400",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.display()));
    match screenshot {
        Some(s) => cmd.arg(format!("--screenshot={}", s.display())),
        None => cmd.arg("--dump-dom"),
    };
    cmd.arg(&url);
    let r = run_bounded(cmd, Duration::from_secs(90));
    let console = r.stderr.lines().filter(|l| l.contains("CONSOLE")).map(str::to_string).collect();
    Rendered { dom: r.stdout, console }
}

fn run_bounded(mut cmd: Command, limit: Duration) -> Run {
    let out = work_file("chromium-out");
    let err = work_file("chromium-err");
    cmd.stdout(std::fs::File::create(&out).unwrap()).stderr(std::fs::File::create(&err).unwrap());
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run chromium: {e} (cargo xtask setup installs it)"));
    let until = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < until, "chromium did not finish in {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
    }
}

fn work_file(name: &str) -> PathBuf {
    scratch(name).join("out.txt")
}

/// Console lines that are errors: uncaught exceptions and refused (CSP) loads.
fn errors(console: &[String]) -> Vec<&String> {
    console.iter().filter(|l| l.contains("Uncaught") || l.contains("Refused") || l.contains("ERROR")).collect()
}

#[test]
fn the_report_renders_in_chromium_and_on_screen_markup_stays_text() {
    // The console check can see an error at all: a page with one is caught.
    let work = scratch("render");
    let bad = work.join("bad.html");
    std::fs::write(&bad, "<!doctype html><script>undefined_function_here();</script>").unwrap();
    let control = chromium(&bad, &work, None);
    assert!(!errors(&control.console).is_empty(), "the console check sees nothing: {:?}", control.console);

    let (desktop, app) = start(&["--html-label", "--popup"]);
    let home = scratch("render-home");
    let trace = work.join("trace");
    let t = trace.to_str().unwrap();
    let fixture = ["--app", "Deft Fixture", "--verify", "--json", "--trace", t];
    cli(&desktop, &home, &[&["type", "--target", "Name", "--text", "Ada Lovelace"][..], &fixture].concat())
        .expect_code(0);
    let hello = cli(&desktop, &home, &[&["click", "--name", "Hello"][..], &fixture].concat());
    hello.expect_code(0);
    assert!(hello.json()["observed"].as_str().unwrap().contains(PAYLOAD), "{hello:#?}");
    let missing =
        cli(&desktop, &home, &[&["click", "--name", "No such button", "--timeout", "500"][..], &fixture].concat());
    missing.expect_code(3);
    // The popup covers Submit order at its first press: blocked, said so (exit 5).
    cli(&desktop, &home, &[&["click", "--name", "Submit order"][..], &fixture].concat()).expect_code(5);
    assert_eq!(app.count("order_submitted", None), 0, "the popup took the press");
    drop(app);

    let page = work.join("report.html");
    let r = report(&trace, &page);
    r.expect_code(0);
    let v = r.json();
    // The type and Hello worked: verified, or, for Hello on a loaded machine whose press
    // watch missed the press, received (its label changed, "though the input never showed
    // it arrived"): either is honest, and this test is about how the report shows them.
    let worked = v["verified"].as_u64().unwrap_or(0) + v["received"].as_u64().unwrap_or(0);
    assert_eq!((v["actions"].as_u64(), worked, v["failed"].as_u64()), (Some(4), 2, Some(2)), "{v}");
    assert!(v["frames"].as_u64().unwrap() >= 4, "before and after frames: {v}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains(PAYLOAD), "the payload is in the page unescaped");

    let shot = work.join("report.png");
    let rendered = chromium(&page, &work, None);
    assert!(errors(&rendered.console).is_empty(), "console errors: {:#?}", rendered.console);
    let _ = chromium(&page, &work, Some(&shot));
    assert!(std::fs::metadata(&shot).map(|m| m.len() > 10_000).unwrap_or(false), "no screenshot at {}", shot.display());
    println!("screenshot of the report: {}", shot.display());

    let dom = &rendered.dom;
    assert!(dom.contains("Deft trace report"), "{dom}");
    // The steps, with their status.
    assert!(dom.contains("type [12 characters] into app=\"Deft Fixture\" text=Name"), "the type step: {dom}");
    assert!(dom.contains("click app=\"Deft Fixture\" name=Hello"), "the Hello step: {dom}");
    assert!(dom.contains("badge failed"), "the failed step stands out");
    // A frame with its click marker.
    assert!(dom.contains("<img") && dom.contains("src=\"data:image/png;base64,"), "no frame in the DOM");
    assert!(dom.contains("mark click-marker"), "no click marker in the DOM");
    assert!(dom.contains("mark target-box"));
    // Expected and observed.
    assert!(dom.contains("expected") && dom.contains("with \"Ada Lovelace\" inserted"), "expected text: {dom}");
    assert!(dom.contains("observed"));
    // Attempts with their method and result, the channel that saw the evidence, and what
    // blocked the press.
    assert!(dom.contains("<h4>attempts</h4>") && dom.contains("keystrokes"), "the attempts: {dom}");
    assert!(dom.contains("<h4>evidence</h4>") && dom.contains("accessibility"), "the evidence channel: {dom}");
    assert!(dom.contains("blocked by dialog \"New Event!\""), "what blocked Submit order: {dom}");
    // The app's markup is text: escaped in the DOM, never an element, never run.
    assert!(dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;"), "the payload is not shown as text");
    assert!(!dom.contains(PAYLOAD), "the payload became markup");
    assert!(!dom.contains("<img src=\"x\""), "the payload's image became an element");
    assert!(!dom.contains("<title>pwned"), "the payload's script ran");
}

/// The report of an agent run (driven by the test model, on the fixture's two "Submit"
/// buttons): its summary counts the agent's steps, model calls and tokens; each step
/// shows the model's thought, the confidence against its threshold, the question asked and
/// the person's answer; and the page renders in Chromium without console errors.
#[test]
fn an_agent_run_reports_its_thoughts_confidence_question_and_answer() {
    use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};
    let (desktop, app) = start(&["--ambiguous"]);
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let work = scratch("render-agent");
    let trace = work.join("trace");
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &work.join("home"));
    cmd.env("DEFT_MODEL_PROVIDER", model.provider())
        .env("DEFT_MODEL", MODEL_NAME)
        .env("DEFT_MODEL_BASE_URL", model.base_url())
        .env("DEFT_RUNS_DIR", work.join("runs"))
        .args(["run", "Type \"Ada\" into Name, then press Submit.", "--app", "Deft Fixture", "--json"])
        .args(["--ask", "terminal", "--trace", trace.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"the one in Billing\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(app.count("button_activated", Some("submit_billing")), 1, "the run did its task: {:?}", app.events());
    drop(app);

    let page = work.join("report.html");
    let r = report(&trace, &page);
    r.expect_code(0);
    let v = r.json();
    let steps = v["agent_steps"].as_u64().unwrap_or(0);
    let calls = v["model_calls"].as_u64().unwrap_or(0);
    assert!(steps >= 2 && calls >= steps, "steps and model calls are counted: {v}");
    assert!(v["prompt_tokens"].as_u64().unwrap_or(0) > 0, "tokens are counted: {v}");

    let rendered = chromium(&page, &work, None);
    assert!(errors(&rendered.console).is_empty(), "console errors: {:#?}", rendered.console);
    let dom = &rendered.dom;
    for card in ["agent steps", "model calls", "tokens (prompt + output)"] {
        assert!(dom.contains(card), "the summary has {card:?}");
    }
    // A thought the model really sent, shown as it was sent (text, escaped).
    let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let thoughts: Vec<String> = model
        .received()
        .iter()
        .filter(|x| !x.seen.system.starts_with("You check") && !x.reply_text.trim().is_empty())
        .map(|x| x.reply_text.trim().to_string())
        .collect();
    assert!(!thoughts.is_empty(), "the test model sent thoughts");
    assert!(thoughts.iter().any(|t| dom.contains(&escape(t))), "no thought of {thoughts:#?} in the DOM");
    // The confidence that held the press back, the question and the answer.
    assert!(dom.contains("confidence") && dom.contains(" &lt; 0.85"), "a score below the threshold is shown");
    assert!(dom.contains("Billing") && dom.contains("Shipping"), "the question names both buttons");
    assert!(dom.contains("the one in Billing"), "the person's answer is shown");
    // For a person: actions aimed by ref titled by what they hit, not by AT-SPI object
    // paths; arguments in words; the model's untrusted-data fences left out.
    let shown = without_scripts(dom);
    assert!(!shown.contains("/org/a11y/atspi/accessible/"), "a raw id in the report: {shown}");
    assert!(!shown.contains("screen_text"), "the model's fences in the report: {shown}");
    assert!(!shown.contains("{&quot;") && !shown.contains("{\""), "raw JSON in the report: {shown}");
}

/// The DOM without its `<script>` elements (the data the viewer reads): what is shown.
fn without_scripts(dom: &str) -> String {
    let mut out = String::new();
    let mut rest = dom;
    while let Some(i) = rest.find("<script") {
        out.push_str(&rest[..i]);
        rest = rest[i..].find("</script>").map_or("", |j| &rest[i + j + "</script>".len()..]);
    }
    out.push_str(rest);
    out
}

#[test]
fn a_file_that_is_not_a_trace_is_an_error() {
    let work = scratch("not-a-trace");
    let file = work.join("notes.jsonl");
    std::fs::write(&file, "{\"hello\": 1}\nnot json at all\n").unwrap();
    let r = report(&file, &work.join("out.html"));
    r.expect_code(2);
    assert!(r.stderr.contains("holds no event agent-cli records"), "{r:#?}");
    assert!(!work.join("out.html").exists(), "no page was written");
}

/// The data island of a report page, parsed.
fn island(page: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    let start = html.find("id=\"deft-trace\">").expect("the data island") + "id=\"deft-trace\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).expect("the island is JSON")
}

/// The report of a flow run: each step with its name, expectation and end, the person's
/// answer to the step that asked, and the executor's operations under the step that made
/// them (the flow's events and the executor's are on one clock); rendered by Chromium
/// without console errors.
#[test]
fn a_flow_run_reports_each_step_with_its_expectation_answer_and_actions() {
    let (desktop, app) = start(&[]);
    let work = scratch("render-flow");
    let trace = work.join("trace");
    let _ = std::fs::remove_dir_all(&trace);
    let file = work.join("flow.yaml");
    let flow = "\
flow: Report me
steps:
  - name: greet
    click: Hello
    expect: text:\"Clicked Hello\"
  - name: missing
    click: Print receipt
    on_fail: ask
  - click: Submit order
";
    std::fs::write(&file, flow).unwrap();
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &work.join("home"));
    cmd.args(["flow", "run", file.to_str().unwrap(), "--json", "--ask", "terminal", "--timeout", "1500"])
        .args(["--trace", trace.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"skip\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(app.count("button_activated", Some("hello")), 1, "{:?}", app.events());
    assert_eq!(app.count("order_submitted", None), 1, "{:?}", app.events());

    let page = work.join("report.html");
    report(&trace, &page).expect_code(0);
    let data = island(&page);
    let run = &data["runs"][0];
    let f = &run["flow"];
    assert_eq!(
        (f["name"].as_str(), f["ok"].as_bool(), f["skipped"].as_u64()),
        (Some("Report me"), Some(true), Some(1))
    );
    let steps = f["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{f:#}");
    let kinds = |s: &serde_json::Value| -> Vec<String> {
        let ops = s["ops"].as_array().unwrap();
        let of = |n: &serde_json::Value| run["ops"].as_array().unwrap().iter().find(|o| o["op"] == *n).cloned();
        ops.iter()
            .filter_map(of)
            .map(|o| format!("{} {}", o["kind"].as_str().unwrap(), o["status"].as_str().unwrap()))
            .collect()
    };
    assert_eq!(
        (steps[0]["name"].as_str(), steps[0]["expect"].as_str()),
        (Some("greet"), Some("text:\"Clicked Hello\""))
    );
    assert_eq!((steps[0]["status"].as_str(), kinds(&steps[0])), (Some("done"), vec!["click verified".to_string()]));
    assert_eq!((steps[1]["status"].as_str(), steps[1]["choice"].as_str()), (Some("skipped"), Some("skip")));
    assert!(steps[1]["question"].as_str().unwrap().starts_with("Step 2 of 3 of the flow \"Report me\" (missing)"));
    assert_eq!(kinds(&steps[1]), vec!["click failed".to_string()], "the failed click, under its step");
    assert_eq!(kinds(&steps[2]), vec!["click verified".to_string()], "{f:#}");

    let rendered = chromium(&page, &work, None);
    assert!(errors(&rendered.console).is_empty(), "console errors: {:#?}", rendered.console);
    let dom = &rendered.dom;
    assert!(dom.contains("greet: click"), "the step by its name: {dom}");
    assert!(dom.contains("1 skipped by the person"), "{dom}");
    assert!(dom.contains("text:\"Clicked Hello\""), "the expectation: {dom}");
    app.check_alive(&desktop, Duration::from_secs(5)).expect("the app still answers");
}
