//! Recognising text that ticks: clock-like times (`10:41`, `9:05:33`, `11:59 PM`), so that a
//! ticking clock is noise, and text whose numbers alone changed (a counter, a position), so
//! that an element seen ticking can be told from one showing an effect.
//!
//! Hand-written rather than a regex: the pattern is tiny and the crate stays dependency-light.

/// Whether `old` and `new` differ only in clock-like times, and both contain one.
pub(crate) fn only_clock_changed(old: &str, new: &str) -> bool {
    if old == new {
        return false;
    }
    match (skeleton(old), skeleton(new)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The text with every time replaced by `#`, or `None` when it contains no time.
fn skeleton(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut found = false;
    let mut i = 0;
    while i < b.len() {
        let starts_number = b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit());
        match starts_number.then(|| time_len(&b[i..])).flatten() {
            Some(n) => {
                out.push(b'#');
                found = true;
                i += n;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    found.then_some(out)
}

/// Whether `new` is `old` ticked on: different, and the same once every run of digits is
/// masked ("Frames: 12" -> "Frames: 13", "0:41 / 3:05" -> "0:42 / 3:05"). Wider than
/// [`only_clock_changed`], so it is no noise rule by itself: the executor applies it only to
/// an element it already suspects of moving on its own.
pub fn only_numbers_changed(old: &str, new: &str) -> bool {
    fn masked(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut in_digits = false;
        for c in s.chars() {
            if c.is_ascii_digit() {
                if !in_digits {
                    out.push('#');
                }
                in_digits = true;
            } else {
                out.push(c);
                in_digits = false;
            }
        }
        out
    }
    old != new && masked(old) == masked(new)
}

/// Length of a time at the start of `b`: `H:MM` or `HH:MM`, optional `:SS`, optional AM/PM.
fn time_len(b: &[u8]) -> Option<usize> {
    let digits = |from: usize| b[from.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
    let hours = digits(0);
    if !(1..=2).contains(&hours) || b.get(hours) != Some(&b':') || digits(hours + 1) != 2 {
        return None;
    }
    let mut n = hours + 3;
    if b.get(n) == Some(&b':') && digits(n + 1) == 2 {
        n += 3;
    }
    let space = usize::from(b.get(n) == Some(&b' '));
    let meridiem = b
        .get(n + space..n + space + 2)
        .is_some_and(|m| matches!(m[0].to_ascii_lowercase(), b'a' | b'p') && m[1].eq_ignore_ascii_case(&b'm'));
    if meridiem && !b.get(n + space + 2).is_some_and(u8::is_ascii_alphanumeric) {
        n += space + 2;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::{only_clock_changed, only_numbers_changed};

    #[test]
    fn a_tick_changes_numbers_only() {
        assert!(only_numbers_changed("Frames: 12", "Frames: 13"));
        assert!(only_numbers_changed("0:41 / 3:05", "0:42 / 3:05"));
        assert!(only_numbers_changed("Frames: 9", "Frames: 10"));
        assert!(!only_numbers_changed("Frames: 12", "Frames: 12"));
        assert!(!only_numbers_changed("Saving...", "Saved"));
        assert!(!only_numbers_changed("Orders: 1", "Order 1 submitted"));
        assert!(!only_numbers_changed("", "Frames: 1"));
    }

    #[track_caller]
    fn check(old: &str, new: &str, expected: bool) {
        assert_eq!(only_clock_changed(old, new), expected, "{old:?} -> {new:?}");
    }

    #[test]
    fn clocks() {
        check("10:41", "10:42", true);
        check("9:59", "10:00", true);
        check("Updated 10:41:09", "Updated 10:41:10", true);
        check("11:59 AM", "12:00 PM", true);
        check("11:59pm", "12:00am", true);
        check("Last saved 10:41", "Last saved 10:42", true);
        check("10:41", "10:41", false);
        check("10:41", "Saved", false);
        check("Saved at 10:41", "Error at 10:42", false);
        check("1:2", "1:3", false);
        check("123:45", "123:46", false);
        check("10:415", "10:416", false);
        check("ratio 3:45x", "ratio 3:46x", true);
        check("é 10:41 ü", "é 10:42 ü", true);
    }
}
