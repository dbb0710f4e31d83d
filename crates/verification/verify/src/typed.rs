//! Where typed text went: into the target exactly (or the value set there), into an
//! editor drawn over it, or astray into other fields.

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

/// What the target shows once `typed` went in exactly (inserted at one place into its text
/// from before the action, `at_start`, or from before this attempt), in words; `None`
/// when it did not.
pub(crate) fn typed_landed(
    typed: &str,
    at_start: Option<&str>,
    before: Option<&Element>,
    after: Option<&Element>,
) -> Option<String> {
    let (was, now) = (before.map(text_of).unwrap_or_default(), after.map(text_of).unwrap_or_default());
    let secret = after.is_some_and(is_secret);
    let landed = match secret {
        // A password field shows one mask character per character: count them.
        true => now.chars().count() == was.chars().count() + typed.chars().count(),
        // Against the text from before the action (a fallback's read before shows what an
        // earlier attempt left), or this attempt's.
        false => {
            at_start.is_some_and(|b| inserted(b, &now, typed))
                || inserted(&was, &now, typed)
                || (is_grid(after) && inserted(&unwrapped(&was), &unwrapped(&now), typed))
        }
    };
    if !(landed && (was != now || typed.is_empty())) {
        return None;
    }
    let shows = match secret {
        // Even the mask: an app may show a password's text to accessibility.
        true => format!("{} characters", now.chars().count()),
        false => format!("{now:?}"),
    };
    Some(format!("{} now shows {shows}", after.map_or_else(String::new, Element::describe)))
}

/// Whether `e` shows its text as a grid of rows (a terminal): a line longer than a row goes
/// on at the start of the next, which its text tells with a line break where none was typed.
fn is_grid(e: Option<&Element>) -> bool {
    e.is_some_and(|e| e.role.as_str() == "terminal")
}

/// A grid's text with its rows joined and its blank end dropped (see [`is_grid`]).
fn unwrapped(text: &str) -> String {
    let rows: Vec<&str> = text.split('\n').collect();
    let kept = rows.iter().rposition(|r| !r.trim().is_empty()).map_or(0, |last| last + 1);
    rows[..kept].concat()
}

/// How many characters of `typed` show in the target so far, when a beginning of it (not
/// all) went in at one place: what a slow app shows while the rest of the keys are still on
/// their way (gedit took 2,000 typed characters for 9 s, and "went in, not as typed" at 4 s
/// failed an action whose keys all landed). Never for a secret (its text is masked).
pub(crate) fn typed_so_far(typed: &str, before: Option<&Element>, after: Option<&Element>) -> Option<usize> {
    if after.is_some_and(is_secret) {
        return None;
    }
    let (was, now) = (before.map(text_of).unwrap_or_default(), after.map(text_of).unwrap_or_default());
    let k = now.chars().count().checked_sub(was.chars().count()).filter(|&k| k > 0)?;
    let prefix: String = typed.chars().take(k).collect();
    (k < typed.chars().count() && inserted(&was, &now, &prefix)).then_some(k)
}

/// How long typed text that shows only a beginning of what was typed may stop growing
/// before it is judged as it stands.
const KEYS_STALLED: std::time::Duration = std::time::Duration::from_millis(600);

/// Whether keys are still arriving: `so_far` characters of the typed text show (see
/// [`typed_so_far`]), more than last time or within [`KEYS_STALLED`] of the last growth,
/// remembered in `memory`. Then the window extends as for the app's work, and the text is
/// not judged as gone in otherwise; once it stopped growing, it is judged as it stands.
pub(crate) fn still_arriving(so_far: Option<usize>, memory: &mut Option<(usize, std::time::Instant)>) -> bool {
    let Some(k) = so_far else { return false };
    if memory.is_none_or(|(was, _)| k > was) {
        *memory = Some((k, std::time::Instant::now()));
    }
    memory.is_some_and(|(_, at)| at.elapsed() < KEYS_STALLED)
}

/// The target's own text changed, and not to the text typed (no key went elsewhere: the
/// caller checks): the keys went in, and the app shows them its own way (gnome-calculator's
/// "×" for "*") or took some of them. In words; writing the text again would double what
/// went in. A secret's text is said by its length only.
pub(crate) fn went_in_otherwise(typed: &str, before: Option<&Element>, after: Option<&Element>) -> Option<String> {
    let (was, now) = (before.map(text_of).unwrap_or_default(), after.map(text_of).unwrap_or_default());
    if was == now {
        return None;
    }
    let target = after.map_or_else(String::new, Element::describe);
    Some(match after.is_some_and(is_secret) {
        true => format!("{target} now holds {} characters", now.chars().count()),
        false => format!("{target} now shows {now:?}, not its text with {typed:?} inserted"),
    })
}

