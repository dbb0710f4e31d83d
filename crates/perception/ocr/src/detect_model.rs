//! Text line detection with the ocrs detection model, tile by tile at native resolution.
//!
//! The model takes a fixed 800x600 input and squashes anything larger, which loses UI text
//! of 11-16 px. Here each tile is at most that size (so it is padded, never squashed),
//! blank tiles are skipped, dark tiles are inverted, words cut by an inner tile edge are
//! left to the neighbouring tile that sees them whole, and words are joined into lines by
//! the same rule as layout analysis.

use ocrs::{ImageSource, OcrEngine};

use crate::OcrError;
use crate::gray::{Bx, Gray};
use crate::layout::{self, LayoutParams};
use crate::tiles;

/// How the detection model's tiles are laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileParams {
    /// Tile width in pixels (the model's input width is 800).
    pub width: u32,
    /// Tile height in pixels (the model's input height is 600).
    pub height: u32,
    /// Overlap of neighbouring tiles: wider than the widest word, so a word cut by one
    /// tile's edge is whole in the next.
    pub overlap: u32,
}

impl Default for TileParams {
    fn default() -> Self {
        TileParams { width: 800, height: 600, overlap: 160 }
    }
}

/// Lines found, and (tiles, tiles read).
pub(crate) fn find_lines(
    engine: &OcrEngine,
    img: &Gray,
    p: &TileParams,
    blank_contrast: u8,
) -> Result<(Vec<Bx>, usize, usize), OcrError> {
    let area = img.bounds();
    let grid = tiles::grid(&area, p.width as i32, p.height as i32, p.overlap as i32);
    let mut words: Vec<Bx> = Vec::new();
    let mut read = 0;
    for tile in &grid {
        if tiles::is_blank(img, tile, blank_contrast) {
            continue;
        }
        read += 1;
        let mut crop = img.crop(tile);
        if mostly_dark(&crop) {
            crop.px.iter_mut().for_each(|v| *v = 255 - *v);
        }
        let source = ImageSource::from_bytes(&crop.px, (crop.w as u32, crop.h as u32))
            .map_err(|e| OcrError::Backend(format!("preparing a tile: {e}")))?;
        let input = engine.prepare_input(source).map_err(|e| OcrError::Backend(e.to_string()))?;
        let found = engine.detect_words(&input).map_err(|e| OcrError::Backend(e.to_string()))?;
        for r in found {
            let corners = r.corners();
            let xs = corners.iter().map(|c| c.x);
            let ys = corners.iter().map(|c| c.y);
            let x0 = xs.clone().fold(f32::MAX, f32::min).floor() as i32;
            let x1 = xs.fold(f32::MIN, f32::max).ceil() as i32;
            let y0 = ys.clone().fold(f32::MAX, f32::min).floor() as i32;
            let y1 = ys.fold(f32::MIN, f32::max).ceil() as i32;
            let b = Bx::new(x0 + tile.x0, y0 + tile.y0, x1 + tile.x0, y1 + tile.y0);
            let Some(b) = b.intersect(tile) else { continue };
            if !cut_by_inner_edge(&b, tile, &area) {
                words.push(b);
            }
        }
    }
    let words = dedupe(words);
    let params = LayoutParams { gap_factor: 0.6, ..LayoutParams::default() };
    let mut lines = layout::group(&words, &params);
    lines.sort_by_key(|b| (b.y0, b.x0));
    Ok((lines, grid.len(), read))
}

fn mostly_dark(img: &Gray) -> bool {
    let dark = img.px.iter().filter(|&&v| v < 128).count();
    dark * 2 > img.px.len()
}

/// Whether `b` touches an edge of `tile` that is not an edge of the whole `area`.
fn cut_by_inner_edge(b: &Bx, tile: &Bx, area: &Bx) -> bool {
    (b.x0 <= tile.x0 && tile.x0 > area.x0)
        || (b.y0 <= tile.y0 && tile.y0 > area.y0)
        || (b.x1 >= tile.x1 && tile.x1 < area.x1)
        || (b.y1 >= tile.y1 && tile.y1 < area.y1)
}

/// The same word seen by two overlapping tiles: keep the larger box.
fn dedupe(mut words: Vec<Bx>) -> Vec<Bx> {
    words.sort_by_key(|b| std::cmp::Reverse(b.area()));
    let mut kept: Vec<Bx> = Vec::with_capacity(words.len());
    for w in words {
        let dup = kept.iter().any(|k| k.intersect(&w).is_some_and(|i| i.area() * 2 > w.area()));
        if !dup {
            kept.push(w);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_on_inner_edges_are_left_to_the_neighbour() {
        let area = Bx::new(0, 0, 1600, 600);
        let left = Bx::new(0, 0, 800, 600);
        assert!(cut_by_inner_edge(&Bx::new(780, 10, 800, 30), &left, &area));
        assert!(!cut_by_inner_edge(&Bx::new(0, 10, 40, 30), &left, &area), "the frame's own edge cuts nothing");
        assert!(!cut_by_inner_edge(&Bx::new(100, 10, 140, 30), &left, &area));
    }

    #[test]
    fn overlapping_copies_of_a_word_become_one() {
        let got = dedupe(vec![Bx::new(10, 10, 50, 30), Bx::new(12, 10, 50, 30), Bx::new(100, 10, 140, 30)]);
        assert_eq!(got.len(), 2, "{got:?}");
    }
}
