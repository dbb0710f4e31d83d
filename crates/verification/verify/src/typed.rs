//! Where typed text went: into the target, into an editor drawn over it, or astray into
//! other fields.

use deft_types::{Element, ElementId, State};

use crate::observe::{Stray, is_secret, text_of};
use crate::read::Reading;

/// The editor an application opened over the target for the keys, holding them until it
/// commits them: LibreOffice Calc's cell editor, a table's or tree view's in-place entry.
/// It is another element than the target, so it counts only when it is focused, editable,
/// not secret, drawn over the target (its top-left corner inside the target, or the
/// target's centre inside it), and shows the typed text that it did not show before.
pub(crate) fn in_place_editor<'a>(
    pre: &Reading,
    post: &'a Reading,
    target: &Element,
    typed: &str,
) -> Option<&'a Element> {
    let area = target.bounds?;
    if typed.is_empty() {
        return None;
    }
    post.snap.nodes().map(|n| n.element()).find(|e| {
        e.id != target.id
            && e.has(State::Focused)
            && e.has(State::Editable)
            && !is_secret(e)
            && e.bounds.is_some_and(|b| area.contains(b.origin()) || b.contains(area.center()))
            && text_of(e).contains(typed)
            && pre.element(&e.id).is_none_or(|p| !text_of(p).contains(typed))
    })
}

/// Where typed text went when it did not land in the target: other editable fields whose
/// text changed to include part of it and that hold the keyboard focus (the focus moved
/// while typing: keys go where the focus is). A field that shows the typed text without
/// the focus mirrors an editor (LibreOffice's input line shows what its cell editor
/// holds): setting it back cleared the cell being typed into. Password fields are left
/// out: their text is masked, so it could not be put back. A text inside the target is
/// where its keys go, never astray: setting it back wrote what it showed before (Impress's
/// prompt "Click to add Title") into the title as its text.
pub(crate) fn strays(
    d: &deft_snapshot::SnapshotDiff,
    target: Option<&ElementId>,
    typed: &str,
    pre: &Reading,
    post: &Reading,
) -> Vec<Stray> {
    let piece = |t: &str| typed.len() >= 2 && (t.contains(typed) || typed_tail_in(typed, t));
    d.changed
        .iter()
        .filter(|c| Some(&c.id) != target)
        .filter(|c| !target.is_some_and(|t| inside(post, &c.id, t)))
        .filter_map(|c| {
            let element = post.element(&c.id)?;
            let now = text_of(element);
            let was = pre.element(&c.id).map(text_of).unwrap_or_default();
            let focused = element.has(State::Focused);
            let stray = was != now && piece(&now) && focused && !is_secret(element);
            stray.then(|| Stray { id: c.id.clone(), field: element.describe(), was, now })
        })
        .collect()
}

/// A text inside the target whose text the keys changed without showing them as typed
/// (they landed out of order): what it shows, in words. The keys arrived, so no second
/// input may follow; the caller is told what they made.
pub(crate) fn garbled_inside(
    d: &deft_snapshot::SnapshotDiff,
    target: Option<&ElementId>,
    typed: &str,
    pre: &Reading,
    post: &Reading,
) -> Option<String> {
    let target = target?;
    d.changed.iter().find_map(|c| {
        let element = post.element(&c.id)?;
        let (was, now) = (pre.element(&c.id).map(text_of).unwrap_or_default(), text_of(element));
        let garbled = inside(post, &c.id, target) && was != now && !now.contains(typed) && element.has(State::Editable);
        garbled.then(|| {
            format!(
                "the keys reached {} inside the target, which shows {now:?}, not the typed text",
                element.describe()
            )
        })
    })
}

/// Whether `id` lies inside `target` in `r`.
fn inside(r: &Reading, id: &ElementId, target: &ElementId) -> bool {
    r.snap.ancestors(id).any(|a| a.element().id == *target)
}

pub(crate) fn describe_strays(strays: &[Stray], target: Option<&ElementId>, post: &Reading) -> Option<String> {
    if strays.is_empty() {
        return None;
    }
    let landed: Vec<String> = strays.iter().map(|s| format!("{} got {:?}", s.field, s.now)).collect();
    let shown = target.and_then(|t| post.element(t)).map(|e| format!("; the target shows {:?}", text_of(e)));
    Some(format!(
        "typed text went to another field: {} (the keyboard focus moved while typing){}",
        landed.join(", "),
        shown.unwrap_or_default()
    ))
}

/// Whether `text` contains a tail of `typed` at least 2 characters long: what lands in
/// another field when the focus moves part-way through typing.
fn typed_tail_in(typed: &str, text: &str) -> bool {
    let chars: Vec<char> = typed.chars().collect();
    (1..chars.len().saturating_sub(1)).any(|k| {
        let tail: String = chars[k..].iter().collect();
        tail.chars().count() >= 2 && text.contains(&tail)
    })
}

/// Whether `now` is `was` with `typed` inserted at one place.
pub(crate) fn inserted(was: &str, now: &str, typed: &str) -> bool {
    if now.len() != was.len() + typed.len() {
        return false;
    }
    was.char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(was.len()))
        .any(|i| now.starts_with(&was[..i]) && now[i..].starts_with(typed) && now[i + typed.len()..] == was[i..])
}
