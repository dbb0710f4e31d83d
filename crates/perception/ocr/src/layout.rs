//! Text line detection for screens by layout analysis: contrast edges, glyph blobs, lines.
//!
//! UI text is crisp, upright and sits on flat backgrounds, so classic layout analysis finds
//! it precisely at native resolution in milliseconds, where the ocrs detection model (trained
//! on documents, fixed 800x600 input) needs a model run per tile. Glyphs are connected
//! components of strong contrast edges; widget outlines and rules are dropped by shape; the
//! glyphs are joined into lines by baseline overlap and gaps smaller than a few spaces.

use crate::gray::{Bx, Gray};

/// Tuning of the layout analysis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayoutParams {
    /// Smallest luma step between neighbouring pixels that counts as a glyph edge. Widget
    /// borders are usually fainter than text and fall below it.
    pub edge_contrast: u8,
    /// Tallest glyph blob (pixels); taller blobs are pictures or widget frames.
    pub max_glyph_height: u32,
    /// Largest gap inside a line, as a fraction of the glyph height.
    pub gap_factor: f32,
    /// Margin of the image kept left and right of a line's glyphs, as a fraction of its
    /// height; never more than half the gap to the next line. The recognition model reads
    /// tight crops best: wider margins make it drop characters (measured).
    pub pad_x: f32,
    /// Margin kept above and below, as a fraction of the line's height.
    pub pad_y: f32,
}

impl Default for LayoutParams {
    fn default() -> Self {
        LayoutParams { edge_contrast: 48, max_glyph_height: 48, gap_factor: 0.8, pad_x: 0.15, pad_y: 0.25 }
    }
}

/// A glyph blob: one connected component of edge pixels.
#[derive(Clone, Copy, Debug)]
struct Blob {
    b: Bx,
    count: u32,
}

/// Lines of text in `img`, as padded boxes in image coordinates, top to bottom.
#[cfg(test)]
fn find_lines(img: &Gray, p: &LayoutParams) -> Vec<Bx> {
    find_lines_in(img, &img.bounds(), p)
}

/// Lines of text found inside `area` of `img`.
pub(crate) fn find_lines_in(img: &Gray, area: &Bx, p: &LayoutParams) -> Vec<Bx> {
    let Some(area) = area.intersect(&img.bounds()) else { return Vec::new() };
    let mask = edge_mask(img, &area, p.edge_contrast);
    let blobs: Vec<Blob> = components(&mask, area.w() as usize, area.h() as usize)
        .into_iter()
        .map(|bl| Blob { b: Bx::new(bl.b.x0 + area.x0, bl.b.y0 + area.y0, bl.b.x1 + area.x0, bl.b.y1 + area.y0), ..bl })
        .filter(|bl| glyph_like(bl, p))
        .collect();
    let boxes: Vec<Bx> = blobs.iter().map(|bl| bl.b).collect();
    let mut lines = group(&boxes, p);
    lines.retain(|b| b.h() >= 5 && b.w() >= 3 && b.h() <= p.max_glyph_height as i32 + 4);
    let mut out = pad(&lines, &area, p);
    out.sort_by_key(|b| (b.y0, b.x0));
    out
}

/// Each line grown by the margin, at most half the gap to the nearest other line on that
/// side, and clipped to `area`.
fn pad(lines: &[Bx], area: &Bx, p: &LayoutParams) -> Vec<Bx> {
    lines
        .iter()
        .map(|b| {
            let h = b.h() as f32;
            let (mut left, mut right) = (((h * p.pad_x) as i32).max(2), ((h * p.pad_x) as i32).max(2));
            let (mut top, mut bottom) = (((h * p.pad_y) as i32).max(2), ((h * p.pad_y) as i32).max(2));
            for o in lines {
                if o == b {
                    continue;
                }
                let h_overlap = o.x0 < b.x1 + right && b.x0 - left < o.x1;
                let v_overlap = o.y0 < b.y1 + bottom && b.y0 - top < o.y1;
                if h_overlap && o.y1 <= b.y0 {
                    top = top.min((b.y0 - o.y1) / 2);
                }
                if h_overlap && o.y0 >= b.y1 {
                    bottom = bottom.min((o.y0 - b.y1) / 2);
                }
                if v_overlap && o.x1 <= b.x0 {
                    left = left.min((b.x0 - o.x1) / 2);
                }
                if v_overlap && o.x0 >= b.x1 {
                    right = right.min((o.x0 - b.x1) / 2);
                }
            }
            Bx::new(
                (b.x0 - left).max(area.x0),
                (b.y0 - top).max(area.y0),
                (b.x1 + right).min(area.x1),
                (b.y1 + bottom).min(area.y1),
            )
        })
        .collect()
}

