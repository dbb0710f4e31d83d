//! A naive reference for the diff: a predicate per pixel, a join per close pair of pixels,
//! then boxes joined until none are close. Slow and obviously right.

use deft_types::{Frame, Physical, Point, Rect};

/// Whether pixel `(x, y)` (frame coordinates) changed by more than `threshold` in a channel.
pub fn changed(a: &Frame, b: &Frame, x: u32, y: u32, threshold: u8) -> bool {
    let (p, q) = (a.pixel(x, y).unwrap(), b.pixel(x, y).unwrap());
    p.iter().zip(q).any(|(u, v)| u.abs_diff(v) > threshold)
}

/// Changed pixels in screen coordinates, skipping those `masked`.
pub fn changed_pixels(
    a: &Frame,
    b: &Frame,
    threshold: u8,
    masked: impl Fn(Point<Physical>) -> bool,
) -> Vec<Point<Physical>> {
    let mut out = Vec::new();
    for y in 0..a.height() {
        for x in 0..a.width() {
            let p = Point::new(a.origin.x + x as i32, a.origin.y + y as i32);
            if changed(a, b, x, y, threshold) && !masked(p) {
                out.push(p);
            }
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Bx {
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
    n: u64,
}

fn close(a: &Bx, b: &Bx, gap: i64) -> bool {
    let gx = (a.x0.max(b.x0) - a.x1.min(b.x1)).max(0);
    let gy = (a.y0.max(b.y0) - a.y1.min(b.y1)).max(0);
    gx <= gap && gy <= gap
}

/// The regions the diff must report for these changed pixels, with their pixel counts,
/// sorted like the diff sorts them.
pub fn regions(pixels: &[Point<Physical>], gap: u32) -> Vec<(Rect<Physical>, u64)> {
    let gap = i64::from(gap);
    let mut boxes: Vec<Bx> = pixels
        .iter()
        .map(|p| Bx { x0: p.x.into(), y0: p.y.into(), x1: i64::from(p.x) + 1, y1: i64::from(p.y) + 1, n: 1 })
        .collect();
    loop {
        let mut joined = false;
        let mut i = 0;
        while i < boxes.len() {
            let mut j = i + 1;
            while j < boxes.len() {
                if close(&boxes[i], &boxes[j], gap) {
                    let o = boxes.swap_remove(j);
                    let b = &mut boxes[i];
                    (b.x0, b.y0, b.x1, b.y1, b.n) =
                        (b.x0.min(o.x0), b.y0.min(o.y0), b.x1.max(o.x1), b.y1.max(o.y1), b.n + o.n);
                    joined = true;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
        if !joined {
            break;
        }
    }
    boxes.sort_by_key(|b| (b.y0, b.x0, b.y1, b.x1));
    boxes
        .iter()
        .map(|b| (Rect::new(b.x0 as i32, b.y0 as i32, (b.x1 - b.x0) as u32, (b.y1 - b.y0) as u32), b.n))
        .collect()
}
