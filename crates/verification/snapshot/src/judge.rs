//! Judging a diff: sorting its changes into effects of the action and noise.

use std::collections::HashSet;

use deft_types::{Element, ElementId, Role, State};

use crate::clock::only_clock_changed;
use crate::diff::{FieldChange, SnapshotDiff, diff, topmost};
use crate::explained::says_loading;
use crate::relevance::{Effect, EffectKind, Judgement, Noise, NoiseKind, NoiseSource, Relation, RelevanceConfig};
use crate::snapshot::Snapshot;

/// How many texts under an appeared element are kept for the report.
const APPEARED_TEXTS: usize = 3;

impl Judgement {
    /// Judges the change from `before` to `after` (computes the diff).
    pub fn between(before: &Snapshot, after: &Snapshot, config: &RelevanceConfig) -> Judgement {
        judge(&diff(before, after), before, after, config)
    }
}

/// Judges `diff`, taken from `before` to `after`: which changes are effects, which noise.
///
/// The snapshots place each change relative to the target (inside it, in its window, ...)
/// and give the texts under elements that appeared.
pub fn judge(diff: &SnapshotDiff, before: &Snapshot, after: &Snapshot, config: &RelevanceConfig) -> Judgement {
    let places = Places::new(before, after, config);
    let mut j = Judgement::default();
    let effect = |kind, relation| Effect { kind, relation };

    for w in &diff.windows_opened {
        j.effects.push(effect(EffectKind::WindowOpened(w.clone()), places.relation(&w.id)));
    }
    for w in &diff.windows_closed {
        j.effects.push(effect(EffectKind::WindowClosed(w.clone()), places.relation(&w.id)));
    }
    for c in &diff.windows_changed {
        let mut only_bounds = c.before.clone();
        only_bounds.bounds = c.after.bounds;
        let jitter = only_bounds == c.after
            && matches!((c.before.bounds, c.after.bounds), (Some(a), Some(b)) if a.max_edge_delta(&b) <= u64::from(config.jitter_px));
        if jitter {
            j.noise.push(Noise { kind: NoiseKind::BoundsJitter, source: NoiseSource::Window(c.clone()) });
        } else {
            j.effects.push(effect(EffectKind::WindowChanged(c.clone()), places.relation(&c.after.id)));
        }
    }

    let opened: HashSet<&ElementId> = diff.windows_opened.iter().map(|w| &w.id).collect();
    for (added, descendants) in topmost(&diff.added) {
        let id = &added.element.id;
        if opened.contains(id) {
            continue;
        }
        if places.ignored(id) {
            j.noise.push(Noise { kind: NoiseKind::Ignored, source: NoiseSource::Element(id.clone()) });
            continue;
        }
        let texts = appeared_texts(after, id);
        j.loading |= places.is_activity(&added.element.role)
            || added.element.has(State::Busy)
            || std::iter::once(added.element.visible_text())
                .chain(texts.iter().map(String::as_str))
                .any(|t| says_loading(t, config));
        j.effects.push(effect(
            EffectKind::Appeared { element: added.element.clone(), parent: added.parent.clone(), descendants, texts },
            places.relation(id),
        ));
    }
    let closed: HashSet<&ElementId> = diff.windows_closed.iter().map(|w| &w.id).collect();
    for (removed, descendants) in topmost(&diff.removed) {
        let id = &removed.element.id;
        if closed.contains(id) {
            continue;
        }
        if places.ignored(id) {
            j.noise.push(Noise { kind: NoiseKind::Ignored, source: NoiseSource::Element(id.clone()) });
            continue;
        }
        j.effects.push(effect(EffectKind::Gone { element: removed.element.clone(), descendants }, places.relation(id)));
    }

    for c in &diff.changed {
        let relation = places.relation(&c.id);
        let ignored = places.ignored(&c.id);
        let old_role = before.get(&c.id).map_or(&c.role, |e| &e.role);
        let mut relevant = Vec::new();
        for change in &c.changes {
            j.loading |= matches!(change, FieldChange::StateAdded(State::Busy))
                || matches!(change, FieldChange::Text { new: Some(t), .. } | FieldChange::Value { new: Some(t), .. } if says_loading(t, config));
            let kind = if ignored {
                Some(NoiseKind::Ignored)
            } else {
                places.field_noise(&c.id, old_role, &c.role, relation, change)
            };
            match kind {
                Some(kind) => {
                    // Activity churn says work goes on only while the activity is shown: a
                    // spinner or progress bar that was hidden has finished (compared with the
                    // reading from before the input, its hiding would say "loading" forever).
                    // A spinner turning (its box moving) says nothing of work begun by the
                    // input: it turned before it too, and may turn forever.
                    let turning = matches!(change, FieldChange::Bounds { .. });
                    j.loading |= kind == NoiseKind::Activity
                        && !turning
                        && after.get(&c.id).is_some_and(|e| e.has(State::Showing));
                    let source = NoiseSource::Field { id: c.id.clone(), change: change.clone() };
                    j.noise.push(Noise { kind, source });
                }
                None => relevant.push(change.clone()),
            }
        }
        if !relevant.is_empty() {
            let kind =
                EffectKind::Changed { id: c.id.clone(), role: c.role.clone(), name: c.name.clone(), changes: relevant };
            j.effects.push(effect(kind, relation));
        }
    }

    for r in &diff.regions_changed {
        let thin = config.caret_max_px > 0 && r.rect.w.min(r.rect.h) <= config.caret_max_px;
        let masked = config.masks.iter().any(|m| m.intersection(&r.rect) == Some(r.rect));
        match (thin, masked) {
            (_, true) => j.noise.push(Noise { kind: NoiseKind::Masked, source: NoiseSource::Region(*r) }),
            (true, _) => j.noise.push(Noise { kind: NoiseKind::Caret, source: NoiseSource::Region(*r) }),
            _ => j.effects.push(effect(EffectKind::PixelsChanged(*r), Relation::Unknown)),
        }
    }

    text_of_moving(&mut j, before);
    crate::explained::settle(&mut j, before, after, config);
    j.effects.sort_by_key(|e| (priority(e), e.relation));
    j
}

