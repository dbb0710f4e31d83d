//! `OcrsEngine`: the ocrs backend of [`Ocr`](crate::Ocr): detect lines, then recognise them.

use std::path::PathBuf;

use deft_types::{Frame, Physical, Rect};
use ocrs::{OcrEngine, OcrEngineParams};

use crate::detect_model::{self, TileParams};
use crate::gray::{Bx, Gray};
use crate::layout::{self, LayoutParams};
use crate::model::{self, ModelHashes, ModelSource};
use crate::recognize::{self, WordPx};
use crate::result::{Line, OcrResult, OcrStats, Word, sort_reading_order};
use crate::{Ocr, OcrError};

/// How text lines are found before they are recognised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Detector {
    /// Layout analysis of the pixels (the default): precise and fast on UI screens, whose
    /// text is crisp and upright on flat backgrounds.
    Layout(LayoutParams),
    /// The ocrs detection model, run tile by tile at native resolution: slower, and better
    /// on text over photos or gradients.
    Model(TileParams),
}

/// Configuration of an [`OcrsEngine`].
#[derive(Clone, Debug, PartialEq)]
pub struct OcrConfig {
    /// Where the models come from.
    pub models: ModelSource,
    /// How lines are found.
    pub detector: Detector,
    /// Largest image (frame or region) read, in pixels.
    pub max_pixels: u64,
    /// A tile whose luma range is below this holds no text and is skipped.
    pub blank_contrast: u8,
}

impl Default for OcrConfig {
    fn default() -> Self {
        OcrConfig {
            models: ModelSource::Embedded,
            detector: Detector::Layout(LayoutParams::default()),
            // An 8K screen is 33 Mpx; above this the working buffers pass a gigabyte.
            max_pixels: 40_000_000,
            blank_contrast: 48,
        }
    }
}

/// OCR with ocrs: loads (and hash-checks) the models once; cheap to call many times.
pub struct OcrsEngine {
    ocrs: OcrEngine,
    config: OcrConfig,
}

impl std::fmt::Debug for OcrsEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OcrsEngine").field("config", &self.config).finish_non_exhaustive()
    }
}

impl OcrsEngine {
    /// An engine as configured.
    pub fn new(config: OcrConfig) -> Result<OcrsEngine, OcrError> {
        let models = model::load(&config.models)?;
        let ocrs = OcrEngine::new(OcrEngineParams {
            detection_model: Some(models.detection),
            recognition_model: Some(models.recognition),
            ..Default::default()
        })
        .map_err(|e| OcrError::Backend(format!("the models do not fit ocrs: {e}")))?;
        Ok(OcrsEngine { ocrs, config })
    }

    /// The official models compiled into the binary, checked against their SHA-256.
    pub fn from_embedded() -> Result<OcrsEngine, OcrError> {
        OcrsEngine::new(OcrConfig::default())
    }

    /// Models from a directory (see [`ModelSource::Dir`]), checked against `hashes` when given.
    pub fn from_dir(path: impl Into<PathBuf>, hashes: Option<ModelHashes>) -> Result<OcrsEngine, OcrError> {
        OcrsEngine::new(OcrConfig { models: ModelSource::Dir { path: path.into(), hashes }, ..OcrConfig::default() })
    }

    /// The configuration.
    pub fn config(&self) -> &OcrConfig {
        &self.config
    }

    /// The part of `frame` to read, in frame pixels: `region` (screen coordinates) clipped
    /// to the frame, or the whole frame.
    pub(crate) fn area(&self, frame: &Frame, region: Option<Rect<Physical>>) -> Result<Bx, OcrError> {
        let screen = frame.screen_rect();
        let wanted = region.unwrap_or(screen);
        let clipped = if wanted.is_empty() { None } else { wanted.intersection(&screen) };
        let Some(r) = clipped else { return Err(OcrError::BadRegion { region: wanted, frame: screen }) };
        let pixels = u64::from(r.w) * u64::from(r.h);
        if pixels > self.config.max_pixels {
            return Err(OcrError::FrameTooLarge { w: r.w, h: r.h, max: self.config.max_pixels });
        }
        let (x0, y0) = (r.x - frame.origin.x, r.y - frame.origin.y);
        Ok(Bx::new(x0, y0, x0 + r.w as i32, y0 + r.h as i32))
    }

    /// Line boxes inside `within` of `img`, with (tiles, tiles read).
    pub(crate) fn detect(&self, img: &Gray, within: &Bx) -> Result<(Vec<Bx>, usize, usize), OcrError> {
        match &self.config.detector {
            Detector::Layout(p) => {
                let read = usize::from(!crate::tiles::is_blank(img, within, self.config.blank_contrast));
                let lines = if read == 1 { layout::find_lines_in(img, within, p) } else { Vec::new() };
                Ok((lines, 1, read))
            }
            Detector::Model(p) => {
                let sub = img.crop(within);
                let (mut lines, tiles, read) =
                    detect_model::find_lines(&self.ocrs, &sub, p, self.config.blank_contrast)?;
                for b in &mut lines {
                    *b = Bx::new(b.x0 + within.x0, b.y0 + within.y0, b.x1 + within.x0, b.y1 + within.y0);
                }
                Ok((lines, tiles, read))
            }
        }
    }

    /// Recognise the text in each box of `img`.
    pub(crate) fn read(&self, img: &Gray, boxes: &[Bx]) -> Result<Vec<Vec<WordPx>>, OcrError> {
        recognize::recognize(&self.ocrs, boxes.iter().map(|b| img.crop(b)).collect())
    }
}

impl Ocr for OcrsEngine {
    fn recognize(&self, frame: &Frame, region: Option<Rect<Physical>>) -> Result<OcrResult, OcrError> {
        let area = self.area(frame, region)?;
        let img = Gray::from_frame(frame, area);
        let (boxes, tiles, tiles_read) = self.detect(&img, &img.bounds())?;
        let words = self.read(&img, &boxes)?;
        let origin = (frame.origin.x + area.x0, frame.origin.y + area.y0);
        let mut lines: Vec<Line> = boxes.iter().zip(&words).filter_map(|(b, w)| make_line(w, b, origin)).collect();
        sort_reading_order(&mut lines);
        let stats =
            OcrStats { tiles, tiles_read, lines_detected: boxes.len(), lines_recognized: boxes.len(), lines_reused: 0 };
        Ok(OcrResult { lines, stats })
    }
}

/// A line in screen coordinates from words read in box `b` of an image whose top-left
/// pixel is at `origin` on screen.
pub(crate) fn make_line(words: &[WordPx], b: &Bx, origin: (i32, i32)) -> Option<Line> {
    let words = words
        .iter()
        .map(|w| {
            let x0 = (b.x0 + w.x0.max(0)).min(b.x1 - 1);
            let x1 = (b.x0 + w.x1).clamp(x0 + 1, b.x1);
            Word {
                text: w.text.clone(),
                bounds: Rect::new(origin.0 + x0, origin.1 + b.y0, (x1 - x0) as u32, b.h() as u32),
                confidence: None,
            }
        })
        .collect();
    Line::from_words(words)
}
