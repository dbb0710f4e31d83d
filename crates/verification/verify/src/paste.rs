//! The paste: text put into a field with a middle click, for a field whose page swallows
//! every key and that has no working accessible text setter (Chromium's, Firefox's).

use deft_a11y::Accessibility;
use deft_retry::Report;
use deft_types::{Action, Element, ErrorClass, Method, Physical, Point, State};

use crate::executor::{Executor, lock};
use crate::resolve::Resolved;
use crate::send::{Sent, input_refused, refused};

/// How a paste's words end when no application asked for the text after the middle click
/// (`act.rs` notes it on the attempt: the click pasted nothing).
pub(crate) const NOT_ASKED: &str = "the application under the pointer did not ask for the text";

/// Room the text must leave before the field's edge for a click past its end (pixels).
const ROOM_AFTER_TEXT: i32 = 6;

impl Executor {
    /// Pastes what `action` puts into the target with a middle click (see
    /// [`deft_input::Input::paste_at`]). A paste lands where the pointer is, so: into an
    /// empty field anywhere in it; after the text a `type` appends to only where that text
    /// is all the field holds and its end is shown inside the field (the click goes past
    /// it); never over text it would have to replace. Only into a shown single-line field,
    /// and never a secret one (while the text is offered as the primary selection, any
    /// application may ask for it).
    pub(crate) async fn paste(&self, action: &Action, target: Option<&Resolved>, before_text: &str) -> Sent {
        let Some((t, e)) = target.and_then(|t| Some((t, t.element.as_ref()?))) else {
            return Err(refused("the target is not an accessible field, so nothing tells where a paste would land"));
        };
        let field = e.describe();
        if e.is_secret() {
            return Err(refused(format!(
                "{field} holds a secret: pasting offers the text as the primary selection, which any application \
                 could read, so it is not pasted"
            )));
        }
        if !(e.has(State::Editable) && e.has(State::SingleLine)) {
            return Err(refused(format!("{field} is not a single-line text field, so a paste could land anywhere")));
        }
        // A field with a value of its own (a spin button) holds its step buttons inside its
        // bounds, beside its text: a middle click there steps the value (gtk3-demo's
        // Numeric spin button went from 0.00 to -100.00).
        if e.value.is_some() || e.role.as_str() == "spin_button" {
            return Err(refused(format!(
                "{field} holds a value with buttons beside its text that a middle click would press, so it is \
                 not pasted into; set its value instead"
            )));
        }
        if !e.has(State::Showing) || e.bounds.is_none_or(|b| b.is_empty()) {
            return Err(refused(format!("{field} is not shown, so a middle click could land on something else")));
        }
        let Some(now) = e.text.as_deref() else {
            return Err(refused(format!(
                "the text of {field} cannot be read, so nothing tells where a paste would land"
            )));
        };
        let (text, after_the_text) = match action {
            Action::Type { text, .. } if now.is_empty() => (format!("{before_text}{text}"), false),
            Action::Type { text, .. } if now == before_text => (text.clone(), true),
            Action::SetValue { value, .. } if now.is_empty() => (value.clone(), false),
            _ => {
                return Err(refused(format!(
                    "{field} holds text a paste cannot replace (a middle click adds text where the pointer is)"
                )));
            }
        };
        let inside = self.insertion_point(target).await.is_some_and(|at| at < before_text.chars().count());
        if after_the_text && inside {
            return Err(refused(format!(
                "the caret of {field} is inside its text, where `type` inserts, and a middle click pastes where the \
                 pointer is, not at the caret"
            )));
        }
        let at = match after_the_text {
            true => self.past_the_text(t, e).await?,
            false => self.pointer_point(target, Method::MiddleClickPaste)?,
        };
        let taken = lock(&self.input).paste_at(at, &text).map_err(|err| match err.class() {
            // The display server may have taken part of it (the click): not sent again.
            ErrorClass::Transient => Report::SendUncertain { message: err.to_string() },
            _ => input_refused(err),
        })?;
        let n = text.chars().count();
        Ok(match taken {
            true => format!("pasted {n} characters with a middle click at ({}, {})", at.x, at.y),
            // Sent, but nothing asked for the text: verification sees what the click did.
            false => format!("middle-clicked at ({}, {}) to paste {n} characters; {NOT_ASKED}", at.x, at.y),
        })
    }

    /// A point in the field just past the end of its text: where a paste adds to the end.
    /// Just past it, not further: a field may keep a button at its far edge (a search
    /// field's clear button). Refused when the toolkit does not say where the text ends, or
    /// when its end is not shown inside the field with room after it (a text longer than
    /// the field, scrolled: a click there could land inside the text).
    async fn past_the_text(&self, t: &Resolved, e: &Element) -> Result<Point<Physical>, Report> {
        let field = e.describe();
        let bounds = e.bounds.ok_or_else(|| refused(format!("{field} has no bounds")))?;
        let end = self.a11y.text_end(&e.id).await.ok().flatten().ok_or_else(|| {
            refused(format!("{field}'s toolkit does not say where its text ends, so a paste could land inside it"))
        })?;
        let right = bounds.x.saturating_add(bounds.w as i32);
        let end_x = end.x.saturating_add(end.w as i32);
        let inside = end.x >= bounds.x && end_x.saturating_add(ROOM_AFTER_TEXT) < right;
        if !inside {
            return Err(refused(format!(
                "the end of {field}'s text is not shown inside it with room after it (the text may be longer than \
                 the field), so a paste could land inside the text"
            )));
        }
        Ok(t.scale.to_physical(Point::new(end_x + ROOM_AFTER_TEXT / 2, bounds.center().y)))
    }
}
