//! The script format: one turn per line (JSON Lines), shared by `Scripted` and `Record`.
//!
//! ```text
//! # Lines starting with # are comments; blank lines are skipped.
//! {"expect": ["Submit"], "reply": {"text": "I will click it.", "tool_calls": [{"name": "click", "arguments": {"name": "Submit"}}]}}
//! {"reply": {"text": "Done."}}
//! {"error": {"class": "rate_limited", "message": "simulated 429"}}
//! {"response": {...a whole Response, as Record writes it...}}
//! ```
//!
//! Each turn answers one call, in order, with exactly one of `reply` (short form),
//! `response` (the full [`Response`]) or `error` (an [`ErrorClass`] and a message).
//! `expect` lists substrings the newest message of the request must contain; a turn
//! whose expectation fails ends the call with [`LlmError::ScriptMismatch`], so a demo
//! that drifted from its script fails loudly. `request` is what `Record` writes about the
//! request (newest message, images as SHA-256 references); it is not checked.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::{ErrorClass, LlmError};
use crate::message::{Arguments, Image, Message, Part, ResultPart, ToolCall};
use crate::response::{Choice, Response, Stop, StopReason, Usage};

/// One turn of a script.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Substrings the newest message of the request must contain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<String>,
    /// What the recorded request was (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Value>,
    /// The answer in short form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<Reply>,
    /// The answer as a whole response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Response>,
    /// A failure instead of an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ScriptedError>,
}

/// A reply in short form: text and tool calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// The text (the agent's thought).
    #[serde(default)]
    pub text: String,
    /// Tool calls.
    #[serde(default)]
    pub tool_calls: Vec<ReplyCall>,
}

/// A tool call in a [`Reply`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyCall {
    /// The call id; `call_<turn>_<n>` when absent.
    #[serde(default)]
    pub id: Option<String>,
    /// The tool.
    pub name: String,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Value,
}

/// A scripted failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedError {
    /// The class the failure stands for (`rate_limited`, `timeout`, ...).
    pub class: ErrorClass,
    /// Its message.
    pub message: String,
}

impl Turn {
    /// The answer of this turn (the `turn`-th, 1-based, for generated call ids).
    pub(crate) fn answer(&self, turn: usize) -> Result<Response, LlmError> {
        if let Some(e) = &self.error {
            return Err(LlmError::Replayed { class: e.class, message: e.message.clone() });
        }
        if let Some(r) = &self.response {
            return Ok(r.clone());
        }
        let reply = self.reply.as_ref().expect("checked when the script was read");
        let mut parts = Vec::new();
        if !reply.text.is_empty() {
            parts.push(Part::Text(reply.text.clone()));
        }
        for (i, c) in reply.tool_calls.iter().enumerate() {
            parts.push(Part::ToolCall(ToolCall {
                id: c.id.clone().unwrap_or_else(|| format!("call_{turn}_{}", i + 1)),
                name: c.name.clone(),
                arguments: Arguments::Json(if c.arguments.is_null() { json!({}) } else { c.arguments.clone() }),
                signature: None,
            }));
        }
        let reason = if reply.tool_calls.is_empty() { StopReason::EndTurn } else { StopReason::ToolUse };
        Ok(Response {
            model: "scripted".into(),
            choice: Choice { parts, stop: Stop::new(reason, "scripted"), logprobs: None },
            samples: Vec::new(),
            usage: Usage::default(),
            cost_usd: Some(0.0),
            attempts: 1,
        })
    }
}

/// Reads a script's text; `path` is for messages.
pub(crate) fn parse(path: &Path, text: &str) -> Result<Vec<Turn>, LlmError> {
    let mut turns = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |detail: String| LlmError::Script { path: path.to_path_buf(), line: Some(i + 1), detail };
        let turn: Turn = serde_json::from_str(line).map_err(|e| err(e.to_string()))?;
        let answers = [turn.reply.is_some(), turn.response.is_some(), turn.error.is_some()];
        if answers.iter().filter(|&&a| a).count() != 1 {
            return Err(err("a turn needs exactly one of \"reply\", \"response\" or \"error\"".into()));
        }
        turns.push(turn);
    }
    Ok(turns)
}

/// The text a turn's `expect` is matched against: the newest message's text, tool call
/// names and arguments, and tool result texts.
pub(crate) fn searchable(m: &Message) -> String {
    let mut out = Vec::new();
    for p in &m.parts {
        match p {
            Part::Text(t) => out.push(t.clone()),
            Part::ToolCall(c) => out.push(format!("{} {}", c.name, c.arguments.to_text())),
            Part::ToolResult(r) => out.extend(
                r.parts.iter().filter_map(|p| if let ResultPart::Text(t) = p { Some(t.clone()) } else { None }),
            ),
            Part::Image(_) | Part::Opaque(_) => {}
        }
    }
    out.join("\n")
}

fn image_ref(img: &Image) -> Value {
    json!({ "media_type": img.media_type.as_str(), "sha256": img.sha256(), "bytes": img.data.len() })
}

/// A message as `Record` writes it: images replaced by their digest and size.
pub(crate) fn summary(m: &Message) -> Value {
    let parts: Vec<Value> = m
        .parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => json!({ "text": t }),
            Part::Image(img) => json!({ "image": image_ref(img) }),
            Part::ToolCall(c) => {
                json!({ "tool_call": { "id": c.id, "name": c.name, "arguments": c.arguments.to_text() } })
            }
            Part::ToolResult(r) => json!({ "tool_result": {
                "call_id": r.call_id,
                "name": r.name,
                "is_error": r.is_error,
                "parts": r.parts.iter().map(|p| match p {
                    ResultPart::Text(t) => json!({ "text": t }),
                    ResultPart::Image(img) => json!({ "image": image_ref(img) }),
                }).collect::<Vec<_>>(),
            } }),
            Part::Opaque(o) => json!({ "opaque": o.provider }),
        })
        .collect();
    json!({ "role": m.role, "parts": parts })
}
