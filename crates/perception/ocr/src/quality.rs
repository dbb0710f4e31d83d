//! Measuring OCR quality against known text: character accuracy and word recall.
//!
//! Both are independent of how the text was split into lines, so engines that merge a
//! label with its field, or split a row into cells, are compared fairly:
//! - character accuracy: each expected line is matched against the best-fitting substring
//!   of any recognised line (edit distance); accuracy is `1 - errors / expected chars`;
//! - word recall: the share of expected words found, each recognised word used once.
//!
//! Comparison is exact (case and punctuation count); runs of white space count as one.

/// Quality of recognised text against the expected text.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quality {
    /// Characters expected (white space runs count as one).
    pub chars: usize,
    /// Character edits needed (insertions, deletions, substitutions), at most `chars`.
    pub char_errors: usize,
    /// Words expected.
    pub words: usize,
    /// Expected words found among the recognised ones.
    pub words_found: usize,
}

impl Quality {
    /// `1 - char_errors / chars` (1 when nothing was expected).
    pub fn char_accuracy(&self) -> f64 {
        if self.chars == 0 { 1.0 } else { 1.0 - self.char_errors as f64 / self.chars as f64 }
    }

    /// `words_found / words` (1 when nothing was expected).
    pub fn word_recall(&self) -> f64 {
        if self.words == 0 { 1.0 } else { self.words_found as f64 / self.words as f64 }
    }

    /// The sum of two measurements (for totals over a set of images).
    pub fn add(&self, o: &Quality) -> Quality {
        Quality {
            chars: self.chars + o.chars,
            char_errors: self.char_errors + o.char_errors,
            words: self.words + o.words,
            words_found: self.words_found + o.words_found,
        }
    }
}

/// Score `recognised` lines against `expected` lines.
pub fn measure<E: AsRef<str>, R: AsRef<str>>(expected: &[E], recognised: &[R]) -> Quality {
    let recognised: Vec<Vec<char>> = recognised.iter().map(|l| normalize(l.as_ref())).collect();
    let mut q = Quality::default();
    for line in expected {
        let want = normalize(line.as_ref());
        if want.is_empty() {
            continue;
        }
        let best = recognised.iter().map(|r| substring_distance(&want, r)).min().unwrap_or(want.len());
        q.chars += want.len();
        q.char_errors += best.min(want.len());
    }
    let mut pool: Vec<&str> = Vec::new();
    let owned: Vec<String> = recognised.iter().map(|c| c.iter().collect()).collect();
    for l in &owned {
        pool.extend(l.split(' ').filter(|w| !w.is_empty()));
    }
    for line in expected {
        for word in line.as_ref().split_whitespace() {
            q.words += 1;
            if let Some(i) = pool.iter().position(|w| *w == word) {
                pool.swap_remove(i);
                q.words_found += 1;
            }
        }
    }
    q
}

fn normalize(s: &str) -> Vec<char> {
    s.split_whitespace().collect::<Vec<_>>().join(" ").chars().collect()
}

/// The edit distance between `pattern` and the substring of `text` that fits it best
/// (Sellers' algorithm: free start and end in `text`).
pub fn substring_distance(pattern: &[char], text: &[char]) -> usize {
    let mut prev: Vec<usize> = vec![0; text.len() + 1];
    let mut cur = vec![0; text.len() + 1];
    for (i, pc) in pattern.iter().enumerate() {
        cur[0] = i + 1;
        for (j, tc) in text.iter().enumerate() {
            let sub = prev[j] + usize::from(pc != tc);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.into_iter().min().unwrap_or(pattern.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(expected: &[&str], recognised: &[&str], accuracy: f64, recall: f64) {
        let q = measure(expected, recognised);
        assert!((q.char_accuracy() - accuracy).abs() < 1e-9, "accuracy {} != {accuracy}: {q:?}", q.char_accuracy());
        assert!((q.word_recall() - recall).abs() < 1e-9, "recall {} != {recall}: {q:?}", q.word_recall());
    }

    #[test]
    fn line_splits_and_merges_do_not_count() {
        check(&["Cancel", "Submit"], &["Cancel  Submit"], 1.0, 1.0);
        check(&["Full name Ada"], &["Full name", "Ada"], 1.0 - 4.0 / 13.0, 1.0);
    }

    #[test]
    fn errors_count_per_character_and_words_must_be_exact() {
        check(&["Language"], &["Lanquage"], 1.0 - 1.0 / 8.0, 0.0);
        check(&["Email"], &[], 0.0, 0.0);
        check(&[], &["noise"], 1.0, 1.0);
    }

    #[test]
    fn each_recognised_word_is_used_once() {
        check(&["OK", "OK"], &["OK"], 1.0, 0.5);
    }
}
