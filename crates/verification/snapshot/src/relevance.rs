//! What a relevance judgement says: which changes are effects of an action, which are noise.

use deft_types::{Element, ElementId, Physical, Rect, Role, State};
use serde::{Deserialize, Serialize};

use crate::diff::{FieldChange, RegionChange, WindowChange};
use crate::snapshot::WindowState;

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
    /// Elements whose content changed just before the input (the app's events said so,
    /// and the read before the input already showed it): the layout follows such a change
    /// a frame or more later, so their place changing, or their neighbours' or containers',
    /// with nothing else changed, is that layout settling, not an effect. Filled per input.
    #[serde(skip)]
    pub settling: Vec<ElementId>,
    /// Elements whose text, name, value or description changed by itself before the input
    /// (the app said so while no input of the caller's was pending): a clock, a counter, a
    /// playback position. Such a change after the input says nothing of the input, yet the
    /// input's effect may be one too, so it is neither effect nor plain noise: a judgement
    /// keeps it apart ([`NoiseKind::ChangesByItself`]) and the caller decides (the executor
    /// never sends a second input over it). Never applied to the target. Filled per input.
    #[serde(skip)]
    pub self_changing: Vec<ElementId>,
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
    /// States whose coming and going is incidental to an input (focus and activation move
    /// when windows come and go and a click lands): noise on their own.
    pub incidental_states: Vec<State>,
    /// A push button's `pressed` or `armed` coming and going is the press being handled
    /// (receipt, not the click's effect; Qt shows `pressed` through its accessibility
    /// press action for a moment). A toggle button's `pressed` is its state and counts.
    pub button_press_noise: bool,
    /// Elements that appear with nothing of them shown are noise: no one sees them (Firefox
    /// adds its background tabs' pages to the tree when it gets to them).
    pub hidden_noise: bool,
    /// A child count that changes is noise: the children that came or went are listed.
    pub child_count_noise: bool,
    /// A window that only became (in)active, or moved by jitter, is noise.
    pub window_activation_noise: bool,
    /// An element gone and an equal one (same role and name) appeared in its place is a
    /// widget rebuilt, noise by itself.
    pub recreated_noise: bool,
    /// Changes inside a container that was already loading before the input (a spinner,
    /// a progress bar, a "Loading..." text, a busy state in it) are the end of that work,
    /// not an effect.
    pub preloading_noise: bool,
    /// Openings of texts that say work is in progress, compared ignoring case.
    pub loading_texts: Vec<String>,
}

impl Default for RelevanceConfig {
    fn default() -> Self {
        RelevanceConfig {
            target: None,
            settling: Vec::new(),
            self_changing: Vec::new(),
            jitter_px: 3,
            activity_roles: ["progress_bar", "animation", "spinner"].map(Role::new).into(),
            clock_text: true,
            caret_max_px: 3,
            masks: Vec::new(),
            ignore: Vec::new(),
            incidental_states: Vec::new(),
            button_press_noise: false,
            hidden_noise: false,
            child_count_noise: false,
            window_activation_noise: false,
            recreated_noise: false,
            preloading_noise: false,
            loading_texts: vec!["loading".into(), "please wait".into()],
        }
    }
}

impl RelevanceConfig {
    /// The default rules around `target`.
    pub fn for_target(target: ElementId) -> Self {
        RelevanceConfig { target: Some(target), ..RelevanceConfig::default() }
    }

    /// The rules for judging what an input did (the executor's): the defaults, plus the
    /// changes that explain themselves once an input was sent (see the `explained` rules:
    /// focus and activation moves, child counts, re-created widgets, work already loading
    /// before the input).
    pub fn after_input() -> Self {
        RelevanceConfig {
            incidental_states: vec![State::Focused, State::Active],
            button_press_noise: true,
            hidden_noise: true,
            child_count_noise: true,
            window_activation_noise: true,
            recreated_noise: true,
            preloading_noise: true,
            ..RelevanceConfig::default()
        }
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
    WindowOpened(WindowState),
    /// A window or dialog closed.
    WindowClosed(WindowState),
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
    /// Focus, activation or a child count moving with the input, not its effect.
    Incidental,
    /// A widget destroyed and rebuilt equal in its place.
    Recreated,
    /// A change inside a container that was already loading before the input.
    PreLoading,
    /// Elements that appeared without anything of them shown (a background tab's page).
    Hidden,
    /// Elements put under a new container inside their old parent (GTK 4.8 adds its stack
    /// pages above their content after the first full read).
    Regrouped,
    /// Elements that only moved or resized around content that changed before the input.
    Settling,
    /// Content of an element that changed by itself before the input too (see
    /// `RelevanceConfig::self_changing`): no evidence either way.
    ChangesByItself,
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
            NoiseKind::Incidental => "incidental focus or activation",
            NoiseKind::Recreated => "re-created widget",
            NoiseKind::PreLoading => "work loading since before the input",
            NoiseKind::Hidden => "appeared hidden",
            NoiseKind::Regrouped => "regrouped under a new container",
            NoiseKind::Settling => "layout settling after a change made before the input",
            NoiseKind::ChangesByItself => "changes by itself",
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
    /// A widget gone and its equal that appeared in its place.
    Recreated {
        /// The element as last seen.
        gone: Box<Element>,
        /// The one that took its place.
        appeared: Box<Element>,
    },
    /// An element changed inside a container that was loading before the input.
    Zone {
        /// The container.
        zone: ElementId,
        /// The element the change is about.
        id: ElementId,
    },
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
