//! OCR benchmark on the fixture screens: Deft against tesseract, and incremental re-OCR.
//!
//! `cargo bench -p deft-ocr --bench ocr` (or `cargo xtask bench ocr`). One run prints, per
//! image and in total: character accuracy, word recall and median time for Deft (layout
//! detection + ocrs recognition), for the ocrs detection model (tiled at native resolution,
//! and untiled, i.e. squashed into its 800x600 input) and for Debian's tesseract
//! (`tesseract IMAGE -`, a new process per image, so its time includes process start and
//! loading its model); then the time of an incremental re-read after a one-widget change.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use deft_ocr::quality::{Quality, measure};
use deft_ocr::{Detector, IncrementalOcr, IncrementalParams, Ocr, OcrConfig, OcrsEngine, TileParams};
use deft_types::{Frame, Point};
use serde_json::Value;

/// Timed repetitions per image (the median is reported).
const RUNS: usize = 3;
/// Repetitions of the incremental re-read.
const INCREMENTAL_RUNS: usize = 5;

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/screens");
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let images = manifest["images"].as_array().unwrap();
    let deft = OcrsEngine::from_embedded().unwrap();
    let tiled = OcrsEngine::new(OcrConfig { detector: Detector::Model(TileParams::default()), ..OcrConfig::default() })
        .unwrap();
    let squashed = OcrsEngine::new(OcrConfig {
        detector: Detector::Model(TileParams { width: 100_000, height: 100_000, overlap: 0 }),
        ..OcrConfig::default()
    })
    .unwrap();
    let tesseract = tesseract_version();
    println!("deft-ocr benchmark: {} fixture screens, {RUNS} runs each (median), {}", images.len(), tesseract);
    println!(
        "{:<22} | {:>28} | {:>28} | {:>20} | {:>20} | {:>16}",
        "image",
        "Deft acc / recall / ms",
        "tesseract acc / recall / ms",
        "ocrs tiled acc / ms",
        "ocrs untiled acc / ms",
        "re-OCR ms (lines)"
    );
    let mut totals = [Quality::default(); 4];
    let mut times: [Vec<Duration>; 4] = Default::default();
    let mut incremental_times = Vec::new();
    for img in images {
        let file = img["file"].as_str().unwrap();
        let frame = load(&dir.join(file));
        let expected: Vec<&str> =
            img["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect();

        let (q0, t0) = run_engine(&deft, &frame, &expected, RUNS);
        let (q1, t1) = run_tesseract(&dir.join(file), &expected, RUNS);
        let (q2, t2) = run_engine(&tiled, &frame, &expected, 1);
        let (q3, t3) = run_engine(&squashed, &frame, &expected, 1);
        let (ti, lines) = incremental(&deft, &frame, img);
        for (i, (q, t)) in [(q0, t0), (q1, t1), (q2, t2), (q3, t3)].into_iter().enumerate() {
            totals[i] = totals[i].add(&q);
            times[i].push(t);
        }
        incremental_times.push(ti);
        println!(
            "{:<22} | {:>8.2}% {:>8.2}% {:>8} | {:>8.2}% {:>8.2}% {:>8} | {:>8.2}% {:>9} | {:>8.2}% {:>9} | {:>8} ({lines})",
            file,
            pct(q0.char_accuracy()),
            pct(q0.word_recall()),
            ms(t0),
            pct(q1.char_accuracy()),
            pct(q1.word_recall()),
            ms(t1),
            pct(q2.char_accuracy()),
            ms(t2),
            pct(q3.char_accuracy()),
            ms(t3),
            ms(ti),
        );
    }
    println!();
    let names = [
        "Deft (layout + ocrs recognition)",
        "tesseract (process per image)",
        "ocrs detection, tiled",
        "ocrs detection, untiled",
    ];
    for i in 0..4 {
        println!(
            "TOTAL {:<34} char accuracy {:>6.2}%  word recall {:>6.2}%  median {:>5} ms  sum {:>6} ms",
            names[i],
            pct(totals[i].char_accuracy()),
            pct(totals[i].word_recall()),
            ms(median(&times[i])),
            ms(times[i].iter().sum()),
        );
    }
    println!(
        "TOTAL incremental re-OCR after a one-widget change: median {} ms, max {} ms",
        ms(median(&incremental_times)),
        ms(*incremental_times.iter().max().unwrap()),
    );
}

