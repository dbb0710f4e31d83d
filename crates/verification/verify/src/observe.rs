//! What a verification read saw: the effects of the input (or the expectation met), and
//! the signals the retry engine needs when there is none yet (feedback, loading, toggle,
//! blocking).

use deft_a11y::Tree;
use deft_retry::Toggle;
use deft_snapshot::{
    Effect, EffectKind, FieldChange, Judgement, NoiseKind, NoiseSource, Relation, RelevanceConfig, RenderConfig, diff,
    immediate_feedback, judge, render_observed, says_loading, working_zones,
};
use deft_types::{Blocking, Condition, Element, ElementId, Logical, Rect, State};

use crate::attribution::{is_backdrop, menu_closing, own_motion, rebuilt_in_place, said_only};
use crate::condition;
use crate::field_changes::{dependents_switched, emptied, filled, only_lost};
use crate::read::Reading;
use crate::ready::popup_texts;
use crate::typed::{describe_strays, garbled_inside, in_place_editor, strays, text_or_value, typed_landed, value_set};

/// What the action must achieve to count as verified.
#[derive(Clone, Debug)]
pub(crate) enum Goal {
    /// Any relevant change (a new dialog alone counts when it opened away from the target;
    /// over the target it is a popup that may have taken the input).
    AnyChange,
    /// The target's text is its text from before the action (`before`, once read) with
    /// `typed` inserted at one place (the caret): exactly what a `type` promises, so a field
    /// whose text was replaced, or that still shows what it showed, is not verified.
    Typed { typed: String, before: Option<String> },
    /// The target's value (or text) equals `value`.
    Set { value: String },
    /// An explicit expectation, and what the action itself promises (`Typed`, `Set`) when
    /// it has a promise of its own: met while the expectation is not, the input landed
    /// and is not sent again ([`Seen::done_as_asked`]).
    Expect(Box<Condition>, Option<Box<Goal>>),
}

/// How the toggle signal is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToggleMode {
    /// Not a toggle.
    None,
    /// A real toggle: its checked (or pressed) state before and after.
    State,
    /// An action with an expectation: any effect at all counts as "changed", so that an
    /// input whose effect was not the expected one is never sent again (it worked, only
    /// not as expected; a second one could double it).
    AnyEffect,
}

/// What one read showed, relative to the read before the input.
#[derive(Clone, Debug, Default)]
pub(crate) struct Seen {
    /// Verified: what was seen, in plain words.
    pub verified: Option<String>,
    /// A popup appeared and is the only change: it intercepts the target.
    pub blocking: Option<Blocking>,
    /// The app showed it received the input (focus, pressed, busy, text typed).
    pub feedback: bool,
    /// Feedback could not be judged (the target is in neither read).
    pub feedback_unknown: bool,
    /// The app is working.
    pub loading: bool,
    pub toggle: Toggle,
    /// Something worth reporting even though it is no effect (wrong field, re-created target).
    pub note: Option<String>,
    /// The expectation held before the input and still does, with nothing changed (see
    /// `Signals::held_before`).
    pub held_before: bool,
    /// The relevant changes, rendered, whether or not they verify the goal.
    pub changes: Option<String>,
    /// Typed text that landed in other fields (the focus moved while typing).
    pub strays: Vec<Stray>,
    /// What verifies is only things gone (elements, windows), or an equal of the target
    /// appeared beside it: a widget being rebuilt looks like that until both halves are
    /// read, so it is taken only once it has lasted (and the diff can pair the two).
    pub gone_only: bool,
    /// Of those, something emptied in place (a page Firefox empties under a modal dialog it
    /// has not exposed yet): confirmed longer than things gone.
    pub emptied_in_place: bool,
    /// Of those, an equal of the target appeared while the target is still read: a
    /// browser re-creating the control may keep the old one in its tree a while (Chromium
    /// under load, past `GONE_CONFIRM`): confirmed as long as a page emptied in place.
    pub twin_beside: bool,
    /// What changed that also changed by itself before the input, in words: where an
    /// effect anywhere would do (a click, an expectation), it may be the input's effect or
    /// not, so it neither verifies nor lets a second input go (`Signals::own_motion`).
    pub own_motion: Option<String>,
    /// When any change verifies: the elements of the changes it rests on, if every one of
    /// them is a change of what an element says (its text, name, value or description);
    /// empty otherwise. What changed by itself once before the input is held a moment.
    pub said_only: Vec<ElementId>,
    /// The target is a menu entry and what changed is only its menu going away (the entry,
    /// its menu and the menus above it hidden or gone).
    pub menu_closed_only: bool,
    /// A toggle reads unchanged while other controls were switched on or off after the
    /// input (`field_changes::dependents_switched`): the input landed, its state lags.
    pub toggle_lags: bool,
    /// The target is gone and an equal stands where it stood, in words
    /// ([`rebuilt_in_place`]): receipt of the input.
    pub rebuilt_in_place: Option<String>,
    /// Under an expectation not met: what the action itself promises is there (the text
    /// typed in, the value set), in words. The input landed.
    pub done_as_asked: Option<String>,
    /// How many characters of the text typed so far show in the target, inserted at one
    /// place, when they are fewer than all of it: keys still arriving at a slow app.
    pub typed_so_far: Option<usize>,
}

