//! The lexer the selector and condition grammars share: a cursor over the input, quoted
//! and bare values, the three comparison operators, and errors that point at a column.

use std::fmt;

/// Which grammar an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grammar {
    /// The selector syntax (`role=push_button name="Submit"`).
    Selector,
    /// The condition syntax (`text:"Saved"`, `gone:name=Loading`).
    Condition,
}

impl fmt::Display for Grammar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Grammar::Selector => "selector",
            Grammar::Condition => "condition",
        })
    }
}

/// A selector or condition that does not parse (or holds an invalid regular expression).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{grammar} error at column {column}: {message}")]
pub struct SyntaxError {
    /// Which grammar.
    pub grammar: Grammar,
    /// The text that was parsed.
    pub input: String,
    /// Byte offset of the problem in `input`.
    pub offset: usize,
    /// 1-based column (in characters) of the problem.
    pub column: usize,
    /// What was expected, in plain words.
    pub message: String,
}

impl SyntaxError {
    pub(crate) fn at(grammar: Grammar, input: &str, offset: usize, message: impl Into<String>) -> SyntaxError {
        let offset = offset.min(input.len());
        SyntaxError {
            grammar,
            input: input.to_string(),
            offset,
            column: input[..offset].chars().count() + 1,
            message: message.into(),
        }
    }

    /// The input with a caret under the problem, for terminals:
    ///
    /// ```text
    /// role=push_button name=
    ///                       ^
    /// ```
    pub fn pointer(&self) -> String {
        format!("{}\n{}^", self.input, " ".repeat(self.column - 1))
    }
}

/// How a term compares its value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Op {
    Exact,
    Contains,
    Regex,
}

impl Op {
    pub(crate) fn text(self) -> &'static str {
        match self {
            Op::Exact => "=",
            Op::Contains => "~=",
            Op::Regex => "/=",
        }
    }
}

/// A cursor over `input[..end]`; errors are positioned in the whole `input`, so that a
/// selector inside a condition reports the condition's column.
pub(crate) struct Parser<'a> {
    pub(crate) grammar: Grammar,
    pub(crate) input: &'a str,
    pub(crate) pos: usize,
    pub(crate) end: usize,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(grammar: Grammar, input: &'a str) -> Parser<'a> {
        Parser { grammar, input, pos: 0, end: input.len() }
    }

    pub(crate) fn rest(&self) -> &'a str {
        &self.input[self.pos..self.end]
    }

    pub(crate) fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    pub(crate) fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.end - trimmed.len();
    }

    pub(crate) fn err(&self, offset: usize, message: impl Into<String>) -> SyntaxError {
        SyntaxError::at(self.grammar, self.input, offset, message)
    }

    /// `~=`, `/=` or `=` at the cursor, consumed.
    pub(crate) fn try_op(&mut self) -> Option<Op> {
        let op = if self.rest().starts_with("~=") {
            Op::Contains
        } else if self.rest().starts_with("/=") {
            Op::Regex
        } else if self.rest().starts_with('=') {
            Op::Exact
        } else {
            return None;
        };
        self.pos += op.text().len();
        Some(op)
    }

    /// A bare or quoted value after `key` and `op`.
    pub(crate) fn value(&mut self, key: &str, op: Op) -> Result<String, SyntaxError> {
        let start = self.pos;
        match self.peek() {
            None => Err(self.err(start, format!("expected a value after '{key}{}'", op.text()))),
            Some(c) if c.is_whitespace() => {
                Err(self
                    .err(start, format!("expected a value after '{key}{}' (quote an empty value: \"\")", op.text())))
            }
            Some('"') => self.quoted(),
            Some(_) => {
                let len = self.rest().find(|c: char| c.is_whitespace() || c == '"').unwrap_or(self.rest().len());
                let value = self.rest()[..len].to_string();
                self.pos += len;
                if self.peek() == Some('"') {
                    return Err(self.err(self.pos, "a quote inside an unquoted value; quote the whole value"));
                }
                Ok(value)
            }
        }
    }

    pub(crate) fn quoted(&mut self) -> Result<String, SyntaxError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, e @ ('"' | '\\'))) => out.push(e),
                    Some((j, e)) => {
                        return Err(
                            self.err(self.pos + j, format!("unknown escape '\\{e}'; only \\\" and \\\\ are escapes"))
                        );
                    }
                    None => break,
                },
                c => out.push(c),
            }
        }
        Err(self.err(open, "unterminated quoted value (missing the closing '\"')"))
    }
}

pub(crate) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `v` as one value of a selector or condition: bare when it can be, else quoted with `\"` and
/// `\\` escaped.
pub fn quote(v: &str) -> String {
    // `:`, `=` and `~` are quoted too, so that a value inside a condition never reads as
    // the condition's own separators.
    let bare = !v.is_empty() && !v.chars().any(|c| c.is_whitespace() || matches!(c, '"' | '\\' | ':' | '=' | '~'));
    if bare {
        return v.to_string();
    }
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}
