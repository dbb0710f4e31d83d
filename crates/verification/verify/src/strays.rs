//! Putting back what typed text did to other fields: when the keyboard focus moves while
//! typing (a field that steals it, a dialog's entry), the rest of the keys land elsewhere.
//! The action itself is made good by its fallback (the target's text is set); the other
//! field is set back to what it showed before the input, through accessibility, so that
//! nothing is left behind that the caller did not ask for. Where setting text is not
//! offered or does not take (Chromium has no EditableText; Firefox's returns true and
//! changes nothing), the field is given the focus through accessibility and its text
//! replaced with key events.
//!
//! Only a field that still shows exactly what the stray keys made of it is touched: if
//! anything changed it since, it is left alone and reported.

use deft_a11y::Accessibility;

use crate::executor::Executor;
use crate::observe::{Stray, text_of};

/// Adds the strays of one read to those known, keeping each field's text from before the
/// input and its latest text.
pub(crate) fn merge(known: &mut Vec<Stray>, seen: &[Stray]) {
    for s in seen {
        match known.iter_mut().find(|k| k.id == s.id) {
            Some(k) => k.now.clone_from(&s.now),
            None => known.push(s.clone()),
        }
    }
}

impl Executor {
    /// Sets each stray field back to its text from before the input; one line per field
    /// saying what was done.
    pub(crate) async fn put_back(&self, strays: &[Stray]) -> Vec<String> {
        let mut said = Vec::new();
        for s in strays {
            let taken_back =
                || format!("{:?} that went to {} was taken back (it shows {:?} again)", s.now, s.field, s.was);
            let line = match self.a11y.element(&s.id).await {
                Ok(e) if text_of(&e) == s.now => {
                    let set = self.a11y.set_text(&s.id, &s.was).await;
                    if set.is_ok() && self.shows(&s.id, &s.was).await {
                        taken_back()
                    } else if self.put_back_by_keys(&s.id, &s.was).await {
                        format!("{} (by key events)", taken_back())
                    } else {
                        let why = match set {
                            Ok(()) => "setting it did not take, nor did key events".to_string(),
                            Err(e) => format!("{e}; key events did not take either"),
                        };
                        format!("{} got {:?}; it could not be set back to {:?}: {why}", s.field, s.now, s.was)
                    }
                }
                Ok(e) => format!(
                    "{} got {:?} and was left alone: it changed since (it shows {:?})",
                    s.field,
                    s.now,
                    text_of(&e)
                ),
                Err(e) => format!("{} got {:?}; it could not be read again to set it back: {e}", s.field, s.now),
            };
            said.push(line);
        }
        said
    }

    /// Whether `id` shows `text` now.
    async fn shows(&self, id: &deft_types::ElementId, text: &str) -> bool {
        self.a11y.element(id).await.is_ok_and(|e| text_of(&e) == text)
    }

    /// Gives `id` the focus through accessibility and replaces its text with `text` by key
    /// events; whether it shows `text` afterwards. Nothing is typed unless it has the focus.
    async fn put_back_by_keys(&self, id: &deft_types::ElementId, text: &str) -> bool {
        if !self.focus_quietly(id).await || self.replace_focused_text(text).is_err() {
            return false;
        }
        // The keys are handled when the app gets to them: read again on its next event.
        let until = std::time::Instant::now() + std::time::Duration::from_millis(500);
        let mut waker = self.waker().await;
        loop {
            if self.shows(id, text).await {
                return true;
            }
            if std::time::Instant::now() >= until {
                return false;
            }
            waker.next(until).await;
        }
    }
}
