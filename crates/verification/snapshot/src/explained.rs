//! Changes that explain themselves once an input was sent, and so are not its effect:
//! focus and activation moving, child counts following the children that came and went,
//! a widget destroyed and rebuilt equal in its place, and work that was already loading
//! before the input finishing meanwhile. Counting any of them would report a dropped click
//! as verified. Each rule is governed by [`RelevanceConfig`].

use deft_types::{Element, ElementId, State};

use crate::diff::FieldChange;
use crate::relevance::{Effect, EffectKind, Judgement, Noise, NoiseKind, NoiseSource, RelevanceConfig};
use crate::snapshot::Snapshot;

/// Whether a text says work is in progress (`Loading...`, `Please wait`), by the
/// configured openings, ignoring case.
pub fn says_loading(text: &str, config: &RelevanceConfig) -> bool {
    let t = text.trim_start().to_lowercase();
    config.loading_texts.iter().any(|w| t.starts_with(&w.to_lowercase()))
}

/// Whether an element shows that work is in progress: a shown spinner or progress bar, a
/// "Loading..." text, or a busy state.
fn is_working(e: &Element, config: &RelevanceConfig) -> bool {
    let shown_activity = config.activity_roles.contains(&e.role) || says_loading(e.visible_text(), config);
    // Only what is shown: Qt keeps a hidden "Loading" progress bar busy in the tree after
    // its work is done (at (0, 0, 0, 0), not showing), which would hold every action back.
    e.has(State::Showing) && (shown_activity || e.has(State::Busy))
}

/// Containers that were already loading in `before`: the parent of each element that
/// showed work in progress (or that element alone, when its parent holds the target).
/// What changes in them afterwards is the end of work that began before the input.
pub fn working_zones(before: &Snapshot, config: &RelevanceConfig) -> Vec<ElementId> {
    let target = config.target.as_ref();
    let holds_target =
        |zone: &ElementId| target.is_some_and(|t| t == zone || before.ancestors(t).any(|n| n.id() == zone));
    let mut zones = Vec::new();
    for node in before.nodes() {
        let e = node.element();
        if !is_working(e, config) || Some(&e.id) == target {
            continue;
        }
        let zone = match node.parent() {
            Some(p) if !holds_target(p) => p.clone(),
            _ if !holds_target(&e.id) => e.id.clone(),
            _ => continue,
        };
        if !zones.contains(&zone) {
            zones.push(zone);
        }
    }
    zones
}

/// Moves the effects that explain themselves into the noise.
pub(crate) fn settle(j: &mut Judgement, before: &Snapshot, after: &Snapshot, config: &RelevanceConfig) {
    let effects = std::mem::take(&mut j.effects);
    let mut kept = Vec::with_capacity(effects.len());
    for e in effects {
        if let Some(e) = incidental(e, config, &mut j.noise) {
            kept.push(e);
        }
    }
    if config.recreated_noise {
        kept = pair_recreated(kept, &mut j.noise);
    }
    if config.hidden_noise {
        kept = kept.into_iter().filter_map(|e| regrouped(e, before, after, &mut j.noise)).collect();
        kept.retain(|e| {
            let EffectKind::Appeared { element, .. } = &e.kind else { return true };
            // What it shows that was not there before: a container without a place of its
            // own put in around elements already shown (GTK 4.8 adds its stack pages, no
            // extents, above their content after the first full read) shows nothing new.
            let new_and_shown = |n: &crate::snapshot::SnapshotNode| {
                let e = n.element();
                let drawn = e.bounds.is_some() || e.child_count == 0;
                e.has(State::Showing) && drawn && before.get(n.id()).is_none()
            };
            let shown = after.subtree(&element.id).any(new_and_shown);
            let background = config.target.as_ref().is_some_and(|t| another_page(before, after, &element.id, t));
            let seen = shown && !background;
            if !seen {
                j.noise.push(Noise { kind: NoiseKind::Hidden, source: NoiseSource::Element(element.id.clone()) });
            }
            seen
        });
    }
    if config.preloading_noise {
        let zones = working_zones(before, config);
        kept.retain(|e| {
            let zone = effect_id(e).and_then(|id| zone_of(id, &zones, before, after));
            if let (Some(zone), Some(id)) = (zone, effect_id(e)) {
                let source = NoiseSource::Zone { zone: zone.clone(), id: id.clone() };
                j.noise.push(Noise { kind: NoiseKind::PreLoading, source });
            }
            zone.is_none()
        });
    }
    if !config.settling.is_empty() {
        kept = kept.into_iter().filter_map(|e| settled(e, config, before, after, &mut j.noise)).collect();
    }
    j.effects = kept;
}

