//! The step-by-step display of a run on stderr: the thought as it streams, the confidence,
//! the action and its verified outcome, questions and answers, divergences.

use std::io::Write;
use std::sync::Mutex;

use deft_agent::AgentEvent;

use crate::output::Style;

/// Prints events to stderr as they come.
pub struct Display {
    style: Style,
    /// Whether the current line is a streamed thought still open.
    streaming: Mutex<Option<u32>>,
}

impl Display {
    /// A display, colored or not.
    pub fn new(color: bool) -> Display {
        Display { style: Style { color }, streaming: Mutex::new(None) }
    }

    /// Show one event.
    pub fn show(&self, e: &AgentEvent) {
        let st = &self.style;
        let mut err = std::io::stderr().lock();
        let mut open = self.streaming.lock().unwrap_or_else(|p| p.into_inner());
        if let AgentEvent::ThoughtDelta { step, text } = e {
            if *open != Some(*step) {
                let _ = write!(err, "\n{} {}", st.bold(&format!("step {step}")), st.dim("thought: "));
                *open = Some(*step);
            }
            let _ = write!(err, "{text}");
            let _ = err.flush();
            return;
        }
        let was_streaming = open.take();
        let line = match e {
            AgentEvent::RunStarted { run_id, goal, model, resumed } => format!(
                "{} {run_id} {}\n  goal: {goal}\n  model: {model}{}",
                st.bold(if *resumed { "resumed run" } else { "run" }),
                st.dim(""),
                if model.contains("deft-test-model") { " (test model: a deterministic stand-in, not an LLM)" } else { "" }
            ),
            AgentEvent::Thought { step, text } => {
                if was_streaming == Some(*step) {
                    String::new()
                } else {
                    format!("{} {}{}", st.bold(&format!("step {step}")), st.dim("thought: "), text.trim())
                }
            }
            AgentEvent::Proposed { tool, args, target, .. } => match target {
                Some(t) => format!("  action: {tool} {t} {}", st.dim(&compact(args))),
                None => format!("  action: {tool} {}", st.dim(&compact(args))),
            },
            AgentEvent::Confidence { score, model, method, candidates, reversible, failures, threshold, .. } => {
                let mark = if score >= threshold { st.green("≥") } else { st.red("<") };
                format!(
                    "  confidence {score:.2} {mark} {threshold:.2} ({method} {}, {candidates} candidate(s), {}, {failures} failure(s) so far)",
                    model.map_or("-".into(), |m| format!("{m:.2}")),
                    if *reversible { "reversible" } else { "maybe irreversible" }
                )
            }
            AgentEvent::PolicyBlocked { reason, .. } => format!("  {} {reason}", st.red("blocked by policy:")),
            AgentEvent::Asked { question, reason, .. } => format!("  {} ({reason}) {question}", st.bold("asks:")),
            AgentEvent::Answered { answer, .. } => match answer {
                Some(a) => format!("  answer: {a}"),
                None => "  no one can answer now: the run pauses (needs_input)".into(),
            },
            AgentEvent::Observation { ok, summary, elapsed_ms, .. } => {
                let mark = match ok {
                    Some(true) => st.green("✓"),
                    Some(false) => st.red("✗"),
                    None => st.dim("·"),
                };
                format!("  {mark} {summary} {}", st.dim(&format!("[{elapsed_ms} ms]")))
            }
            AgentEvent::Divergence { believed, observed, .. } => {
                format!("  {} believed {believed}; {observed}", st.red("divergence:"))
            }
            AgentEvent::StepStats { prompt_tokens, output_tokens, model_ms, tool_ms, overhead_ms, model_calls, .. } => {
                st.dim(&format!(
                    "  {model_calls} model call(s), {prompt_tokens} prompt + {output_tokens} output tokens; model {model_ms} ms, tools {tool_ms} ms, agent {overhead_ms} ms"
                ))
            }
            AgentEvent::Finished { status, summary, steps } => {
                format!("{} {status} after {steps} step(s): {summary}", st.bold("finished:"))
            }
            AgentEvent::ThoughtDelta { .. } => String::new(),
        };
        if was_streaming.is_some() {
            let _ = writeln!(err);
        }
        if !line.is_empty() {
            let _ = writeln!(err, "{line}");
        }
    }
}

fn compact(v: &serde_json::Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 { format!("{}…", s.chars().take(120).collect::<String>()) } else { s }
}
