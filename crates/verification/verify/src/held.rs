//! Holding a change that would verify an input a moment before it counts: the application
//! may be moving it by itself (a clock, a counter, a playback position), which only a second
//! change within the hold shows. How long, and why, in words for the trace.

use std::time::Duration;

use deft_types::ElementId;

/// How long a change that only elements which changed by themselves once before the input
/// show is watched before it counts: long enough for a second tick of a counter or a
/// playback position updated a few times a second (a clock's text is noise anyway).
const MOVING_CONFIRM: Duration = Duration::from_millis(1000);
/// How long the app must have been listened to before an input for what it changes by
/// itself to be known well enough: less, and a change of texts alone is watched for the
/// rest of it after the input (a counter ticking a few times a second shows itself).
const LISTEN_BEFORE: Duration = Duration::from_millis(300);
/// How long a change of numbers alone is held when the app was listened to for less before
/// the input: a clock that ticks once a second ticks again within it.
const TICK_CONFIRM: Duration = Duration::from_millis(1200);

/// Why a change that would verify the input is held before it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hold {
    /// Not held.
    None,
    /// Each element changed by itself once before the input.
    ChangedOnce,
    /// Only numbers changed, by an application heard for less than a slow clock's tick.
    Tick,
    /// Texts changed, by an application heard for less than a quick ticker's period.
    Listen,
}

impl Hold {
    /// The hold for a change of `changed` alone (the texts, names and values that would
    /// verify the input): each changed by itself once before the input (`changed_once`), or
    /// only in its numbers (`numbers_only`), by an application heard quiet for `quiet`
    /// around the input (see the rule in docs/VERIFICATION.md).
    pub(crate) fn of(changed: &[ElementId], changed_once: bool, numbers_only: bool, quiet: Duration) -> Hold {
        if changed.is_empty() {
            Hold::None
        } else if changed_once {
            Hold::ChangedOnce
        } else if quiet < TICK_CONFIRM && numbers_only {
            Hold::Tick
        } else if quiet < LISTEN_BEFORE {
            Hold::Listen
        } else {
            Hold::None
        }
    }

    pub(crate) fn period(self) -> Duration {
        match self {
            Hold::None => Duration::ZERO,
            Hold::ChangedOnce => MOVING_CONFIRM,
            Hold::Tick => TICK_CONFIRM,
            Hold::Listen => LISTEN_BEFORE,
        }
    }

    /// In plain words, for the trace and a face's progress.
    pub(crate) fn reason(self, changed: &[ElementId], post: &crate::read::Reading, quiet: Duration) -> String {
        let names: Vec<String> =
            changed.iter().filter_map(|id| post.snap.get(id)).map(|e| e.describe()).take(3).collect();
        let (what, hold, quiet) = (names.join(", "), self.period().as_millis(), quiet.as_millis());
        match self {
            Hold::None => String::new(),
            Hold::ChangedOnce => format!(
                "{what} changed by itself once before the input: watched {hold} ms for another change before it counts"
            ),
            Hold::Tick => format!(
                "only numbers changed ({what}), and the application was heard by itself for {quiet} ms before: a \
                 clock ticking once a second would change again within {hold} ms"
            ),
            Hold::Listen => format!(
                "{what} changed, and the application was heard by itself for {quiet} ms before: something changing \
                 a few times a second would change again within {hold} ms"
            ),
        }
    }
}

/// What `id` shows in `r`: the text a person sees on it, and on its leaves (a section's
/// text node, which Chromium replaces when the page sets the text).
pub(crate) fn says(r: &crate::read::Reading, id: &ElementId) -> String {
    let Some(node) = r.snap.node(id) else { return String::new() };
    let leaves = node.children().iter().filter_map(|c| r.snap.node(c)).filter(|n| n.children().is_empty());
    let mut said = node.element().visible_text().to_string();
    for leaf in leaves {
        said.push('\n');
        said.push_str(leaf.element().visible_text());
    }
    said
}
