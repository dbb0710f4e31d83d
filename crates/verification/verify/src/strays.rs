//! Putting back what typed text did to other fields: when the keyboard focus moves while
//! typing (a field that steals it, a dialog's entry), the rest of the keys land elsewhere.
//! The action itself is made good by its fallback (the target's text is set); the other
//! field is set back to what it showed before the input, through accessibility, so that
//! nothing is left behind that the caller did not ask for.
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

impl<A: Accessibility> Executor<A> {
    /// Sets each stray field back to its text from before the input; one line per field
    /// saying what was done.
    pub(crate) async fn put_back(&self, strays: &[Stray]) -> Vec<String> {
        let mut said = Vec::new();
        for s in strays {
            let line = match self.a11y.element(&s.id).await {
                Ok(e) if text_of(&e) == s.now => match self.a11y.set_text(&s.id, &s.was).await {
                    Ok(()) => match self.a11y.element(&s.id).await {
                        Ok(e) if text_of(&e) == s.was => {
                            format!("{:?} that went to {} was taken back (it shows {:?} again)", s.now, s.field, s.was)
                        }
                        _ => format!("{} got {:?}; setting it back to {:?} did not take", s.field, s.now, s.was),
                    },
                    Err(e) => format!("{} got {:?}; it could not be set back to {:?}: {e}", s.field, s.now, s.was),
                },
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
}
