//! The agent's benchmarks, side by side in one run on one headless desktop, on the demo
//! task (fill the form, submit once, save, wait for "Save complete") with the fixture app's
//! faults on, driven by the test model (a deterministic stand-in behind the
//! OpenAI-compatible wire, on loopback: model latency here is not a real model's):
//!
//! 1. tokens of Deft's observation per step (o200k_base, counted on what the agent sent)
//!    against a screenshot after every action, at the providers' published image rates;
//! 2. model calls per task: the separate confidence check, the inline mode, multi-action
//!    steps (with inline confidence);
//! 3. the agent's own time per step, model and tools excluded;
//! 4. `wait_for_visual_cue` (a condition on accessibility events and OCR) against polling a
//!    vision model every 2 s, whose eyes here are OCR of the screenshot (a stand-in: a real
//!    vision model adds seconds per call);
//! 5. actions reported to the model as done that the app's log does not show;
//! 6. input tokens per task and their estimated cost, with the requests' stable first part
//!    marked for Anthropic's prompt cache and without, and with OpenAI's own caching (the
//!    test model bills them as each provider's documentation describes its cache).
//!
//! `cargo bench -p deft-agent --bench agent`; prints Markdown tables.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use deft_agent::{Agent, AgentConfig, AgentEvent, ConfidenceMode, FixedAnswer, RunReport, RunStatus, cue};
use deft_harness::Desktop;
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_harness::test_model::{MODEL_NAME, Persona, TestModel, Wire};
use deft_llm::{AnyModel, ProviderConfig, ProviderKind};
use deft_toolbelt::{AsParams, BeltSettings, OcrParams, ToolCall, ToolOutput, Toolbelt};
use deft_verify::ExecutorConfig;

const GOAL: &str = "Fill in the form: type \"Ada Lovelace\" into Name and tick Subscribe. Then submit the order once, save, and wait for \"Save complete\".";

fn monotonic_ms() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as f64 * 1e3 + t.tv_nsec as f64 / 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Anthropic's published estimate: width * height / 750.
fn anthropic_image_tokens(w: u32, h: u32) -> u64 {
    u64::from(w) * u64::from(h) / 750
}

/// OpenAI high detail: fit in 2048x2048, short side to 768, 170 per 512 tile + 85.
fn openai_image_tokens(w: u32, h: u32) -> u64 {
    let (mut w, mut h) = (f64::from(w), f64::from(h));
    let fit = (2048.0 / w.max(h)).min(1.0);
    w *= fit;
    h *= fit;
    let short = (768.0 / w.min(h)).min(1.0);
    w *= short;
    h *= short;
    ((w / 512.0).ceil() * (h / 512.0).ceil()) as u64 * 170 + 85
}

struct TaskRun {
    mode: &'static str,
    report: RunReport,
    obs_tokens: Vec<usize>,
    false_done: usize,
    truth_ok: bool,
}

fn faults() -> FixtureOptions {
    FixtureOptions {
        drop_clicks: 1,
        popup: true,
        ignore_keys: true,
        save_delay: Some(Duration::from_millis(1500)),
        ..FixtureOptions::default()
    }
}

/// The toolbelt on `desktop` (its display and its session bus, not the process's).
fn belt(desktop: &Desktop, rt: &tokio::runtime::Runtime) -> Toolbelt {
    let exec = ExecutorConfig { verify: true, ..ExecutorConfig::default() };
    let on = deft_verify::DesktopConfig {
        display: Some(desktop.display().to_string()),
        session_bus: Some(desktop.bus_address().to_string()),
        ..Default::default()
    };
    rt.block_on(Toolbelt::connect(exec, on, BeltSettings::for_models())).expect("toolbelt")
}

fn run_task(desktop: &Desktop, rt: &tokio::runtime::Runtime, mode: &'static str, config: AgentConfig) -> TaskRun {
    run_task_on(desktop, rt, mode, config, Wire::OpenAi)
}