/// Another field that typed text landed in: what it showed before the input and now.
/// Undone after the action, when it still shows `now` (see `run.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stray {
    pub id: ElementId,
    /// The field, in words.
    pub field: String,
    pub was: String,
    pub now: String,
}

/// How many re-created widgets a report names (the target first).
const RECREATED_SHOWN: usize = 5;

/// What the judgement left out as explaining itself, worth saying in a report: widgets
/// re-created (the target among them), and work that was loading before the input.
fn explained_notes(j: &Judgement, target: Option<&ElementId>, pre: &Reading) -> Option<String> {
    let mut recreated = Vec::new();
    let mut zones: Vec<String> = Vec::new();
    let mut settled: Vec<String> = Vec::new();
    for n in &j.noise {
        match &n.source {
            NoiseSource::Recreated { gone, appeared } => {
                let moved = match (gone.bounds, appeared.bounds) {
                    (Some(o), Some(n)) if o != n => format!(" and moved from {o} to {n}"),
                    _ => String::new(),
                };
                let line = |whose: &str| format!("{whose}{} was re-created{moved}", gone.describe());
                if Some(&gone.id) == target {
                    recreated.insert(0, line("the target "))
                } else {
                    recreated.push(line(""))
                }
            }
            NoiseSource::Element(id) if n.kind == NoiseKind::Settling => {
                let name = pre.snap.get(id).map_or_else(|| id.to_string(), Element::describe);
                if !settled.contains(&name) {
                    settled.push(name);
                }
            }
            NoiseSource::Zone { zone, .. } => {
                let name = pre.snap.get(zone).map_or_else(|| zone.to_string(), Element::describe);
                if !zones.contains(&name) {
                    zones.push(name);
                }
            }
            _ => {}
        }
    }
    // A sheet whose every shown cell is rebuilt after each edit (LibreOffice Calc) would
    // otherwise fill the report with hundreds of them.
    if recreated.len() > RECREATED_SHOWN + 1 {
        let more = recreated.len() - RECREATED_SHOWN;
        recreated.truncate(RECREATED_SHOWN);
        recreated.push(format!("and {more} more were re-created"));
    }
    let recreated = (!recreated.is_empty()).then(|| recreated.join("; "));
    let background = (!zones.is_empty())
        .then(|| format!("not counted: changes in {}, which was already loading before the input", zones.join(", ")));
    let settling = (!settled.is_empty()).then(|| {
        format!(
            "not counted: {} only moved or resized, laying out what changed just before the input",
            settled.join(", ")
        )
    });
    join(join(recreated, background), settling)
}

fn is_popup(e: &Effect) -> bool {
    match &e.kind {
        EffectKind::WindowOpened(w) => w.is_dialog(),
        EffectKind::Appeared { element, .. } => element.role.is_dialog_like(),
        _ => false,
    }
}

fn render(effects: &[Effect], j: &Judgement) -> String {
    let view = Judgement { effects: effects.to_vec(), noise: j.noise.clone(), loading: j.loading };
    render_observed(&view, &RenderConfig::default())
}

/// The popup an effect opened, as a [`Blocking`] with the texts it shows in `tree`.
fn blocking_from(e: &Effect, tree: &Tree) -> Option<Blocking> {
    let (id, role, name) = match &e.kind {
        EffectKind::WindowOpened(w) => (&w.id, &w.role, &w.title),
        EffectKind::Appeared { element, .. } => (&element.id, &element.role, &element.name),
        _ => return None,
    };
    let root = tree.find_id(id);
    let texts = match root {
        Some(r) => popup_texts((0..tree.len()).filter(|&i| tree.is_within(i, r)).map(|i| &tree.nodes[i]), name),
        None => Vec::new(),
    };
    Some(Blocking { role: role.clone(), name: name.clone(), texts })
}

