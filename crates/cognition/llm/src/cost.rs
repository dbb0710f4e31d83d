//! Estimated cost: a small dated price table, config overrides, and per-run totals.

use serde::{Deserialize, Serialize};

use crate::response::{Response, Usage};

/// The date of the built-in prices. They are estimates from the providers' published
/// list prices at that date (standard tier, prompts under any long-context tier); check
/// the provider's pricing page, and override with `price` in the config when they differ.
pub const PRICES_AS_OF: &str = "2025-11";

/// US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Input read without the cache.
    pub input: f64,
    /// Output, thinking included.
    pub output: f64,
    /// Input read from the cache.
    #[serde(default)]
    pub cache_read: f64,
    /// Input written to the cache (Anthropic).
    #[serde(default)]
    pub cache_write: f64,
}

impl Price {
    const fn new(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Self {
        Self { input, output, cache_read, cache_write }
    }

    /// The cost of `usage` at this price, in US dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        (usage.input_tokens as f64 * self.input
            + usage.output_tokens as f64 * self.output
            + usage.cache_read_tokens as f64 * self.cache_read
            + usage.cache_write_tokens as f64 * self.cache_write)
            / 1_000_000.0
    }
}

/// Built-in prices by model-name prefix (the longest matching prefix wins, so a dated
/// name such as `claude-sonnet-4-5-20250929` finds `claude-sonnet-4-5`). As of
/// [`PRICES_AS_OF`]; estimates.
const PRICES: &[(&str, Price)] = &[
    // Anthropic: cache writes (5-minute) cost 1.25x input, cache reads 0.1x.
    ("claude-opus-4-5", Price::new(5.0, 25.0, 0.50, 6.25)),
    ("claude-opus-4", Price::new(15.0, 75.0, 1.50, 18.75)),
    ("claude-sonnet-4", Price::new(3.0, 15.0, 0.30, 3.75)),
    ("claude-3-7-sonnet", Price::new(3.0, 15.0, 0.30, 3.75)),
    ("claude-haiku-4-5", Price::new(1.0, 5.0, 0.10, 1.25)),
    ("claude-3-5-haiku", Price::new(0.80, 4.0, 0.08, 1.0)),
    // OpenAI: cached input is discounted automatically; there is no write price.
    ("gpt-5-nano", Price::new(0.05, 0.40, 0.005, 0.0)),
    ("gpt-5-mini", Price::new(0.25, 2.0, 0.025, 0.0)),
    ("gpt-5", Price::new(1.25, 10.0, 0.125, 0.0)),
    ("gpt-4.1-nano", Price::new(0.10, 0.40, 0.025, 0.0)),
    ("gpt-4.1-mini", Price::new(0.40, 1.60, 0.10, 0.0)),
    ("gpt-4.1", Price::new(2.0, 8.0, 0.50, 0.0)),
    ("gpt-4o-mini", Price::new(0.15, 0.60, 0.075, 0.0)),
    ("gpt-4o", Price::new(2.50, 10.0, 1.25, 0.0)),
    ("o4-mini", Price::new(1.10, 4.40, 0.275, 0.0)),
    ("o3", Price::new(2.0, 8.0, 0.50, 0.0)),
    // Gemini (prompts up to 200k tokens for 2.5 Pro).
    ("gemini-2.5-pro", Price::new(1.25, 10.0, 0.31, 0.0)),
    ("gemini-2.5-flash-lite", Price::new(0.10, 0.40, 0.025, 0.0)),
    ("gemini-2.5-flash", Price::new(0.30, 2.50, 0.075, 0.0)),
    ("gemini-2.0-flash", Price::new(0.10, 0.40, 0.025, 0.0)),
];

/// The built-in price of `model`, if the table knows it. Provider prefixes such as
/// `models/` (Gemini) or `openai/` (routers) are ignored.
pub fn builtin_price(model: &str) -> Option<Price> {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    PRICES.iter().filter(|(prefix, _)| name.starts_with(prefix)).max_by_key(|(prefix, _)| prefix.len()).map(|&(_, p)| p)
}

/// The estimated cost of `usage`: the configured price, else the built-in one, else unknown.
pub(crate) fn estimate(configured: Option<Price>, model: &str, usage: &Usage) -> Option<f64> {
    configured.or_else(|| builtin_price(model)).map(|p| p.cost(usage))
}

/// Usage and estimated cost summed over a run (every call of one agent task).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageTotals {
    /// Calls counted.
    pub calls: u32,
    /// Tokens, summed.
    pub usage: Usage,
    /// Estimated cost of the calls whose price is known, in US dollars.
    pub known_cost_usd: f64,
    /// Calls whose cost is unknown (not included in `known_cost_usd`).
    pub calls_without_price: u32,
}

impl UsageTotals {
    /// Adds one response.
    pub fn add(&mut self, response: &Response) {
        self.add_usage(&response.usage, response.cost_usd);
    }

    /// Adds one call's usage and cost.
    pub fn add_usage(&mut self, usage: &Usage, cost_usd: Option<f64>) {
        self.calls += 1;
        self.usage += *usage;
        match cost_usd {
            Some(c) => self.known_cost_usd += c,
            None => self.calls_without_price += 1,
        }
    }

    /// The total cost, or `None` when any call's price is unknown.
    pub fn cost_usd(&self) -> Option<f64> {
        (self.calls_without_price == 0).then_some(self.known_cost_usd)
    }
}

impl std::fmt::Display for UsageTotals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let u = &self.usage;
        write!(
            f,
            "{} calls, {} input + {} cached + {} cache-write + {} output tokens, ",
            self.calls, u.input_tokens, u.cache_read_tokens, u.cache_write_tokens, u.output_tokens
        )?;
        match self.cost_usd() {
            Some(c) => write!(f, "about ${c:.4} (estimate, prices of {PRICES_AS_OF})"),
            None if self.calls_without_price == self.calls => f.write_str("cost unknown (no price for the model)"),
            None => write!(
                f,
                "at least ${:.4} (estimate; {} calls of unknown price not included)",
                self.known_cost_usd, self.calls_without_price
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefix_wins() {
        assert_eq!(builtin_price("gpt-4o-mini-2024-07-18").unwrap().input, 0.15);
        assert_eq!(builtin_price("gpt-4o-2024-08-06").unwrap().input, 2.50);
        assert_eq!(builtin_price("claude-sonnet-4-5-20250929").unwrap().output, 15.0);
        assert_eq!(builtin_price("claude-opus-4-5").unwrap().input, 5.0);
        assert_eq!(builtin_price("claude-opus-4-1-20250805").unwrap().input, 15.0);
        assert_eq!(builtin_price("models/gemini-2.5-flash-lite").unwrap().input, 0.10);
        assert_eq!(builtin_price("llama3.2:3b"), None);
    }

    #[test]
    fn cost_and_totals() {
        let p = Price::new(3.0, 15.0, 0.30, 3.75);
        let u = Usage { input_tokens: 1_000_000, output_tokens: 100_000, cache_read_tokens: 0, cache_write_tokens: 0 };
        assert!((p.cost(&u) - 4.5).abs() < 1e-9);
        let mut t = UsageTotals::default();
        t.add_usage(&u, Some(4.5));
        assert_eq!(t.cost_usd(), Some(4.5));
        t.add_usage(&u, None);
        assert_eq!(t.cost_usd(), None, "an unknown price is not zero");
        assert_eq!(t.calls, 2);
        assert_eq!(t.usage.input_tokens, 2_000_000);
        assert!(t.to_string().contains("1 calls of unknown price not included"), "{t}");
    }
}
