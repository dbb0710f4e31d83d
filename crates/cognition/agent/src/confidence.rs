//! The executive function's score of a proposed action.
//!
//! A model asked "how sure are you, 0 to 1?" answers 0.9 almost whatever the case: raw
//! self-reports cluster high and are poorly calibrated. So the check is framed as a
//! choice: the candidate targets (the elements the action could be confused with, read
//! from the tree) plus "ask the person", answered with one letter. The model's part is the
//! probability of the proposed option's letter, from the token log-probabilities where the
//! provider returns them (OpenAI-compatible servers do), else the agreement of a few
//! samples. It is combined, on the log-odds scale, with signals that cost no model call:
//! whether the target is unique in the tree, whether the action can be undone, and how many
//! actions of the run failed verification so far.

use deft_llm::{Call, Choice, Limits, Model, Request, Response};

use crate::prompt::{self, CheckOption};

/// Whether an action can be undone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reversibility {
    /// Typing, setting a value, scrolling, toggling: undone by another action.
    Reversible,
    /// A push button or a key: it may or may not be.
    Unknown,
    /// Named by the policy's confirmation words.
    Irreversible,
}

/// The signals that cost no model call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Signals {
    /// Elements the target could be confused with, itself included (1: unique, or the
    /// person already named which one).
    pub candidates: usize,
    /// Whether the action can be undone.
    pub reversible: Reversibility,
    /// Actions of this run that failed verification so far.
    pub failures: u32,
}

// Weights on the log-odds scale. Chosen so that: a unique target the model picks with
// p = 0.95 scores about 0.97; the same with two candidates (the goal naming one) about
// 0.9; an even split between two candidates about 0.3; five of five samples on a unique
// target about 0.96 (four of five 0.87), on one of two about 0.73. `agent-cli calibrate` sets the threshold
// from a user's own (score, outcome) pairs, so these only need the right order.
const UNIQUE: f64 = 0.5;
const NOT_UNIQUE: f64 = -0.5;
const UNKNOWN_REVERSIBILITY: f64 = -0.3;
const IRREVERSIBLE: f64 = -1.0;
const PER_FAILURE: f64 = -0.4;
const MAX_FAILURES: u32 = 5;

fn logit(p: f64) -> f64 {
    let p = p.clamp(0.001, 0.999);
    (p / (1.0 - p)).ln()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The combined score: the model's part (a neutral prior when there is none) moved by the
/// free signals.
pub fn combine(model: Option<f64>, s: &Signals) -> f64 {
    let mut x = logit(model.unwrap_or(prior(s.candidates)));
    x += if s.candidates <= 1 { UNIQUE } else { NOT_UNIQUE };
    x += match s.reversible {
        Reversibility::Reversible => 0.0,
        Reversibility::Unknown => UNKNOWN_REVERSIBILITY,
        Reversibility::Irreversible => IRREVERSIBLE,
    };
    x += PER_FAILURE * f64::from(s.failures.min(MAX_FAILURES));
    sigmoid(x)
}

/// The model's part of a score.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelScore {
    /// Probability of the proposed option, 0..1 (`None`: no usable answer).
    pub p: Option<f64>,
    /// `logprobs` or `samples`.
    pub method: &'static str,
    /// The responses, for usage accounting.
    pub responses: Vec<Response>,
}

/// The letter an answer text or token starts with (`"B"`, `" b)"`, `"B."`).
fn letter_of(text: &str) -> Option<char> {
    let t = text.trim().trim_start_matches(['(', '*', '"', '\'']);
    let mut chars = t.chars();
    let c = chars.next()?.to_ascii_uppercase();
    let rest = chars.as_str();
    (c.is_ascii_uppercase() && (rest.is_empty() || rest.starts_with([')', '.', ':', ' ', ',', '\n']))).then_some(c)
}

/// The probability of `proposed` among `letters`, from the first letter-bearing token's
/// top log-probabilities.
pub fn from_logprobs(choice: &Choice, letters: &[char], proposed: char) -> Option<f64> {
    let tokens = choice.logprobs.as_ref()?;
    let first = tokens.iter().find(|t| !t.token.trim().is_empty())?;
    let mut mass = vec![0.0; letters.len()];
    let alternatives: Vec<(&str, f64)> = if first.top.is_empty() {
        vec![(first.token.as_str(), first.logprob)]
    } else {
        first.top.iter().map(|t| (t.token.as_str(), t.logprob)).collect()
    };
    for (tok, lp) in alternatives {
        if let Some(c) = letter_of(tok)
            && let Some(i) = letters.iter().position(|l| *l == c)
        {
            mass[i] += lp.exp();
        }
    }
    let total: f64 = mass.iter().sum();
    let i = letters.iter().position(|l| *l == proposed)?;
    (total > 0.0).then(|| mass[i] / total)
}

/// Agreement of samples with `proposed`, shrunk towards `prior` (the free signals' own
/// guess: 0.9 for a unique target, 0.5 otherwise) as if two more samples had agreed that
/// often: k of n gives (k + 2 prior) / (n + 2). A handful of samples is coarse; the prior
/// keeps one dissenting sample on a unique target from sinking the score, and five of
/// five on one of two candidates from reading as certainty.
pub fn from_samples(choices: &[&Choice], proposed: char, prior: f64) -> Option<f64> {
    if choices.is_empty() {
        return None;
    }
    let agree = choices.iter().filter(|c| letter_of(&c.text()) == Some(proposed)).count();
    Some((agree as f64 + 2.0 * prior) / (choices.len() as f64 + 2.0))
}