/// A secret field (a password field, or one the policy names): its text is masked, so only
/// its length can be compared.
pub(crate) fn is_secret(e: &Element) -> bool {
    e.is_secret()
}

pub(crate) fn text_of(e: &Element) -> String {
    e.text.clone().or_else(|| e.value.clone()).unwrap_or_default()
}

/// Judges `post` against `pre` for an input sent to `target` with `goal` (`pressed`: a
/// pointer press on it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn observe(
    pre: &Reading,
    post: &Reading,
    target: Option<&ElementId>,
    resolved: Option<&Element>,
    goal: &Goal,
    toggle: ToggleMode,
    relevance: &RelevanceConfig,
    pressed: bool,
) -> Seen {
    let d = diff(&pre.snap, &post.snap);
    // The executor's relevance rules (what explains itself after an input is noise) are
    // deft-snapshot's, under the configured `RelevanceConfig`.
    let cfg = RelevanceConfig { target: target.cloned(), ..relevance.clone() };
    let j = judge(&d, &pre.snap, &post.snap, &cfg);
    let mut seen = Seen { note: explained_notes(&j, target, pre), ..Seen::default() };
    seen.rebuilt_in_place = target.and_then(|t| rebuilt_in_place(t, pre, post));
    if matches!(goal, Goal::AnyChange | Goal::Expect(..)) {
        seen.own_motion = own_motion(&j, post);
    }
    // The input was aimed at the target's bounds; a read before it that shows the target
    // with none was taken while the toolkit had not laid the page out for accessibility
    // (Firefox, right after it emptied a page in place). Elements put back on screen since
    // say nothing of the input then, only that the read before was incomplete.
    let filled_in = |e: &Effect| matches!(&e.kind, EffectKind::Changed { changes, .. } if filled(changes));
    let stale_before = j.effects.iter().any(|e| e.relation == Relation::Target && filled_in(e));
    // An element off screen before and after whose only change is its actions showed
    // nothing anyone could see: Firefox gives a closed select's options their click back
    // when it lays a page out again after a modal dialog, late, and that passed for the
    // effect of a click the page had dropped (the campaign, under load).
    let hidden =
        |id: &ElementId, r: &Reading| r.element(id).is_none_or(|e| e.bounds.is_none() || !e.has(State::Showing));
    let unseen_actions = |e: &Effect| {
        matches!(&e.kind, EffectKind::Changed { id, changes, .. }
            if changes.iter().all(|c| matches!(c, FieldChange::Actions { .. })) && hidden(id, pre) && hidden(id, post))
    };
    let explained = |e: &Effect| unseen_actions(e) || (stale_before && filled_in(e));
    let mut effects: Vec<Effect> = j.effects.iter().filter(|e| !explained(e)).cloned().collect();
    // A press lands on what lies under the pointer; elements elsewhere that only moved or
    // resized, or went away unseen, and nothing else, are a layout that changed (the window
    // resized by a press on its title bar, an animation), not what a press on the target
    // did: FeatherPad's "Edit", pressed 14 px too high on its title bar, was "verified" by a
    // bar at the window's bottom resizing, and by a filler never shown going away. Not
    // counted, so a press that missed is not taken to have landed.
    if pressed
        && matches!(goal, Goal::AnyChange)
        && !effects.is_empty()
        && effects.iter().all(crate::elsewhere::far_layout)
    {
        let moved: Vec<String> = effects.iter().filter_map(|e| crate::elsewhere::effect_name(e, post)).collect();
        let note = format!(
            "not counted: {} only moved or resized, or went unseen, away from the target (a press does not \
             change only what lies elsewhere unseen)",
            moved.join(", ")
        );
        seen.note = join(seen.note.take(), Some(note));
        effects.clear();
    }
    if stale_before {
        let note = "the read before the input showed the target off screen (its page not laid out yet): elements \
                    only put back on screen since are not counted";
        seen.note = join(seen.note.take(), Some(note.to_string()));
    }
    // Work that began before the input and goes on holds the engine back (it may be busy
    // with the input too), but only while it says so (a busy state, a "Loading..." text):
    // a spinner or progress bar alone may run forever and must not stall the chain.
    // Shown elements only (Qt leaves a hidden busy progress bar in the tree).
    // A spinner says it is busy for as long as it turns (GTK 4): itself, it is no sign.
    let spinner = |e: &Element| cfg.activity_roles.contains(&e.role);
    let says_busy = |e: &Element| {
        e.has(State::Showing) && ((e.has(State::Busy) && !spinner(e)) || says_loading(e.visible_text(), &cfg))
    };
    let zones = working_zones(&pre.snap, &cfg);
    let still_working = zones.iter().any(|z| post.snap.subtree(z).any(|n| says_busy(n.element())));
    let before = target.and_then(|t| pre.element(t));
    let after = target.and_then(|t| post.element(t));
    seen.feedback_unknown = target.is_none() || (before.is_none() && after.is_none());
    seen.feedback = target.is_some_and(|t| immediate_feedback(&d, t).is_some());
    let busy_around = target.is_some_and(|t| {
        post.snap.get(t).is_some_and(|e| e.has(State::Busy))
            || post.snap.ancestors(t).any(|n| n.element().has(State::Busy))
    });
    seen.loading = j.loading || busy_around || still_working;
    seen.toggle = match toggle {
        ToggleMode::None => Toggle::Unknown,
        ToggleMode::State => match (before, after) {
            (Some(b), Some(a)) => {
                let on = |e: &Element| e.has(State::Checked) || e.has(State::Pressed);
                if on(b) == on(a) { Toggle::Unchanged } else { Toggle::Changed }
            }
            _ => Toggle::Unknown,
        },
        ToggleMode::AnyEffect if effects.is_empty() => Toggle::Unchanged,
        ToggleMode::AnyEffect => Toggle::Changed,
    };
    if !effects.is_empty() {
        seen.changes = Some(render(&effects, &j));
    }
    let (popups, others): (Vec<&Effect>, Vec<&Effect>) = effects.iter().partition(|e| is_popup(e));
    // A toggle's effect is its own state: other changes while it reads unchanged (a
    // spinner moving, a relayout) do not say the click landed on it.
    let toggle_unmoved = toggle == ToggleMode::State && seen.toggle == Toggle::Unchanged;
    match goal {
        // What the app says changed elsewhere while a toggle button's own state reads the
        // same, the button having shown it got the press: it springs back (galculator's
        // keys), and that is its effect, held as any change of what elements say is
        // (`watch.rs`); pressing again would enter the key twice.
        Goal::AnyChange if !others.is_empty() && toggle_unmoved => {
            let changes = seen.changes.clone().unwrap_or_default();
            // Not a check or radio box (its state says for sure); a text changing elsewhere
            // alone may be the app's own, or an earlier input's late effect.
            let springs = before.is_some_and(|b| b.role.as_str() == "toggle_button") && seen.feedback;
            let said = if springs { said_only(&others, pre, false) } else { Vec::new() };
            if said.is_empty() {
                seen.toggle_lags = dependents_switched(&others);
                let note = format!("its own state did not change (other changes: {changes})");
                seen.note = join(seen.note.take(), Some(note));
            } else {
                seen.verified = Some(format!("{changes} (its own state reads the same: it springs back)"));
                seen.said_only = said;
            }
        }
        Goal::AnyChange if !others.is_empty() => {
            seen.verified = seen.changes.clone();
            seen.said_only = said_only(&others, pre, before.is_some_and(is_backdrop));
            // A menu entry whose menu closed, and nothing else: the entry took the click
            // (a click anywhere closes a menu, but the geometry checks before the input put
            // this one on the entry), yet its effect shows nowhere (Copy). Receipt, once no
            // other change has come for a moment (`watch.rs`).
            seen.menu_closed_only = before.is_some_and(|b| is_menu_item(b) && !crate::run::is_toggle_role(&b.role))
                && others.iter().all(|e| menu_closing(e))
                && popups.is_empty();
            // Shown before the input: an element off screen then (a closed select's
            // options) that only loses its text or actions vanished from nowhere.
            let shown_before =
                |id: &ElementId| pre.element(id).is_some_and(|e| e.has(State::Showing) && e.bounds.is_some());
            let emptied_here = |e: &Effect| match &e.kind {
                EffectKind::Changed { id, changes, .. } => emptied(changes, shown_before(id)),
                _ => false,
            };
            // An equal of the target appearing while the target is still read: a page
            // re-creating the control, read before the old one left the tree. Once that has
            // left, the two pair up as a widget rebuilt (no effect); an equal that stays
            // beside the target is an effect, after the same wait as things gone.
            let twin = |e: &Effect| match (&e.kind, before, after) {
                (EffectKind::Appeared { element, .. }, Some(b), Some(_)) => {
                    element.role == b.role && element.name == b.name && element.id != b.id
                }
                _ => false,
            };
            // Text blanked where it stands (a field cleared, or a page going inert under a
            // modal before it leaves the screen) is held like things gone, more briefly.
            let blanked = |e: &Effect| match &e.kind {
                EffectKind::Changed { changes, .. } => {
                    only_lost(changes)
                        && changes.iter().any(|c| {
                            matches!(c, FieldChange::Text { .. } | FieldChange::Value { .. } | FieldChange::Name { .. })
                        })
                }
                _ => false,
            };
            seen.gone_only = others.iter().all(|e| {
                matches!(&e.kind, EffectKind::Gone { .. } | EffectKind::WindowClosed(_))
                    || emptied_here(e)
                    || blanked(e)
                    || twin(e)
            });
            seen.emptied_in_place = seen.gone_only && others.iter().any(|e| emptied_here(e));
            seen.twin_beside = seen.gone_only && others.iter().any(|e| twin(e));
        }
        Goal::AnyChange => {}
        Goal::Typed { typed, before: at_start } => {
            let (was, now) = (before.map(text_of).unwrap_or_default(), after.map(text_of).unwrap_or_default());
            seen.feedback |= was != now;
            if let Some(shows) = typed_landed(typed, at_start.as_deref(), before, after) {
                seen.verified = Some(shows);
            } else if let Some((over, editor)) =
                // The target as resolved when the read before the input no longer holds it:
                // Calc re-creates every cell when the input begins.
                before.or(resolved).and_then(|b| Some((b, in_place_editor(pre, post, b, typed)?)))
            {
                seen.feedback = true;
                seen.verified = Some(format!(
                    "{} drawn over {} now shows {:?} (the application's editor for it, which it commits on Enter or Tab)",
                    editor.describe(),
                    over.describe(),
                    text_of(editor)
                ));
            } else {
                seen.strays = strays(&d, target, typed, pre, post);
                seen.note = join(seen.note.take(), describe_strays(&seen.strays, target, post));
                let garbled = garbled_inside(&d, target, typed, pre, post);
                seen.feedback |= garbled.is_some();
                seen.note = join(seen.note.take(), garbled);
                if seen.strays.is_empty() {
                    seen.typed_so_far = crate::typed::typed_so_far(typed, before, after);
                    seen.done_as_asked = crate::typed::went_in_otherwise(typed, before, after);
                }
            }
        }
        Goal::Set { value } => {
            seen.verified = value_set(value, after);
            let otherwise = || crate::typed::set_otherwise(value, before, after);
            seen.done_as_asked = seen.verified.is_none().then(otherwise).flatten();
            seen.feedback |= seen.done_as_asked.is_some();
        }
        Goal::Expect(c, own) => {
            let now = condition::check(c, &post.tree);
            let was = condition::check(c, &pre.tree);
            if now.met && (!was.met || (!effects.is_empty() && condition::met_anew(c, &pre.tree, &post.tree))) {
                seen.verified = Some(now.what);
            } else if now.met {
                seen.note = join(
                    seen.note.take(),
                    Some(format!("{} already before the input, so it cannot tell the input's effect", now.what)),
                );
                seen.held_before = true;
            } else {
                // The action did what it promises (the text typed in, the value set), read
                // back from the target, and the expectation still does not hold: the input
                // landed, and another method would only do the same again.
                seen.done_as_asked = match own.as_deref() {
                    // A secret's text is never written out: its length only.
                    Some(Goal::Typed { typed, before: at_start }) => {
                        typed_landed(typed, at_start.as_deref(), before, after).map(|shows| {
                            match after.is_some_and(is_secret) {
                                true => {
                                    format!("{shows}: {} characters inserted into what it held", typed.chars().count())
                                }
                                false => format!("{shows}: {typed:?} inserted into what it held"),
                            }
                        })
                    }
                    Some(Goal::Set { value }) if before.map(text_or_value) != after.map(text_or_value) => {
                        value_set(value, after)
                    }
                    _ => None,
                };
                seen.feedback |= seen.done_as_asked.is_some();
            }
        }
    }
    // A dialog that appeared over the very control the input went to, which is still shown
    // beneath it, may have taken the input (an interruption placed there, a web page's
    // modal making the rest inert): with nothing more specific expected, the other changes
    // that came with it do not make it the effect. A menu item hidden or gone meanwhile
    // took the input: it closes its menu, then its dialog opens where the menu was. Any
    // other target gone with the dialog's arrival did not say so (a web page's modal drops
    // the rest of the page from the accessibility tree). Only bounds known to cover the
    // target count here.
    let over_target = popups.iter().find(|e| popup_bounds(e).is_some() && covers(popup_bounds(e), before));
    // A target still read but no longer shown left with the popup it was in (a popover's
    // button: evince's Properties), so the dialog is not over it.
    let closed_its_menu = (before.is_some_and(is_menu_item) && !after.is_some_and(|a| a.has(State::Showing)))
        || (before.is_some_and(|b| b.has(State::Showing)) && after.is_some_and(|a| !a.has(State::Showing)));
    // The target's own window closed with the input (a dialog's button), and a dialog opened
    // where it was: the next step of what the click did (KolourPaint's Discard, then its
    // next question), not something over a target that is no longer there. A web page's
    // modal leaves the page's window open.
    let its_window_closed = target.is_some_and(|t| {
        let window = pre.snap.ancestors(t).find(|n| pre.snap.window(n.id()).is_some()).map(|n| n.id().clone());
        window.is_some_and(|w| effects.iter().any(|e| matches!(&e.kind, EffectKind::WindowClosed(c) if c.id == w)))
    });
    if let (Goal::AnyChange, Some(p), false, false) =
        (goal, over_target, seen.toggle == Toggle::Changed, closed_its_menu || its_window_closed)
        && !others.is_empty()
    {
        seen.verified = None;
        seen.blocking = blocking_from(p, &post.tree);
        let changes = seen.changes.clone().unwrap_or_default();
        seen.note = join(seen.note.take(), Some(format!("a dialog appeared over the target ({changes})")));
        return seen;
    }
    if seen.verified.is_none() && others.is_empty() {
        let popup = popups.first().and_then(|e| Some((blocking_from(e, &post.tree)?, popup_bounds(e))));
        match popup {
            // A dialog that opened away from the target, after the input, with nothing
            // else expected: the input's own effect (a button that asks, informs, opens a
            // file chooser). Reporting it as blocking invites a retry that opens it twice.
            // So is one over a menu's entry that no longer says it is shown: the entry took
            // the input and closed its menu (GTK 2, which never says an entry is shown, opens
            // File > New's dialog over the place of the menu).
            Some((b, bounds)) if matches!(goal, Goal::AnyChange) && (!covers(bounds, before) || closed_its_menu) => {
                seen.verified = Some(opened(&b));
            }
            // Over the very control the input went to, or short of what was expected: it
            // may have taken the input, so it is reported, never dismissed blindly.
            Some((b, _)) => seen.blocking = Some(b),
            None => {}
        }
    }
    seen
}

