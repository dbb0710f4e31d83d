//! Diff and digest of full-screen frames: the target is a 1920x1080 diff in at most 2 ms.
//!
//! Run with `cargo bench -p deft-diff`; results go to docs/BENCHMARKS.md.

use deft_diff::{DiffOptions, diff, digest};
use deft_types::{Frame, Point};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

const SIZES: &[&str] = &["1920x1080", "1280x800"];

fn size(s: &str) -> (u32, u32) {
    let (w, h) = s.split_once('x').unwrap();
    (w.parse().unwrap(), h.parse().unwrap())
}

/// A desktop-like frame: flat panels with some texture, so rows are neither all equal
/// nor random.
fn screen(w: u32, h: u32) -> Frame {
    let mut px = Vec::with_capacity(w as usize * h as usize * 4);
    for y in 0..h {
        for x in 0..w {
            let panel = ((x / 240) + (y / 180)) as u8;
            let texture = if (x ^ y) % 7 == 0 { 12 } else { 0 };
            px.extend_from_slice(&[200 - panel * 9 + texture, 190 + panel * 3, 180 + texture, 255]);
        }
    }
    Frame::new(w, h, px, Point::new(0, 0)).unwrap()
}

/// `base` with the pixels chosen by `pick(x, y)` inverted.
fn changed(base: &Frame, pick: impl Fn(u32, u32) -> bool) -> Frame {
    let mut px = base.pixels().to_vec();
    for y in 0..base.height() {
        for x in 0..base.width() {
            if pick(x, y) {
                let i = (y as usize * base.width() as usize + x as usize) * 4;
                for c in &mut px[i..i + 3] {
                    *c = 255 - *c;
                }
            }
        }
    }
    Frame::new(base.width(), base.height(), px, base.origin).unwrap()
}

/// One in ten pixels, spread by a hash so the pattern has no rows or columns.
fn scattered(x: u32, y: u32) -> bool {
    let mut v = (u64::from(x) << 32 | u64::from(y)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    v ^= v >> 29;
    v.wrapping_mul(0xBF58_476D_1CE4_E5B9) % 10 == 0
}

fn run(bencher: Bencher, s: &str, pick: impl Fn(u32, u32) -> bool) {
    let (w, h) = size(s);
    let a = screen(w, h);
    let b = changed(&a, pick);
    let opts = DiffOptions::default();
    bencher.bench(|| diff(black_box(&a), black_box(&b), &opts).unwrap());
}

/// Two equal frames (separate buffers): the common "did anything happen?" answer.
#[divan::bench(args = SIZES)]
fn identical(bencher: Bencher, s: &str) {
    run(bencher, s, |_, _| false);
}

/// One 120x40 widget changed (a button pressed, a field filled).
#[divan::bench(args = SIZES)]
fn widget(bencher: Bencher, s: &str) {
    run(bencher, s, |x, y| (900..1020).contains(&x) && (500..540).contains(&y));
}

/// 10% of the pixels changed, scattered: every row and every tile differs.
#[divan::bench(args = SIZES)]
fn scattered_10pct(bencher: Bencher, s: &str) {
    run(bencher, s, scattered);
}

/// Every pixel changed (a new screen).
#[divan::bench(args = SIZES)]
fn full_screen(bencher: Bencher, s: &str) {
    run(bencher, s, |_, _| true);
}

/// Exact 64-bit digest of a whole frame.
#[divan::bench(args = SIZES)]
fn digest_frame(bencher: Bencher, s: &str) {
    let (w, h) = size(s);
    let a = screen(w, h);
    bencher.bench(|| digest(black_box(&a)));
}
