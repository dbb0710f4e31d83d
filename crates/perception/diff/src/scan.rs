//! The scan: which pixels changed, row by row, gathered into tiles joined with neighbours.

use crate::mask::{FrameRect, row_spans};
use crate::regions::{Cluster, TileGraph};

/// The side of the square tiles whose changed pixels are joined before any merging: the
/// largest power of two (at most 16) at which any two pixels of a tile are at most `gap`
/// apart, so joining them is one of the joins the fixed point makes anyway.
pub(crate) fn tile_size(gap: u32) -> u32 {
    let n = gap.min(14) + 2;
    1 << (31 - n.leading_zeros())
}

/// Rows `y0..y1` of the current band hold the changed pixels of one tile column.
#[derive(Clone, Copy)]
struct TileRows {
    y0: u32,
    y1: u32,
}

impl Default for TileRows {
    fn default() -> Self {
        TileRows { y0: u32::MAX, y1: 0 }
    }
}

impl TileRows {
    fn hit(&self) -> bool {
        self.y1 > 0
    }
}

/// Scan two RGBA buffers of `w` x `h` and return the changed tiles, joined with their close
/// neighbours. Masked pixels (frame coordinates) never count as changed.
pub(crate) fn scan(a: &[u8], b: &[u8], w: u32, h: u32, threshold: u8, gap: u32, mask: &[FrameRect]) -> Vec<Cluster> {
    let frames = Frames { a, b, w, h, threshold, mask };
    // One copy per tile size, so the per-tile loops work on fixed-size arrays.
    match tile_size(gap) {
        2 => frames.scan::<2>(gap),
        4 => frames.scan::<4>(gap),
        8 => frames.scan::<8>(gap),
        _ => frames.scan::<16>(gap),
    }
}

struct Frames<'a> {
    a: &'a [u8],
    b: &'a [u8],
    w: u32,
    h: u32,
    threshold: u8,
    mask: &'a [FrameRect],
}

impl Frames<'_> {
    fn scan<const T: usize>(&self, gap: u32) -> Vec<Cluster> {
        let width = self.w as usize;
        let stride = width * 4;
        let tiles_x = width.div_ceil(T);
        // Row buffers, reused: bytes over the threshold, changed-pixel flags (0 or 1), and
        // per column the changed pixels of the band (at most 16, so a byte holds it).
        let mut excess = vec![0u8; stride];
        let mut flags = vec![0u8; width];
        let mut counts = vec![0u8; width];
        let mut rows = vec![TileRows::default(); tiles_x];
        let mut graph = TileGraph::new(tiles_x, gap);
        let mut spans = Vec::new();
        for band in (0..self.h).step_by(T) {
            for y in band..(band + T as u32).min(self.h) {
                let at = y as usize * stride;
                let (ra, rb) = (&self.a[at..at + stride], &self.b[at..at + stride]);
                // Unchanged rows (most of them, for a local change) cost one memcmp.
                if ra == rb {
                    continue;
                }
                excess_over(ra, rb, self.threshold, &mut excess);
                if !self.mask.is_empty() {
                    row_spans(self.mask, y, &mut spans);
                    for &(x0, x1) in &spans {
                        excess[x0 as usize * 4..x1 as usize * 4].fill(0);
                    }
                }
                flag_and_count(&excess, &mut flags, &mut counts);
                let (whole, rest) = flags.as_chunks::<T>();
                let tail = (!rest.is_empty()).then(|| rest.iter().any(|&f| f != 0));
                let hits = whole.iter().map(|t| t.iter().fold(0, |acc, &f| acc | f) != 0).chain(tail);
                // Branch-free: with scattered changes, whether a tile is hit is a coin toss.
                for (r, hit) in rows.iter_mut().zip(hits) {
                    r.y0 = r.y0.min(if hit { y } else { u32::MAX });
                    r.y1 = r.y1.max(if hit { y + 1 } else { 0 });
                }
            }
            if !rows.iter().any(TileRows::hit) {
                graph.empty_band();
                continue;
            }
            for (tx, (r, c)) in rows.iter_mut().zip(counts.chunks_mut(T)).enumerate() {
                if r.hit() {
                    let (first, last, count) = columns(c);
                    let x = (tx * T) as u32;
                    graph.add(tx, Cluster { x0: x + first, y0: r.y0, x1: x + last + 1, y1: r.y1, count });
                    c.fill(0);
                    *r = TileRows::default();
                }
            }
            graph.end_band();
        }
        graph.into_clusters()
    }
}

