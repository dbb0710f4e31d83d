//! `screenshot` (a PNG of the screen, a window, a monitor or a region) and `ocr` (the text
//! on it, line by line with boxes).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use deft_capture::{CaptureError, Target as CaptureTarget, WindowRef};
use deft_ocr::{Ocr, OcrsEngine, SearchOptions};
use deft_types::{Frame, Physical, Rect, TextMatch};
use deft_verify::{ScreenText, TextHit};
use serde::Serialize;

use crate::cli::AreaArgs;
use crate::exit::{CliError, Exit};
use crate::output::Style;

/// What to capture, from the area flags.
pub fn capture_target(area: &AreaArgs) -> Result<CaptureTarget, CliError> {
    Ok(match (&area.region, &area.window, &area.monitor) {
        (Some(r), _, _) => CaptureTarget::Region(*r),
        (_, Some(w), _) => {
            if w.trim().is_empty() {
                return Err(CliError::usage("--window is empty; give a window title, e.g. --window \"Deft Fixture\""));
            }
            match w.strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok()) {
                Some(id) => CaptureTarget::Window(WindowRef::Id(id)),
                None => CaptureTarget::Window(WindowRef::Title(w.clone())),
            }
        }
        (_, _, Some(m)) => CaptureTarget::Monitor(m.clone()),
        _ => CaptureTarget::Screen,
    })
}

/// Capture once, on the display of `DISPLAY`.
pub fn grab(target: &CaptureTarget) -> Result<(Frame, &'static str), CliError> {
    let mut capture = deft_capture::open_default(None).map_err(capture_error)?;
    let frame = capture.capture(target).map_err(capture_error)?;
    Ok((frame, capture.backend_name()))
}

/// A capture error as the CLI reports it.
pub fn capture_error(e: CaptureError) -> CliError {
    let exit = match &e {
        CaptureError::NoDisplay { .. } => Exit::Environment,
        CaptureError::BadRegion { .. } => Exit::Usage,
        CaptureError::MonitorNotFound { .. } | CaptureError::WindowNotFound { .. } => Exit::NotFound,
        _ => Exit::Failed,
    };
    CliError::new(exit, e.to_string())
}

/// What `screenshot` reports.
#[derive(Serialize, Debug, PartialEq)]
pub struct Shot {
    /// The PNG written.
    pub path: PathBuf,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Where it lies on screen (physical pixels): `[x, y, w, h]`.
    pub bounds: Rect<Physical>,
    /// The capture backend.
    pub backend: &'static str,
}

/// Capture and write the PNG.
pub fn screenshot(output: &Path, area: &AreaArgs) -> Result<Shot, CliError> {
    if output.as_os_str().is_empty() {
        return Err(CliError::usage("-o/--output is empty; give a file name, e.g. -o screen.png"));
    }
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(CliError::usage(format!(
            "cannot write {}: the directory {} does not exist",
            output.display(),
            dir.display()
        )));
    }
    let target = capture_target(area)?;
    let (frame, backend) = grab(&target)?;
    write_png(&frame, output)?;
    Ok(Shot {
        path: output.to_path_buf(),
        width: frame.width(),
        height: frame.height(),
        bounds: frame.screen_rect(),
        backend,
    })
}

/// Encode a frame as an RGBA PNG.
pub fn write_png(frame: &Frame, path: &Path) -> Result<(), CliError> {
    let fail = |what: String| CliError::new(Exit::Failed, format!("cannot write {}: {what}", path.display()));
    let file = std::fs::File::create(path).map_err(|e| fail(e.to_string()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), frame.width(), frame.height());
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().map_err(|e| fail(e.to_string()))?;
    writer.write_image_data(frame.pixels()).map_err(|e| fail(e.to_string()))?;
    writer.finish().map_err(|e| fail(e.to_string()))
}

/// `wrote screen.png (1280x800 at 0,0)`.
pub fn shot_human(s: &Shot, st: &Style) -> String {
    format!(
        "{} wrote {} ({}x{} at {},{}; {})\n",
        st.green("✓"),
        s.path.display(),
        s.width,
        s.height,
        s.bounds.x,
        s.bounds.y,
        s.backend
    )
}

