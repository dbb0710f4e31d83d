//! Keys go where the display server sends them: to the top-level window that has the
//! keyboard focus, whatever the application's accessibility says has the focus inside it.
//! A field can report itself focused in a window that is not the active one (a browser
//! just started, a window another one took the focus from), and keys typed then land in
//! another application or nowhere. Before keys meant for a target, its window must have
//! the focus: if another window has it, the window manager is asked to activate the
//! target's (as a person clicks its title bar), and nothing is typed until it has.

use std::time::{Duration, Instant};

use deft_input::WindowQuery;
use deft_retry::{Report, Symptoms};

use crate::executor::{Executor, lock};
use crate::resolve::{How, Resolved};

/// How the words of an input say that the target's window was activated for its keys
/// (after the input's own words): `act.rs` turns them into the outcome's evidence.
const ACTIVATED: &str = "activated window ";

/// The words of an input that say its window was activated first, if they do.
pub(crate) fn activation_in(sent: &str) -> Option<&str> {
    sent.find(&format!("; {ACTIVATED}")).map(|at| &sent[at + 2..])
}

/// How long the window manager gets to hand the keyboard focus to the activated window.
const ACTIVATE_WAIT: Duration = Duration::from_millis(600);
/// How often the focus is read meanwhile (the display server sends no event we listen to).
const POLL: Duration = Duration::from_millis(20);

impl Executor {
    /// Makes sure keys sent now reach `target`'s window. `Ok(Some(words))` when its window
    /// had to be activated first (for the outcome); `Ok(None)` when it had the focus, or
    /// when it cannot be told (no window list, the window not found by owner and title).
    pub(crate) async fn keys_reach(&self, target: &Resolved) -> Result<Option<String>, Report> {
        let Some(locator) = self.windows.as_ref() else { return Ok(None) };
        if target.pid.is_none() {
            return Ok(None);
        }
        let Ok(focused) = lock(locator).focused() else { return Ok(None) };
        // Keys for whatever has the focus go where the display server sends them, unless no
        // window gets them (the desktop's own UI holds the keyboard: GNOME Shell's
        // overview): then the focused element's window is activated, as a person does
        // before typing.
        if target.how == How::Focused && focused.is_some() {
            return Ok(None);
        }
        let title = target.window_title.clone().filter(|t| !t.is_empty());
        let query = WindowQuery { pid: target.pid, title: title.clone() };
        // The target's window among those shown and those activating shows again
        // (minimised, or under GNOME Shell's overview): keys for one of those go to it once
        // it is back. The same listing names the window that has the focus.
        let all = {
            let locator = lock(locator);
            let every = WindowQuery::default();
            locator.windows(&every).map(|mut all| {
                all.extend(locator.minimized(&every).unwrap_or_default());
                all
            })
        };
        let Ok(all) = all else { return Ok(None) };
        let windows: Vec<_> = all.iter().filter(|w| query.matches(w.pid, &w.title)).collect();
        // Its window: the one of that title (exactly, else the topmost containing it), or
        // the owner's only window; never a guess among several.
        let exact = title.as_ref().and_then(|t| windows.iter().rposition(|w| &w.title == t));
        let window = match exact {
            Some(at) => windows[at],
            None if title.is_some() || windows.len() == 1 => match windows.last() {
                Some(w) => *w,
                None => return Ok(None),
            },
            None => return Ok(None),
        };
        if focused == Some(window.id) {
            return Ok(None);
        }
        let had_it = match focused {
            Some(id) => all
                .iter()
                .find(|w| w.id == id)
                .map_or_else(|| format!("window {id:#x}"), |w| format!("window {:?}", w.title)),
            None => "no window".to_string(),
        };
        lock(locator).activate(window.id).map_err(|e| {
            Report::Refused(Symptoms::new(format!(
                "{had_it} has the keyboard focus, not {:?}, and it could not be activated ({e}): keys would not reach \
                 {}",
                window.title,
                target.describe()
            )))
        })?;
        let until = Instant::now() + ACTIVATE_WAIT;
        loop {
            if lock(locator).focused().ok().flatten() == Some(window.id) {
                return Ok(Some(format!(
                    "activated window {:?} so that keys reach it ({had_it} had the focus)",
                    window.title
                )));
            }
            if Instant::now() >= until {
                return Err(Report::Refused(Symptoms::new(format!(
                    "{had_it} has the keyboard focus and the window manager did not give it to {:?} within \
                     {ACTIVATE_WAIT:?}: keys would not reach {}; activate that window and try again",
                    window.title,
                    target.describe()
                ))));
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_activation_is_found_after_the_inputs_words() {
        let sent = format!("typed 5 characters as key events; {ACTIVATED}\"Deft\" so that keys reach it");
        assert_eq!(activation_in(&sent), Some("activated window \"Deft\" so that keys reach it"));
        assert_eq!(activation_in("typed 5 characters as key events"), None);
    }
}
