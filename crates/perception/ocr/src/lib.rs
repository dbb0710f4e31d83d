//! Text recognition on screen captures, and fuzzy text search.
//!
//! The key design decision: **find text lines by layout analysis at native resolution, and
//! spend the neural network only on recognising them.** The ocrs detection model takes a
//! fixed 800x600 input: a 1920x1080 screen squashed into it loses much of its 11-16 px UI
//! text, and running it on native-size tiles costs a model run per tile (1.4-3 s a
//! screen on 2 cores in the benchmark, even with blank tiles skipped). UI text is crisp, upright and on flat backgrounds, so contrast
//! edges, glyph blobs and a baseline/gap rule find its lines precisely in milliseconds
//! ([`LayoutParams`]); blank areas cost nothing. Each line crop is normalised (dark text on
//! white, full contrast: dark themes and selected rows are inverted) and all lines go
//! through the ocrs recognition model in batches on one small canvas. The tiled model
//! detector is kept as [`Detector::Model`] for text over pictures.
//!
//! [`IncrementalOcr`] keeps a digest per tile of the screen: after a small UI change only
//! the bands of changed tiles are analysed again, and only lines whose pixels are new are
//! recognised; everything else is reused.
//!
//! Coordinates in results are screen coordinates (physical pixels): the frame's origin
//! plus the pixel offset. [`find_text`] searches a result with fuzzy matching.
//!
//! The models are the official ocrs models by Robert Knight (CC BY-SA 4.0; see `NOTICE`),
//! embedded from the model crates (see `NOTICE`) and checked against their SHA-256 at load.

mod detect_model;
mod engine;
mod error;
mod fake;
mod gray;
mod incremental;
mod layout;
mod model;
pub mod quality;
mod recognize;
mod result;
mod search;
mod tiles;

use deft_types::{Frame, Physical, Rect};

pub use detect_model::TileParams;
pub use engine::{Detector, OcrConfig, OcrsEngine};
pub use error::OcrError;
pub use fake::FakeOcr;
pub use incremental::{IncrementalOcr, IncrementalParams};
pub use layout::LayoutParams;
pub use model::{DETECTION_SHA256, ModelHashes, ModelSource, RECOGNITION_SHA256};
pub use result::{Line, OcrResult, OcrStats, Word};
pub use search::{Match, SearchOptions, find_text};

/// The seam: read the text of a frame, or of a region of it (screen coordinates).
pub trait Ocr {
    /// Lines of text with screen-coordinate bounds. A region is clipped to the frame; one
    /// that is empty or outside it is [`OcrError::BadRegion`].
    fn recognize(&self, frame: &Frame, region: Option<Rect<Physical>>) -> Result<OcrResult, OcrError>;
}
