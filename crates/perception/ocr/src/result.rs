//! What OCR returns: lines of words with their bounds in screen coordinates.

use deft_types::{Physical, Rect};

/// Text read from (part of) a frame, in reading order (top to bottom, then left to right).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OcrResult {
    /// The lines of text found.
    pub lines: Vec<Line>,
    /// How the result was made: what was read and what was reused.
    pub stats: OcrStats,
}

/// One line of text: a run of words on one baseline, separated from other text by a gap
/// wider than a few spaces (so a label and the field next to it are two lines).
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The text, words separated by single spaces.
    pub text: String,
    /// Bounds on screen (physical pixels).
    pub bounds: Rect<Physical>,
    /// The words, left to right.
    pub words: Vec<Word>,
}

/// One word.
#[derive(Clone, Debug, PartialEq)]
pub struct Word {
    /// The text.
    pub text: String,
    /// Bounds on screen (physical pixels). The horizontal extent comes from the
    /// recogniser's character positions and is approximate to a few pixels.
    pub bounds: Rect<Physical>,
    /// The recogniser's confidence in `[0, 1]`, when the backend reports one (ocrs does not).
    pub confidence: Option<f32>,
}

/// Counters describing one OCR run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OcrStats {
    /// Tiles the read area was divided into: 1 for layout analysis (which reads the area
    /// at once), the model's tiles for [`crate::Detector::Model`], the change-detection
    /// grid for [`crate::IncrementalOcr`].
    pub tiles: usize,
    /// Tiles whose pixels were read: not blank, and for incremental runs, changed.
    pub tiles_read: usize,
    /// Text lines found by detection.
    pub lines_detected: usize,
    /// Lines given to the recognition model.
    pub lines_recognized: usize,
    /// Lines whose text was reused from an earlier run (incremental OCR).
    pub lines_reused: usize,
}

impl OcrResult {
    /// All text, one line per line.
    pub fn text(&self) -> String {
        let lines: Vec<&str> = self.lines.iter().map(|l| l.text.as_str()).collect();
        lines.join("\n")
    }
}

impl Line {
    /// A line made of words; its text and bounds are derived from them. `None` without words.
    pub fn from_words(words: Vec<Word>) -> Option<Line> {
        let first = words.first()?;
        let bounds = words.iter().fold(first.bounds, |acc, w| acc.union(&w.bounds));
        let text = words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
        Some(Line { text, bounds, words })
    }
}

/// Sort lines into reading order: by rows (lines whose vertical centres are within half a
/// line height of each other share a row), then left to right.
pub(crate) fn sort_reading_order(lines: &mut [Line]) {
    lines.sort_by_key(|l| (l.bounds.y, l.bounds.x));
    // Group into rows greedily, then sort each row by x.
    let mut start = 0;
    while start < lines.len() {
        let first = &lines[start].bounds;
        let centre = i64::from(first.y) + i64::from(first.h / 2);
        let mut end = start + 1;
        while end < lines.len() {
            let b = &lines[end].bounds;
            let c = i64::from(b.y) + i64::from(b.h / 2);
            if (c - centre).unsigned_abs() > u64::from(first.h.max(b.h) / 2) {
                break;
            }
            end += 1;
        }
        lines[start..end].sort_by_key(|l| l.bounds.x);
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(boxes: &[(&str, i32, i32)], expected: &str) {
        let mut lines: Vec<Line> = boxes
            .iter()
            .map(|(t, x, y)| {
                let w = Word { text: t.to_string(), bounds: Rect::new(*x, *y, 40, 14), confidence: None };
                Line::from_words(vec![w]).unwrap()
            })
            .collect();
        sort_reading_order(&mut lines);
        assert_eq!(OcrResult { lines, stats: OcrStats::default() }.text().replace('\n', " "), expected);
    }

    #[test]
    fn reading_order_is_rows_then_left_to_right() {
        // "Email" sits 3 px lower than its field's text: still the same row.
        check(
            &[("ada@example.org", 200, 100), ("Email", 10, 103), ("Name", 10, 60), ("Ada", 200, 58)],
            "Name Ada Email ada@example.org",
        );
    }
}
