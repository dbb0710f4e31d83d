//! Tiles: a fixed grid over an image, each with a content digest and a blank test.

use xxhash_rust::xxh3::Xxh3;

use crate::gray::{Bx, Gray};

/// A grid of `tw` x `th` tiles covering `area`, stepping by the tile size less `overlap`;
/// the last row and column are shifted inwards so every tile has the full size (unless the
/// area is smaller than a tile). Row-major order.
pub(crate) fn grid(area: &Bx, tw: i32, th: i32, overlap: i32) -> Vec<Bx> {
    let xs = starts(area.x0, area.x1, tw, overlap);
    let ys = starts(area.y0, area.y1, th, overlap);
    let mut out = Vec::with_capacity(xs.len() * ys.len());
    for &y in &ys {
        for &x in &xs {
            out.push(Bx::new(x, y, (x + tw).min(area.x1), (y + th).min(area.y1)));
        }
    }
    out
}

fn starts(lo: i32, hi: i32, size: i32, overlap: i32) -> Vec<i32> {
    if hi <= lo {
        return Vec::new();
    }
    let step = (size - overlap).max(1);
    let mut v = vec![lo];
    while v[v.len() - 1] + size < hi {
        let next = (v[v.len() - 1] + step).min(hi - size);
        v.push(next);
    }
    v
}

/// A digest of the pixels of `b` (XXH3-64 over its rows, with its size).
pub(crate) fn digest(img: &Gray, b: &Bx) -> u64 {
    let mut h = Xxh3::new();
    h.update(&b.w().to_le_bytes());
    h.update(&b.h().to_le_bytes());
    for y in b.y0..b.y1 {
        h.update(img.row_slice(y, b.x0, b.x1));
    }
    h.digest()
}

/// Whether `b` holds no text for sure: its luma range is below `contrast`, so it has no
/// edge that layout analysis or the detection model could take for a glyph.
pub(crate) fn is_blank(img: &Gray, b: &Bx, contrast: u8) -> bool {
    let (mut lo, mut hi) = (255u8, 0u8);
    for y in b.y0..b.y1 {
        for &v in img.row_slice(y, b.x0, b.x1) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if hi - lo >= contrast {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(area: Bx, tw: i32, th: i32, overlap: i32, expected: &[(i32, i32, i32, i32)]) {
        let got: Vec<_> = grid(&area, tw, th, overlap).iter().map(|b| (b.x0, b.y0, b.x1, b.y1)).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn grid_covers_the_area_with_full_size_tiles() {
        // 1920x1080 in 800x600 tiles, 100 px overlap: 3 columns, 2 rows, the last ones shifted in.
        check(
            Bx::new(0, 0, 1920, 1080),
            800,
            600,
            100,
            &[
                (0, 0, 800, 600),
                (700, 0, 1500, 600),
                (1120, 0, 1920, 600),
                (0, 480, 800, 1080),
                (700, 480, 1500, 1080),
                (1120, 480, 1920, 1080),
            ],
        );
        check(Bx::new(0, 0, 300, 200), 800, 600, 100, &[(0, 0, 300, 200)]);
        check(Bx::new(10, 20, 210, 20), 100, 100, 0, &[]);
        check(Bx::new(0, 0, 200, 100), 100, 100, 0, &[(0, 0, 100, 100), (100, 0, 200, 100)]);
    }

    #[test]
    fn digest_sees_one_pixel_and_blank_sees_contrast() {
        let mut g = Gray::white(64, 64);
        let b = Bx::new(0, 0, 32, 32);
        let d = digest(&g, &b);
        assert!(is_blank(&g, &b, 48));
        g.px[5 * 64 + 5] = 100;
        assert_ne!(digest(&g, &b), d);
        assert!(!is_blank(&g, &b, 48));
        assert!(is_blank(&g, &Bx::new(32, 0, 64, 32), 48), "the other tile is untouched");
    }
}
