//! Text search in OCR results: exact, substring, regex or fuzzy, with bounds and a score.

use deft_types::{Physical, Rect, TextMatch};

use crate::{Line, OcrResult, Word};

/// Score factor of an [`TextMatch::Exact`] match that is only part of its line.
const PART_OF_LINE: f32 = 0.9;

/// How [`find_text`] matches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// Lowest score kept, in `[0, 1]`.
    pub min_score: f32,
    /// Most matches returned (best first).
    pub limit: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { min_score: 0.75, limit: 16 }
    }
}

/// A place where the query was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    /// The text found (the words spanned, or the part of a word that matched).
    pub text: String,
    /// Its bounds on screen.
    pub bounds: Rect<Physical>,
    /// 1 for an exact match, less the more edits the OCR text needs to become the query.
    pub score: f32,
    /// Index of the line in [`OcrResult::lines`].
    pub line: usize,
}

/// Where `query` appears in `result`, best first (then in reading order).
///
/// - [`TextMatch::Exact`]: the words of a line equal the query; OCR slips are tolerated
///   (case-sensitive normalised edit distance), scored below 1, and a match that is only
///   part of its line scores 0.9 of that.
/// - [`TextMatch::Contains`]: case-insensitive; the query inside a line scores 1 and its
///   bounds are narrowed to the part of the words that matched; near misses score below 1.
/// - [`TextMatch::Regex`]: a regular expression over each line's text, score 1. An invalid
///   expression matches nothing.
///
/// A multi-word query spans consecutive words of one line; spans one word shorter or longer
/// are tried too, since OCR may split or join words.
pub fn find_text(result: &OcrResult, query: &TextMatch, opts: &SearchOptions) -> Vec<Match> {
    let mut found: Vec<Match> = Vec::new();
    for (li, line) in result.lines.iter().enumerate() {
        match query {
            TextMatch::Exact(q) => {
                let before = found.len();
                fuzzy_spans(line, li, q, false, &mut found);
                // Exact means the whole text of a line: a match inside a longer line (the
                // title "Delete Files" for the button "Delete") ranks below.
                for m in &mut found[before..] {
                    if m.text != line.text {
                        m.score *= PART_OF_LINE;
                    }
                }
            }
            TextMatch::Contains(q) => {
                substring(line, li, q, &mut found);
                fuzzy_spans(line, li, q, true, &mut found);
            }
            TextMatch::Regex(re) => regex_matches(line, li, re, &mut found),
        }
    }
    found.retain(|m| m.score >= opts.min_score);
    found.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.line.cmp(&b.line)).then(a.bounds.x.cmp(&b.bounds.x)));
    // One match per place: drop lower-scored matches overlapping a better one.
    let mut kept: Vec<Match> = Vec::new();
    for m in found {
        if !kept.iter().any(|k| k.line == m.line && k.bounds.intersection(&m.bounds).is_some()) {
            kept.push(m);
        }
    }
    kept.truncate(opts.limit);
    kept
}

/// Score spans of consecutive words against the query by normalised Levenshtein.
fn fuzzy_spans(line: &Line, li: usize, query: &str, ignore_case: bool, out: &mut Vec<Match>) {
    let query = query.split_whitespace().collect::<Vec<_>>().join(" ");
    if query.is_empty() {
        return;
    }
    let fold = |s: &str| if ignore_case { s.to_lowercase() } else { s.to_string() };
    let q = fold(&query);
    let n = query.split(' ').count();
    for len in n.saturating_sub(1).max(1)..=n + 1 {
        for start in 0..line.words.len() {
            let Some(span) = line.words.get(start..start + len) else { break };
            let text = span.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
            if !same_number(&text, &query) || !words_close(&fold(&text), &q) {
                continue;
            }
            let score = strsim::normalized_levenshtein(&fold(&text), &q) as f32;
            out.push(Match { text, bounds: span_bounds(span), score, line: li });
        }
    }
}

