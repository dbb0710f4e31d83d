//! The world model: the run's (thought, action, observation) triples, and the request each
//! step sends. It stays small on long tasks: an observation is whole only while it is among
//! the newest few steps, then shrinks to its one-line outcome; a screenshot is shown once,
//! in the step that asked for it, then dropped. What stays as it is from one request to
//! the next (the system prompt and the tools, the opening, the steps already shrunk) is
//! the request's first part, byte for byte, so a provider's prompt cache serves it: a
//! breakpoint ends it where the provider takes one (Anthropic), and the providers that
//! cache on their own (OpenAI, Gemini) find the same prefix. Past `history_steps` steps,
//! the oldest are folded into one line each (what was called, what it came to; the
//! thoughts go) at the end of the opening, a chunk at a time, so a long task's requests
//! stop growing with every step and the cached prefix changes once per chunk.

use deft_llm::{Cache, Image, Limits, Message, Part, Request, ResultPart, Role, ToolChoice, ToolDef, ToolResult};
use serde::{Deserialize, Serialize};

/// What one tool call came to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Obs {
    /// The call it answers.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The whole observation.
    pub full: String,
    /// The one line it shrinks to.
    pub brief: String,
    /// The call failed or was not run.
    pub is_error: bool,
    /// A screenshot to show once (never saved with a paused run).
    #[serde(skip)]
    pub image: Option<Image>,
}

/// One step: the model's reply (thought and calls), what each call came to, and the
/// agent's note (belief, divergence, repeated failures).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The step number.
    pub step: u32,
    /// The assistant message, exactly as the model sent it (thinking blocks included).
    pub reply: Message,
    /// One per tool call of the reply, in order.
    pub results: Vec<Obs>,
    /// The agent's note after the results, if any.
    pub note: Option<String>,
}

/// The run's memory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct World {
    /// The opening message: the goal and the desktop at the start.
    pub opening: String,
    /// The steps, oldest first.
    pub turns: Vec<Turn>,
    /// Older steps folded into one line each, oldest first ([`World::compact`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folded: Vec<String>,
}

impl World {
    /// A world starting from `opening`.
    pub fn new(opening: String) -> World {
        World { opening, turns: Vec::new(), folded: Vec::new() }
    }

    /// Fold the oldest steps into one line each, `chunk` at a time, while more than `keep`
    /// steps would be left as turns.
    pub fn compact(&mut self, keep: usize, chunk: usize) {
        let chunk = chunk.max(1);
        while self.turns.len() >= keep + chunk {
            let old: Vec<Turn> = self.turns.drain(..chunk).collect();
            self.folded.extend(old.iter().map(fold));
        }
    }

    /// The opening message, with the folded steps after it.
    fn opening_text(&self) -> String {
        if self.folded.is_empty() {
            return self.opening.clone();
        }
        format!(
            "{}\n\nThe first {} steps, one line each (their details are no longer shown):\n{}",
            self.opening,
            self.folded.len(),
            self.folded.join("\n")
        )
    }

    /// The conversation as the model reads it now: the newest `keep_full` steps whole, the
    /// older ones as one-line outcomes; images only in the newest step.
    pub fn messages(&self, keep_full: usize) -> Vec<Message> {
        let mut out = vec![Message::user(self.opening_text())];
        let n = self.turns.len();
        for (i, t) in self.turns.iter().enumerate() {
            let newest = i + 1 == n;
            let whole = i + keep_full >= n;
            out.push(t.reply.clone());
            let mut parts: Vec<Part> = t
                .results
                .iter()
                .map(|o| {
                    let mut rp = vec![ResultPart::Text(if whole { o.full.clone() } else { o.brief.clone() })];
                    if newest && let Some(img) = &o.image {
                        rp.push(ResultPart::Image(img.clone()));
                    }
                    Part::ToolResult(ToolResult {
                        call_id: o.call_id.clone(),
                        name: o.name.clone(),
                        parts: rp,
                        is_error: o.is_error,
                    })
                })
                .collect();
            if let Some(note) = t.note.as_ref().filter(|_| whole) {
                parts.push(Part::Text(note.clone()));
            }
            if parts.is_empty() {
                parts.push(Part::Text("(no tool was called)".into()));
            }
            out.push(Message { role: Role::User, parts });
        }
        out
    }

