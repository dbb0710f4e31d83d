//! Pixels and text on screen: PNG encoding, OCR of a frame, and deft-ocr behind the
//! executor's text seam, loaded only when a target needs it.

use std::sync::OnceLock;

use deft_ocr::{Ocr, OcrsEngine, SearchOptions};
use deft_types::{Frame, TextMatch};
use deft_verify::{ScreenText, TextHit};

/// A frame as an RGBA PNG.
pub fn encode_png(frame: &Frame) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, frame.width(), frame.height());
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    // Screens are flat colour: the fast filter compresses them nearly as well, much sooner.
    enc.set_compression(png::Compression::Fast);
    let mut writer = enc.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(frame.pixels()).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// deft-ocr's engine, loaded on first use (loading and checking the models costs more than
/// most actions), shared by the executor's text seam and the `ocr` tool.
#[derive(Default)]
pub struct LazyOcr {
    engine: OnceLock<Result<OcrsEngine, String>>,
}

impl LazyOcr {
    /// The engine, loading it the first time.
    pub fn engine(&self) -> Result<&OcrsEngine, String> {
        self.engine
            .get_or_init(|| OcrsEngine::from_embedded().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ScreenText for LazyOcr {
    fn find(&self, frame: &Frame, text: &TextMatch) -> Result<Vec<TextHit>, String> {
        let result = self.engine()?.recognize(frame, None).map_err(|e| e.to_string())?;
        Ok(deft_ocr::find_text(&result, text, &SearchOptions::default())
            .into_iter()
            .map(|m| TextHit { text: m.text, bounds: m.bounds, score: f64::from(m.score) })
            .collect())
    }
}
