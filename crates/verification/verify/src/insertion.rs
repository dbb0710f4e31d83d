//! Where `type` puts its text in a field. With no target, "type here": at the caret of the
//! element that has the keyboard focus, where a person's click or an earlier key left it
//! (as a keyboard types). Into a named element: after the text it holds, whatever its
//! caret says (a text set through accessibility leaves GTK's caret at the start, and "type
//! ' Lovelace' into Name" after filling it with "Ada" means "Ada Lovelace"). Never over a
//! selection: a field Deft gives the focus to may select all of its text as it takes it
//! (GTK entries do), and a selection the focused field had is kept too, the text going
//! after it. Keys and a text inserted through accessibility go to the same place, so a
//! fallback never lands elsewhere than the keys would have.

use deft_a11y::Accessibility;
use deft_input::{Chord, Key, Modifier, NamedKey};
use deft_retry::Report;
use deft_types::State;

use crate::executor::{Executor, lock};
use crate::resolve::{How, Resolved};
use crate::send::{Sent, a11y_failed, element_of, input_refused};

impl Executor {
    /// Replace `id`'s whole text with `value` through accessibility, then give it the
    /// keyboard focus, as a person who filled it in has it: the Return that follows is for
    /// this field (gnumeric's cell-address box was filled while Return went to the grid).
    pub(crate) async fn set_whole_text(
        &self,
        id: &deft_types::ElementId,
        element: Option<&deft_types::Element>,
        value: &str,
    ) -> Sent {
        self.a11y.set_text(id, value).await.map_err(a11y_failed)?;
        let unfocused = element.is_some_and(|e| e.has(State::Focusable) && !e.has(State::Focused));
        let focused = unfocused && self.a11y.focus(id).await.is_ok();
        // A field may select all it holds when it gets the focus (GTK's entries do): the
        // caret after the text, so keys typed next add to it.
        if focused {
            let _ = self.a11y.caret_to_end(id).await;
        }
        let and = if focused { ", and gave it the keyboard focus" } else { "" };
        Ok(format!("set its text ({} characters) through accessibility{and}", value.chars().count()))
    }

    /// The character offset `type` inserts at in `target`'s text, or `None` for after its
    /// text. Read before the field is focused for the keys.
    pub(crate) async fn insertion_point(&self, target: Option<&Resolved>) -> Option<usize> {
        let t = target?;
        let e = t.element.as_ref()?;
        if t.how != How::Focused || !e.has(State::Focused) {
            return None;
        }
        let caret = self.a11y.caret(&e.id).await.ok().flatten()?;
        (!caret.selected).then_some(caret.at)
    }

    /// Puts the caret of `target`, which holds text and has the keyboard focus, after its
    /// text, whatever part of it focusing selected: through accessibility, read back, else
    /// with the End key (Ctrl+End in a text of many lines, where End is the end of the
    /// caret's line only: zim's and Kate's typing went into the first line). Nothing in an
    /// element that does not say it is editable (a terminal): a key sent there reaches its
    /// program as input (End as `ESC [ F`, typed before the text), and its text is a screen,
    /// not a place to put a caret in.
    pub(crate) async fn caret_after_text(&self, target: &Resolved) -> Result<(), Report> {
        let Some(e) = target.element.as_ref().filter(|e| e.has(State::Editable)) else { return Ok(()) };
        if self.a11y.caret_to_end(&e.id).await.is_ok() {
            let count = self.a11y.element(&e.id).await.ok().and_then(|now| now.text).map(|t| t.chars().count());
            let caret = self.a11y.caret(&e.id).await.ok().flatten();
            if caret.zip(count).is_some_and(|(c, n)| c.at == n && !c.selected) {
                return Ok(());
            }
        }
        let many_lines = !e.has(State::SingleLine) && e.text.as_deref().is_some_and(|t| t.contains('\n'));
        let modifiers = if many_lines { vec![Modifier::Ctrl] } else { Vec::new() };
        let end = Chord { modifiers, key: Key::Named(NamedKey::End) };
        lock(&self.input).chord(&end).map_err(input_refused)
    }

