//! Random frame pairs: a textured base and a copy with random edits (pixels and rectangles,
//! some under the threshold).

use deft_types::{Frame, Point};
use proptest::prelude::*;

/// One edit of the second frame.
#[derive(Clone, Debug)]
pub struct Edit {
    /// Top-left corner, in frame coordinates (clipped to the frame).
    pub x: u32,
    pub y: u32,
    /// Size: 1x1 for a pixel.
    pub w: u32,
    pub h: u32,
    /// Added to each channel (wrapping): small values test the threshold.
    pub delta: [u8; 4],
}

/// A frame pair and the options to diff it with.
#[derive(Clone, Debug)]
pub struct Case {
    pub a: Frame,
    pub b: Frame,
    pub threshold: u8,
    pub gap: u32,
}

/// The base frame: a few flat colours in blocks with some texture, from a seed.
pub fn base(w: u32, h: u32, seed: u64, origin: (i32, i32)) -> Frame {
    let mut px = Vec::with_capacity(w as usize * h as usize * 4);
    for y in 0..h {
        for x in 0..w {
            let mut v = (u64::from(x / 5) << 40 | u64::from(y / 4) << 20 | seed).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            v ^= v >> 31;
            let tex = if (x ^ y) % 5 == 0 { 3 } else { 0 };
            px.extend_from_slice(&[(v as u8) & 0xf0 | tex, (v >> 8) as u8, (v >> 16) as u8, 255]);
        }
    }
    Frame::new(w, h, px, Point::new(origin.0, origin.1)).unwrap()
}

/// `a` with the edits applied.
pub fn edited(a: &Frame, edits: &[Edit]) -> Frame {
    let (w, h) = (a.width(), a.height());
    let mut px = a.pixels().to_vec();
    for e in edits {
        for y in e.y.min(h)..(e.y + e.h).min(h) {
            for x in e.x.min(w)..(e.x + e.w).min(w) {
                let i = (y as usize * w as usize + x as usize) * 4;
                for c in 0..4 {
                    px[i + c] = px[i + c].wrapping_add(e.delta[c]);
                }
            }
        }
    }
    let mut b = Frame::new(w, h, px, a.origin).unwrap();
    b.timestamp_us = a.timestamp_us + 1;
    b
}

fn delta() -> impl Strategy<Value = [u8; 4]> {
    prop_oneof![
        // Small: some under the default threshold, some just over.
        prop::array::uniform4(prop_oneof![Just(0u8), 1..=12u8, 244..=255u8]),
        // Large: a real change.
        prop::array::uniform4(any::<u8>()),
    ]
}

fn edit(w: u32, h: u32) -> impl Strategy<Value = Edit> {
    let pixel = (0..w, 0..h, delta()).prop_map(|(x, y, delta)| Edit { x, y, w: 1, h: 1, delta });
    let rect = (0..w, 0..h, 1..=w.min(40), 1..=h.min(30), delta()).prop_map(|(x, y, rw, rh, delta)| Edit {
        x,
        y,
        w: rw,
        h: rh,
        delta,
    });
    prop_oneof![3 => pixel, 1 => rect]
}

/// Frames up to `max_w` x `max_h`, up to `max_edits` edits, threshold and gap random.
pub fn case(max_w: u32, max_h: u32, max_edits: usize) -> impl Strategy<Value = Case> {
    (1..=max_w, 1..=max_h, any::<u64>(), -5000..5000i32, -5000..5000i32)
        .prop_flat_map(move |(w, h, seed, ox, oy)| {
            (
                Just(base(w, h, seed, (ox, oy))),
                prop::collection::vec(edit(w, h), 0..=max_edits),
                prop_oneof![Just(0u8), Just(8u8), any::<u8>()],
                prop_oneof![Just(0u32), Just(8u32), 0..40u32],
            )
        })
        .prop_map(|(a, edits, threshold, gap)| {
            let b = edited(&a, &edits);
            Case { a, b, threshold, gap }
        })
}
