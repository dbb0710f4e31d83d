//! A fake [`Ocr`] backend for tests of code that uses OCR: it returns scripted lines.

use deft_types::{Frame, Physical, Rect};

use crate::{Ocr, OcrError, OcrResult};

/// Returns the lines it was given that lie in the requested region: no pixels are read.
#[derive(Clone, Debug, Default)]
pub struct FakeOcr {
    /// What every call sees on screen.
    pub screen: OcrResult,
}

impl Ocr for FakeOcr {
    fn recognize(&self, frame: &Frame, region: Option<Rect<Physical>>) -> Result<OcrResult, OcrError> {
        let screen = frame.screen_rect();
        let wanted = region.unwrap_or(screen);
        let Some(area) = (!wanted.is_empty()).then(|| wanted.intersection(&screen)).flatten() else {
            return Err(OcrError::BadRegion { region: wanted, frame: screen });
        };
        let lines =
            self.screen.lines.iter().filter(|l| area.intersection(&l.bounds) == Some(l.bounds)).cloned().collect();
        Ok(OcrResult { lines, stats: Default::default() })
    }
}

#[cfg(test)]
mod tests {
    use deft_types::Point;

    use super::*;
    use crate::{Line, Word};

    #[test]
    fn returns_the_scripted_lines_inside_the_region() {
        let word = |t: &str, x| Word { text: t.into(), bounds: Rect::new(x, 10, 40, 16), confidence: None };
        let screen = OcrResult {
            lines: vec![
                Line::from_words(vec![word("Cancel", 10)]).unwrap(),
                Line::from_words(vec![word("Submit", 200)]).unwrap(),
            ],
            stats: Default::default(),
        };
        let fake = FakeOcr { screen };
        let frame = Frame::new(300, 50, vec![0; 300 * 50 * 4], Point::new(0, 0)).unwrap();
        assert_eq!(fake.recognize(&frame, None).unwrap().text(), "Cancel\nSubmit");
        assert_eq!(fake.recognize(&frame, Some(Rect::new(150, 0, 150, 50))).unwrap().text(), "Submit");
        assert!(fake.recognize(&frame, Some(Rect::new(400, 0, 10, 10))).is_err());
    }
}