    /// `type`'s text inserted through accessibility where the keys would have typed it,
    /// never set whole: what the field holds stays as it is (a set would replace it, and
    /// the toolkit's undo would then take all of it back at once: a document emptied by
    /// one Ctrl+Z). Where an earlier attempt's keys put a beginning of the text in before
    /// the rest went astray, only the rest goes in after it. Where the field holds
    /// anything else than its text from before with a beginning of this one (keys garbled
    /// it), its whole text is set back to what it was with the text inserted: what is
    /// replaced is only Deft's own.
    pub(crate) async fn insert_typed(&self, target: Option<&Resolved>, before_text: &str, text: &str) -> Sent {
        let (id, _) = element_of(target)?;
        let meant = self.insertion_point(target).await;
        let now = self.a11y.element(&id).await.map_err(a11y_failed)?.text.unwrap_or_default();
        let n = text.chars().count();
        match rest_to_insert(before_text, &now, text, meant) {
            Some((_, "")) => Ok(format!("left it as it was: all {n} characters were in it already")),
            Some((at, rest)) => {
                self.a11y.insert_text(&id, at, rest).await.map_err(a11y_failed)?;
                let end = now.chars().count();
                let place = if at == end { "after its text".to_string() } else { format!("at character {at}") };
                let part = if rest.len() == text.len() { String::new() } else { " (the rest of the text)".into() };
                Ok(format!("inserted {} characters{part} {place} through accessibility", rest.chars().count()))
            }
            None => {
                let whole = spliced(before_text, meant, text);
                self.a11y.set_text(&id, &whole).await.map_err(a11y_failed)?;
                Ok(format!(
                    "set its text back to what it held with the {n} characters inserted, through accessibility (it \
                     held other text than it did before: keys garbled it)"
                ))
            }
        }
    }
}

/// `before` with `text` put in at character `at` (`None`, or past its end: after it).
pub(crate) fn spliced(before: &str, at: Option<usize>, text: &str) -> String {
    let split = at.and_then(|at| before.char_indices().nth(at)).map_or(before.len(), |(i, _)| i);
    format!("{}{text}{}", &before[..split], &before[split..])
}

/// What is left to insert, and where (characters), for `text` to stand in `now` at one
/// place, when `now` is the text from `before` with only a beginning of `text` in it (an
/// earlier attempt's keys that landed before the rest went astray): `Some((at, rest))`.
/// The place the text was meant for (`meant`, after `before` when `None`) is looked at
/// first. `None` when `now` holds anything else (text of `before` gone or changed).
pub(crate) fn rest_to_insert<'t>(
    before: &str,
    now: &str,
    text: &'t str,
    meant: Option<usize>,
) -> Option<(usize, &'t str)> {
    let before: Vec<char> = before.chars().collect();
    let now: Vec<char> = now.chars().collect();
    let typed = now.len().checked_sub(before.len())?;
    let landed_at = |at: usize| {
        let pure = now[..at] == before[..at] && now[at + typed..] == before[at..];
        let begun = text.chars().take(typed).eq(now[at..at + typed].iter().copied());
        (pure && begun).then(|| (at + typed, text.char_indices().nth(typed).map_or("", |(i, _)| &text[i..])))
    };
    let meant = meant.unwrap_or(before.len()).min(before.len());
    landed_at(meant).or_else(|| (0..=before.len()).find_map(landed_at))
}

#[cfg(test)]
mod tests {
    use super::rest_to_insert;

    #[test]
    fn nothing_landed_yet_is_all_of_it_where_it_was_meant() {
        assert_eq!(rest_to_insert("Ada", "Ada", " Lovelace", None), Some((3, " Lovelace")));
        assert_eq!(rest_to_insert("Ada", "Ada", "Zoë ", Some(0)), Some((0, "Zoë ")));
    }

    #[test]
    fn a_beginning_that_landed_is_completed_after_itself() {
        // Focus stolen after three keys: "hel" in the field, the rest astray.
        assert_eq!(rest_to_insert("", "hel", "hello world", None), Some((3, "lo world")));
        assert_eq!(rest_to_insert("Ada", "AZoAda", "Zoë ", Some(1)), None, "not where it was meant, not a beginning");
        assert_eq!(rest_to_insert("Ada", "Zoada", "Zoë ", Some(0)), None);
        assert_eq!(rest_to_insert("Ada", "ZoAda", "Zoë ", Some(0)), Some((2, "ë ")));
        // Found elsewhere than meant (the caret had moved): completed where it is.
        assert_eq!(rest_to_insert("Ada", "AdaZo", "Zoë ", Some(0)), Some((5, "ë ")));
        // All of it landed: nothing left.
        assert_eq!(rest_to_insert("", "hi", "hi", None), Some((2, "")));
    }

    #[test]
    fn text_removed_or_changed_is_no_insertion() {
        assert_eq!(rest_to_insert("Ada Lovelace", "Ada", "x", None), None);
        assert_eq!(rest_to_insert("Ada", "Adx", "x", None), None);
        assert_eq!(rest_to_insert("Ada", "Adaxy", "xz", None), None);
    }
}
