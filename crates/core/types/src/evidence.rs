//! Evidence: what was seen, where, and through which channel.

use serde::{Deserialize, Serialize};

use crate::geometry::{Physical, Rect};

/// The channel an observation came through, cheapest first.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// The accessibility tree or its events.
    Accessibility,
    /// A pixel diff of screen frames.
    Pixels,
    /// Text recognition on the screen.
    Ocr,
    /// A vision model.
    Vision,
    /// The input backend itself (e.g. an injection error).
    Input,
    /// The display server's own window list (X11 window titles).
    Display,
}

/// One observation that supports a verdict.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Evidence {
    /// How it was seen.
    pub channel: Channel,
    /// What was seen, in plain words: `dialog "Saved" appeared`.
    pub what: String,
    /// Where on screen, when known.
    #[serde(default)]
    pub region: Option<Rect<Physical>>,
    /// Milliseconds after the action was sent.
    pub after_ms: u64,
}