    /// The request of the next step; with `cache`, breakpoints after the stable prefix
    /// and after the history that no later step changes ([`World::stable_through`]).
    pub fn request(&self, system: &str, tools: &[ToolDef], keep_full: usize, limits: Limits, cache: bool) -> Request {
        let messages = self.messages(keep_full);
        let cache = match cache {
            true => Cache { prefix: true, through_message: Some(self.stable_through(keep_full)) },
            false => Cache::default(),
        };
        Request {
            system: system.to_string(),
            messages,
            tools: tools.to_vec(),
            tool_choice: ToolChoice::Auto,
            limits,
            asks: deft_llm::Asks::default(),
            cache,
        }
    }

    /// The last message that every later request repeats as it is: the opening, and the
    /// steps older than the newest `keep_full` (already shrunk to their one-line outcomes,
    /// their notes and images gone). A breakpoint on the newest message would be worth
    /// nothing: the next step shrinks an observation before it.
    pub fn stable_through(&self, keep_full: usize) -> usize {
        // Message 0 is the opening; step t is messages 2t+1 (the reply) and 2t+2 (results).
        2 * self.turns.len().saturating_sub(keep_full)
    }

    /// Forget images already shown (they were in the newest step's request).
    pub fn drop_shown_images(&mut self) {
        let n = self.turns.len();
        for t in self.turns.iter_mut().take(n.saturating_sub(1)) {
            for o in &mut t.results {
                o.image = None;
            }
        }
    }
}

/// One step in a line: each call (its tool and arguments) and what it came to.
fn fold(t: &Turn) -> String {
    let calls: Vec<String> = t
        .reply
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall(c) => Some(c),
            _ => None,
        })
        .map(|c| {
            let args = match &c.arguments {
                deft_llm::Arguments::Json(v) => v.to_string(),
                deft_llm::Arguments::Malformed { raw, .. } => raw.clone(),
            };
            let said = t.results.iter().find(|o| o.call_id == c.id).map_or("(no result)", |o| o.brief.as_str());
            format!("{} {} -> {}", c.name, clip(&args, 160), clip(said, 200))
        })
        .collect();
    match calls.is_empty() {
        true => format!("step {}: no tool called", t.step),
        false => format!("step {}: {}", t.step, calls.join("; ")),
    }
}

