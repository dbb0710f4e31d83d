//! The providers' prompt caches, as their documentation describes them, so that what the
//! agent sends can be measured for what caching saves. The test model counts a prompt's
//! tokens as its characters / 4; a cached part is counted the same way, as its share of
//! the prompt's characters (so the numbers are approximate, and consistent).
//!
//! - **OpenAI** caches on its own: a prompt of at least 1,024 tokens is served from the
//!   cache for the longest first part it shares with an earlier prompt, counted in steps of
//!   128 tokens; `usage.prompt_tokens_details.cached_tokens` says how many.
//! - **Anthropic** caches what the request marks: each `cache_control` breakpoint ends a
//!   cacheable first part (tools, then system, then messages, block by block). A request
//!   reads the longest part cached before that ends at one of its breakpoints or up to 20
//!   blocks before one, and writes the part up to its last breakpoint; a part shorter than
//!   1,024 tokens is not cached. `cache_read_input_tokens` and
//!   `cache_creation_input_tokens` say how many; `input_tokens` is the rest.

use std::collections::HashSet;

use serde_json::Value;

use super::Wire;

/// The least cacheable prompt, in tokens (both providers' documented minimum for their
/// larger models).
const MIN_TOKENS: u64 = 1024;
/// OpenAI counts cached tokens in steps of this many.
const OPENAI_STEP: u64 = 128;
/// How far before a breakpoint Anthropic looks for an earlier cached part, in blocks.
const LOOKBACK: usize = 20;

/// A prompt's tokens, split as the provider bills them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Not from the cache, and not written to it.
    pub input: u64,
    /// Read from the cache.
    pub cache_read: u64,
    /// Written to the cache (Anthropic only).
    pub cache_write: u64,
}

/// What one test model has cached so far.
#[derive(Debug, Default)]
pub struct PromptCache {
    /// OpenAI: the prompts seen, whole.
    prompts: Vec<String>,
    /// Anthropic: the first parts written, whole.
    parts: HashSet<String>,
}

impl PromptCache {
    /// The usage of `body`, a request of `wire` counted as `tokens` in all, and what it
    /// leaves in the cache.
    pub fn usage(&mut self, wire: Wire, body: &Value, tokens: u64) -> Usage {
        let blocks = blocks(wire, body);
        let chars: usize = blocks.iter().map(|(b, _)| b.len()).sum();
        let share = |upto: usize| -> u64 {
            let part: usize = blocks[..upto].iter().map(|(b, _)| b.len()).sum();
            (tokens as f64 * part as f64 / chars.max(1) as f64) as u64
        };
        let prefix = |upto: usize| -> String { blocks[..upto].iter().map(|(b, _)| b.as_str()).collect() };
        match wire {
            Wire::OpenAi => {
                let whole = prefix(blocks.len());
                let shared = self.prompts.iter().map(|p| common_prefix(p, &whole)).max().unwrap_or(0);
                self.prompts.push(whole);
                let cached = (tokens as f64 * shared as f64 / chars.max(1) as f64) as u64;
                let cached = if tokens >= MIN_TOKENS { cached / OPENAI_STEP * OPENAI_STEP } else { 0 };
                Usage { input: tokens - cached, cache_read: cached, cache_write: 0 }
            }
            Wire::Anthropic => {
                // Block counts that end at a breakpoint.
                let ends: Vec<usize> =
                    blocks.iter().enumerate().filter(|(_, (_, bp))| *bp).map(|(i, _)| i + 1).collect();
                let read = ends
                    .iter()
                    .flat_map(|&end| (end.saturating_sub(LOOKBACK).max(1)..=end).rev())
                    .filter(|&end| self.parts.contains(&prefix(end)))
                    .max()
                    .unwrap_or(0);
                let last = ends.last().copied().unwrap_or(0);
                let mut write = 0;
                for &end in &ends {
                    if share(end) >= MIN_TOKENS && self.parts.insert(prefix(end)) && end == last && end > read {
                        write = share(end) - share(read);
                    }
                }
                let cache_read = share(read);
                Usage { input: tokens.saturating_sub(cache_read + write), cache_read, cache_write: write }
            }
        }
    }
}

/// The request's content in the provider's order, one entry per block with whether a
/// breakpoint ends at it (`cache_control` itself left out of what is compared).
fn blocks(wire: Wire, body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut push = |v: &Value, role: &str| {
        let mut v = v.clone();
        let bp = v.as_object_mut().and_then(|o| o.remove("cache_control")).is_some();
        out.push((format!("{role}:{v}"), bp));
    };
    for tool in body["tools"].as_array().into_iter().flatten() {
        push(tool, "tool");
    }
    match &body["system"] {
        Value::Array(parts) => parts.iter().for_each(|p| push(p, "system")),
        Value::Null => {}
        text => push(text, "system"),
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        let role = m["role"].as_str().unwrap_or("?");
        match (wire, &m["content"]) {
            (Wire::Anthropic, Value::Array(parts)) => parts.iter().for_each(|p| push(p, role)),
            _ => push(m, role),
        }
    }
    out
}

/// How many leading bytes `a` and `b` share.
fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn anthropic(history: &[&str], breakpoint_at: Option<usize>) -> Value {
        let messages: Vec<Value> = history
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut block = json!({"type": "text", "text": t});
                if breakpoint_at == Some(i) {
                    block["cache_control"] = json!({"type": "ephemeral"});
                }
                json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": [block]})
            })
            .collect();
        json!({"system": [{"type": "text", "text": "s".repeat(5000), "cache_control": {"type": "ephemeral"}}], "messages": messages})
    }

    #[test]
    fn anthropic_reads_what_an_earlier_breakpoint_wrote_and_writes_the_rest() {
        let mut c = PromptCache::default();
        let long = "x".repeat(2000);
        let first = c.usage(Wire::Anthropic, &anthropic(&[&long, "a"], Some(0)), 2000);
        assert_eq!(first.cache_read, 0, "nothing cached yet");
        assert!(first.cache_write > 0 && first.input > 0, "{first:?}");
        // The next request repeats that part and moves its breakpoint on.
        let next = c.usage(Wire::Anthropic, &anthropic(&[&long, "a", &long, "b"], Some(2)), 3000);
        assert!(next.cache_read > 0 && next.cache_write > 0, "{next:?}");
        assert_eq!(next.cache_read + next.cache_write + next.input, 3000);
        // Without breakpoints in the history, only the system prompt is read.
        let plain = c.usage(Wire::Anthropic, &anthropic(&[&long, "a", &long, "b", "c"], None), 3100);
        assert!(plain.cache_read < next.cache_read + next.cache_write, "{plain:?}");
    }

    #[test]
    fn openai_serves_the_longest_shared_first_part_in_steps() {
        let mut c = PromptCache::default();
        let body = |tail: &str| json!({"messages": [{"role": "system", "content": "s".repeat(8000)}, {"role": "user", "content": tail}]});
        assert_eq!(c.usage(Wire::OpenAi, &body("one"), 2000).cache_read, 0);
        let second = c.usage(Wire::OpenAi, &body("two"), 2000);
        assert!(second.cache_read > 1024 && second.cache_read % 128 == 0, "{second:?}");
        assert_eq!(second.cache_read + second.input, 2000);
        // Short prompts are never cached.
        assert_eq!(c.usage(Wire::OpenAi, &body("two"), 900).cache_read, 0);
    }
}
