//! The error of loading a policy: where it is and what is wrong, in plain words.

use thiserror::Error;

/// A policy file (or a set of CLI overrides) that cannot be used.
///
/// Both variants point at the place to fix: the line for anything the user's file set,
/// and the dotted key (`click.transient.backoff_factor`) for every semantic error.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum PolicyError {
    /// Not valid TOML, a value of the wrong type, or an unknown key, table or method name.
    #[error("policy file{}: {message}", at_line(*.line, *.column))]
    Parse {
        /// 1-based line, when the parser knows it.
        line: Option<usize>,
        /// 1-based column, when the parser knows it.
        column: Option<usize>,
        /// What is wrong, as the parser says it (it names unknown keys and methods).
        message: String,
    },
    /// The file parsed, but a value makes no sense (an empty chain, a zero window, ...).
    #[error("{}`{key}` {reason}", place(*.line))]
    Invalid {
        /// The dotted key, e.g. `click.window_ms`.
        key: String,
        /// 1-based line of the value, when it came from the user's file.
        line: Option<usize>,
        /// What is wrong with it.
        reason: String,
    },
}

fn place(line: Option<usize>) -> String {
    match line {
        Some(l) => format!("policy file, line {l}: "),
        None => "policy: ".into(),
    }
}

fn at_line(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(", line {l}, column {c}"),
        (Some(l), None) => format!(", line {l}"),
        _ => String::new(),
    }
}

/// 1-based line and column of a byte offset in `src`.
pub(crate) fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let before = &src[..offset.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let src = "a = 1\nbb = 2\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 6), (2, 1));
        assert_eq!(line_col(src, 9), (2, 4));
    }

    #[test]
    fn display_names_line_and_key() {
        let e =
            PolicyError::Invalid { key: "click.window_ms".into(), line: Some(4), reason: "must be more than 0".into() };
        assert_eq!(e.to_string(), "policy file, line 4: `click.window_ms` must be more than 0");
    }
}