/// `e`, unless it only moved or resized an element around content that changed just
/// before the input ([`RelevanceConfig::settling`]): the element itself, what shares its
/// container, or a container of it. A label whose text was set a moment before the input
/// is laid out a frame later (the fixture's loading panel finishing as the click went in
/// was once "verified" by that move alone).
fn settled(
    e: Effect,
    config: &RelevanceConfig,
    before: &Snapshot,
    after: &Snapshot,
    noise: &mut Vec<Noise>,
) -> Option<Effect> {
    let EffectKind::Changed { id, changes, .. } = &e.kind else { return Some(e) };
    let placed_only = changes.iter().all(|c| matches!(c, FieldChange::Bounds { old: Some(_), new: Some(_) }));
    let around = |s: &ElementId| {
        // Its container, unless that is a whole application (a window's title changing
        // says nothing of the other windows).
        let container = container_of(s, before).or_else(|| container_of(s, after));
        let shares = |snap: &Snapshot| id == s || container.is_some_and(|c| snap.ancestors(id).any(|n| n.id() == c));
        let contains = |snap: &Snapshot| snap.ancestors(s).any(|n| n.id() == id);
        shares(before) || shares(after) || contains(before) || contains(after)
    };
    if !placed_only || !config.settling.iter().any(around) {
        return Some(e);
    }
    noise.push(Noise { kind: NoiseKind::Settling, source: NoiseSource::Element(id.clone()) });
    None
}

/// Whether `appeared` holds a page (a document) other than the one the target is in, and
/// lies outside it: a browser tab loading in the background (Firefox preloads its New Tab
/// page beside the visible one, and may call it showing while it lays it out). An input
/// that opens a tab the user sees also changes the tab strip and hides the target's page,
/// which are effects of their own.
/// The target's page is read after the input, or before it when the target is gone (a
/// control the page re-created).
fn another_page(before: &Snapshot, after: &Snapshot, appeared: &ElementId, target: &ElementId) -> bool {
    let is_page = |e: &Element| e.role.as_str().starts_with("document");
    let page_in = |s: &Snapshot| s.ancestors(target).find(|n| is_page(n.element())).map(|n| n.element().id.clone());
    let Some(page) = page_in(after).or_else(|| page_in(before)) else { return false };
    let page = &page;
    let inside =
        |id: &ElementId, outer: &ElementId| id == outer || after.ancestors(id).any(|n| &n.element().id == outer);
    !inside(appeared, page) && !inside(target, appeared) && after.subtree(appeared).any(|n| is_page(n.element()))
}

/// `e` without the moves of an element under a container that is new and lies inside its
/// old parent: the tree regrouped, nothing shown changed (its place on screen, if it moved,
/// is a change of its own).
fn regrouped(e: Effect, before: &Snapshot, after: &Snapshot, noise: &mut Vec<Noise>) -> Option<Effect> {
    let EffectKind::Changed { id, role, name, changes } = e.kind else { return Some(e) };
    let inside_old = |c: &FieldChange| match c {
        FieldChange::Parent { old: Some(old), new: Some(new) } => {
            before.get(new).is_none() && after.ancestors(new).any(|n| n.id() == old)
        }
        _ => false,
    };
    let (quiet, loud): (Vec<FieldChange>, Vec<FieldChange>) = changes.into_iter().partition(inside_old);
    for change in quiet {
        noise.push(Noise { kind: NoiseKind::Regrouped, source: NoiseSource::Field { id: id.clone(), change } });
    }
    (!loud.is_empty())
        .then_some(Effect { kind: EffectKind::Changed { id, role, name, changes: loud }, relation: e.relation })
}

