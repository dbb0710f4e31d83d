//! Early evidence for typed text: the first key goes alone, and the rest only once it
//! showed.
//!
//! A field that ignores synthetic key events (a widget that filters them, a page that
//! swallows them) used to take the whole text and then the whole verification window
//! (3 s) before the next method. A responsive app shows a key's effect in its text within
//! a pass of its event loop, so the first key alone says which case this is:
//!
//! - its text changed: the keys land, and the rest are typed at once;
//! - the app **read** the key (the window manager's ping, sent after it, came back: X
//!   delivers a client's events in order), answered two reads of the field after that, and
//!   the field kept its text while it kept the keyboard focus: the field ignores keys.
//!   Nothing more is typed, and the engine is told (`keys_unseen`) so that the next method
//!   (setting the text through accessibility, which replaces the whole text and is read
//!   back) goes at once;
//! - anything else (no ping for the window, no answer within [`FIRST_KEY_MAX`], the focus
//!   moved, a read failed): the rest are typed as before, and the window decides.
//!
//! Only where the evidence means what it says: a focused, editable text field (not a
//! cell or a document's paragraph, whose keys may go to an editor opened over it) whose own
//! text accessibility reads, not a secret (masked text may not change as keys land), not a
//! field that keeps its text in an element inside it, and not a field in a web page: a
//! page's keys pass through a second process, and the browser's answer to the ping says
//! only that the browser read them. For the same reason not where an input method stands
//! between the keyboard and the applications (IBus, Fcitx): it hands each key to the field
//! after a round trip of its own.

use std::time::{Duration, Instant};

use deft_a11y::Accessibility;
use deft_retry::Report;
use deft_types::{Element, ElementId, State};

use crate::executor::{Executor, lock};
use crate::observe::{is_secret, text_of};
use crate::send::Sent;

/// How long the first key is watched at most. An app that has not read it by then is busy:
/// the rest are typed after it (its queue keeps them in order) and the window decides. A
/// responsive app ends the watch within milliseconds either way; only a busy one waits,
/// and then its own pace, not this bound, is what the keys wait for.
const FIRST_KEY_MAX: Duration = Duration::from_millis(1000);
/// Reads of the field answered after the ping's answer, each showing its text unchanged,
/// before the key counts as ignored: the app reads input before it handles it (Qt queues
/// it once more inside), so one pass of its loop after the answer is not enough.
const READS_AFTER_ANSWER: u32 = 2;
/// The least time from the first key to "ignored", whatever the reads said.
const IGNORED_MIN: Duration = Duration::from_millis(15);
/// Pause between two reads of the field.
const READ_EVERY: Duration = Duration::from_millis(2);

/// What became of the first key.
#[derive(Debug, PartialEq, Eq)]
enum FirstKey {
    /// The field's text changed: keys land.
    Landed,
    /// Read by the app and handled without effect: the field ignores keys.
    Ignored,
    /// Nothing can be said: type the rest, and let the window decide.
    Unknown,
}

/// Whether the first key alone can tell anything about `field` (read after it took the
/// focus), typing `text`: see the module's words.
pub(crate) fn first_key_tells(field: &Element, text: &str, in_page: bool) -> bool {
    text.chars().count() >= 2
        && is_text_field(field)
        && field.text.is_some()
        && field.has(State::Editable)
        && field.has(State::Focused)
        && !is_secret(field)
        && !crate::editor_inside::holds_text_inside(field)
        && !in_page
}

/// A text field, which is itself where its keys land. Not a cell, a paragraph of a
/// document or any other element whose keys the application may hand to an editor it opens
/// over it (LibreOffice Calc's cell editor: the first key opened it and landed there while
/// the cell kept its text and its focus, and was taken for ignored: "hhello").
fn is_text_field(field: &Element) -> bool {
    matches!(field.role.as_str(), "text" | "entry")
}

