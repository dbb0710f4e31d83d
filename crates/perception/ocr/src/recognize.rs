//! Line recognition with the ocrs model: normalised line crops, batched on one canvas.

use ocrs::{ImageSource, OcrEngine, TextItem};
use rten_imageproc::{Rect as IpRect, RotatedRect};

use crate::OcrError;
use crate::gray::{Gray, normalize_text_crop};

/// A recognised word, its horizontal extent relative to the left of its line crop.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WordPx {
    pub text: String,
    pub x0: i32,
    pub x1: i32,
}

/// White space around each crop on the canvas, so no line sees its neighbour.
const MARGIN: usize = 6;

/// Recognise each crop (a line of text, any polarity). One entry per crop, empty when
/// nothing was read.
///
/// Every crop is normalised to dark-on-white with full contrast and pasted onto one canvas,
/// so that ocrs prepares one small image and batches all lines through the model together.
/// Crops are used as they are: white margins added around a line (measured on the fixture
/// screens) make the model drop characters, so the crop's own margin is kept small.
pub(crate) fn recognize(engine: &OcrEngine, crops: Vec<Gray>) -> Result<Vec<Vec<WordPx>>, OcrError> {
    if crops.is_empty() {
        return Ok(Vec::new());
    }
    let width = crops.iter().map(|c| c.w).max().unwrap_or(0) + 2 * MARGIN;
    let height: usize = crops.iter().map(|c| c.h + MARGIN).sum::<usize>() + MARGIN;
    let mut canvas = Gray::white(width, height);
    let mut rects = Vec::with_capacity(crops.len());
    let mut y = MARGIN;
    for mut crop in crops {
        normalize_text_crop(&mut crop);
        canvas.paste(&crop, MARGIN, y);
        let r = IpRect::from_tlhw(y as f32, MARGIN as f32, crop.h as f32, crop.w as f32);
        rects.push(vec![RotatedRect::from_rect(r)]);
        y += crop.h + MARGIN;
    }
    if let Some(path) = std::env::var_os("DEFT_OCR_DUMP") {
        let mut out = format!("P5\n{} {}\n255\n", canvas.w, canvas.h).into_bytes();
        out.extend_from_slice(&canvas.px);
        let _ = std::fs::write(path, out);
    }
    let source = ImageSource::from_bytes(&canvas.px, (canvas.w as u32, canvas.h as u32))
        .map_err(|e| OcrError::Backend(format!("preparing the line canvas: {e}")))?;
    let input = engine.prepare_input(source).map_err(|e| OcrError::Backend(e.to_string()))?;
    let lines = engine.recognize_text(&input, &rects).map_err(|e| OcrError::Backend(e.to_string()))?;
    Ok(lines
        .into_iter()
        .map(|line| {
            let left = MARGIN as i32;
            let Some(line) = line else { return Vec::new() };
            line.words()
                .map(|w| {
                    let r = w.bounding_rect();
                    WordPx { text: w.to_string(), x0: r.left() - left, x1: r.right() - left }
                })
                .filter(|w| !w.text.trim().is_empty())
                .collect()
        })
        .collect())
}