/// Whether `text` may be `query` misread word by word. OCR puts a look-alike for a letter,
/// drops or adds one, reads "rn" for "m", splits or joins words; it does not write another
/// word: "with" for "without" (three letters more in a word of four) passed the distance
/// over the whole line, and `text:"Execution finished without errors"` was met by "Execution
/// finished with errors." on screen. So each word is at most one slip off the query's;
/// where OCR split or joined words, the text without its spaces is, as a whole.
fn words_close(text: &str, query: &str) -> bool {
    let plain = |s: &str| s.replace("rn", "m").replace("vv", "w");
    let (text, query) = (plain(text), plain(query));
    let (tw, qw): (Vec<&str>, Vec<&str>) = (text.split(' ').collect(), query.split(' ').collect());
    if tw.len() == qw.len() {
        return tw.iter().zip(&qw).all(|(t, q)| strsim::levenshtein(t, q) <= 1);
    }
    strsim::levenshtein(&text.replace(' ', ""), &query.replace(' ', "")) <= 1
}

/// Whether `text` may be `query` misread, as far as numbers go: an OCR slip turns a
/// letter into a look-alike (O for 0, l for 1), but a digit read as another digit is
/// another number ("7001" is not "7009", whose edit distance passes). Where the query has
/// digits, the candidate's digits (its look-alikes counted as digits) are the query's.
fn same_number(text: &str, query: &str) -> bool {
    if !query.chars().any(|c| c.is_ascii_digit()) {
        return true;
    }
    let digits = |s: &str| -> String {
        s.chars()
            .filter_map(|c| match c {
                'O' | 'o' => Some('0'),
                'l' | 'I' | '|' => Some('1'),
                c if c.is_ascii_digit() => Some(c),
                _ => None,
            })
            .collect()
    };
    digits(text) == digits(query)
}

/// Case-insensitive substring of the line text, with bounds narrowed to the characters.
fn substring(line: &Line, li: usize, query: &str, out: &mut Vec<Match>) {
    let q = query.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    if q.is_empty() {
        return;
    }
    let hay = line.text.to_lowercase();
    // Lower-casing can change byte lengths outside ASCII; only then fall back to words.
    let aligned = hay.len() == line.text.len();
    let mut from = 0;
    while let Some(pos) = hay[from..].find(&q) {
        let start = from + pos;
        let end = start + q.len();
        let (text, bounds) = if aligned {
            (line.text[start..end].to_string(), char_range_bounds(line, start, end))
        } else {
            (line.text.clone(), line.bounds)
        };
        out.push(Match { text, bounds, score: 1.0, line: li });
        from = start + q.len().max(1);
        if from >= hay.len() {
            break;
        }
    }
}

fn regex_matches(line: &Line, li: usize, pattern: &str, out: &mut Vec<Match>) {
    let Ok(re) = regex::Regex::new(pattern) else { return };
    for m in re.find_iter(&line.text) {
        if m.is_empty() {
            continue;
        }
        let bounds = char_range_bounds(line, m.start(), m.end());
        out.push(Match { text: m.as_str().to_string(), bounds, score: 1.0, line: li });
    }
}

fn span_bounds(words: &[Word]) -> Rect<Physical> {
    words.iter().skip(1).fold(words[0].bounds, |acc, w| acc.union(&w.bounds))
}

/// Bounds of the byte range `start..end` of `line.text`: the words it touches, with the
/// first and last narrowed in proportion to the characters covered.
fn char_range_bounds(line: &Line, start: usize, end: usize) -> Rect<Physical> {
    let mut offset = 0;
    let mut acc: Option<Rect<Physical>> = None;
    for w in &line.words {
        let (ws, we) = (offset, offset + w.text.len());
        offset = we + 1; // the joining space
        let (s, e) = (start.max(ws), end.min(we));
        if s >= e {
            continue;
        }
        let part = narrow(w, s - ws, e - ws);
        acc = Some(acc.map_or(part, |a| a.union(&part)));
    }
    acc.unwrap_or(line.bounds)
}