/// Whether `e` is an item of a menu (plain, check or radio), which closes its menu when chosen.
pub(crate) fn is_menu_item(e: &Element) -> bool {
    crate::popup::is_menu_item(e.role.as_str())
}

/// Where a popup effect lies on screen, when known.
fn popup_bounds(e: &Effect) -> Option<Rect<Logical>> {
    match &e.kind {
        EffectKind::WindowOpened(w) => w.bounds,
        EffectKind::Appeared { element, .. } => element.bounds,
        _ => None,
    }
}

/// Whether a popup at `popup` covers the centre of `target` as it was before the input
/// (where the input went). Unknown bounds cover: the cautious reading.
fn covers(popup: Option<Rect<Logical>>, target: Option<&Element>) -> bool {
    match (popup, target.and_then(|t| t.bounds)) {
        (Some(p), Some(t)) => p.contains(t.center()),
        _ => true,
    }
}

/// The words for a popup the input opened: its role, name and what it shows.
pub(crate) fn opened(b: &Blocking) -> String {
    let texts: Vec<String> = b.texts.iter().map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    let shows = if texts.is_empty() { String::new() } else { format!(" showing {}", texts.join(" | ")) };
    format!("{} {:?} opened{shows}", b.role, b.name)
}

/// Two notes as one, `; ` between them.
pub(crate) fn join(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests;