fn run_task_on(
    desktop: &Desktop,
    rt: &tokio::runtime::Runtime,
    mode: &'static str,
    config: AgentConfig,
    wire: Wire,
) -> TaskRun {
    let app = FixtureApp::launch(desktop, &faults()).expect("fixture app");
    let server = TestModel::start(wire, Persona::Honest).expect("test model");
    let mut pc = match wire {
        Wire::OpenAi => ProviderConfig::new(ProviderKind::OpenaiCompatible, MODEL_NAME),
        Wire::Anthropic => ProviderConfig::new(ProviderKind::Anthropic, MODEL_NAME),
    };
    pc.base_url = Some(server.base_url());
    // The test model takes any key; a provider that needs one gets one.
    pc.api_key = Some(deft_llm::Secret::new("test-model-key"));
    let model: AnyModel = pc.build().expect("model");
    let belt = belt(desktop, rt);
    let events: Mutex<Vec<AgentEvent>> = Mutex::new(Vec::new());
    let sink = |e: &AgentEvent| events.lock().unwrap().push(e.clone());
    let asker = FixedAnswer(deft_agent::Answer::Unavailable("benchmark: no one to ask".into()));
    let agent = Agent {
        model: &model,
        vision: None,
        desktop: &belt,
        asker: &asker,
        config: &config,
        scope: Some("Deft Fixture".into()),
        sink: Some(&sink),
        bus: None,
    };
    let report = rt.block_on(agent.run(GOAL, mode)).expect("run");
    std::thread::sleep(Duration::from_millis(500));
    let bpe = tiktoken_rs::o200k_base().expect("tokenizer");
    // The observation each step added: the newest tool results of every later request.
    let obs_tokens: Vec<usize> = server
        .received()
        .iter()
        .filter(|r| !r.seen.system.starts_with(deft_agent::prompt::CHECK_HEADER))
        .skip(1)
        .filter_map(|r| r.seen.messages.last())
        .map(|m| {
            let text: String =
                m.results.iter().map(|x| x.text.as_str()).chain(std::iter::once(m.text.as_str())).collect();
            bpe.encode_ordinary(&text).len()
        })
        .collect();
    let log = app.events();
    let count = |kind: &str, widget: Option<&str>| log.iter().filter(|e| e.is(kind, widget)).count();
    // Every action the model was told worked must have its effect in the log.
    let mut false_done = 0;
    for e in events.lock().unwrap().iter() {
        if let AgentEvent::Observation { ok: Some(true), summary, tool, .. } = e {
            let needed = if summary.contains("\"Submit order\"") {
                count("order_submitted", None)
            } else if summary.contains("\"Subscribe\"") {
                count("checkbox_toggled", Some("subscribe"))
            } else if summary.contains("\"Save\"") {
                count("save_started", None)
            } else if summary.contains("\"OK\"") {
                count("dialog_closed", None)
            } else if tool == "type" {
                count("text_changed", Some("name"))
            } else {
                1
            };
            if needed == 0 {
                false_done += 1;
            }
        }
    }
    let name = log.iter().rev().find(|e| e.is("text_changed", Some("name"))).and_then(|e| e.str("value"));
    let truth_ok = count("order_submitted", None) == 1
        && name == Some("Ada Lovelace")
        && count("checkbox_toggled", Some("subscribe")) == 1
        && count("save_complete", None) == 1
        && report.status == RunStatus::GoalMet;
    if !truth_ok {
        eprintln!("{mode}: the app's log disagrees; observations:");
        for e in events.lock().unwrap().iter() {
            if let AgentEvent::Observation { summary, .. } | AgentEvent::Thought { text: summary, .. } = e {
                eprintln!("  {summary}");
            }
        }
        eprintln!("  log: {:?}", log.iter().filter(|e| e.kind != "geometry").map(|e| &e.raw).collect::<Vec<_>>());
    }
    TaskRun { mode, report, obs_tokens, false_done, truth_ok }
}

