//! Incremental OCR: re-read only the tiles that changed since the last frame.

use std::collections::HashMap;

use deft_types::{Frame, Physical, Point};

use crate::engine::make_line;
use crate::gray::{Bx, Gray};
use crate::recognize::WordPx;
use crate::result::{Line, OcrResult, OcrStats, sort_reading_order};
use crate::tiles;
use crate::{OcrError, OcrsEngine};

/// Tuning of [`IncrementalOcr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IncrementalParams {
    /// Tile width for change detection, pixels.
    pub tile_width: u32,
    /// Tile height for change detection, pixels.
    pub tile_height: u32,
    /// How far (pixels) a re-analysed band grows when a line crosses its edge.
    pub band_step: u32,
}

impl Default for IncrementalParams {
    fn default() -> Self {
        IncrementalParams { tile_width: 128, tile_height: 64, band_step: 32 }
    }
}

/// OCR of successive frames of one screen (or window) that reuses what did not change.
///
/// Each frame is cut into tiles and each tile digested. Tiles whose digest is unchanged
/// keep their lines. The rows of changed tiles are analysed again (grown until no line
/// crosses their edge), and a line found there is recognised only if its pixels are new:
/// lines are cached by the digest of their pixels, so a line that merely moved (a scrolled
/// list) is not read twice. The first frame, or one of a different size or place, is read
/// in full.
pub struct IncrementalOcr<'e> {
    engine: &'e OcrsEngine,
    params: IncrementalParams,
    state: Option<State>,
}

struct State {
    origin: Point<Physical>,
    size: (usize, usize),
    digests: Vec<u64>,
    /// Every detected line: its box, the digest of its pixels, its words (empty when
    /// nothing was read).
    lines: Vec<(Bx, u64, Vec<WordPx>)>,
}

impl<'e> IncrementalOcr<'e> {
    /// Incremental OCR on `engine`. With [`crate::Detector::Model`] every update is a full
    /// read (the model's tiles do not follow text lines).
    pub fn new(engine: &'e OcrsEngine, params: IncrementalParams) -> IncrementalOcr<'e> {
        IncrementalOcr { engine, params, state: None }
    }

    /// Forget everything: the next update reads the whole frame.
    pub fn reset(&mut self) {
        self.state = None;
    }

    /// The text of `frame`, reusing the previous update's results where pixels are unchanged.
    pub fn update(&mut self, frame: &Frame) -> Result<OcrResult, OcrError> {
        let area = self.engine.area(frame, None)?;
        let img = Gray::from_frame(frame, area);
        let grid = tiles::grid(&img.bounds(), self.params.tile_width as i32, self.params.tile_height as i32, 0);
        let digests: Vec<u64> = grid.iter().map(|t| tiles::digest(&img, t)).collect();
        let size = (img.w, img.h);
        let layout = matches!(self.engine.config().detector, crate::Detector::Layout(_));
        let previous = self.state.take().filter(|s| layout && s.origin == frame.origin && s.size == size);

        let mut stats = OcrStats { tiles: grid.len(), ..OcrStats::default() };
        let (kept, found, cache) = match previous {
            Some(prev) => {
                let changed: Vec<Bx> = grid
                    .iter()
                    .zip(digests.iter().zip(&prev.digests))
                    .filter(|(_, (a, b))| a != b)
                    .map(|(t, _)| *t)
                    .collect();
                stats.tiles_read = changed.len();
                let previous: Vec<Bx> = prev.lines.iter().map(|l| l.0).collect();
                let (bands, found) = self.bands(&img, &changed, &previous)?;
                let mut cache: HashMap<u64, Vec<WordPx>> = HashMap::new();
                let mut kept = Vec::new();
                for (b, key, words) in prev.lines {
                    if bands.iter().any(|band| band.overlaps(&b)) {
                        cache.insert(key, words);
                    } else {
                        kept.push((b, key, words));
                    }
                }
                (kept, found, cache)
            }
            None => {
                stats.tiles_read = grid.len();
                let found = self.engine.detect(&img, &img.bounds())?.0;
                (Vec::new(), found, HashMap::new())
            }
        };

        // Recognise what the cache does not know.
        let keys: Vec<u64> = found.iter().map(|b| tiles::digest(&img, b)).collect();
        let unknown: Vec<usize> = (0..found.len()).filter(|&i| !cache.contains_key(&keys[i])).collect();
        let boxes: Vec<Bx> = unknown.iter().map(|&i| found[i]).collect();
        let mut read = self.engine.read(&img, &boxes)?.into_iter();
        let mut fresh: HashMap<usize, Vec<WordPx>> = HashMap::new();
        for &i in &unknown {
            fresh.insert(i, read.next().unwrap_or_default());
        }
        stats.lines_detected = found.len();
        stats.lines_recognized = unknown.len();
        stats.lines_reused = kept.len() + found.len() - unknown.len();

        let mut all = kept;
        for (i, (b, key)) in found.iter().zip(&keys).enumerate() {
            let words = fresh.remove(&i).or_else(|| cache.get(key).cloned()).unwrap_or_default();
            all.push((*b, *key, words));
        }
        let origin = (frame.origin.x + area.x0, frame.origin.y + area.y0);
        let mut lines: Vec<Line> = all.iter().filter_map(|(b, _, w)| make_line(w, b, origin)).collect();
        sort_reading_order(&mut lines);
        self.state = Some(State { origin: frame.origin, size, digests, lines: all });
        Ok(OcrResult { lines, stats })
    }

    /// Full-width bands covering the changed tiles, grown until no line (found now, or
    /// `previous`ly) crosses their top or bottom edge, and merged where they touch; with the
    /// lines found in them.
    fn bands(&self, img: &Gray, changed: &[Bx], previous: &[Bx]) -> Result<(Vec<Bx>, Vec<Bx>), OcrError> {
        let full = img.bounds();
        let mut pending: Vec<Bx> = changed.iter().map(|t| Bx::new(full.x0, t.y0, full.x1, t.y1)).collect();
        let step = self.params.band_step as i32;
        let mut done: Vec<(Bx, Vec<Bx>)> = Vec::new();
        while let Some(mut band) = pending.pop() {
            // Merge with any band it touches, finished or not.
            if let Some(i) = pending.iter().position(|b| b.y0 <= band.y1 && band.y0 <= b.y1) {
                let other = pending.swap_remove(i);
                pending.push(band.union(&other));
                continue;
            }
            if let Some(i) = done.iter().position(|(b, _)| b.y0 <= band.y1 && band.y0 <= b.y1) {
                let (other, _) = done.swap_remove(i);
                pending.push(band.union(&other));
                continue;
            }
            let lines = self.engine.detect(img, &band)?.0;
            let old = previous.iter().filter(|p| p.overlaps(&band));
            let top =
                band.y0 > full.y0 && (lines.iter().any(|l| l.y0 <= band.y0) || old.clone().any(|p| p.y0 < band.y0));
            let bottom =
                band.y1 < full.y1 && (lines.iter().any(|l| l.y1 >= band.y1) || old.clone().any(|p| p.y1 > band.y1));
            if top || bottom {
                band.y0 = if top { (band.y0 - step).max(full.y0) } else { band.y0 };
                band.y1 = if bottom { (band.y1 + step).min(full.y1) } else { band.y1 };
                pending.push(band);
            } else {
                done.push((band, lines));
            }
        }
        let bands = done.iter().map(|(b, _)| *b).collect();
        let lines = done.into_iter().flat_map(|(_, l)| l).collect();
        Ok((bands, lines))
    }
}
