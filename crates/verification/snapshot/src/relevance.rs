//! What a relevance judgement says: which changes are effects of an action, which are noise.

use deft_types::{Element, ElementId, Physical, Rect, Role, State};
use serde::{Deserialize, Serialize};

use crate::diff::{FieldChange, RegionChange, WindowChange};
use crate::snapshot::WindowInfo;

/// What counts as noise, and around which target. Data, so it can be loaded from TOML.
///
/// The rules are deliberately narrow: a change is noise only when it matches one of them.
/// Calling an effect noise makes the executor retry and press a button twice, which is
/// worse than calling noise an effect and reporting a change that was not one.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct RelevanceConfig {
    /// The element acted on. Changes are placed relative to it; clock and activity rules
    /// never hide a change of the target itself.
    pub target: Option<ElementId>,
    /// Bounds (of elements and windows) that move by at most this many pixels are jitter.
    pub jitter_px: u32,
    /// Roles whose value, text, name and busy churn is activity, not an effect
    /// (progress bars, spinners). Their appearing or disappearing is still an effect.
    pub activity_roles: Vec<Role>,
    /// A text, name, value or description that changes only in a clock-like time
    /// (`10:41` -> `10:42`) is noise.
    pub clock_text: bool,
    /// A changed pixel region at most this thin (either side) is the text caret; 0 disables.
    pub caret_max_px: u32,
    /// Changed pixel regions entirely inside one of these are noise (known clocks, videos).
    pub masks: Vec<Rect<Physical>>,
    /// Elements whose changes (and their subtrees' changes) are noise.
    pub ignore: Vec<ElementId>,
}

impl Default for RelevanceConfig {
    fn default() -> Self {
        RelevanceConfig {
            target: None,
            jitter_px: 3,
            activity_roles: ["progress_bar", "animation", "spinner"].map(Role::new).into(),
            clock_text: true,
            caret_max_px: 3,
            masks: Vec::new(),
            ignore: Vec::new(),
        }
    }
}

impl RelevanceConfig {
    /// The default rules around `target`.
    pub fn for_target(target: ElementId) -> Self {
        RelevanceConfig { target: Some(target), ..RelevanceConfig::default() }
    }
}

/// Where a change happened, relative to the target; ordered nearest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// The target itself.
    Target,
    /// Under the target.
    InsideTarget,
    /// An ancestor of the target (its container, its window).
    ContainsTarget,
    /// In the target's window.
    SameWindow,
    /// Elsewhere: another window, or a new one.
    OtherWindow,
    /// No target was given, or it is in neither snapshot.
    Unknown,
}

/// A change that counts as an effect.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Effect {
    /// What changed.
    pub kind: EffectKind,
    /// Where, relative to the target.
    pub relation: Relation,
}

/// The kinds of effect, each with what a report needs.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EffectKind {
    /// A window or dialog opened.
    WindowOpened(WindowInfo),
    /// A window or dialog closed.
    WindowClosed(WindowInfo),
    /// A window's title, activation, modality or bounds changed (beyond jitter).
    WindowChanged(WindowChange),
    /// An element appeared (with `descendants` more under it).
    Appeared {
        /// The element.
        element: Element,
        /// Its parent.
        parent: Option<ElementId>,
        /// How many added elements are under it.
        descendants: u32,
        /// The first few texts shown under it, in tree order.
        texts: Vec<String>,
    },
    /// An element went away (with `descendants` more under it).
    Gone {
        /// The element as last seen.
        element: Element,
        /// How many removed elements were under it.
        descendants: u32,
    },
    /// An element changed; only the changes that are not noise are listed.
    Changed {
        /// Its id.
        id: ElementId,
        /// Its role now.
        role: Role,
        /// Its name now.
        name: String,
        /// The relevant changes, never empty.
        changes: Vec<FieldChange>,
    },
    /// Pixels of a digested region changed.
    PixelsChanged(RegionChange),
}

/// Why a change is noise.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoiseKind {
    /// Bounds moved by at most the jitter allowance.
    BoundsJitter,
    /// Churn of a progress bar or spinner.
    Activity,
    /// Text that changed only in a clock-like time.
    ClockText,
    /// A caret-thin pixel region.
    Caret,
    /// A pixel region inside a configured mask.
    Masked,
    /// An element the configuration ignores.
    Ignored,
}

impl NoiseKind {
    /// Plain words for reports: `bounds jitter`, `clock text`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            NoiseKind::BoundsJitter => "bounds jitter",
            NoiseKind::Activity => "progress activity",
            NoiseKind::ClockText => "clock text",
            NoiseKind::Caret => "caret",
            NoiseKind::Masked => "masked region",
            NoiseKind::Ignored => "ignored element",
        }
    }
}

/// A change judged to be noise.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Noise {
    /// Why it is noise.
    pub kind: NoiseKind,
    /// What changed.
    pub source: NoiseSource,
}

/// The change behind a [`Noise`].
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoiseSource {
    /// One field of an element.
    Field {
        /// The element.
        id: ElementId,
        /// The change.
        change: FieldChange,
    },
    /// A whole element that appeared or went away (ignored elements).
    Element(ElementId),
    /// A window.
    Window(WindowChange),
    /// A pixel region.
    Region(RegionChange),
}

/// The verdict on a diff: its effects, most telling first, and its noise.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Judgement {
    /// Changes that count as an effect, most telling first: dialogs opened, the target
    /// gone or changed, other windows, elements appeared, gone, changed, pixels.
    pub effects: Vec<Effect>,
    /// Changes judged to be noise, in diff order.
    pub noise: Vec<Noise>,
    /// Signs that the application is working: a busy state appeared, a progress bar or
    /// spinner appeared or moved, or a "Loading..." text appeared. The retry policy waits
    /// longer instead of acting again.
    pub loading: bool,
}

impl Judgement {
    /// Whether anything counts as an effect.
    pub fn has_effect(&self) -> bool {
        !self.effects.is_empty()
    }

    /// Whether the target, or a container of it, went away.
    pub fn target_gone(&self) -> bool {
        self.effects.iter().any(|e| {
            matches!(e.kind, EffectKind::Gone { .. } | EffectKind::WindowClosed(_))
                && matches!(e.relation, Relation::Target | Relation::ContainsTarget)
        })
    }

    /// The target's relevant changes, when it changed.
    pub fn target_changes(&self) -> Option<&[FieldChange]> {
        self.effects.iter().find_map(|e| match (&e.kind, e.relation) {
            (EffectKind::Changed { changes, .. }, Relation::Target) => Some(changes.as_slice()),
            _ => None,
        })
    }

    /// Whether the target gained `state` (e.g. checked after clicking a check box).
    pub fn target_gained(&self, state: State) -> bool {
        self.target_changes().is_some_and(|c| c.contains(&FieldChange::StateAdded(state)))
    }

    /// Dialogs that opened, as windows or as elements of the tree: `(role, name)`.
    pub fn dialogs_opened(&self) -> impl Iterator<Item = (&Role, &str)> {
        self.effects.iter().filter_map(|e| match &e.kind {
            EffectKind::WindowOpened(w) if w.is_dialog() => Some((&w.role, w.title.as_str())),
            EffectKind::Appeared { element, .. } if element.role.is_dialog_like() => {
                Some((&element.role, element.name.as_str()))
            }
            _ => None,
        })
    }

    /// The distinct kinds of noise seen, in a fixed order.
    pub fn noise_kinds(&self) -> Vec<NoiseKind> {
        let mut kinds: Vec<_> = self.noise.iter().map(|n| n.kind).collect();
        kinds.sort();
        kinds.dedup();
        kinds
    }
}