/// Reaction to "Save complete": Deft's cue, then a vision model polled every 2 s (OCR as its eyes).
fn cue_vs_polling(desktop: &Desktop, rt: &tokio::runtime::Runtime, rounds: usize) -> (Vec<f64>, Vec<f64>, Vec<u32>) {
    let opts = FixtureOptions { save_delay: Some(Duration::from_millis(1500)), ..FixtureOptions::default() };
    let app = FixtureApp::launch(desktop, &opts).expect("fixture app");
    let belt = belt(desktop, rt);
    let call = |json: serde_json::Value, tool: &str| {
        rt.block_on(belt.call(&ToolCall::parse(tool, json).unwrap(), &AsParams)).expect("tool call")
    };
    let save = || {
        call(serde_json::json!({"target": "role=push_button name=Save"}), "click");
    };
    let dismiss = || {
        call(serde_json::json!({"target": "role=push_button name=OK"}), "click");
        std::thread::sleep(Duration::from_millis(600));
    };
    let appeared = |n: usize| {
        app.wait_for_count(
            n,
            |e| e.kind == "dialog_opened" && e.str("title") == Some("Save complete"),
            Duration::from_secs(10),
        )
        .expect("Save complete appeared")[n - 1]
            .t
    };
    let (mut deft, mut polled, mut calls) = (Vec::new(), Vec::new(), Vec::new());
    let mut n = 0;
    for _ in 0..rounds {
        save();
        n += 1;
        let out = rt.block_on(cue::wait_for::<_, AnyModel>(
            &belt,
            None,
            "the text \"Save complete\" appears",
            Duration::from_secs(10),
            0,
        ));
        let seen_at = monotonic_ms();
        assert!(out.met && out.vision_calls == 0, "{out:?}");
        deft.push(seen_at - appeared(n));
        dismiss();

        save();
        n += 1;
        let mut looks = 0;
        let start = Instant::now();
        let seen_at = loop {
            looks += 1;
            // One look: a screenshot for the model; its answer read here by OCR.
            let shot = call(serde_json::json!({}), "screenshot");
            let ToolOutput::Screenshot(_) = shot else { panic!("no screenshot") };
            let find = ToolCall::Ocr(OcrParams { find: Some("Save complete".into()), ..OcrParams::default() });
            // Not on screen is an error of `ocr` with `find`: the look saw nothing.
            if let Ok(ToolOutput::Ocr(o)) = rt.block_on(belt.call(&find, &AsParams))
                && o.lines.iter().any(|l| l.score.unwrap_or(0.0) > 0.8)
            {
                break monotonic_ms();
            }
            assert!(start.elapsed() < Duration::from_secs(15), "never seen by polling");
            std::thread::sleep(
                Duration::from_secs(2).saturating_sub(start.elapsed() - Duration::from_secs(2) * (looks - 1)),
            );
        };
        polled.push(seen_at - appeared(n));
        calls.push(looks);
        dismiss();
    }
    (deft, polled, calls)
}

fn inline_config() -> AgentConfig {
    AgentConfig {
        confidence: deft_agent::ConfidenceConfig { mode: ConfidenceMode::Inline, ..Default::default() },
        ..AgentConfig::default()
    }
}

