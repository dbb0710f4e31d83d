//! Frames on disk: downscaled, named by digest, written once each, within a byte budget.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use deft_types::Frame;
use xxhash_rust::xxh3::Xxh3;

use crate::scale::downscale;

/// The folder, beside the JSON lines, that frames are written to.
pub const FRAMES_DIR: &str = "frames";

/// How much of a run's frames is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameBudget {
    /// Bytes of new PNG files one run may write; the first frame that does not fit ends
    /// the run's new frames (frames already on disk are still referenced: they cost nothing).
    pub max_bytes: u64,
    /// Longest side of a stored frame, in pixels; larger frames are downscaled by a whole factor.
    pub max_side: u32,
}

impl Default for FrameBudget {
    /// 16 MiB and 1024 px: the demo's nine CLI steps and its agent run write ~1.5 MB
    /// (docs/BENCHMARKS.md), so a run of several hundred actions fits before frames stop.
    fn default() -> Self {
        FrameBudget { max_bytes: 16 << 20, max_side: 1024 }
    }
}

/// What became of one frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stored {
    /// It is on disk (written now, or already there with the same digest).
    Saved {
        /// Its path relative to the trace folder: `frames/<16 hex digits>.png`.
        file: String,
        /// Stored width in pixels.
        width: u32,
        /// Stored height in pixels.
        height: u32,
        /// The whole factor it was downscaled by (1: not at all).
        factor: u32,
        /// The file's size in bytes.
        bytes: u64,
        /// Whether this call wrote it (false: the same frame was already stored).
        new: bool,
    },
    /// It was not stored, and why, in words for the trace.
    Skipped {
        /// Why.
        reason: String,
    },
}

/// What went wrong writing frames.
#[derive(Debug, thiserror::Error)]
pub enum TraceStoreError {
    /// The frames folder could not be created or a file written.
    #[error("cannot write frames in {path}: {source}; check that the trace directory is writable")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The PNG encoder failed.
    #[error("cannot encode a frame as PNG: {0}")]
    Encode(String),
}

/// The frames of one run, written into `<trace dir>/frames/`.
#[derive(Debug)]
pub struct FrameStore {
    dir: PathBuf,
    budget: FrameBudget,
    spent: u64,
    /// Set once a new frame did not fit: no new file is written after it.
    exhausted: bool,
    written: HashSet<u64>,
}

impl FrameStore {
    /// A store writing into `trace_dir/frames/` (created when missing).
    pub fn open(trace_dir: &Path, budget: FrameBudget) -> Result<FrameStore, TraceStoreError> {
        let dir = trace_dir.join(FRAMES_DIR);
        std::fs::create_dir_all(&dir).map_err(|source| TraceStoreError::Io { path: dir.clone(), source })?;
        Ok(FrameStore { dir, budget, spent: 0, exhausted: false, written: HashSet::new() })
    }

    /// Bytes of new files this store wrote.
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// The budget in force.
    pub fn budget(&self) -> FrameBudget {
        self.budget
    }

    /// Downscale, digest and write `frame` unless a file with its digest exists; refused
    /// once the budget is spent. The file appears whole or not at all (written under a
    /// temporary name, then renamed).
    pub fn save(&mut self, frame: &Frame) -> Result<Stored, TraceStoreError> {
        let (small, factor) = downscale(frame, self.budget.max_side);
        let digest = digest(&small);
        let name = format!("{digest:016x}.png");
        let path = self.dir.join(&name);
        let file = format!("{FRAMES_DIR}/{name}");
        let (width, height) = (small.width(), small.height());
        if self.written.contains(&digest) || path.exists() {
            let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
            return Ok(Stored::Saved { file, width, height, factor, bytes, new: false });
        }
        if self.exhausted {
            return Ok(self.skipped());
        }
        let png = encode_rgb(&small)?;
        if self.spent + png.len() as u64 > self.budget.max_bytes {
            self.exhausted = true;
            return Ok(self.skipped());
        }
        let tmp = self.dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let io = |source| TraceStoreError::Io { path: path.clone(), source };
        let mut f = std::fs::File::create(&tmp).map_err(io)?;
        f.write_all(&png).map_err(io)?;
        drop(f);
        std::fs::rename(&tmp, &path).map_err(io)?;
        self.spent += png.len() as u64;
        self.written.insert(digest);
        Ok(Stored::Saved { file, width, height, factor, bytes: png.len() as u64, new: true })
    }

