//! Downscaling a frame by a whole factor, averaging each block of pixels (a box filter:
//! text and edges of a UI stay legible at half size, where dropping pixels breaks them).

use deft_types::Frame;

/// The smallest whole factor that brings the frame's longest side within `max_side`
/// pixels (1: the frame already fits).
pub fn factor_for(width: u32, height: u32, max_side: u32) -> u32 {
    let longest = width.max(height);
    longest.div_ceil(max_side.max(1)).max(1)
}

/// `frame` downscaled so its longest side is at most `max_side` pixels, and the whole
/// factor used (1: unchanged). Each output pixel is the mean of a `k`x`k` block; a partial
/// block at the right or bottom edge is dropped.
pub fn downscale(frame: &Frame, max_side: u32) -> (Frame, u32) {
    let k = factor_for(frame.width(), frame.height(), max_side);
    if k == 1 {
        return (frame.clone(), 1);
    }
    let (w, h) = ((frame.width() / k).max(1), (frame.height() / k).max(1));
    let src = frame.pixels();
    let stride = frame.width() as usize * 4;
    let mut out = vec![0u8; w as usize * h as usize * 4];
    let n = k * k;
    for oy in 0..h as usize {
        for ox in 0..w as usize {
            let mut sum = [0u32; 4];
            for dy in 0..k as usize {
                let row = (oy * k as usize + dy) * stride;
                for dx in 0..k as usize {
                    let i = row + (ox * k as usize + dx) * 4;
                    for (c, s) in sum.iter_mut().enumerate() {
                        *s += u32::from(src.get(i + c).copied().unwrap_or(0));
                    }
                }
            }
            let o = (oy * w as usize + ox) * 4;
            for (c, s) in sum.iter().enumerate() {
                out[o + c] = ((s + n / 2) / n) as u8;
            }
        }
    }
    // The buffer has exactly the size asked for.
    let mut small = Frame::new(w, h, out, frame.origin).unwrap_or_else(|_| frame.clone());
    small.timestamp_us = frame.timestamp_us;
    small.monitor = frame.monitor.clone();
    (small, k)
}

#[cfg(test)]
mod tests {
    use deft_types::Point;

    use super::*;

    #[test]
    fn factors() {
        assert_eq!(factor_for(800, 600, 1024), 1);
        assert_eq!(factor_for(1280, 800, 1024), 2);
        assert_eq!(factor_for(3840, 2160, 1024), 4);
        assert_eq!(factor_for(10, 10, 0), 10);
    }

    #[test]
    fn averages_blocks() {
        // 4x2, two 2x2 blocks: black and white, then white and grey.
        let px = |v: u8| [v, v, v, 255];
        let rows = [[0, 0, 255, 255], [0, 0, 255, 255]];
        let pixels: Vec<u8> = rows.iter().flat_map(|r| r.iter().flat_map(|&v| px(v))).collect();
        let f = Frame::new(4, 2, pixels, Point::new(5, 5)).unwrap();
        let (s, k) = downscale(&f, 2);
        assert_eq!((k, s.width(), s.height()), (2, 2, 1));
        assert_eq!(s.pixel(0, 0), Some(px(0)));
        assert_eq!(s.pixel(1, 0), Some(px(255)));
        assert_eq!(s.origin, Point::new(5, 5));
    }
}