/// The part of a word's bounds holding its bytes `s..e`, in proportion to its length.
fn narrow(w: &Word, s: usize, e: usize) -> Rect<Physical> {
    let len = w.text.len().max(1) as u64;
    let width = u64::from(w.bounds.w);
    let x0 = width * s as u64 / len;
    let x1 = (width * e as u64).div_ceil(len).max(x0 + 1);
    Rect::new(w.bounds.x + x0 as i32, w.bounds.y, (x1 - x0) as u32, w.bounds.h)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result with one line per entry; each word 10 px per character, words 10 px apart.
    fn screen(lines: &[&str]) -> OcrResult {
        let lines = lines
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let mut x = 0;
                let words = text
                    .split(' ')
                    .map(|t| {
                        let w = Word {
                            text: t.into(),
                            bounds: Rect::new(x, i as i32 * 20, t.len() as u32 * 10, 16),
                            confidence: None,
                        };
                        x += t.len() as i32 * 10 + 10;
                        w
                    })
                    .collect();
                Line::from_words(words).unwrap()
            })
            .collect();
        OcrResult { lines, stats: Default::default() }
    }

    #[test]
    fn a_number_read_with_another_digit_is_another_number() {
        // xcalc showing 7001: `text:"7009"` (and 7002, 8001, 70011) passed as OCR slips.
        for query in ["7009", "7002", "8001", "70011", "1001"] {
            assert!(
                find_text(&screen(&["7001"]), &TextMatch::Contains(query.into()), &SearchOptions::default()).is_empty(),
                "{query}"
            );
            assert!(
                find_text(&screen(&["7001"]), &TextMatch::Exact(query.into()), &SearchOptions::default()).is_empty(),
                "{query}"
            );
        }
        // A letter read for its look-alike digit is still a slip.
        check(&["700l"], TextMatch::Exact("7001".into()), &[("700l", (0, 0, 40), 0.75)]);
        check(&["7001"], TextMatch::Contains("7001".into()), &[("7001", (0, 0, 40), 1.0)]);
    }

    fn check(lines: &[&str], query: TextMatch, expected: &[(&str, (i32, i32, u32), f32)]) {
        let got = find_text(&screen(lines), &query, &SearchOptions::default());
        let got: Vec<(String, (i32, i32, u32), f32)> = got
            .iter()
            .map(|m| (m.text.clone(), (m.bounds.x, m.bounds.y, m.bounds.w), (m.score * 100.0).round() / 100.0))
            .collect();
        let want: Vec<(String, (i32, i32, u32), f32)> =
            expected.iter().map(|(t, b, s)| (t.to_string(), *b, *s)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn exact_query_finds_the_word_and_ranks_ocr_slips_lower() {
        check(
            &["Submit", "Cancel Submit", "Submlt"],
            TextMatch::Exact("Submit".into()),
            &[("Submit", (0, 0, 60), 1.0), ("Submit", (70, 20, 60), 0.9), ("Submlt", (0, 40, 60), 0.83)],
        );
    }

    #[test]
    fn contains_is_case_insensitive_and_narrows_to_the_substring() {
        check(&["Please SUBMIT: now"], TextMatch::Contains("submit".into()), &[("SUBMIT", (70, 0, 60), 1.0)]);
    }

    #[test]
    fn multi_word_queries_span_consecutive_words() {
        check(
            &["Send me the weekly newsletter"],
            TextMatch::Contains("weekly newsletter".into()),
            &[("weekly newsletter", (120, 0, 170), 1.0)],
        );
        // OCR joined two words: the one-word span still matches closely.
        check(&["Save As..."], TextMatch::Exact("Save As...".into()), &[("Save As...", (0, 0, 100), 1.0)]);
        check(&["SaveAs..."], TextMatch::Exact("Save As...".into()), &[("SaveAs...", (0, 0, 90), 0.9)]);
    }

    #[test]
    fn another_word_is_no_slip_however_long_the_line() {
        // DB Browser for SQLite's failed query: the opposite of what was asked for.
        let failed = ["Execution finished with errors."];
        for query in ["Execution finished without errors", "finished without errors"] {
            assert!(
                find_text(&screen(&failed), &TextMatch::Exact(query.into()), &SearchOptions::default()).is_empty(),
                "{query}"
            );
            assert!(
                find_text(&screen(&failed), &TextMatch::Contains(query.into()), &SearchOptions::default()).is_empty(),
                "{query}"
            );
        }
        // Slips are still slips: a look-alike letter in each word, a dropped stop, "rn" for "m".
        let slipped = ["Executlon finlshed without errors"];
        let q = TextMatch::Exact("Execution finished without errors.".into());
        assert_eq!(find_text(&screen(&slipped), &q, &SearchOptions::default()).len(), 1);
        check(&["Subrnit order"], TextMatch::Exact("Submit order".into()), &[("Subrnit order", (0, 0, 130), 0.85)]);
    }

    #[test]
    fn regex_and_no_match() {
        check(&["Battery 54%"], TextMatch::Regex(r"\d+%".into()), &[("54%", (80, 0, 30), 1.0)]);
        check(&["Battery 54%"], TextMatch::Regex(r"(".into()), &[]);
        check(&["Cancel"], TextMatch::Exact("Delete".into()), &[]);
    }
}
