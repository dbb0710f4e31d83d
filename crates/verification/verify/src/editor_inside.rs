//! Keys for a target whose text lives inside it: a presentation's title placeholder, a
//! drawing's text shape. The target says it is editable but has no text of its own; an
//! editable text inside it takes the keys once the application has opened it for
//! editing, which a person does by clicking into it. Focusing the target through
//! accessibility only selects it (LibreOffice Impress), and keys typed then open the
//! editor while they arrive: the first lands, the next ones land out of order around it
//! ("H Impressello" for "Hello Impress", 2 runs in 3). So the target is clicked into, as
//! a person does, and nothing is typed until a text inside it holds the keyboard focus.

use std::time::{Duration, Instant};

use deft_a11y::{Accessibility, Scope, SnapshotOptions};
use deft_input::{Chord, Key, Modifier, NamedKey, mapping};
use deft_retry::Report;
use deft_types::{Element, ElementId, MouseButton, Physical, Point, State};

use crate::executor::{Executor, lock};
use crate::resolve::Resolved;
use crate::send::{input_refused, refused};

/// How long the application gets to open its editor after the last click.
const EDITOR_WAIT: Duration = Duration::from_millis(1000);
/// How long after a first click that only selected the target the second one goes: past
/// any double-click time (GTK's is 400 ms), so it is a click of its own.
const SECOND_CLICK_AFTER: Duration = Duration::from_millis(600);

/// Whether `target` keeps its text in elements inside it rather than in itself: editable,
/// no text of its own, with children.
pub(crate) fn holds_text_inside(target: &Element) -> bool {
    target.has(State::Editable) && target.text.is_none() && target.child_count > 0
}

/// The editable texts among `inside` (the target's subtree, the target first), secrets
/// left out: what the keys are for.
pub(crate) fn editable_texts(inside: &[Element]) -> Vec<ElementId> {
    inside
        .iter()
        .skip(1)
        .filter(|e| e.has(State::Editable) && e.text.is_some() && !e.is_secret())
        .map(|e| e.id.clone())
        .collect()
}

impl Executor {
    /// For a target that keeps its text inside it: clicks into it unless a text inside
    /// already holds the focus, and waits until one does. `None` for any other target
    /// (the caller focuses it as usual); words for the input's description otherwise.
    pub(crate) async fn open_editor_inside(&self, t: &Resolved, target: &Element) -> Option<Result<String, Report>> {
        if !holds_text_inside(target) {
            return None;
        }
        let texts = self.texts_inside(&target.id).await;
        if texts.is_empty() {
            return None;
        }
        match self.focused_among(&texts, Duration::ZERO).await {
            Some(open) => Some(self.caret_to_end(&open).map(|end| end.to_string())),
            None => Some(self.click_into(t, target, &texts).await),
        }
    }

    /// Clicks where a person clicks to edit it: on the text inside (the centre of the
    /// shape can be past the end of its text, where a click only selects the shape), else
    /// on the target. When that click only selected the target (it says selected or
    /// focused, and no text inside took the focus), it is clicked once more, as a person
    /// does: Impress opens a placeholder's text on a click into a selected shape. The second
    /// click waits out a double click (which would select a word the keys then replace).
    async fn click_into(&self, t: &Resolved, target: &Element, texts: &[ElementId]) -> Result<String, Report> {
        let mut clicks = Vec::new();
        for wait in [SECOND_CLICK_AFTER, EDITOR_WAIT] {
            let at = self.point_to_edit(t, target, texts).await?;
            self.click(at, MouseButton::Left, 1)?;
            clicks.push(format!("({}, {})", at.x, at.y));
            if let Some(open) = self.focused_among(texts, wait).await {
                let end = self.caret_to_end(&open)?;
                return Ok(format!(", after a click at {} that opened the text inside it{end}", clicks.join(" and ")));
            }
            let now = self.a11y.element(&target.id).await.ok();
            if !now.is_some_and(|e| e.has(State::Selected) || e.has(State::Focused)) {
                break;
            }
        }
        Err(refused(format!(
            "{} keeps its text inside it, and no text inside it took the keyboard focus after a click at {}: nothing \
             was typed (keys sent while the application opens its editor can land out of order)",
            t.describe(),
            clicks.join(" and ")
        )))
    }

