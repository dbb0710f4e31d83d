//! Greyscale images and pixel boxes: the working form of a frame inside deft-ocr.

use deft_types::Frame;

/// An axis-aligned box in pixel coordinates of some image, right and bottom exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Bx {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl Bx {
    pub fn new(x0: i32, y0: i32, x1: i32, y1: i32) -> Bx {
        Bx { x0, y0, x1, y1 }
    }
    pub fn w(&self) -> i32 {
        self.x1 - self.x0
    }
    pub fn h(&self) -> i32 {
        self.y1 - self.y0
    }
    pub fn area(&self) -> i64 {
        i64::from(self.w().max(0)) * i64::from(self.h().max(0))
    }
    pub fn union(&self, o: &Bx) -> Bx {
        Bx::new(self.x0.min(o.x0), self.y0.min(o.y0), self.x1.max(o.x1), self.y1.max(o.y1))
    }
    pub fn intersect(&self, o: &Bx) -> Option<Bx> {
        let b = Bx::new(self.x0.max(o.x0), self.y0.max(o.y0), self.x1.min(o.x1), self.y1.min(o.y1));
        (b.x1 > b.x0 && b.y1 > b.y0).then_some(b)
    }
    pub fn overlaps(&self, o: &Bx) -> bool {
        self.intersect(o).is_some()
    }
}

/// An 8-bit greyscale image, rows top to bottom, no padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Gray {
    pub w: usize,
    pub h: usize,
    pub px: Vec<u8>,
}

impl Gray {
    /// A blank (white) image.
    pub fn white(w: usize, h: usize) -> Gray {
        Gray { w, h, px: vec![255; w * h] }
    }

    /// The luma of `area` (frame pixel coordinates, inside the frame) with the BT.601
    /// weights ocrs itself uses, so recognition sees what it was trained on.
    pub fn from_frame(frame: &Frame, area: Bx) -> Gray {
        let (w, h) = (area.w().max(0) as usize, area.h().max(0) as usize);
        let mut px = Vec::with_capacity(w * h);
        for y in area.y0..area.y1 {
            let row = frame.row(y as u32).unwrap_or(&[]);
            let start = area.x0 as usize * 4;
            let row = row.get(start..start + w * 4).unwrap_or(&[]);
            px.extend(row.chunks_exact(4).map(|p| luma(p[0], p[1], p[2])));
        }
        px.resize(w * h, 255);
        Gray { w, h, px }
    }

    pub fn bounds(&self) -> Bx {
        Bx::new(0, 0, self.w as i32, self.h as i32)
    }

    /// One row of `b` (clipped to the image).
    pub fn row_slice(&self, y: i32, x0: i32, x1: i32) -> &[u8] {
        let start = y as usize * self.w;
        &self.px[start + x0 as usize..start + x1 as usize]
    }

    /// A copy of `b`, which must lie inside the image.
    pub fn crop(&self, b: &Bx) -> Gray {
        let mut px = Vec::with_capacity(b.area() as usize);
        for y in b.y0..b.y1 {
            px.extend_from_slice(self.row_slice(y, b.x0, b.x1));
        }
        Gray { w: b.w() as usize, h: b.h() as usize, px }
    }

    /// Copy `src` into this image with its top-left corner at `(x, y)`.
    pub fn paste(&mut self, src: &Gray, x: usize, y: usize) {
        for row in 0..src.h {
            let d = (y + row) * self.w + x;
            self.px[d..d + src.w].copy_from_slice(&src.px[row * src.w..(row + 1) * src.w]);
        }
    }
}

fn luma(r: u8, g: u8, b: u8) -> u8 {
    ((299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b) + 500) / 1000) as u8
}

/// Make a text crop dark-on-light with full contrast, which is what the recognition model
/// was trained on: the background (the most common value) becomes white, the strongest ink
/// black. Light text on a dark background (dark themes, selected rows) is inverted first.
pub(crate) fn normalize_text_crop(crop: &mut Gray) {
    let mut hist = [0u32; 256];
    for &v in &crop.px {
        hist[v as usize] += 1;
    }
    let bg = (0..256).max_by_key(|&i| hist[i]).unwrap_or(255) as i32;
    // The ink is what lies farthest from the background, on the side that has more of it
    // (a light label on a mid-grey button and a dark one both work).
    let (mut dark, mut light) = (0u64, 0u64);
    let (mut dark_n, mut light_n) = (0u32, 0u32);
    for (v, &n) in hist.iter().enumerate() {
        let d = v as i32 - bg;
        if d < -40 {
            dark += u64::from(n) * (-d) as u64;
            dark_n += n;
        } else if d > 40 {
            light += u64::from(n) * d as u64;
            light_n += n;
        }
    }
    let invert = light > dark;
    let (bg, ink) = if invert {
        (255 - bg, 255 - extreme(&hist, true, light_n / 10))
    } else {
        (bg, extreme(&hist, false, dark_n / 10))
    };
    let span = (bg - ink).max(1);
    for v in crop.px.iter_mut() {
        let x = if invert { 255 - i32::from(*v) } else { i32::from(*v) };
        *v = (((x - ink) * 255) / span).clamp(0, 255) as u8;
    }
}

/// The value found after skipping `skip` pixels from the light (`light`) or dark end: the
/// ink's own tone, not its antialiased edge nor a stray outlier.
fn extreme(hist: &[u32; 256], light: bool, skip: u32) -> i32 {
    let mut seen = 0;
    let order: Box<dyn Iterator<Item = usize>> = if light { Box::new((0..256).rev()) } else { Box::new(0..256) };
    for i in order {
        seen += hist[i];
        if seen > skip {
            return i as i32;
        }
    }
    if light { 255 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crop(px: Vec<u8>) -> Gray {
        Gray { w: px.len(), h: 1, px }
    }

    #[test]
    fn light_text_on_dark_is_inverted_and_stretched() {
        let mut g = crop(vec![40, 40, 40, 40, 40, 200, 40, 40]);
        normalize_text_crop(&mut g);
        assert_eq!(g.px[0], 255, "background becomes white: {:?}", g.px);
        assert_eq!(g.px[5], 0, "ink becomes black: {:?}", g.px);
    }

    #[test]
    fn dark_grey_text_on_white_gets_full_contrast() {
        let mut g = crop(vec![250, 250, 250, 120, 250, 250, 250, 250]);
        normalize_text_crop(&mut g);
        assert_eq!((g.px[0], g.px[3]), (255, 0), "{:?}", g.px);
    }
}