    fn skipped(&self) -> Stored {
        Stored::Skipped {
            reason: format!(
                "the frame budget of this run ({:.1} MB) is spent: {:.1} MB of frames written, later new frames are not saved",
                self.budget.max_bytes as f64 / 1e6,
                self.spent as f64 / 1e6
            ),
        }
    }
}

/// XXH3-64 of the frame's size and pixels: equal frames share one file.
pub fn digest(frame: &Frame) -> u64 {
    let mut h = Xxh3::new();
    h.update(&frame.width().to_le_bytes());
    h.update(&frame.height().to_le_bytes());
    h.update(frame.pixels());
    h.digest()
}

/// The frame as an RGB PNG (screens are opaque: the alpha channel would only cost bytes).
fn encode_rgb(frame: &Frame) -> Result<Vec<u8>, TraceStoreError> {
    let rgb: Vec<u8> = frame.pixels().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, frame.width(), frame.height());
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    // Written off the executor's path, so the smaller files are worth the extra time.
    enc.set_compression(png::Compression::Balanced);
    let e = |e: png::EncodingError| TraceStoreError::Encode(e.to_string());
    let mut writer = enc.write_header().map_err(e)?;
    writer.write_image_data(&rgb).map_err(e)?;
    writer.finish().map_err(e)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use deft_types::Point;

    use super::*;

    fn frame(w: u32, h: u32, v: u8) -> Frame {
        let pixels: Vec<u8> = (0..w * h).flat_map(|i| [v, (i % 251) as u8, 0, 255]).collect();
        Frame::new(w, h, pixels, Point::new(0, 0)).unwrap()
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("deft-trace-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn same_frame_is_one_file() {
        let dir = scratch("dedup");
        let mut s = FrameStore::open(&dir, FrameBudget::default()).unwrap();
        let a = s.save(&frame(40, 30, 1)).unwrap();
        let b = s.save(&frame(40, 30, 1)).unwrap();
        let Stored::Saved { file, new: true, bytes, .. } = a else { panic!("{a:?}") };
        assert!(matches!(b, Stored::Saved { new: false, file: ref f, .. } if *f == file), "{b:?}");
        assert_eq!(s.spent(), bytes);
        assert_eq!(std::fs::read_dir(dir.join(FRAMES_DIR)).unwrap().count(), 1, "no temporary file is left");
        // A second store on the same folder (another process of the run) reuses the file.
        let mut t = FrameStore::open(&dir, FrameBudget::default()).unwrap();
        assert!(matches!(t.save(&frame(40, 30, 1)).unwrap(), Stored::Saved { new: false, .. }));
        assert_eq!(t.spent(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn budget_stops_new_frames_and_says_so() {
        let dir = scratch("budget");
        let one = {
            let mut s = FrameStore::open(&scratch("budget-probe"), FrameBudget::default()).unwrap();
            match s.save(&frame(64, 64, 0)).unwrap() {
                Stored::Saved { bytes, .. } => bytes,
                other => panic!("{other:?}"),
            }
        };
        let budget = FrameBudget { max_bytes: one * 2 + one / 2, max_side: 1024 };
        let mut s = FrameStore::open(&dir, budget).unwrap();
        let results: Vec<Stored> = (0..5).map(|v| s.save(&frame(64, 64, v)).unwrap()).collect();
        let saved = results.iter().filter(|r| matches!(r, Stored::Saved { .. })).count();
        assert_eq!(saved, 2, "{results:?}");
        assert!(s.spent() <= budget.max_bytes);
        let Stored::Skipped { reason } = &results[2] else { panic!() };
        assert!(reason.contains("budget") && reason.contains("spent"), "{reason}");
        // A frame already stored is still referenced after the budget is spent.
        assert!(matches!(s.save(&frame(64, 64, 0)).unwrap(), Stored::Saved { new: false, .. }));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn large_frames_are_downscaled() {
        let dir = scratch("scale");
        let mut s = FrameStore::open(&dir, FrameBudget { max_bytes: 1 << 20, max_side: 100 }).unwrap();
        let r = s.save(&frame(300, 120, 3)).unwrap();
        assert!(matches!(r, Stored::Saved { width: 100, height: 40, factor: 3, .. }), "{r:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
