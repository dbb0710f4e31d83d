//! Secrets never leave the box: a password typed and set into the fixture's password field
//! through the CLI is in no file the run wrote (the trace, its frames, the report, the
//! logs), as text or by OCR of every saved frame, while the text typed into Name is read
//! back from the frames by the same OCR (so the OCR search can find typed text). And a run
//! killed with SIGKILL leaves a trace the report reads to its last event.

use std::path::{Path, PathBuf};
use std::time::Duration;

use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_ocr::Ocr;

use super::{BIN, isolate, run, scratch};

const SECRET: &str = "Zq7-Hunter2-Wx9";

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() { out.extend(files(&p)) } else { out.push(p) }
    }
    out
}

/// A fresh desktop with the fixture app on it.
fn start() -> (Desktop, FixtureApp) {
    let desktop = Desktop::start().unwrap_or_else(|e| panic!("desktop did not start: {e}"));
    let app = FixtureApp::launch(&desktop, &FixtureOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    (desktop, app)
}

/// `agent-cli report TRACE -o OUT` (no desktop needed), with `home` as its config home.
fn report(trace: &Path, out: &Path, home: &Path) -> super::Run {
    let mut cmd = std::process::Command::new(BIN);
    isolate(&mut cmd, home);
    cmd.args(["report", trace.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    run(cmd)
}

/// No file below `dir` holds any of `needles`, as text (a report's frames are base64 of
/// the same PNGs, searched as PNGs themselves).
fn written_nowhere(dir: &Path, needles: &[&str]) {
    for f in files(dir) {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).to_string();
        for n in needles {
            assert!(!text.contains(n), "{n:?} is in {}", f.display());
        }
    }
}

fn frame_of(png_file: &Path) -> deft_types::Frame {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png_file).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "{}", png_file.display());
    let rgba: Vec<u8> = buf[..info.buffer_size()].chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect();
    deft_types::Frame::new(info.width, info.height, rgba, deft_types::Point::new(0, 0)).unwrap()
}

#[test]
fn a_password_typed_and_set_is_in_no_file_the_run_wrote() {
    let (desktop, app) = start();
    let work = scratch("redact");
    let trace = work.join("trace");
    let home = work.join("home");
    let t = trace.to_str().unwrap();
    let mut logs = String::new();
    let steps: [&[&str]; 4] = [
        &["type", "--target", "Name", "--text", "Ada Lovelace", "--json"],
        &["type", "--target", "Password", "--text", SECRET, "--json"],
        &["set-value", "--name", "Password", "--value", SECRET, "--json"],
        &["type", "--target", "Password", "--text", SECRET],
    ];
    for args in steps {
        let mut cmd = desktop.command(BIN);
        isolate(&mut cmd, &home);
        cmd.args(args).args(["--app", "Deft Fixture", "--verify", "--trace", t]);
        let r = run(cmd);
        assert_eq!(r.code, 0, "{args:?}: {r:#?}");
        logs.push_str(&r.stdout);
        logs.push_str(&r.stderr);
    }
    // Ground truth: the app got the password (its log records only the length).
    let typed = app.events().into_iter().filter(|e| e.is("text_changed", Some("password"))).count();
    assert!(typed > 0, "nothing reached the password field");
    drop(app);

    let page = work.join("report.html");
    let mut cmd = std::process::Command::new(BIN);
    isolate(&mut cmd, &home);
    cmd.args(["report", t, "-o", page.to_str().unwrap()]);
    let r = run(cmd);
    assert_eq!(r.code, 0, "{r:#?}");
    logs.push_str(&r.stdout);
    logs.push_str(&r.stderr);
    std::fs::write(work.join("logs.txt"), &logs).unwrap();

    // As text, in every file (and the HTML's frames are base64 of the same PNGs).
    let all = files(&work);
    let pngs: Vec<&PathBuf> = all.iter().filter(|p| p.extension().is_some_and(|x| x == "png")).collect();
    assert!(pngs.len() >= 4, "frames were recorded: {all:?}");
    for f in &all {
        let bytes = std::fs::read(f).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(SECRET) && !text.contains("Hunter2"), "the secret is in {}", f.display());
    }
    // The frames that show the password field have it painted over.
    let traces: String = all
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let masked = traces.lines().filter(|l| l.contains("\"frame\":") && l.contains("\"masked\":[[")).count();
    let saved = traces.lines().filter(|l| l.contains("\"frame\":") && l.contains("\"file\":\"frames/")).count();
    assert!(
        saved >= 6 && masked == saved,
        "every saved frame of the fixture's window masks the password field: {masked} of {saved}"
    );

    // By OCR of every saved frame: the typed name is read back, the password never.
    let ocr = deft_ocr::OcrsEngine::from_embedded().unwrap();
    let mut read_name = false;
    for f in &pngs {
        let text: String =
            ocr.recognize(&frame_of(f), None).unwrap().lines.iter().map(|l| l.text.clone() + "\n").collect();
        read_name |= text.contains("Lovelace");
        let squashed: String = text.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
        assert!(
            !squashed.contains("hunter2") && !squashed.contains("zq7"),
            "OCR reads the secret in {}:\n{text}",
            f.display()
        );
    }
    assert!(read_name, "OCR of the frames never read the typed name: the search proves nothing");
}