fn run_engine(engine: &OcrsEngine, frame: &Frame, expected: &[&str], runs: usize) -> (Quality, Duration) {
    let mut times = Vec::new();
    let mut quality = Quality::default();
    for i in 0..runs {
        let start = Instant::now();
        let result = engine.recognize(frame, None).unwrap();
        times.push(start.elapsed());
        if i == 0 {
            let got: Vec<&str> = result.lines.iter().map(|l| l.text.as_str()).collect();
            quality = measure(expected, &got);
        }
    }
    (quality, median(&times))
}

fn run_tesseract(png: &Path, expected: &[&str], runs: usize) -> (Quality, Duration) {
    let mut times = Vec::new();
    let mut quality = Quality::default();
    for i in 0..runs {
        let start = Instant::now();
        let out = Command::new("tesseract").arg(png).arg("-").output();
        times.push(start.elapsed());
        let Some(out) = out.ok().filter(|o| o.status.success()) else {
            return (measure(expected, &[] as &[&str]), Duration::ZERO);
        };
        if i == 0 {
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            let got: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            quality = measure(expected, &got);
        }
    }
    (quality, median(&times))
}

fn tesseract_version() -> String {
    Command::new("tesseract")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).lines().next().map(str::to_string))
        .unwrap_or_else(|| "tesseract not installed (apt-get install tesseract-ocr)".into())
}

/// Median time of re-reading the frame after one widget's text changed: the right part of
/// its text is painted over with the background (as if characters were deleted), so the
/// changed line has new pixels and must be recognised. Returns (median, lines read).
fn incremental(engine: &OcrsEngine, frame: &Frame, img: &Value) -> (Duration, usize) {
    let lines = img["lines"].as_array().unwrap();
    let widget = ["entry", "button", "cell", "menuitem", "label"]
        .iter()
        .find_map(|role| {
            lines.iter().find(|l| {
                l["role"] == *role && l["text"].as_str().unwrap().len() >= 5 && l["bounds"][1].as_i64().unwrap() > 40
            })
        })
        .expect("a widget with text");
    let b: Vec<i32> = widget["bounds"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap() as i32).collect();
    let bounds = deft_types::Rect::new(b[0], b[1], b[2] as u32, b[3] as u32);
    let read = engine.recognize(frame, None).unwrap();
    let line = read.lines.iter().find(|l| bounds.contains(l.bounds.center())).expect("the widget's text is read");
    let changed = erase_right_part(frame, &line.bounds);
    let mut times = Vec::new();
    let mut lines = 0;
    for _ in 0..INCREMENTAL_RUNS {
        let mut ocr = IncrementalOcr::new(engine, IncrementalParams::default());
        ocr.update(frame).unwrap();
        let start = Instant::now();
        let result = ocr.update(&changed).unwrap();
        times.push(start.elapsed());
        lines = result.stats.lines_recognized;
    }
    (median(&times), lines)
}

/// Paint the right 40% of a line of text with each row's colour just left of the line.
fn erase_right_part(frame: &Frame, line: &deft_types::Rect<deft_types::Physical>) -> Frame {
    let mut px = frame.pixels().to_vec();
    let (x, y, w, h) = (line.x as u32, line.y as u32, line.w, line.h);
    let sample_x = x.saturating_sub(1);
    let (x0, x1) = (x + w * 6 / 10, x + w);
    for yy in y..y + h {
        let c = frame.pixel(sample_x, yy).unwrap();
        for xx in x0..x1 {
            let i = (yy * frame.width() + xx) as usize * 4;
            px[i..i + 4].copy_from_slice(&c);
        }
    }
    Frame::new(frame.width(), frame.height(), px, frame.origin).unwrap()
}

fn load(path: &Path) -> Frame {
    let mut reader =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap())).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let rgba: Vec<u8> = match info.color_type {
        png::ColorType::Rgb => buf[..info.buffer_size()].chunks(3).flat_map(|c| [c[0], c[1], c[2], 255]).collect(),
        _ => buf[..info.buffer_size()].to_vec(),
    };
    Frame::new(info.width, info.height, rgba, Point::new(0, 0)).unwrap()
}

fn median(times: &[Duration]) -> Duration {
    let mut t = times.to_vec();
    t.sort();
    t.get(t.len() / 2).copied().unwrap_or_default()
}

fn pct(v: f64) -> f64 {
    v * 100.0
}

fn ms(d: Duration) -> String {
    format!("{}", d.as_millis())
}
