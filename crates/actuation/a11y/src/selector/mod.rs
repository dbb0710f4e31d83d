//! Selectors: the text syntax, matching on a [`crate::Tree`], and resolution to one element.
//!
//! The data type is [`deft_types::Selector`]; this module parses and prints its text
//! form (see the crate documentation for the grammar) and matches it. Everything here is
//! pure: it works on a snapshot, never on a live backend.

mod matcher;
mod parse;

pub use matcher::{
    Candidate, MAX_CANDIDATES, Matcher, ResolveError, closest_candidates, find_all, resolve, text_similarity,
};
pub use parse::{KEYS, SelectorError, SelectorText, format, format_path, parse};

#[cfg(test)]
mod tests;
