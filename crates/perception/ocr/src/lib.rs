//! Text recognition on screen captures, and fuzzy text search.
//!
//! Not built yet (issue #3). The plan: ocrs 0.13 + rten 0.26 with the official models
//! (hash-checked at load), tiling for screens larger than the 800x600 detection input, and
//! incremental re-reads of only the tiles whose digest changed.