/// The prior the free signals give the model's part when it has none.
pub fn prior(candidates: usize) -> f64 {
    if candidates <= 1 { 0.9 } else { 0.5 }
}

/// What the check asks about.
#[derive(Clone, Debug)]
pub struct CheckInput<'a> {
    /// The goal.
    pub goal: &'a str,
    /// The model's thought of the step.
    pub thought: &'a str,
    /// The proposed action in words.
    pub proposed: &'a str,
    /// The candidate targets (letters A, B, ...); the proposed one among them.
    pub options: Vec<CheckOption>,
    /// The proposed option's letter.
    pub proposed_letter: char,
    /// The person's answers so far in the run.
    pub answers: &'a [String],
    /// How many candidates the free signals count (1 when the person already named one).
    pub effective_candidates: usize,
}

/// The focused second call. Log-probabilities first (one call), unless the provider is
/// known to have none (Anthropic); samples when none came back.
pub async fn separate<M: Model>(model: &M, input: &CheckInput<'_>, samples: u32, call: &Call<'_>) -> ModelScore {
    let ask = char::from(b'A' + input.options.len() as u8);
    let mut letters: Vec<char> = input.options.iter().map(|o| o.letter).collect();
    letters.push(ask);
    let (system, user) = prompt::check(input.goal, input.thought, input.proposed, &input.options, ask, input.answers);
    let mut req = Request::new(system, user);
    req.limits = Limits { max_tokens: 5, temperature: Some(0.0), stop: Vec::new() };
    let mut responses = Vec::new();
    if model.describe().provider != "anthropic" {
        req.asks.logprobs = Some(5);
        if let Ok(r) = model.complete(&req, call).await {
            let p = from_logprobs(&r.choice, &letters, input.proposed_letter);
            responses.push(r);
            if p.is_some() {
                return ModelScore { p, method: "logprobs", responses };
            }
        }
        req.asks.logprobs = None;
    }
    req.asks.samples = samples.max(1);
    req.limits.temperature = Some(1.0);
    match model.complete(&req, call).await {
        Ok(r) => {
            let choices: Vec<&Choice> = std::iter::once(&r.choice).chain(r.samples.iter()).collect();
            let p = from_samples(&choices, input.proposed_letter, prior(input.effective_candidates));
            responses.push(r);
            ModelScore { p, method: "samples", responses }
        }
        Err(_) => ModelScore { p: None, method: "none", responses },
    }
}

#[cfg(test)]
mod tests {
    use deft_llm::{Stop, StopReason, TokenLogprob, TopLogprob};

    use super::*;

    fn sig(candidates: usize, reversible: Reversibility, failures: u32) -> Signals {
        Signals { candidates, reversible, failures }
    }

    #[test]
    fn combined_scores_keep_their_order() {
        let unique_sure = combine(Some(0.95), &sig(1, Reversibility::Unknown, 0));
        let two_named = combine(Some(0.95), &sig(2, Reversibility::Unknown, 0));
        let two_even = combine(Some(0.5), &sig(2, Reversibility::Unknown, 0));
        let after_failures = combine(Some(0.95), &sig(1, Reversibility::Unknown, 3));
        assert!(unique_sure > 0.95 && two_named > 0.85 && two_named < unique_sure, "{unique_sure} {two_named}");
        assert!(two_even < 0.4, "{two_even}");
        assert!(after_failures < unique_sure);
        let (a, b) = (choice("A"), choice("B"));
        let five_of_five = from_samples(&[&a; 5], 'A', prior(1)).unwrap();
        let four_of_five = from_samples(&[&a, &a, &a, &a, &b], 'A', prior(1)).unwrap();
        assert!(combine(Some(five_of_five), &sig(1, Reversibility::Unknown, 0)) > 0.9);
        assert!(
            combine(Some(four_of_five), &sig(1, Reversibility::Unknown, 0)) > 0.85,
            "one dissent on a unique target"
        );
        let of_two = from_samples(&[&a; 5], 'A', prior(2)).unwrap();
        assert!(combine(Some(of_two), &sig(2, Reversibility::Unknown, 0)) < 0.85, "five of five on one of two");
    }

    fn choice(text: &str) -> Choice {
        Choice {
            parts: vec![deft_llm::Part::Text(text.into())],
            stop: Stop { reason: StopReason::EndTurn, raw: String::new() },
            logprobs: None,
        }
    }

    #[test]
    fn letter_probabilities_from_logprobs() {
        let mut c = choice("B");
        let top = |t: &str, p: f64| TopLogprob { token: t.into(), logprob: p.ln() };
        c.logprobs = Some(vec![TokenLogprob {
            token: "B".into(),
            logprob: 0.5f64.ln(),
            top: vec![top("B", 0.5), top("A", 0.3), top(" A", 0.1), top("Hello", 0.1)],
        }]);
        let p = from_logprobs(&c, &['A', 'B', 'C'], 'A').unwrap();
        assert!((p - 0.4 / 0.9).abs() < 1e-9, "{p}");
        assert_eq!(letter_of("b) the second"), Some('B'));
        assert_eq!(letter_of("Because"), None);
    }
}