impl Executor {
    /// Types `text` as key events into `field` (as just read: it holds the keyboard focus,
    /// and [`first_key_tells`] said yes): its first key
    /// alone, watched, and the rest once it landed. Returns what was sent and whether the
    /// first key was seen ignored (then nothing more was typed).
    pub(crate) async fn type_watching_first_key(&self, field: &Element, text: &str) -> (Sent, bool) {
        let (id, before) = (&field.id, text_of(field));
        let mut chars = text.chars();
        let first: String = chars.next().into_iter().collect();
        let rest = chars.as_str();
        if let Err(e) = self.type_text(&first) {
            return (Err(e), false);
        }
        let seen = self.first_key(id, &before).await;
        if seen == FirstKey::Ignored {
            let n = text.chars().count();
            let what = format!(
                "typed the first of {n} characters as a key event; the app read it and handled it while the field \
                 kept its text {before:?} and the keyboard focus, so the other {} were not typed",
                n - 1
            );
            return (Ok(what), true);
        }
        (self.type_text(rest).map(|()| String::new()), false)
    }

    /// Whether keys reach the applications with no input method in between (deft-input's
    /// `WindowLocator::input_method`): an input method hands a key to the field after a
    /// round trip of its own, which the ping does not wait for (IBus on GNOME's X11
    /// sessions). Only then can the first key be watched.
    pub(crate) fn keys_go_straight(&self) -> bool {
        self.windows.as_ref().is_some_and(|w| lock(w).input_method().is_none())
    }

    /// Types `text` as key events where the keyboard focus is.
    pub(crate) fn type_text(&self, text: &str) -> Result<(), Report> {
        lock(&self.input).text(text).map_err(|e| Report::SendUncertain { message: e.to_string() })
    }

    /// Watches the first key sent to `id`, whose text was `before`: see [`FirstKey`].
    async fn first_key(&self, id: &ElementId, before: &str) -> FirstKey {
        let sent = Instant::now();
        // The window that holds the keyboard focus is the one the key went to.
        let ping = self.windows.as_ref().and_then(|w| {
            let w = lock(w);
            let focused = w.focused().ok().flatten()?;
            w.ping(focused).ok().flatten()
        });
        let Some(ping) = ping else { return FirstKey::Unknown };
        let mut reads_after_answer: Option<u32> = None;
        while sent.elapsed() < FIRST_KEY_MAX {
            // Asked before the read: a read that starts after the answer was answered after it.
            let answered = match ping.handled() {
                Ok(answered) => answered,
                Err(_) => return FirstKey::Unknown,
            };
            let left = FIRST_KEY_MAX.saturating_sub(sent.elapsed());
            let field = match tokio::time::timeout(left, self.a11y.element(id)).await {
                Ok(Ok(field)) => field,
                _ => return FirstKey::Unknown,
            };
            if text_of(&field) != before {
                return FirstKey::Landed;
            }
            if !field.has(State::Focused) {
                // The keys went elsewhere: what they did there is the window's to see.
                return FirstKey::Unknown;
            }
            if answered {
                let reads = reads_after_answer.get_or_insert(0);
                *reads += 1;
                if *reads >= READS_AFTER_ANSWER && sent.elapsed() >= IGNORED_MIN {
                    return FirstKey::Ignored;
                }
            }
            tokio::time::sleep(READ_EVERY).await;
        }
        FirstKey::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::first_key_tells;
    use deft_types::State;

    fn field() -> deft_types::Element {
        let mut e = deft_a11y::element("name", "text", "Name");
        e.text = Some(String::new());
        e.states.insert(State::Editable);
        e.states.insert(State::Focused);
        e
    }

    #[test]
    fn the_first_key_is_watched_only_where_its_effect_can_be_read() {
        assert!(first_key_tells(&field(), "Ada", false));
        assert!(!first_key_tells(&field(), "A", false), "one key: nothing to hold back");
        assert!(!first_key_tells(&field(), "Ada", true), "a page: the browser's answer is not the page's");
        let mut unfocused = field();
        unfocused.states.remove(&State::Focused);
        assert!(!first_key_tells(&unfocused, "Ada", false));
        let mut no_text = field();
        no_text.text = None;
        assert!(!first_key_tells(&no_text, "Ada", false), "nothing to read the key back from");
        let mut secret = field();
        secret.role = deft_types::Role::new("password_text");
        assert!(!first_key_tells(&secret, "Ada", false));
        let mut label = field();
        label.states.remove(&State::Editable);
        assert!(!first_key_tells(&label, "Ada", false));
        // A cell's keys may go to the editor its application opens over it.
        let mut cell = field();
        cell.role = deft_types::Role::new("table_cell");
        assert!(!first_key_tells(&cell, "Ada", false));
    }
}