/// A text leaf that came or went under an element whose text changes by itself is part of
/// that change: Chromium replaces a section's text node when its text is set.
fn text_of_moving(j: &mut Judgement, before: &Snapshot) {
    let moving: HashSet<ElementId> = j
        .noise
        .iter()
        .filter(|n| n.kind == NoiseKind::ChangesByItself)
        .filter_map(|n| match &n.source {
            NoiseSource::Field { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect();
    if moving.is_empty() {
        return;
    }
    let mut moved = Vec::new();
    j.effects.retain(|e| {
        let leaf_of_moving = match &e.kind {
            EffectKind::Appeared { element, parent: Some(p), descendants: 0, .. } => {
                moving.contains(p).then(|| element.id.clone())
            }
            EffectKind::Gone { element, descendants: 0 } => before
                .node(&element.id)
                .and_then(|n| n.parent())
                .filter(|p| moving.contains(*p))
                .map(|_| element.id.clone()),
            _ => None,
        };
        match leaf_of_moving {
            Some(id) => {
                moved.push(id);
                false
            }
            None => true,
        }
    });
    for id in moved {
        j.noise.push(Noise { kind: NoiseKind::ChangesByItself, source: NoiseSource::Element(id) });
    }
}

/// Lower is more telling; see [`Judgement::effects`].
fn priority(e: &Effect) -> u8 {
    let target_gone = matches!(e.relation, Relation::Target | Relation::ContainsTarget);
    match &e.kind {
        EffectKind::WindowOpened(w) if w.is_dialog() => 0,
        EffectKind::Appeared { element, .. } if element.role.is_dialog_like() => 0,
        EffectKind::WindowOpened(_) => 1,
        EffectKind::Gone { .. } if target_gone => 2,
        EffectKind::Changed { .. } if e.relation == Relation::Target => 2,
        EffectKind::WindowClosed(_) => 3,
        EffectKind::Appeared { .. } => 4,
        EffectKind::Gone { .. } => 5,
        EffectKind::Changed { .. } => 6,
        EffectKind::WindowChanged(_) => 7,
        EffectKind::PixelsChanged(_) => 8,
    }
}

fn appeared_texts(after: &Snapshot, id: &ElementId) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    for node in after.subtree(id).skip(1) {
        let t = node.element().visible_text().trim();
        if !t.is_empty() && !texts.iter().any(|k| k == t) {
            texts.push(t.to_owned());
            if texts.len() == APPEARED_TEXTS {
                break;
            }
        }
    }
    texts
}

/// Where elements sit relative to the target, in either snapshot.
struct Places<'a> {
    before: &'a Snapshot,
    after: &'a Snapshot,
    config: &'a RelevanceConfig,
    /// The target, when given and found in either snapshot.
    target: Option<&'a ElementId>,
    target_ancestors: HashSet<&'a ElementId>,
    target_windows: HashSet<&'a ElementId>,
}

impl<'a> Places<'a> {
    fn new(before: &'a Snapshot, after: &'a Snapshot, config: &'a RelevanceConfig) -> Places<'a> {
        let mut places = Places {
            before,
            after,
            config,
            target: None,
            target_ancestors: HashSet::new(),
            target_windows: HashSet::new(),
        };
        let Some(target) = config.target.as_ref() else { return places };
        for snap in [before, after] {
            if let Some(node) = snap.node(target) {
                places.target = Some(node.id());
                places.target_ancestors.extend(snap.ancestors(target).map(|n| n.id()));
                places.target_windows.insert(window_of(snap, node.id()));
            }
        }
        places
    }

    fn relation(&self, id: &ElementId) -> Relation {
        let Some(target) = self.target else { return Relation::Unknown };
        if id == target {
            return Relation::Target;
        }
        if self.target_ancestors.contains(id) {
            return Relation::ContainsTarget;
        }
        let Some(snap) = [self.after, self.before].into_iter().find(|s| s.contains(id)) else {
            return Relation::OtherWindow;
        };
        if snap.ancestors(id).any(|n| n.id() == target) {
            Relation::InsideTarget
        } else if self.target_windows.contains(window_of(snap, id)) {
            Relation::SameWindow
        } else {
            Relation::OtherWindow
        }
    }

    fn ignored(&self, id: &ElementId) -> bool {
        let ignore = &self.config.ignore;
        !ignore.is_empty()
            && (ignore.contains(id)
                || [self.after, self.before].iter().any(|s| s.ancestors(id).any(|n| ignore.contains(n.id()))))
    }

    fn is_activity(&self, role: &Role) -> bool {
        self.config.activity_roles.contains(role)
    }

    fn field_noise(
        &self,
        id: &ElementId,
        old_role: &Role,
        role: &Role,
        relation: Relation,
        change: &FieldChange,
    ) -> Option<NoiseKind> {
        let jitter = u64::from(self.config.jitter_px);
        if let FieldChange::Bounds { old: Some(a), new: Some(b) } = change {
            if a.max_edge_delta(b) <= jitter {
                return Some(NoiseKind::BoundsJitter);
            }
            // A spinner's box moves as it turns (GTK 4 reports the turned box).
            let turning = relation != Relation::Target && old_role == role && self.is_activity(role);
            return turning.then_some(NoiseKind::Activity);
        }
        if relation == Relation::Target {
            return None;
        }
        let churn = matches!(
            change,
            FieldChange::Value { .. }
                | FieldChange::Text { .. }
                | FieldChange::Name { .. }
                | FieldChange::StateAdded(State::Busy)
                | FieldChange::StateRemoved(State::Busy)
        );
        if churn && old_role == role && self.is_activity(role) {
            return Some(NoiseKind::Activity);
        }
        let clock = |old: &str, new: &str| self.config.clock_text && only_clock_changed(old, new);
        let is_clock = match change {
            FieldChange::Name { old, new } | FieldChange::Description { old, new } => clock(old, new),
            FieldChange::Text { old: Some(old), new: Some(new) }
            | FieldChange::Value { old: Some(old), new: Some(new) } => clock(old, new),
            _ => false,
        };
        if is_clock {
            return Some(NoiseKind::ClockText);
        }
        let content = matches!(
            change,
            FieldChange::Value { .. }
                | FieldChange::Text { .. }
                | FieldChange::Name { .. }
                | FieldChange::Description { .. }
        );
        (content && self.config.self_changing.contains(id)).then_some(NoiseKind::ChangesByItself)
    }
}

/// The window an element is in: its nearest window-like ancestor (itself included), else
/// its root.
fn window_of<'s>(snap: &'s Snapshot, id: &'s ElementId) -> &'s ElementId {
    let is_window = |e: &Element| {
        e.role.is_dialog_like() || matches!(e.role.as_str(), "frame" | "window") || snap.window(&e.id).is_some()
    };
    let mut last = id;
    let chain = snap.node(id).into_iter().chain(snap.ancestors(id));
    for node in chain {
        if is_window(node.element()) {
            return node.id();
        }
        last = node.id();
    }
    last
}

#[cfg(test)]
mod tests;