#[test]
fn a_run_killed_with_sigkill_leaves_a_trace_the_report_reads() {
    let (desktop, app) = start();
    let work = scratch("killed");
    let trace = work.join("trace");
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &work.join("home"));
    // An expectation that never comes: the action watches for 20 s, and is killed meanwhile.
    cmd.args(["click", "--name", "Hello", "--app", "Deft Fixture", "--verify", "--expect", "text:\"Never shown\""])
        .args(["--timeout", "20000", "--json", "--trace", trace.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    // Killed once the input was sent (the app's log says the click arrived).
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while !app.events().iter().any(|e| e.is("button_activated", Some("hello"))) {
        assert!(std::time::Instant::now() < deadline, "the click never arrived");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap(); // SIGKILL
    let _ = child.wait();
    drop(app);
    let jsonl: Vec<PathBuf> =
        files(&trace).into_iter().filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
    assert_eq!(jsonl.len(), 1);
    let text = std::fs::read_to_string(&jsonl[0]).unwrap();
    assert!(text.contains("\"input_sent\"") && !text.contains("\"action_finished\""), "{text}");
    // Every frame a record names is whole on disk.
    for line in text.lines().filter(|l| l.contains("\"frame\":")) {
        if let Some(i) = line.find("\"file\":\"frames/") {
            let name = &line[i + 8..i + 8 + "frames/0123456789abcdef.png".len()];
            let png = std::fs::read(trace.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(png.starts_with(b"\x89PNG") && png.ends_with(&[0xae, 0x42, 0x60, 0x82]), "{name} is torn");
        }
    }
    // A writer killed mid-line leaves a torn last line: the report reads up to it and says so.
    let mut f = std::fs::OpenOptions::new().append(true).open(&jsonl[0]).unwrap();
    std::io::Write::write_all(&mut f, b"{\"seq\":999,\"at_us\":1,\"source\":\"deft-ve").unwrap();
    drop(f);
    let page = work.join("report.html");
    let mut cmd = std::process::Command::new(BIN);
    isolate(&mut cmd, &work.join("home"));
    cmd.args(["report", trace.to_str().unwrap(), "-o", page.to_str().unwrap(), "--json"]);
    let r = run(cmd);
    assert_eq!(r.code, 0, "{r:#?}");
    let v = r.json();
    assert_eq!((v["actions"].as_u64(), v["unfinished"].as_u64()), (Some(1), Some(1)), "{v}");
    assert_eq!(v["diagnostics"].as_u64(), Some(1), "the torn line is reported: {v}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("truncated after") && html.contains("unfinished"), "the page says the run was cut short");
}

/// `screenshot` paints the password field over: the PNG it writes holds only the mask
/// colour where the field is, as an independent AT-SPI client (pyatspi) places the field,
/// while the rest of the window is there.
#[test]
fn a_screenshot_paints_the_password_field_over() {
    let (desktop, _app) = start();
    let work = scratch("redact-screenshot");
    let shot = work.join("window.png");
    let cli = |args: &[&str]| {
        let mut cmd = desktop.command(BIN);
        isolate(&mut cmd, &work.join("home"));
        cmd.args(args);
        run(cmd)
    };
    assert_eq!(cli(&["type", "--target", "Password", "--text", SECRET, "--app", "Deft Fixture"]).code, 0);
    let r = cli(&["screenshot", "--window", "Deft Fixture", "-o", shot.to_str().unwrap(), "--json"]);
    assert_eq!(r.code, 0, "{r:#?}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    // Where pyatspi says the password field is.
    let dump = desktop
        .command(deft_harness::python())
        .arg(deft_harness::fixture::a11y_driver_script())
        .arg("dump")
        .output()
        .expect("the pyatspi driver runs");
    let field: Vec<i64> = String::from_utf8_lossy(&dump.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e["role"] == "password text")
        .and_then(|e| e["extents"].as_array().map(|a| a.iter().filter_map(|n| n.as_i64()).collect()))
        .expect("pyatspi finds the password field");
    let masked = v["masked"].as_array().expect("the result lists what it masked");
    let as_rect = |m: &serde_json::Value| -> Vec<i64> {
        m.as_array().map(|a| a.iter().filter_map(|n| n.as_i64()).collect()).unwrap_or_default()
    };
    assert!(masked.iter().any(|m| as_rect(m) == field), "{masked:?} vs pyatspi {field:?}");
    // The PNG: the field's pixels are the mask colour, and the window is not all masked.
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let (ox, oy) = (v["bounds"][0].as_i64().unwrap(), v["bounds"][1].as_i64().unwrap());
    let at = |x: i64, y: i64| {
        let i = ((y - oy) as usize * info.width as usize + (x - ox) as usize) * channels;
        buf[i..i + 3].to_vec()
    };
    let mask = deft_trace::redact::MASK_RGBA[..3].to_vec();
    let [fx, fy, fw, fh] = [field[0], field[1], field[2], field[3]];
    for (x, y) in [(fx, fy), (fx + fw - 1, fy + fh - 1), (fx + fw / 2, fy + fh / 2), (fx + 3, fy + fh / 2)] {
        assert_eq!(at(x, y), mask, "pixel {x},{y} of the password field");
    }
    assert_ne!(at(ox + 2, oy + 2), mask, "the window around it is not masked");
}

/// A password given as `DEFT_SECRET_FIXTURE_PW` and written `{{secret:FIXTURE_PW}}`: the
/// CLI and the agent (driven by the test model) type it into the fixture's password field,
/// judged by the app's log (the right length arrived); into the Name field it is refused
/// with nothing typed. The value is in no file the runs wrote (traces, frames, reports,
/// logs) and in nothing the model received.
#[test]
fn a_secret_reference_is_typed_by_the_cli_and_the_agent_and_written_nowhere() {
    use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};
    const VALUE: &str = "Kx4-Marmot9-Qe2";
    let (desktop, app) = start();
    let model = TestModel::start(Wire::OpenAi, Persona::Honest).unwrap();
    let work = scratch("redact-secret-ref");
    let home = work.join("home");
    let cli = |args: &[&str]| {
        let mut cmd = desktop.command(BIN);
        isolate(&mut cmd, &home);
        cmd.env("DEFT_SECRET_FIXTURE_PW", VALUE)
            .env("DEFT_MODEL_PROVIDER", model.provider())
            .env("DEFT_MODEL", MODEL_NAME)
            .env("DEFT_MODEL_BASE_URL", model.base_url())
            .env("DEFT_RUNS_DIR", work.join("runs"))
            .args(args);
        run(cmd)
    };
    let lengths = || -> Vec<i64> {
        app.events()
            .iter()
            .filter(|e| e.is("text_changed", Some("password")))
            .filter_map(|e| e.raw.get("length").and_then(|l| l.as_i64()))
            .collect()
    };
    let mut logs = String::new();
    let cli_trace = work.join("cli-trace");
    let r = cli(&[
        "type",
        "--target",
        "Password",
        "--text",
        "{{secret:FIXTURE_PW}}",
        "--app",
        "Deft Fixture",
        "--verify",
        "--json",
        "--trace",
        cli_trace.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(lengths().last(), Some(&(VALUE.len() as i64)), "the CLI typed the secret: {:?}", app.events());
    logs.push_str(&format!("{r:?}"));
    // Not into a field that shows its text.
    let r = cli(&["type", "--target", "Name", "--text", "{{secret:FIXTURE_PW}}", "--app", "Deft Fixture", "--verify"]);
    assert_ne!(r.code, 0, "{r:#?}");
    assert!(r.stdout.contains("a secret goes only into a password field"), "{r:#?}");
    assert!(!app.events().iter().any(|e| e.is("text_changed", Some("name"))), "nothing typed into Name");
    logs.push_str(&format!("{r:?}"));
    // An unknown name says how to give it.
    let r = cli(&["type", "--target", "Password", "--text", "{{secret:NOPE}}", "--app", "Deft Fixture"]);
    assert_eq!(r.code, 2, "{r:#?}");
    assert!(r.stderr.contains("DEFT_SECRET_NOPE"), "{r:#?}");

    // The agent, clearing the field first so the length tells its typing apart.
    let r = cli(&["set-value", "--target", "Password", "--value", "", "--app", "Deft Fixture", "--verify"]);
    assert_eq!(r.code, 0, "{r:#?}");
    assert_eq!(lengths().last(), Some(&0), "the field was cleared: {:?}", app.events());
    let agent_trace = work.join("agent-trace");
    let goal = "Type \"{{secret:FIXTURE_PW}}\" into Password.";
    let r = cli(&[
        "run",
        goal,
        "--app",
        "Deft Fixture",
        "--json",
        "--ask",
        "defer",
        "--trace",
        agent_trace.to_str().unwrap(),
    ]);
    logs.push_str(&format!("{r:?}"));
    assert_eq!(r.code, 0, "{r:#?}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(lengths().last(), Some(&(VALUE.len() as i64)), "the agent typed the secret: {:?}", app.events());
    for t in [&cli_trace, &agent_trace] {
        let page = t.join("report.html");
        let r = cli(&["report", t.to_str().unwrap(), "-o", page.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{r:#?}");
    }
    std::fs::write(work.join("logs.txt"), &logs).unwrap();

    let received: Vec<String> = model.received().iter().map(|x| x.body.to_string()).collect();
    assert!(!received.is_empty() && received.iter().all(|b| !b.contains(VALUE)), "the model never sees the value");
    assert!(received.iter().any(|b| b.contains("{{secret:FIXTURE_PW}}")), "it sees the reference");
    written_nowhere(&work, &[VALUE, "Marmot9"]);
}

/// A field the user's policy names (`--mask-field Email`) is a secret like a password: the
/// address typed into it reaches the app (its log says so) but is in no file the run wrote
/// (trace, frames, report, the CLI's output), `read` shows the field without its text, and
/// its pixels are painted over in every saved frame. Without the policy, the same `read`
/// shows the address (so the search could find it).
#[test]
fn a_field_the_policy_names_is_masked_like_a_password() {
    const ADDRESS: &str = "ada.quokka7@example.org";
    let (desktop, app) = start();
    let work = scratch("redact-mask-field");
    let trace = work.join("trace");
    let home = work.join("home");
    let cli = |args: &[&str]| {
        let mut cmd = desktop.command(BIN);
        isolate(&mut cmd, &home);
        cmd.args(args).args(["--app", "Deft Fixture"]);
        run(cmd)
    };
    let mut logs = String::new();
    let t = trace.to_str().unwrap();
    let r = cli(&["type", "--target", "Email", "--text", ADDRESS, "--mask-field", "Email", "--verify", "--json"]);
    assert_eq!(r.code, 0, "{r:#?}");
    logs.push_str(&format!("{r:?}"));
    let r = cli(&["click", "--name", "Hello", "--mask-field", "Email", "--verify", "--trace", t]);
    assert_eq!(r.code, 0, "{r:#?}");
    logs.push_str(&format!("{r:?}"));
    // Typed again with a trace, through the environment this time.
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &home);
    cmd.env("DEFT_MASK_FIELDS", "Name, Email")
        .args(["set-value", "--target", "Email", "--value", ADDRESS, "--app", "Deft Fixture", "--verify"])
        .args(["--trace", t, "--json"]);
    let r = run(cmd);
    assert_eq!(r.code, 0, "{r:#?}");
    logs.push_str(&format!("{r:?}"));
    let masked_read = cli(&["read", "--mask-field", "email", "--json"]);
    assert_eq!(masked_read.code, 0, "{masked_read:#?}");
    logs.push_str(&format!("{masked_read:?}"));
    assert!(masked_read.stdout.contains("\"Email\""), "read still lists the field");
    // Ground truth: the app got the address.
    let landed = app.events().iter().any(|e| e.is("text_changed", Some("email")) && e.str("value") == Some(ADDRESS));
    assert!(landed, "the address never reached the field: {:?}", app.events());
    let app_email = app.ready().widget("email");
    // Without the policy the address is readable: the search below could find it.
    let plain = cli(&["read", "--json"]);
    assert!(plain.stdout.contains(ADDRESS), "{plain:#?}");
    drop(app);

    let r = report(&trace, &work.join("report.html"), &home);
    assert_eq!(r.code, 0, "{r:#?}");
    std::fs::write(work.join("logs.txt"), &logs).unwrap();
    written_nowhere(&work, &[ADDRESS, "quokka7"]);
    let all = files(&work);
    // Every saved frame paints the masked field over, and OCR reads no address in any.
    let traces: String = all
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let saved: Vec<&str> =
        traces.lines().filter(|l| l.contains("\"frame\":") && l.contains("\"file\":\"frames/")).collect();
    // Where the app itself says the field is (its ready line), among the masked areas.
    let email = app_email;
    let area = format!("[{},{},{},{}]", email.x, email.y, email.w, email.h);
    assert!(saved.len() >= 4 && saved.iter().all(|l| l.contains(&area)), "{area} masked in {saved:#?}");
    let ocr = deft_ocr::OcrsEngine::from_embedded().unwrap();
    for f in all.iter().filter(|p| p.extension().is_some_and(|x| x == "png")) {
        let text: String =
            ocr.recognize(&frame_of(f), None).unwrap().lines.iter().map(|l| l.text.clone() + "\n").collect();
        let squashed: String = text.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
        assert!(!squashed.contains("quokka"), "OCR reads the address in {}:\n{text}", f.display());
    }
}

/// An API key never leaves the box: `agent-cli run` against the test model on Anthropic's
/// wire format sends the key (the test model saw it in `x-api-key`), and no file the run
/// wrote (trace, frames, paused and calibration state, the report) nor its output holds it.
#[test]
fn the_api_key_is_sent_to_the_model_and_written_nowhere() {
    use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};
    const KEY: &str = "sk-ant-test-Wombat42-KeyMarker";
    let (desktop, app) = start();
    let model = TestModel::start(Wire::Anthropic, Persona::Honest).unwrap();
    let work = scratch("redact-api-key");
    let trace = work.join("trace");
    let home = work.join("home");
    let mut cmd = desktop.command(BIN);
    isolate(&mut cmd, &home);
    cmd.env("ANTHROPIC_API_KEY", KEY)
        .env("DEFT_MODEL_PROVIDER", model.provider())
        .env("DEFT_MODEL", MODEL_NAME)
        .env("DEFT_MODEL_BASE_URL", model.base_url())
        .env("DEFT_RUNS_DIR", work.join("runs"))
        .args(["run", "Click Hello.", "--app", "Deft Fixture", "--json", "--ask", "defer"])
        .args(["--trace", trace.to_str().unwrap()]);
    let r = run(cmd);
    assert_eq!(r.code, 0, "{r:#?}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(app.count("button_activated", Some("hello")) >= 1, "the run did its task: {:?}", app.events());
    drop(app);
    let received = model.received();
    assert!(!received.is_empty() && received.iter().all(|x| x.credential.as_deref() == Some(KEY)), "the key was sent");
    let mut logs = format!("{r:?}");
    let r = report(&trace, &work.join("report.html"), &home);
    assert_eq!(r.code, 0, "{r:#?}");
    logs.push_str(&format!("{r:?}"));
    std::fs::write(work.join("logs.txt"), &logs).unwrap();
    let all = files(&work);
    assert!(all.iter().any(|f| f.extension().is_some_and(|x| x == "jsonl")), "the run wrote a trace: {all:?}");
    written_nowhere(&work, &[KEY, "Wombat42"]);
}
