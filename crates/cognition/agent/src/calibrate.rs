//! Calibration: every scored action leaves a (confidence, outcome) pair, and a threshold
//! is chosen from a user's own pairs rather than guessed. Pure: the face reads and writes
//! the file.

use serde::{Deserialize, Serialize};

/// How a scored action turned out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// It ran and its effect was verified (or received).
    Worked,
    /// It ran and failed.
    Failed,
    /// It was held back and the person named the same element: the guess was right.
    Confirmed,
    /// It was held back and the person named another element or said no: it was wrong.
    Corrected,
}

impl Verdict {
    /// Whether the action was the right one.
    pub fn right(self) -> bool {
        matches!(self, Verdict::Worked | Verdict::Confirmed)
    }
}

/// One scored action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The run.
    pub run_id: String,
    /// The step.
    pub step: u32,
    /// The tool.
    pub tool: String,
    /// The combined score.
    pub score: f64,
    /// The model's part.
    pub model: Option<f64>,
    /// How the model's part was measured.
    pub method: String,
    /// Candidate elements.
    pub candidates: usize,
    /// How it turned out.
    pub verdict: Verdict,
}

/// What the pairs say.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// Pairs read.
    pub pairs: usize,
    /// Of them, right.
    pub right: usize,
    /// Per score band (`0.0-0.5`, `0.5-0.7`, `0.7-0.85`, `0.85-0.95`, `0.95-1.0`): pairs and the share right.
    pub bands: Vec<Band>,
    /// The lowest threshold at which the actions run without asking are right at least
    /// `target` of the time (`None`: no threshold reaches it, or too few pairs).
    pub suggested_threshold: Option<f64>,
    /// The precision asked for.
    pub target: f64,
    /// At the suggested threshold, the share of actions that would have asked.
    pub ask_rate: Option<f64>,
}

/// One score band.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Band {
    /// Lower bound (inclusive).
    pub from: f64,
    /// Upper bound (exclusive, 1.0 inclusive).
    pub to: f64,
    /// Pairs in the band.
    pub pairs: usize,
    /// Share right (`None` when empty).
    pub right: Option<f64>,
}

/// Fewest pairs a suggestion needs.
pub const MIN_PAIRS: usize = 10;

/// Reliability by band and the suggested threshold for a wanted precision `target`.
pub fn calibrate(records: &[Record], target: f64) -> Calibration {
    const EDGES: [f64; 6] = [0.0, 0.5, 0.7, 0.85, 0.95, 1.0];
    let bands = EDGES
        .windows(2)
        .map(|w| {
            let inside: Vec<&Record> = records
                .iter()
                .filter(|r| r.score >= w[0] && (r.score < w[1] || w[1] == 1.0 && r.score <= 1.0))
                .collect();
            let right = inside.iter().filter(|r| r.verdict.right()).count();
            Band {
                from: w[0],
                to: w[1],
                pairs: inside.len(),
                right: (!inside.is_empty()).then(|| right as f64 / inside.len() as f64),
            }
        })
        .collect();
    let mut candidates: Vec<f64> = records.iter().map(|r| r.score).collect();
    candidates.sort_by(f64::total_cmp);
    candidates.dedup();
    let suggested = if records.len() < MIN_PAIRS {
        None
    } else {
        candidates.into_iter().find(|&t| {
            let above: Vec<&Record> = records.iter().filter(|r| r.score >= t).collect();
            let right = above.iter().filter(|r| r.verdict.right()).count();
            !above.is_empty() && right as f64 / above.len() as f64 >= target
        })
    };
    let ask_rate = suggested.map(|t| records.iter().filter(|r| r.score < t).count() as f64 / records.len() as f64);
    Calibration {
        pairs: records.len(),
        right: records.iter().filter(|r| r.verdict.right()).count(),
        bands,
        suggested_threshold: suggested,
        target,
        ask_rate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(score: f64, verdict: Verdict) -> Record {
        Record {
            run_id: "r".into(),
            step: 1,
            tool: "click".into(),
            score,
            model: Some(score),
            method: "logprobs".into(),
            candidates: 1,
            verdict,
        }
    }

    #[test]
    fn the_threshold_is_where_precision_reaches_the_target() {
        let mut v: Vec<Record> = (0..10).map(|i| rec(0.9 + f64::from(i) / 100.0, Verdict::Worked)).collect();
        v.push(rec(0.6, Verdict::Corrected));
        v.push(rec(0.7, Verdict::Failed));
        v.push(rec(0.75, Verdict::Confirmed));
        let c = calibrate(&v, 0.95);
        assert_eq!(c.pairs, 13);
        assert_eq!(c.suggested_threshold, Some(0.75));
        assert!((c.ask_rate.unwrap() - 2.0 / 13.0).abs() < 1e-9);
        assert_eq!(c.bands[1].pairs, 1);
        assert_eq!(calibrate(&v[..5], 0.95).suggested_threshold, None, "too few pairs");
    }
}
