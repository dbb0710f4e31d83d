//! Selectors and conditions: their text syntax, matching on a [`crate::Tree`], and the
//! one rule that picks an element among a selector's matches.
//!
//! The data types are [`deft_types::Selector`] and [`deft_types::Condition`]; this module
//! parses and prints their text forms (one lexer, errors that point at a column), matches
//! selectors, and words conditions for people. Everything here is pure: it works on a
//! snapshot, never on a live backend.

mod condition;
mod lex;
mod matcher;
mod parse;

pub use condition::{
    CONDITION_HELP, CONDITION_KINDS, describe_condition, describe_text, format_condition, looks_like_condition,
    parse_condition, unknown_condition_kind,
};
pub use lex::{Grammar, SyntaxError, quote};
pub use matcher::{
    CandidateText, MAX_CANDIDATES, Matcher, Pick, ResolveError, candidate_of, closest_candidates, find_all,
    natural_matches, pick, picking_selector, resolve, shows_text_only, similarity_percent, text_similarity,
};
pub use parse::{KEYS, SelectorText, format, format_path, parse};

#[cfg(test)]
mod tests;