/// The target's own value changed, and not to the value set: the app took it its own way
/// (a spin button's limit: 99999999 became its maximum, 5242880; a step, a rounding). In
/// words; another method would only enter it again, as keys that a field reads its own way
/// (GTK's spin button, given "abc" after that, was left blank). A secret's value is said by
/// its length only.
pub(crate) fn set_otherwise(value: &str, before: Option<&Element>, after: Option<&Element>) -> Option<String> {
    let (was, now) = (before.map(text_or_value)?, after.map(text_or_value)?);
    if was == now || after.is_some_and(is_secret) {
        return None;
    }
    let target = after.map_or_else(String::new, Element::describe);
    Some(format!("{target} now has value {now:?}, not {value:?}"))
}

pub(crate) fn text_or_value(e: &Element) -> String {
    e.value.clone().or_else(|| e.text.clone()).unwrap_or_default()
}

/// What the target holds once its value (or text) is `value`, in words; `None` otherwise.
pub(crate) fn value_set(value: &str, after: Option<&Element>) -> Option<String> {
    let now = after.map(text_or_value);
    let set = match (after.is_some_and(is_secret), &now) {
        (true, Some(now)) => now.chars().count() == value.chars().count(),
        // A combo box that names itself by its current item (see `run::shows_its_choice`).
        (_, now) => {
            now.as_deref() == Some(value)
                || after.is_some_and(|e| {
                    crate::run::shows_its_choice(e) && e.value.is_none() && e.name.trim() == value.trim()
                })
        }
    };
    if !set {
        return None;
    }
    let has = match after.is_some_and(is_secret) {
        // The value set into a password field is never written out.
        true => format!("holds the {} characters set", value.chars().count()),
        false => format!("has value {value:?}"),
    };
    Some(format!("{} now {has}", after.map_or_else(String::new, Element::describe)))
}

#[cfg(test)]
mod tests {
    use deft_a11y::element;

    use super::{inserted, typed_landed, typed_so_far};

    #[test]
    fn typing_is_verified_as_an_insertion_of_exactly_the_typed_text() {
        assert!(inserted("carol", "carolcarol", "carol"), "type inserts: carol into carol");
        assert!(inserted("", "ada", "ada"));
        assert!(inserted("ab", "axyb", "xy"), "at the caret, inside");
        assert!(!inserted("carol", "carol", "carol"), "nothing typed is not typed");
        assert!(!inserted("abc", "xy", "xy"), "a field whose text was replaced lost its text");
        assert!(!inserted("ab", "axby", "xy"), "split apart is not what was typed");
        assert!(inserted("é", "éü", "ü") && !inserted("é", "üé ", "ü"));
    }

    #[test]
    fn a_terminal_s_line_wrapped_at_its_width_is_still_what_was_typed() {
        let screen = |text: &str, role: &str| {
            let mut e = element("t", role, "Terminal");
            e.text = Some(text.into());
            e
        };
        let (was, typed) = ("$ \n\n\n", "echo aaaa >> log");
        // lxterminal at its width: the command goes on at the next row, one blank row fewer.
        let now = "$ echo aa\naa >> log\n\n";
        let before = screen(was, "terminal");
        assert!(typed_landed(typed, None, Some(&before), Some(&screen(now, "terminal"))).is_some());
        // Twice is not once, wrapped or not; and only a grid's rows wrap into its text.
        let twice = "$ echo aa\naa >> logecho aaaa >> log\n";
        assert!(typed_landed(typed, None, Some(&before), Some(&screen(twice, "terminal"))).is_none());
        assert!(typed_landed(typed, None, Some(&screen(was, "text")), Some(&screen(now, "text"))).is_none());
    }

    #[test]
    fn a_value_the_app_took_its_own_way_is_said_once_it_changed() {
        let spin = |v: &str| {
            let mut e = element("spin", "spin_button", "Scrollback");
            e.value = Some(v.into());
            e
        };
        let said = super::set_otherwise("99999999", Some(&spin("777")), Some(&spin("5242880")));
        assert!(said.is_some_and(|s| s.contains("\"5242880\", not \"99999999\"")));
        assert_eq!(super::set_otherwise("5", Some(&spin("777")), Some(&spin("777"))), None, "unchanged: not taken");
    }

    #[test]
    fn a_beginning_of_the_typed_text_is_keys_still_arriving() {
        let field = |text: &str| {
            let mut e = element("t", "text", "Doc");
            e.text = Some(text.into());
            e
        };
        let typed = "yyyyyyyyyy";
        assert_eq!(typed_so_far(typed, Some(&field("a")), Some(&field("ayyy"))), Some(3));
        assert_eq!(typed_so_far(typed, Some(&field("ab")), Some(&field("ayyyb"))), Some(3), "at the caret");
        assert_eq!(typed_so_far(typed, Some(&field("a")), Some(&field("ayyyyyyyyyy"))), None, "all of it");
        assert_eq!(typed_so_far("abc", Some(&field("")), Some(&field("ax"))), None, "not its beginning");
        assert_eq!(typed_so_far(typed, Some(&field("a")), Some(&field("a"))), None, "nothing yet");
        let mut secret = field("●●");
        secret.role = deft_types::Role::new("password_text");
        assert_eq!(typed_so_far(typed, Some(&field("")), Some(&secret)), None, "a secret is masked");
    }
}