/// Pixels where the luma steps by at least `t` to the right or downwards neighbour: the
/// outlines of glyphs, on any background and in either polarity.
fn edge_mask(img: &Gray, area: &Bx, t: u8) -> Vec<u8> {
    let (w, h) = (area.w() as usize, area.h() as usize);
    let mut mask = vec![0u8; w * h];
    for y in 0..h {
        let row = img.row_slice(area.y0 + y as i32, area.x0, area.x1);
        let below = (y + 1 < h).then(|| img.row_slice(area.y0 + y as i32 + 1, area.x0, area.x1));
        let out = &mut mask[y * w..(y + 1) * w];
        for x in 0..w {
            let v = row[x];
            let right = x + 1 < w && v.abs_diff(row[x + 1]) >= t;
            let down = below.is_some_and(|b| v.abs_diff(b[x]) >= t);
            out[x] = u8::from(right || down);
        }
    }
    mask
}

/// 8-connected components of the set pixels of `mask` (consumed as the visited set).
fn components(mask: &[u8], w: usize, h: usize) -> Vec<Blob> {
    let mut mask = mask.to_vec();
    let mut out = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    for start in 0..mask.len() {
        if mask[start] == 0 {
            continue;
        }
        mask[start] = 0;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1, mut count) = (usize::MAX, usize::MAX, 0, 0, 0u32);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
            count += 1;
            let (xa, xb) = (x.saturating_sub(1), (x + 1).min(w - 1));
            let (ya, yb) = (y.saturating_sub(1), (y + 1).min(h - 1));
            for ny in ya..=yb {
                for nx in xa..=xb {
                    let j = ny * w + nx;
                    if mask[j] != 0 {
                        mask[j] = 0;
                        stack.push(j);
                    }
                }
            }
        }
        out.push(Blob { b: Bx::new(x0 as i32, y0 as i32, x1 as i32 + 1, y1 as i32 + 1), count });
    }
    out
}

/// Whether a blob can be (part of) text rather than a frame, a rule or a picture.
fn glyph_like(bl: &Blob, p: &LayoutParams) -> bool {
    let (w, h) = (bl.b.w(), bl.b.h());
    let area = i64::from(w) * i64::from(h);
    if h > p.max_glyph_height as i32 || bl.count < 2 {
        return false;
    }
    let horizontal_rule = h <= 2 && w >= 12;
    let vertical_rule = w <= 2 && h >= 20;
    // The outline of a box (an entry's frame, a checkbox): large and hollow.
    let outline = h >= 20 && w >= 20 && i64::from(bl.count) * 5 < area;
    !(horizontal_rule || vertical_rule || outline)
}