/// One line of text on screen.
#[derive(Serialize, Debug, PartialEq)]
pub struct TextLine {
    /// The text.
    pub text: String,
    /// Its box on screen (physical pixels): `[x, y, w, h]`.
    pub bounds: Rect<Physical>,
    /// How well it matched `--find` (1 is exact); absent without `--find`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// What `ocr` reports.
#[derive(Serialize, Debug, PartialEq)]
pub struct OcrDoc {
    /// The area read (physical pixels).
    pub area: Rect<Physical>,
    /// Lines in reading order, or `--find`'s matches best first.
    pub lines: Vec<TextLine>,
    /// Time spent recognising, in ms.
    pub elapsed_ms: u64,
}

/// Capture and recognise; with `find`, only where that text appears.
pub fn ocr(area: &AreaArgs, find: Option<&TextMatch>) -> Result<OcrDoc, CliError> {
    if let Some(TextMatch::Exact(f) | TextMatch::Contains(f) | TextMatch::Regex(f)) = find
        && f.trim().is_empty()
    {
        return Err(CliError::usage("--find is empty; give the text to look for, e.g. --find Submit"));
    }
    let target = capture_target(area)?;
    let (frame, _) = grab(&target)?;
    let start = std::time::Instant::now();
    let engine =
        OcrsEngine::from_embedded().map_err(|e| CliError::environment(format!("the OCR engine cannot start: {e}")))?;
    let result = engine.recognize(&frame, None).map_err(|e| CliError::new(Exit::Failed, format!("OCR failed: {e}")))?;
    let lines = match find {
        None => result.lines.iter().map(|l| TextLine { text: l.text.clone(), bounds: l.bounds, score: None }).collect(),
        Some(q) => {
            let found = deft_ocr::find_text(&result, q, &SearchOptions::default());
            if found.is_empty() {
                let seen: Vec<String> = result.lines.iter().take(8).map(|l| format!("{:?}", l.text)).collect();
                return Err(CliError::new(
                    Exit::NotFound,
                    format!(
                        "the {} is not on {} ({} lines read{}{})",
                        crate::selector::describe(&deft_types::Target::Text(q.clone())),
                        area_words(area),
                        result.lines.len(),
                        if seen.is_empty() { "" } else { ", e.g. " },
                        seen.join(", ")
                    ),
                ));
            }
            found.into_iter().map(|m| TextLine { text: m.text, bounds: m.bounds, score: Some(m.score) }).collect()
        }
    };
    Ok(OcrDoc { area: frame.screen_rect(), lines, elapsed_ms: start.elapsed().as_millis() as u64 })
}

fn area_words(area: &AreaArgs) -> String {
    match (&area.region, &area.window, &area.monitor) {
        (Some(r), _, _) => format!("region {},{},{},{}", r.x, r.y, r.w, r.h),
        (_, Some(w), _) => format!("window {w:?}"),
        (_, _, Some(m)) => format!("monitor {m:?}"),
        _ => "the screen".into(),
    }
}

/// One line per text line: `[x,y wxh] text`.
pub fn ocr_human(doc: &OcrDoc, st: &Style) -> String {
    let mut out = String::new();
    for l in &doc.lines {
        let b = l.bounds;
        let score = l.score.map(|s| format!(" ({s:.2})")).unwrap_or_default();
        out.push_str(&format!(
            "{} {}{score}\n",
            st.dim(&format!("[{:>4},{:>4} {:>4}x{:<3}]", b.x, b.y, b.w, b.h)),
            l.text
        ));
    }
    if doc.lines.is_empty() {
        out.push_str("(no text found)\n");
    }
    out
}

/// deft-ocr behind the executor's text seam, loaded only when a target needs OCR (loading
/// and checking the models costs more than most actions).
#[derive(Default)]
pub struct LazyOcr {
    engine: OnceLock<Result<OcrsEngine, String>>,
}

impl ScreenText for LazyOcr {
    fn find(&self, frame: &Frame, text: &TextMatch) -> Result<Vec<TextHit>, String> {
        let engine = self
            .engine
            .get_or_init(|| OcrsEngine::from_embedded().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(Clone::clone)?;
        let result = engine.recognize(frame, None).map_err(|e| e.to_string())?;
        Ok(deft_ocr::find_text(&result, text, &SearchOptions::default())
            .into_iter()
            .map(|m| TextHit { text: m.text, bounds: m.bounds, score: f64::from(m.score) })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use deft_types::Point;

    use super::*;

    #[test]
    fn png_round_trip() {
        let dir = std::env::temp_dir().join(format!("agent-cli-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.png");
        let frame = Frame::new(3, 2, (0..24).collect(), Point::new(5, 6)).unwrap();
        write_png(&frame, &path).unwrap();
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let reader = decoder.read_info().unwrap();
        assert_eq!((reader.info().width, reader.info().height), (3, 2));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn area_flags() {
        let area = AreaArgs { window: Some("0x2a".into()), ..AreaArgs::default() };
        assert_eq!(capture_target(&area).unwrap(), CaptureTarget::Window(WindowRef::Id(42)));
        let area = AreaArgs { window: Some("Deft Fixture".into()), ..AreaArgs::default() };
        assert_eq!(capture_target(&area).unwrap(), CaptureTarget::Window(WindowRef::Title("Deft Fixture".into())));
        assert_eq!(capture_target(&AreaArgs::default()).unwrap(), CaptureTarget::Screen);
        let empty = AreaArgs { window: Some(" ".into()), ..AreaArgs::default() };
        assert_eq!(capture_target(&empty).unwrap_err().exit, Exit::Usage);
    }
}