/// The first and last columns with a non-zero count (relative to the slice), and the sum
/// of the counts. Eight counts at a time: the high bit of each non-zero byte marks it.
fn columns(counts: &[u8]) -> (u32, u32, u64) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let (mut first, mut last, mut sum) = (u32::MAX, 0, 0);
    let (words, rest) = counts.as_chunks::<8>();
    for (i, w) in words.iter().enumerate() {
        let v = u64::from_le_bytes(*w);
        let nonzero = (((v & LOW7) + LOW7) | v) & !LOW7;
        if nonzero != 0 {
            let at = i as u32 * 8;
            first = first.min(at + nonzero.trailing_zeros() / 8);
            last = at + (63 - nonzero.leading_zeros()) / 8;
            // Each count is at most 16, so the byte sum fits in the top byte.
            sum += v.wrapping_mul(0x0101_0101_0101_0101) >> 56;
        }
    }
    for (i, &n) in rest.iter().enumerate() {
        if n != 0 {
            let at = (words.len() * 8 + i) as u32;
            first = first.min(at);
            last = at;
            sum += u64::from(n);
        }
    }
    (first, last, sum)
}

/// `excess[i]`: how much byte `i` of the rows differs beyond `threshold` (0 when within).
/// Saturating byte arithmetic that the compiler vectorises.
fn excess_over(a: &[u8], b: &[u8], threshold: u8, excess: &mut [u8]) {
    for (e, (x, y)) in excess.iter_mut().zip(a.iter().zip(b)) {
        *e = x.abs_diff(*y).saturating_sub(threshold);
    }
}

/// `flags[x] = 1` where pixel `x` has a channel over the threshold, else 0, and the flag
/// added to the band's count of column `x`: one 32-bit compare per pixel, vectorised.
fn flag_and_count(excess: &[u8], flags: &mut [u8], counts: &mut [u8]) {
    for ((f, c), px) in flags.iter_mut().zip(counts.iter_mut()).zip(excess.as_chunks::<4>().0) {
        let changed = u8::from(u32::from_ne_bytes(*px) != 0);
        *f = changed;
        *c += changed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_sizes() {
        let sizes: Vec<u32> = [0, 1, 2, 5, 6, 8, 13, 14, 100].iter().map(|&g| tile_size(g)).collect();
        assert_eq!(sizes, [2, 2, 4, 4, 8, 8, 8, 16, 16]);
    }

    #[test]
    fn columns_of_counts() {
        assert_eq!(columns(&[0, 0, 3, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0]), (2, 9, 19));
        assert_eq!(columns(&[0, 1]), (1, 1, 1));
        assert_eq!(columns(&[16; 8]), (0, 7, 128));
        assert_eq!(columns(&[0, 0, 0, 0, 0, 0, 0, 0, 5]), (8, 8, 5));
        assert_eq!(columns(&[0x80, 0, 0, 0, 0, 0, 0, 1]), (0, 7, 129));
    }

    #[test]
    fn flags_follow_the_threshold_per_channel() {
        let a = [10, 10, 10, 255, 10, 10, 10, 255, 10, 10, 10, 255];
        let b = [18, 10, 10, 255, 10, 10, 10, 246, 10, 10, 10, 255];
        let (mut e, mut f, mut counts) = ([0; 12], [9; 3], [0; 3]);
        excess_over(&a, &b, 8, &mut e);
        flag_and_count(&e, &mut f, &mut counts);
        assert_eq!(f, [0, 1, 0]);
        excess_over(&a, &b, 0, &mut e);
        flag_and_count(&e, &mut f, &mut counts);
        assert_eq!((f, counts), ([1, 1, 0], [1, 2, 0]));
    }
}
