//! UI state snapshots, the state diff between two of them, and which changes count as the
//! effect of an action.
//!
//! The key design decision is that **a snapshot is a set of elements keyed by id, not an
//! ordered tree**. Each element carries its parent's id; children keep the order they were
//! read in, but that order is not state. So the diff matches elements by id in one linear
//! merge of two id-sorted maps, a list whose rows were re-sorted does not differ, an element
//! that moved is one `Parent` change rather than a removal plus an addition, and every diff
//! is canonical (sorted by id): equal inputs give equal, deterministic diffs, and
//! `apply(a, &diff(a, b)) == b` under that same equality.
//!
//! On top of the diff, [`judge`] sorts changes into effects and noise with narrow,
//! data-driven rules ([`RelevanceConfig`]): a few pixels of bounds jitter, progress bar and
//! spinner churn, a ticking clock, a caret-thin pixel region. Anything no rule explains is
//! an effect, because calling an effect noise makes the executor act twice. Renderings
//! ([`render_observed`]) are the `observed` line of an outcome:
//! `dialog "Saved" appeared; "Submit" gone`.
//!
//! Pure: no I/O, no platform. Snapshots come from the accessibility and capture crates.
//!
//! ```
//! use deft_snapshot::{Judgement, RelevanceConfig, Snapshot, WindowState, decode, diff, encode};
//! use deft_types::{Element, ElementId, Role};
//!
//! let button = Element {
//!     id: ElementId("ok".into()),
//!     role: Role::new("push button"),
//!     name: "Submit".into(),
//!     description: String::new(),
//!     states: Default::default(),
//!     bounds: None,
//!     text: None,
//!     value: None,
//!     actions: vec!["click".into()],
//!     child_count: 0,
//! };
//! let before = Snapshot::builder().root(button).build()?;
//! let after = Snapshot::builder().window(WindowState::new("d", "Saved", "dialog")).build()?;
//!
//! assert_eq!(diff(&before, &after).to_string(), r#"dialog "Saved" appeared; "Submit" gone"#);
//! let judgement = Judgement::between(&before, &after, &RelevanceConfig::for_target(ElementId("ok".into())));
//! assert!(judgement.target_gone());
//! assert_eq!(decode::<Snapshot>(&encode(&after)?)?, after);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod apply;
mod clock;
mod codec;
mod diff;
mod explained;
mod feedback;
mod judge;
mod relevance;
mod render;
mod snapshot;
#[cfg(test)]
mod test_support;
mod wire;

pub use apply::{ApplyError, apply};
pub use clock::only_numbers_changed;
pub use codec::{CodecError, DECODE_LIMIT_BYTES, decode, encode};
pub use diff::{ElementChange, FieldChange, PlacedElement, RegionChange, SnapshotDiff, WindowChange, diff};
pub use explained::{says_loading, working_zones};
pub use feedback::{FEEDBACK_STATES, ImmediateFeedback, immediate_feedback};
pub use judge::judge;
pub use relevance::{Effect, EffectKind, Judgement, Noise, NoiseKind, NoiseSource, Relation, RelevanceConfig};
pub use render::{RenderConfig, render_diff, render_observed};
pub use snapshot::{Preorder, RegionDigest, Snapshot, SnapshotBuilder, SnapshotError, SnapshotNode, WindowState};
