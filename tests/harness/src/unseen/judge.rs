//! What the independent client saw of a step's effect, and the verdict it gives the
//! driver's report.

use serde_json::Value;

use super::{Sel, Truth};
use crate::campaign::{Reported, Verdict};

/// What the independent client saw of the intended effect.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Nothing of it.
    None(String),
    /// It, once.
    Once,
    /// It, twice or more (the input landed twice).
    Twice(String),
    /// Something else where it should have been.
    Wrong(String),
}

impl Effect {
    /// In words, for the tables.
    pub fn describe(&self) -> String {
        match self {
            Effect::None(why) => format!("no effect ({why})"),
            Effect::Once => "the effect, once".into(),
            Effect::Twice(why) => format!("the effect twice ({why})"),
            Effect::Wrong(why) => format!("another effect ({why})"),
        }
    }
}

/// The `index`th element matching `s` (role in either spelling, exact name; empty is any
/// name).
pub(super) fn find<'a>(dump: &'a [Value], s: &Sel) -> Option<&'a Value> {
    let role = s.role.replace('_', " ");
    let named = |e: &Value| s.name.is_empty() || e["name"] == s.name.as_str();
    within(dump, s.window).filter(|e| e["role"] == role.as_str() && named(e)).nth(s.index)
}

/// The elements of the top-level window named `window` (all, for `None`): the dump is in
/// tree order, a window's elements follow it until the next window (depth 1).
fn within<'a>(dump: &'a [Value], window: Option<&'a str>) -> impl Iterator<Item = &'a Value> {
    let mut inside = window.is_none();
    dump.iter().filter(move |e| {
        if let (Some(w), Some(1)) = (window, e["depth"].as_i64()) {
            inside = e["name"] == w;
        }
        inside
    })
}

/// The centre of an element's extents, when it has some on the screen.
pub(super) fn centre(e: &Value) -> Option<(i64, i64)> {
    let x = e["extents"].as_array()?;
    let n = |i: usize| x.get(i).and_then(Value::as_i64);
    let (left, top, w, h) = (n(0)?, n(1)?, n(2)?, n(3)?);
    // GTK's "nowhere" is i32::MIN and 1x1.
    (w > 1 && h > 1 && left >= 0 && top >= 0).then_some((left + w / 2, top + h / 2))
}

/// An element's text, or its name where it has no text (a frame that shows a number).
fn text(e: Option<&Value>) -> String {
    let Some(e) = e else { return String::new() };
    match e["text"].as_str() {
        Some(t) if !t.is_empty() => t.to_string(),
        _ => e["name"].as_str().unwrap_or_default().to_string(),
    }
}

fn has_state(e: Option<&Value>, state: &str) -> bool {
    e.and_then(|e| e["states"].as_array()).is_some_and(|s| s.iter().any(|v| v == state))
}

fn count(dump: &[Value], role: &str, name: &str) -> usize {
    dump.iter().filter(|e| e["role"] == role && (name.is_empty() || e["name"] == name)).count()
}

fn showing(dump: &[Value], says: &str) -> usize {
    dump.iter().filter(|e| text(Some(e)) == says).count()
}

