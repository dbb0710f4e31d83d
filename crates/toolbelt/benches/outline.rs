//! What the agent's observation costs in tokens: the compact outline with refs, against
//! the detailed outline, the full JSON tree, and a screenshot of the same window.
//!
//! `cargo bench -p deft-toolbelt --bench outline` (or `cargo xtask bench toolbelt`) starts
//! a headless desktop with the fixture app and gtk3-widget-factory (and Chromium on the
//! web fixture page when it is installed), reads each app's tree once, and prints a
//! Markdown table: elements, characters, tokens counted with a real tokenizer (o200k_base,
//! the GPT-4o family's; other providers' tokenizers differ by some tens of percent), and
//! the image tokens a screenshot of the window costs at the providers' published rates:
//! Anthropic (width x height / 750) and OpenAI high detail (85 + 170 per 512 px tile after
//! scaling the image to fit 2048 px and its short side to 768 px). Also the median time to
//! render the compact outline.

use std::time::{Duration, Instant};

use deft_a11y::{AtSpi, AtSpiConfig, Scope, SnapshotOptions};
use deft_harness::Desktop;
use deft_harness::apps::{CorpusApp, RunningApp};
use deft_harness::fixture::{FixtureApp, FixtureOptions};
use deft_toolbelt::{OutlineStyle, RefStyle, Refs, outline};

struct Row {
    app: String,
    nodes: usize,
    sizes: Vec<(&'static str, usize, usize)>,
    shot_anthropic: u64,
    shot_openai: u64,
    render_us: f64,
}

/// Anthropic's published estimate: tokens = width * height / 750 (images up to ~1.15 MP).
fn anthropic_image_tokens(w: u32, h: u32) -> u64 {
    (u64::from(w) * u64::from(h)).div_ceil(750)
}

/// OpenAI's published rule for high detail: fit in 2048x2048, scale the short side to 768,
/// then 170 tokens per 512x512 tile plus 85.
fn openai_image_tokens(w: u32, h: u32) -> u64 {
    let (mut w, mut h) = (f64::from(w), f64::from(h));
    let fit = (2048.0 / w.max(h)).min(1.0);
    (w, h) = (w * fit, h * fit);
    let short = (768.0 / w.min(h)).min(1.0);
    (w, h) = (w * short, h * short);
    85 + 170 * ((w / 512.0).ceil() * (h / 512.0).ceil()) as u64
}

fn main() {
    let bpe = tiktoken_rs::o200k_base().expect("the o200k_base ranks are embedded in tiktoken-rs");
    let tokens = |s: &str| bpe.encode_ordinary(s).len();
    let desktop = Desktop::start().expect("headless desktop");
    let _fixture = FixtureApp::launch(&desktop, &FixtureOptions::default()).expect("fixture app");
    let mut apps = vec![("deft-fixture".to_string(), None)];
    let mut running = Vec::new();
    for app in [CorpusApp::Gtk3WidgetFactory, CorpusApp::Chromium] {
        if let Some(why) = app.missing() {
            eprintln!("skipping {}: {why}", app.accessible_name());
            continue;
        }
        let mut r = RunningApp::launch(&desktop, app).expect("corpus app starts");
        r.wait_registered(&desktop, Duration::from_secs(60)).expect("corpus app registers");
        apps.push((app.accessible_name().to_string(), Some(app)));
        running.push(r);
    }
    // Chromium fills its page in after registering.
    std::thread::sleep(Duration::from_secs(3));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let config = AtSpiConfig {
        session_bus: Some(desktop.bus_address().to_string()),
        display: Some(desktop.display().to_string()),
        ..AtSpiConfig::default()
    };
    let a11y = rt.block_on(AtSpi::connect(config)).expect("accessibility bus");
    let listed = rt.block_on(deft_a11y::Accessibility::applications(&a11y)).expect("applications");
    let mut rows = Vec::new();
    for (name, _) in &apps {
        let Some(info) = listed.iter().find(|a| &a.name == name) else {
            eprintln!("{name} is not on the bus; skipped");
            continue;
        };
        let tree = rt
            .block_on(deft_a11y::Accessibility::snapshot(
                &a11y,
                &Scope::App(info.id.clone()),
                &SnapshotOptions::default(),
            ))
            .expect("snapshot");
        let tops: Vec<usize> = tree.roots().collect();
        let refs = Refs::new();
        let compact = OutlineStyle { max_lines: None, ..OutlineStyle::COMPACT };
        let agent = outline(&tree, &tops, None, &compact, RefStyle::Session(&refs)).text;
        let detailed = outline(&tree, &tops, None, &OutlineStyle::detailed(false), RefStyle::Ids).text;
        let json = serde_json::to_string(&tree.nodes.iter().map(|n| &n.element).collect::<Vec<_>>()).unwrap();
        let (w, h) = info
            .windows
            .iter()
            .filter_map(|w| w.bounds)
            .map(|b| (b.w, b.h))
            .max_by_key(|(w, h)| w * h)
            .unwrap_or((1280, 800));
        let mut times = Vec::new();
        for _ in 0..50 {
            let t = Instant::now();
            let o = outline(&tree, &tops, None, &compact, RefStyle::Session(&refs));
            std::hint::black_box(o);
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        times.sort_by(f64::total_cmp);
        if name == "deft-fixture" || std::env::var_os("DEFT_PRINT_OUTLINES").is_some() {
            println!("\nThe fixture app's compact outline (what the agent's model reads):\n\n```\n{agent}```\n");
        }
        rows.push(Row {
            app: name.clone(),
            nodes: tree.len(),
            sizes: vec![
                ("compact outline (agent)", agent.chars().count(), tokens(&agent)),
                ("detailed outline (CLI read)", detailed.chars().count(), tokens(&detailed)),
                ("JSON elements (read --json)", json.chars().count(), tokens(&json)),
            ],
            shot_anthropic: anthropic_image_tokens(w, h),
            shot_openai: openai_image_tokens(w, h),
            render_us: times[times.len() / 2],
        });
        let _ = w;
    }
    println!("| app | elements | observation | chars | tokens (o200k) | vs screenshot (Anthropic / OpenAI) |");
    println!("|---|---|---|---|---|---|");
    for r in &rows {
        for (what, chars, toks) in &r.sizes {
            println!(
                "| {} | {} | {what} | {chars} | {toks} | {:.2}x / {:.2}x |",
                r.app,
                r.nodes,
                *toks as f64 / r.shot_anthropic as f64,
                *toks as f64 / r.shot_openai as f64
            );
        }
        println!(
            "| {} | {} | screenshot of the window | - | {} / {} (image) | 1x |",
            r.app, r.nodes, r.shot_anthropic, r.shot_openai
        );
    }
    println!();
    for r in &rows {
        println!("{}: compact outline rendered in {:.0} µs (median of 50)", r.app, r.render_us);
    }
    drop(running);
}