/// Input tokens per task and their cost, with and without prompt caching (item 6 above).
fn caching(desktop: &Desktop, rt: &tokio::runtime::Runtime, inline: &AgentConfig) {
    let off = AgentConfig { prompt_cache: false, ..inline.clone() };
    let rows = [
        ("Anthropic wire, no cache breakpoints", off, Wire::Anthropic, "claude-sonnet-4"),
        (
            "Anthropic wire, breakpoints on the stable prefix and history",
            inline.clone(),
            Wire::Anthropic,
            "claude-sonnet-4",
        ),
        ("OpenAI wire (caches on its own)", inline.clone(), Wire::OpenAi, "gpt-4.1"),
    ];
    println!(
        "\nPrompt caching, demo task (inline confidence), test model billing as each provider documents its cache.\n"
    );
    println!(
        "| requests | goal met (app's log) | model calls | input tokens (uncached / cache read / cache write) | output | estimated cost, at the prices of |"
    );
    println!("|---|---|---|---|---|---|");
    for (label, config, wire, priced_as) in rows {
        let r = run_task_on(desktop, rt, "caching", config, wire);
        let u = r.report.usage.usage;
        let price = deft_llm::builtin_price(priced_as).expect("a built-in price");
        println!(
            "| {label} | {} | {} | {} ({} / {} / {}) | {} | ${:.4} ({priced_as}) |",
            if r.truth_ok { "yes" } else { "NO" },
            r.report.model_calls,
            u.input_tokens + u.cache_read_tokens + u.cache_write_tokens,
            u.input_tokens,
            u.cache_read_tokens,
            u.cache_write_tokens,
            u.output_tokens,
            price.cost(&u),
        );
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let desktop = Desktop::start().expect("desktop");
    let separate = AgentConfig::default();
    let inline = inline_config();
    let multi = AgentConfig { multi_action: true, ..inline.clone() };
    let runs: Vec<TaskRun> = vec![
        run_task(&desktop, &rt, "separate confidence call", separate),
        run_task(&desktop, &rt, "inline confidence", inline),
        run_task(&desktop, &rt, "multi-action steps + inline", multi),
    ];
    let (w, h) = (1280, 800);
    let (shot_a, shot_o) = (anthropic_image_tokens(w, h), openai_image_tokens(w, h));
    println!("Demo task with faults (dropped click, ignored keys, popup, slow save), test model, one run each.\n");
    println!(
        "| mode | goal met (app's log) | steps | model calls | actions reported done but not in the log | observation tokens per step (median / max) | screenshot per step (Anthropic / OpenAI) | agent's own time per step (median / max) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in &runs {
        let obs: Vec<f64> = r.obs_tokens.iter().map(|&t| t as f64).collect();
        let over: Vec<f64> = r.report.stats.iter().map(|s| s.overhead_ms as f64).collect();
        println!(
            "| {} | {} | {} | {} | {} | {:.0} / {:.0} | {shot_a} / {shot_o} | {:.0} ms / {:.0} ms |",
            r.mode,
            if r.truth_ok { "yes" } else { "NO" },
            r.report.steps,
            r.report.model_calls,
            r.false_done,
            median(obs.clone()),
            obs.iter().cloned().fold(0.0, f64::max),
            median(over.clone()),
            over.iter().cloned().fold(0.0, f64::max),
        );
    }
    let all_obs: Vec<f64> = runs.iter().flat_map(|r| r.obs_tokens.iter().map(|&t| t as f64)).collect();
    println!(
        "\nObservation vs screenshot: median {:.0} tokens, {:.1}% of Anthropic's {shot_a} and {:.1}% of OpenAI's {shot_o} for a {w}x{h} screen.",
        median(all_obs.clone()),
        100.0 * median(all_obs.clone()) / shot_a as f64,
        100.0 * median(all_obs) / shot_o as f64
    );
    caching(&desktop, &rt, &inline_config());
    let rounds = std::env::var("DEFT_BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let (deft, polled, calls) = cue_vs_polling(&desktop, &rt, rounds);
    println!("\n\"Save complete\" appears 1.5 s after Save; {rounds} rounds each.\n");
    println!("| waiting | vision calls per wait (median) | reaction after the app opens the dialog (median / max) |");
    println!("|---|---|---|");
    println!(
        "| wait_for_visual_cue (condition: accessibility events, OCR) | 0 | {:.0} ms / {:.0} ms |",
        median(deft.clone()),
        deft.iter().cloned().fold(f64::MIN, f64::max)
    );
    println!(
        "| vision model polled every 2 s (stand-in: OCR of the screenshot, no model latency) | {:.0} | {:.0} ms / {:.0} ms |",
        median(calls.iter().map(|&c| f64::from(c)).collect()),
        median(polled.clone()),
        polled.iter().cloned().fold(f64::MIN, f64::max)
    );
}