/// What `truth` saw between `before` and `after`.
pub(super) fn effect(truth: &Truth, before: &[Value], after: &[Value]) -> Effect {
    match truth {
        Truth::Gains(s, gained) => {
            let (was, now) = (text(find(before, s)), text(find(after, s)));
            let n = now.matches(gained.as_str()).count().saturating_sub(was.matches(gained.as_str()).count());
            match n {
                _ if now == was => Effect::None(format!("{} still reads {was:?}", s.describe())),
                0 => Effect::Wrong(format!("{} reads {now:?}", s.describe())),
                1 => Effect::Once,
                _ => Effect::Twice(format!("{} reads {now:?}", s.describe())),
            }
        }
        Truth::Says(s, says) => {
            let (was, now) = (text(find(before, s)), text(find(after, s)));
            // What one input adds, where the expected text extends the old one (a digit
            // pressed on a calculator): twice that is the input landing twice.
            let added = says.strip_prefix(was.as_str()).filter(|a| !a.is_empty());
            if now == *says {
                Effect::Once
            } else if now == was {
                Effect::None(format!("{} still reads {was:?}", s.describe()))
            } else if added.is_some_and(|a| now == format!("{says}{a}")) {
                Effect::Twice(format!("{} reads {now:?}", s.describe()))
            } else {
                Effect::Wrong(format!("{} reads {now:?}, not {says:?}", s.describe()))
            }
        }
        Truth::Gets(s, state) => match (has_state(find(before, s), state), has_state(find(after, s), state)) {
            (false, true) => Effect::Once,
            (false, false) => Effect::None(format!("{} is not {state}", s.describe())),
            (true, _) => Effect::Wrong(format!("{} was {state} before the action", s.describe())),
        },
        Truth::Placed(s) => match (find(before, s).and_then(centre), find(after, s).and_then(centre)) {
            (None, Some(_)) => Effect::Once,
            (None, None) => Effect::None(format!("{} has no place on the screen", s.describe())),
            (Some(_), _) => Effect::Wrong(format!("{} was on the screen before the action", s.describe())),
        },
        Truth::Loses(s, state) => match (has_state(find(before, s), state), has_state(find(after, s), state)) {
            (true, false) => Effect::Once,
            (true, true) => Effect::None(format!("{} is still {state}", s.describe())),
            (false, _) => Effect::Wrong(format!("{} was not {state} before the action", s.describe())),
        },
        Truth::Value(s, value) => {
            let read = |d: &[Value]| find(d, s).and_then(|e| e["value"].as_f64());
            match (read(before), read(after)) {
                (_, Some(now)) if (now - value).abs() < 0.5 => Effect::Once,
                (was, now) if was == now => Effect::None(format!("{} still at {now:?}", s.describe())),
                (_, now) => Effect::Wrong(format!("{} at {now:?}, not {value}", s.describe())),
            }
        }
        Truth::Opens(role, name) => match count(after, role, name).saturating_sub(count(before, role, name)) {
            0 => Effect::None(format!("no new {role} \"{name}\"")),
            1 => Effect::Once,
            n => Effect::Twice(format!("{n} new {role} \"{name}\"")),
        },
        Truth::Closes(role, name) => match (count(before, role, name), count(after, role, name)) {
            (b, 0) if b > 0 => Effect::Once,
            (0, _) => Effect::Wrong(format!("no {role} \"{name}\" was open")),
            (_, a) => Effect::None(format!("{a} {role} \"{name}\" still open")),
        },
        // A page sets a text (idempotent, so a second press would not show), and a
        // browser shows it twice (a paragraph and its text leaf): there or not.
        Truth::Shows(says) => match (showing(before, says), showing(after, says)) {
            (0, n) if n > 0 => Effect::Once,
            _ => Effect::None(format!("nothing new reads {says:?}")),
        },
    }
}

/// The verdict on the driver's report, given what the independent client saw.
pub(super) fn verdict(effect: &Effect, reported: &Reported) -> Verdict {
    match (effect, reported.ok) {
        (Effect::Twice(_), _) => Verdict::DoubleEffect,
        (Effect::Once, true) => Verdict::Correct,
        (Effect::None(_) | Effect::Wrong(_), true) => Verdict::SilentFailure,
        (Effect::None(_), false) if reported.clear => Verdict::FailedClearly,
        (Effect::None(_), false) => Verdict::FailedUnclear,
        (Effect::Once | Effect::Wrong(_), false) => Verdict::UnreportedEffect,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::unseen::sel;

    fn display(text: &str) -> Vec<Value> {
        vec![json!({"role": "frame", "name": text, "text": null, "states": [], "extents": [0, 0, 10, 10]})]
    }

    #[test]
    fn a_digit_pressed_twice_is_a_double_effect_and_once_is_the_effect() {
        // A calculator's display: a frame whose name is the number it shows.
        let truth = Truth::Says(sel("frame", ""), "12".into());
        let seen = |before: &str, after: &str| effect(&truth, &display(before), &display(after));
        assert_eq!(seen("1", "12"), Effect::Once);
        assert!(matches!(seen("1", "122"), Effect::Twice(_)));
        assert!(matches!(seen("1", "1"), Effect::None(_)));
        assert!(matches!(seen("1", "7"), Effect::Wrong(_)));
    }

    #[test]
    fn a_failure_whose_effect_happened_is_a_wrong_error_and_success_without_it_is_silent() {
        let ok = Reported { ok: true, ..Reported::default() };
        let clear = Reported { ok: false, clear: true, ..Reported::default() };
        assert_eq!(verdict(&Effect::Once, &ok), Verdict::Correct);
        assert_eq!(verdict(&Effect::None("x".into()), &ok), Verdict::SilentFailure);
        assert_eq!(verdict(&Effect::Once, &clear), Verdict::UnreportedEffect);
        assert_eq!(verdict(&Effect::None("x".into()), &clear), Verdict::FailedClearly);
        assert_eq!(verdict(&Effect::Twice("x".into()), &clear), Verdict::DoubleEffect);
    }
}