/// `s` cut to `max` characters, marked when cut.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", &s[..at]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use deft_llm::ToolCall;

    use super::*;

    fn turn(step: u32, full: &str, brief: &str, image: bool) -> Turn {
        let call = ToolCall {
            id: format!("c{step}"),
            name: "read".into(),
            arguments: deft_llm::Arguments::Json(serde_json::json!({})),
            signature: None,
        };
        Turn {
            step,
            reply: Message { role: Role::Assistant, parts: vec![Part::Text("thinking".into()), Part::ToolCall(call)] },
            results: vec![Obs {
                call_id: format!("c{step}"),
                name: "read".into(),
                full: full.into(),
                brief: brief.into(),
                is_error: false,
                image: image.then(|| Image::png(vec![1, 2, 3])),
            }],
            note: Some(format!("note {step}")),
        }
    }

    fn texts(m: &Message) -> String {
        m.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.clone(),
                Part::ToolResult(r) => r
                    .parts
                    .iter()
                    .map(|x| match x {
                        ResultPart::Text(t) => t.clone(),
                        ResultPart::Image(_) => "<image>".into(),
                    })
                    .collect(),
                _ => String::new(),
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn old_observations_shrink_and_images_show_once() {
        let mut w = World::new("Goal: x".into());
        w.turns.push(turn(1, "FULL1", "brief1", true));
        w.turns.push(turn(2, "FULL2", "brief2", false));
        w.turns.push(turn(3, "FULL3", "brief3", true));
        let m = w.messages(2);
        assert_eq!(m.len(), 7);
        assert_eq!(texts(&m[2]), "brief1", "old: one line, no note, no image");
        assert_eq!(texts(&m[4]), "FULL2|note 2");
        assert_eq!(texts(&m[6]), "FULL3<image>|note 3");
        w.drop_shown_images();
        w.turns.push(turn(4, "FULL4", "brief4", false));
        assert!(!w.messages(2).iter().any(|m| texts(m).contains("<image>")));
    }

    #[test]
    fn the_history_before_the_breakpoint_is_repeated_as_it_is_by_every_later_request() {
        let limits = Limits::default();
        let mut w = World::new("Goal: x".into());
        let mut earlier: Vec<Request> = Vec::new();
        for step in 1..=6 {
            w.turns.push(turn(step, &format!("FULL{step}"), &format!("brief{step}"), step % 2 == 0));
            let r = w.request("system", &[], 2, limits.clone(), true);
            let through = r.cache.through_message.expect("a breakpoint in the history");
            assert!(r.check().is_ok(), "{:?}", r.check());
            // Every earlier request's cached part is this request's first part, unchanged.
            for e in &earlier {
                let then = e.cache.through_message.unwrap();
                assert!(then <= through);
                assert_eq!(e.messages[..=then], r.messages[..=then], "step {step}");
            }
            w.drop_shown_images();
            earlier.push(r);
        }
        assert_eq!(earlier[5].cache.through_message, Some(8), "the opening and four shrunk steps");
        let off = w.request("system", &[], 2, limits, false);
        assert_eq!(off.cache, Cache::default());
    }

    #[test]
    fn old_steps_fold_into_lines_a_chunk_at_a_time() {
        let mut w = World::new("Goal: x".into());
        for step in 1..=5 {
            w.turns.push(turn(step, &format!("FULL{step}"), &format!("brief{step}"), false));
        }
        w.compact(4, 2);
        assert_eq!((w.turns.len(), w.folded.len()), (5, 0), "5 turns: not yet past 4 + a chunk of 2");
        w.turns.push(turn(6, "FULL6", "brief6", false));
        w.compact(4, 2);
        assert_eq!((w.turns.len(), w.folded.len()), (4, 2));
        assert_eq!(w.folded, ["step 1: read {} -> brief1", "step 2: read {} -> brief2"]);
        let m = w.messages(2);
        assert_eq!(m.len(), 1 + 2 * 4, "the opening, then the 4 steps left");
        let opening = texts(&m[0]);
        assert!(opening.starts_with("Goal: x\n\nThe first 2 steps, one line each"), "{opening}");
        assert!(opening.ends_with("step 2: read {} -> brief2") && !opening.contains("thinking"), "{opening}");
        // The next step adds a turn and folds nothing: the opening stays as it was (cached).
        w.turns.push(turn(7, "FULL7", "brief7", false));
        w.compact(4, 2);
        assert_eq!(texts(&w.messages(2)[0]), opening);
    }

    #[test]
    fn a_long_task_s_requests_stop_growing_with_every_step() {
        // 60 steps of a realistic size: a 400-character thought, a 2,500-character
        // observation, a 120-character outcome line.
        let thought = "t".repeat(400);
        let request_chars = |w: &World| w.messages(3).iter().map(|m| format!("{m:?}").len()).sum::<usize>();
        let (mut plain, mut folded) = (World::new("Goal".into()), World::new("Goal".into()));
        let (mut sizes_plain, mut sizes_folded) = (Vec::new(), Vec::new());
        for step in 1..=60 {
            let mut t = turn(step, &"o".repeat(2_500), &"b".repeat(120), false);
            t.reply.parts[0] = Part::Text(thought.clone());
            plain.turns.push(t.clone());
            folded.turns.push(t);
            folded.compact(16, 8);
            sizes_plain.push(request_chars(&plain));
            sizes_folded.push(request_chars(&folded));
        }
        let total = |v: &[usize]| v.iter().sum::<usize>();
        println!(
            "60 steps: 60th request {} -> {} chars; all 60 requests {} -> {} chars",
            sizes_plain[59],
            sizes_folded[59],
            total(&sizes_plain),
            total(&sizes_folded)
        );
        // From step 30 to step 60, a kept step costs its thought and outcome each request;
        // a folded one only its line.
        let per_step = |v: &[usize]| (v[59] - v[29]) / 30;
        assert!(per_step(&sizes_plain) > 500, "{}", per_step(&sizes_plain));
        assert!(per_step(&sizes_folded) < 200, "{}", per_step(&sizes_folded));
        assert!(sizes_folded[59] * 10 < sizes_plain[59] * 6, "the 60th request: {sizes_folded:?}");
    }
}