    /// Where to click to edit: the first text inside that has a place, else the target; read
    /// now, since selecting the target can move the view.
    async fn point_to_edit(
        &self,
        t: &Resolved,
        target: &Element,
        texts: &[ElementId],
    ) -> Result<Point<Physical>, Report> {
        let mut bounds = None;
        for id in texts.iter().chain(std::iter::once(&target.id)) {
            bounds = self.a11y.element(id).await.ok().and_then(|e| e.bounds).filter(|b| b.w > 1 && b.h > 1);
            if bounds.is_some() {
                break;
            }
        }
        let bounds =
            bounds.or(target.bounds).ok_or_else(|| refused(format!("{} has no place on the screen", t.describe())))?;
        mapping::click_point(bounds, t.scale).map_err(input_refused)
    }

    /// The first of `texts` to hold the keyboard focus within `limit`, as read then.
    async fn focused_among(&self, texts: &[ElementId], limit: Duration) -> Option<Element> {
        let until = Instant::now() + limit;
        let mut waker = self.waker_if_listening();
        loop {
            for id in texts {
                if let Some(e) = self.a11y.element(id).await.ok().filter(|e| e.has(State::Focused)) {
                    return Some(e);
                }
            }
            if Instant::now() >= until {
                return None;
            }
            waker.next(until).await;
        }
    }

    /// Puts the caret after the text of `open` when it holds any (the click placed it
    /// inside), with ctrl+End; the words for the input's description.
    fn caret_to_end(&self, open: &Element) -> Result<&'static str, Report> {
        if open.text.as_deref().unwrap_or_default().is_empty() {
            return Ok("");
        }
        let end = Chord { modifiers: vec![Modifier::Ctrl], key: Key::Named(NamedKey::End) };
        lock(&self.input).chord(&end).map_err(input_refused)?;
        Ok(", then ctrl+End to type after its text")
    }

    /// The editable texts inside `id` (see [`editable_texts`]); none when it cannot be read.
    async fn texts_inside(&self, id: &ElementId) -> Vec<ElementId> {
        let scope = Scope::Subtree(id.clone());
        match self.a11y.snapshot(&scope, &SnapshotOptions::default()).await {
            Ok(tree) => editable_texts(&tree.nodes.iter().map(|n| n.element.clone()).collect::<Vec<_>>()),
            Err(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use deft_types::{Element, ElementId, State};

    use super::{editable_texts, holds_text_inside};

    fn element(id: &str, role: &str, text: Option<&str>, states: &[State]) -> Element {
        let mut e = deft_a11y::element(id, role, "");
        e.text = text.map(String::from);
        for s in states {
            e.states.insert(*s);
        }
        e
    }

    #[test]
    fn a_shape_with_a_text_inside_keeps_its_text_there_and_a_field_or_a_canvas_does_not() {
        let mut shape = element("title", "panel", None, &[State::Editable]);
        shape.child_count = 1;
        assert!(holds_text_inside(&shape));
        // A field has its own text; a canvas that takes keys itself is not editable.
        let mut field = element("f", "text", Some("abc"), &[State::Editable]);
        field.child_count = 1;
        assert!(!holds_text_inside(&field));
        let mut canvas = element("c", "drawing_area", None, &[State::Focusable]);
        canvas.child_count = 1;
        assert!(!holds_text_inside(&canvas));
        assert!(!holds_text_inside(&element("empty", "panel", None, &[State::Editable])));
    }

    #[test]
    fn the_keys_are_for_the_editable_texts_inside_never_a_secret_or_the_shape_itself() {
        let shape = element("title", "panel", None, &[State::Editable]);
        let para = element("p", "paragraph", Some("Click to add Title"), &[State::Editable]);
        let label = element("l", "label", Some("Title"), &[]);
        let secret = element("s", "password_text", Some("••"), &[State::Editable]);
        let found = editable_texts(&[shape, para, label, secret]);
        assert_eq!(found, vec![ElementId("p".into())]);
    }
}