/// Join glyph (or word) boxes into lines: same baseline band (vertical overlap) and a
/// small gap.
pub(crate) fn group(blobs: &[Bx], p: &LayoutParams) -> Vec<Bx> {
    let n = blobs.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| blobs[i].x0);
    let mut uf = UnionFind::new(n);
    let max_gap = (p.max_glyph_height as f32 * p.gap_factor) as i32;
    for (k, &i) in order.iter().enumerate() {
        let a = &blobs[i];
        for &j in &order[k + 1..] {
            let b = &blobs[j];
            if b.x0 > a.x1 + max_gap {
                break;
            }
            if joinable(a, b, p.gap_factor) {
                uf.union(i, j);
            }
        }
    }
    // Tiny blobs (dots of i and j, periods) that joined nothing attach to a line right
    // above or below them that spans them horizontally.
    let mut lines: Vec<(Bx, usize)> = Vec::new();
    let mut index = vec![usize::MAX; n];
    for (i, blob) in blobs.iter().enumerate() {
        let root = uf.find(i);
        if index[root] == usize::MAX {
            index[root] = lines.len();
            lines.push((*blob, 0));
        }
        let l = &mut lines[index[root]];
        l.0 = l.0.union(blob);
        l.1 += 1;
    }
    // Flat marks (underscores, a low hyphen) count as tiny too.
    let (big, tiny): (Vec<_>, Vec<_>) =
        lines.into_iter().partition(|(b, members)| *members > 1 || b.h() > 4 || b.w() > 40 || (b.w() > 4 && b.h() > 2));
    let mut big: Vec<Bx> = big.into_iter().map(|(b, _)| b).collect();
    for (t, _) in tiny {
        if let Some(line) =
            big.iter_mut().find(|l| t.x0 >= l.x0 && t.x1 <= l.x1 && t.y1 >= l.y0 - 3 && t.y0 <= l.y1 + 3)
        {
            *line = line.union(&t);
        }
    }
    big
}

/// Whether two glyph blobs belong to one line.
fn joinable(a: &Bx, b: &Bx, gap_factor: f32) -> bool {
    let overlap = a.y1.min(b.y1) - a.y0.max(b.y0);
    let (hs, hl) = (a.h().min(b.h()), a.h().max(b.h()));
    if overlap * 2 < hs || overlap <= 0 {
        return false;
    }
    // Text next to a picture or a tall frame is not one line with it; punctuation (tiny)
    // is allowed next to any glyph.
    if hs > 4 && hl * 2 > hs * 5 {
        return false;
    }
    let gap = (b.x0 - a.x1).max(a.x0 - b.x1);
    let height = hl.min(24) as f32;
    gap as f32 <= (height * gap_factor).max(3.0)
}

struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind { parent: (0..n).collect() }
    }
    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra.max(rb)] = ra.min(rb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An image with dark rectangles ("glyphs") on white.
    fn image(w: usize, h: usize, glyphs: &[(i32, i32, i32, i32)]) -> Gray {
        let mut g = Gray::white(w, h);
        for &(x, y, gw, gh) in glyphs {
            for yy in y..y + gh {
                for xx in x..x + gw {
                    g.px[yy as usize * w + xx as usize] = 0;
                }
            }
        }
        g
    }

    fn check(glyphs: &[(i32, i32, i32, i32)], expected_lines: usize) -> Vec<Bx> {
        let img = image(200, 100, glyphs);
        let lines = find_lines(&img, &LayoutParams::default());
        assert_eq!(lines.len(), expected_lines, "{lines:?}");
        lines
    }

    #[test]
    fn glyphs_with_small_gaps_form_one_line_and_far_ones_two() {
        // Three 6x10 glyphs 3 px apart, then one 40 px away.
        let lines = check(&[(10, 10, 6, 10), (19, 10, 6, 10), (28, 10, 6, 10), (74, 10, 6, 10)], 2);
        assert!(lines[0].x0 <= 10 && lines[0].x1 >= 34 && lines[0].x1 < 74, "{lines:?}");
    }

    #[test]
    fn stacked_lines_stay_apart() {
        check(&[(10, 10, 6, 10), (19, 10, 6, 10), (10, 30, 6, 10), (19, 30, 6, 10)], 2);
    }

    #[test]
    fn rules_and_hollow_frames_are_not_text() {
        let mut img = image(200, 100, &[(50, 40, 6, 10), (59, 40, 6, 10)]);
        for x in 0..200 {
            img.px[5 * 200 + x] = 0; // a horizontal rule
        }
        for y in 30..60 {
            img.px[y * 200 + 30] = 0; // a frame around the glyphs
            img.px[y * 200 + 150] = 0;
        }
        for x in 30..=150 {
            img.px[30 * 200 + x] = 0;
            img.px[59 * 200 + x] = 0;
        }
        let lines = find_lines(&img, &LayoutParams::default());
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].x0 >= 40 && lines[0].x1 <= 80, "{lines:?}");
    }

    #[test]
    fn a_blank_image_has_no_lines() {
        check(&[], 0);
    }
}
