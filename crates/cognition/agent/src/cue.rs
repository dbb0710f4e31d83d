//! `wait_for_visual_cue(description, timeout)`, cheap first. A description that names a
//! text or an element becomes a condition the executor waits on, woken by accessibility
//! events and reading the screen by OCR; only what those channels cannot decide goes to a
//! vision model, and only when the pixels changed since its last look, a bounded number
//! of times. The same check serves an action's `expected_outcome`.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use deft_llm::{Call, Image, Limits, Model, Request, ResultPart};
use deft_toolbelt::{ScreenshotParams, ToolCall, ToolOutput, WaitParams};
use serde::Serialize;

use crate::desktop::Desktop;
use crate::prompt;

/// What came of a cue.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CueOutcome {
    /// It was seen in time.
    pub met: bool,
    /// Which channel saw it (`accessibility`, `ocr`, `vision`), or which decided it could not.
    pub channel: Option<String>,
    /// The condition the description became, when it became one.
    pub condition: Option<String>,
    /// Vision model calls made.
    pub vision_calls: u32,
    /// Time from the start to the verdict.
    pub elapsed_ms: u64,
    /// What was seen last, in words (screen text: shown to the model as untrusted).
    pub detail: String,
}

fn quoted(s: &str) -> Option<String> {
    for (open, close) in [('"', '"'), ('“', '”'), ('«', '»'), ('‘', '’'), ('\'', '\'')] {
        // An opening quote starts a word and a closing one ends it (so "the order's 'Saved'"
        // quotes Saved, not "s ").
        let starts = s.char_indices().filter(|&(i, c)| c == open && !s[..i].ends_with(char::is_alphanumeric));
        for (a, _) in starts {
            let body = a + open.len_utf8();
            let end = s[body..]
                .char_indices()
                .find(|&(j, c)| c == close && !s[body + j + close.len_utf8()..].starts_with(char::is_alphanumeric));
            if let Some((j, _)) = end {
                let q = s[body..body + j].trim();
                if !q.is_empty() {
                    return Some(q.to_string());
                }
            }
        }
    }
    None
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The condition (in the executor's syntax) a description names, when it names one.
pub fn compile(description: &str) -> Option<String> {
    let d = description.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| d.split(|c: char| !c.is_alphanumeric()).any(|x| x == *w));
    let gone = has(&["gone", "disappears", "disappear", "disappeared", "vanishes", "closes", "closed", "hidden", "no"]);
    if let Some(text) = quoted(description) {
        if gone {
            return Some(format!("text-gone:{}", quote(&text)));
        }
        if has(&["window", "dialog", "title", "titled"]) && has(&["title", "titled", "called", "named"]) {
            return Some(format!("title:{}", quote(&text)));
        }
        return Some(format!("text:{}", quote(&text)));
    }
    if has(&["dialog"]) && !gone {
        return Some("role:dialog".into());
    }
    None
}

/// Wait for the cue. `vision` is the model that looks when no condition can be made of the
/// description; `None` when there is none.
pub async fn wait_for<D: Desktop + ?Sized, M: Model>(
    desktop: &D,
    vision: Option<&M>,
    description: &str,
    timeout: Duration,
    max_vision_calls: u32,
) -> CueOutcome {
    let start = Instant::now();
    let ms = || start.elapsed().as_millis() as u64;
    if let Some(condition) = compile(description) {
        let call = ToolCall::WaitFor(WaitParams {
            condition: Some(condition.clone()),
            timeout_ms: Some(timeout.as_millis() as u64),
            ..WaitParams::default()
        });
        return match desktop.call(&call).await {
            Ok(ToolOutput::Wait(w)) => CueOutcome {
                met: w.ok,
                channel: w.outcome.channel.map(|c| crate::observe::snake(&c)),
                condition: Some(condition),
                vision_calls: 0,
                elapsed_ms: ms(),
                detail: w.outcome.last_observed,
            },
            Ok(_) => CueOutcome {
                met: false,
                channel: None,
                condition: Some(condition),
                vision_calls: 0,
                elapsed_ms: ms(),
                detail: "the wait returned no outcome".into(),
            },
            Err(e) => CueOutcome {
                met: false,
                channel: None,
                condition: Some(condition),
                vision_calls: 0,
                elapsed_ms: ms(),
                detail: e.message,
            },
        };
    }
    let Some(model) = vision else {
        return CueOutcome {
            met: false,
            channel: None,
            condition: None,
            vision_calls: 0,
            elapsed_ms: ms(),
            detail: "the description names no text (quote it) or dialog, and no vision model is configured to look"
                .into(),
        };
    };
    look_until(desktop, model, description, start, timeout, max_vision_calls).await
}

/// The vision channel: a screenshot every `LOOK_EVERY`; the model is asked only when it
/// differs from the one it last saw, at most `max_calls` times.
async fn look_until<D: Desktop + ?Sized, M: Model>(
    desktop: &D,
    model: &M,
    description: &str,
    start: Instant,
    timeout: Duration,
    max_calls: u32,
) -> CueOutcome {
    const LOOK_EVERY: Duration = Duration::from_millis(250);
    let mut last_seen: Option<u64> = None;
    let mut calls = 0;
    let mut detail = "nothing looked at yet".to_string();
    loop {
        if let Ok(ToolOutput::Screenshot(shot)) = desktop.call(&ToolCall::Screenshot(ScreenshotParams::default())).await
        {
            let digest = {
                let mut h = DefaultHasher::new();
                shot.png.hash(&mut h);
                h.finish()
            };
            if last_seen != Some(digest) && calls < max_calls {
                last_seen = Some(digest);
                calls += 1;
                match ask_vision(model, description, shot.png).await {
                    Ok(true) => {
                        return CueOutcome {
                            met: true,
                            channel: Some("vision".into()),
                            condition: None,
                            vision_calls: calls,
                            elapsed_ms: start.elapsed().as_millis() as u64,
                            detail: format!("the vision model saw it (look {calls})"),
                        };
                    }
                    Ok(false) => {
                        detail = format!("the vision model did not see it (look {calls} of at most {max_calls})")
                    }
                    Err(e) => detail = format!("the vision model failed: {e}"),
                }
            }
        }
        let elapsed = start.elapsed();
        if elapsed >= timeout || calls >= max_calls {
            return CueOutcome {
                met: false,
                channel: None,
                condition: None,
                vision_calls: calls,
                elapsed_ms: elapsed.as_millis() as u64,
                detail,
            };
        }
        tokio::time::sleep(LOOK_EVERY.min(timeout - elapsed)).await;
    }
}

/// One vision call: does the screenshot show the description?
pub async fn ask_vision<M: Model>(model: &M, description: &str, png: Vec<u8>) -> Result<bool, deft_llm::LlmError> {
    let (system, user) = prompt::vision(description);
    let mut req = Request::new(system, user);
    req.messages[0].parts.push(deft_llm::Part::Image(Image::png(png)));
    req.limits = Limits { max_tokens: 5, temperature: Some(0.0), stop: Vec::new() };
    let r = model.complete(&req, &Call::default()).await?;
    Ok(r.text().trim().to_lowercase().starts_with("yes"))
}

/// A screenshot as a tool-result image part.
pub fn image_part(png: Vec<u8>) -> ResultPart {
    ResultPart::Image(Image::png(png))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_that_name_text_become_conditions() {
        let c = |d: &str| compile(d);
        assert_eq!(c("the text \"Save complete\" appears").as_deref(), Some("text:\"Save complete\""));
        assert_eq!(c("“Saving...” is gone").as_deref(), Some("text-gone:\"Saving...\""));
        assert_eq!(c("a dialog titled 'Save complete' appears").as_deref(), Some("title:\"Save complete\""));
        assert_eq!(c("a dialog appears").as_deref(), Some("role:dialog"));
        assert_eq!(c("the progress bar turns green"), None);
        assert_eq!(c("text 'say \"hi\"'").as_deref(), Some("text:\"hi\""));
        assert_eq!(c("the order's status shows 'Saved'").as_deref(), Some("text:\"Saved\""));
    }
}