/// The effect without its incidental parts (focus and activation moves, child counts,
/// a window that only became active or moved by jitter); `None` when nothing is left.
fn incidental(e: Effect, config: &RelevanceConfig, noise: &mut Vec<Noise>) -> Option<Effect> {
    match e.kind {
        EffectKind::Changed { id, role, name, changes } => {
            let press = |c: &FieldChange| {
                config.button_press_noise
                    && role.as_str() == "push_button"
                    && matches!(c, FieldChange::StateAdded(s) | FieldChange::StateRemoved(s) if matches!(s, State::Pressed | State::Armed))
            };
            let (quiet, loud): (Vec<FieldChange>, Vec<FieldChange>) =
                changes.into_iter().partition(|c| is_incidental(c, config) || press(c));
            for change in quiet {
                noise
                    .push(Noise { kind: NoiseKind::Incidental, source: NoiseSource::Field { id: id.clone(), change } });
            }
            (!loud.is_empty())
                .then_some(Effect { kind: EffectKind::Changed { id, role, name, changes: loud }, relation: e.relation })
        }
        EffectKind::WindowChanged(c) if config.window_activation_noise => {
            let mut before = c.before.clone();
            before.active = c.after.active;
            let jitter = match (c.before.bounds, c.after.bounds) {
                (Some(a), Some(b)) => a.max_edge_delta(&b) <= u64::from(config.jitter_px),
                (a, b) => a == b,
            };
            before.bounds = c.after.bounds;
            if before == c.after && jitter {
                noise.push(Noise { kind: NoiseKind::Incidental, source: NoiseSource::Window(c) });
                None
            } else {
                Some(Effect { kind: EffectKind::WindowChanged(c), relation: e.relation })
            }
        }
        kind => Some(Effect { kind, relation: e.relation }),
    }
}

fn is_incidental(c: &FieldChange, config: &RelevanceConfig) -> bool {
    match c {
        FieldChange::StateAdded(s) | FieldChange::StateRemoved(s) => config.incidental_states.contains(s),
        FieldChange::ChildCount { .. } => config.child_count_noise,
        _ => false,
    }
}

/// Pairs each element gone with an equal one that appeared (same role and name, another
/// id: a widget rebuilt), and moves both to the noise.
fn pair_recreated(kept: Vec<Effect>, noise: &mut Vec<Noise>) -> Vec<Effect> {
    let mut drop = vec![false; kept.len()];
    for g in 0..kept.len() {
        let EffectKind::Gone { element: gone, .. } = &kept[g].kind else { continue };
        let twin = (0..kept.len()).find(|&a| {
            !drop[a] && matches!(&kept[a].kind, EffectKind::Appeared { element, .. } if same_widget(gone, element))
        });
        if let Some(a) = twin {
            drop[g] = true;
            drop[a] = true;
            let EffectKind::Appeared { element: new, .. } = &kept[a].kind else { continue };
            let source = NoiseSource::Recreated { gone: Box::new(gone.clone()), appeared: Box::new(new.clone()) };
            noise.push(Noise { kind: NoiseKind::Recreated, source });
        }
    }
    kept.into_iter().zip(drop).filter(|(_, d)| !d).map(|(e, _)| e).collect()
}

fn same_widget(a: &Element, b: &Element) -> bool {
    a.role == b.role && a.name == b.name && a.id != b.id
}

/// The parent of `id`, unless that is a root of `snap` (a whole application).
fn container_of<'s>(id: &ElementId, snap: &'s Snapshot) -> Option<&'s ElementId> {
    snap.node(id).and_then(|n| n.parent()).filter(|p| snap.ancestors(p).next().is_some())
}

/// The element an effect is about.
fn effect_id(e: &Effect) -> Option<&ElementId> {
    match &e.kind {
        EffectKind::Changed { id, .. } => Some(id),
        EffectKind::Appeared { element, .. } | EffectKind::Gone { element, .. } => Some(&element.id),
        _ => None,
    }
}

/// The zone `id` lies in, in either snapshot.
fn zone_of<'z>(id: &ElementId, zones: &'z [ElementId], before: &Snapshot, after: &Snapshot) -> Option<&'z ElementId> {
    zones.iter().find(|z| *z == id || [before, after].iter().any(|s| s.ancestors(id).any(|n| n.id() == *z)))
}
