//! Running a checked call through the desktop, and what follows an action: the belief,
//! the expected outcome, failures, the calibration pair.

use std::time::{Duration, Instant};

use deft_llm::ToolCall as LlmCall;
use deft_toolbelt::{ToolCall, ToolOutput};
use serde_json::Value;

use crate::belief::Known;
use crate::calibrate::{Record, Verdict};
use crate::cue;
use crate::events::AgentEvent;
use crate::handle::rewritten_args;
use crate::observe;
use crate::run::{Agent, Clock};
use crate::state::RunState;
use crate::tools::Extras;
use crate::world::Obs;

impl Agent<'_> {
    /// Run a (checked) call through the desktop and observe it; for actions, update the
    /// belief, check the expected outcome, count failures, record the calibration pair.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn execute(
        &self,
        state: &mut RunState,
        clock: &mut Clock,
        c: &LlmCall,
        tc: &ToolCall,
        words: &str,
        extras: &Extras,
        pre: Option<String>,
        scored: Option<Record>,
    ) -> Obs {
        let step = state.step;
        let t = Instant::now();
        let out = self.desktop.call(tc).await;
        let took = t.elapsed();
        clock.tool += took;
        clock.actions += 1;
        let mut image = None;
        let mut r = match &out {
            Ok(o) => observe::output(words, o),
            Err(e) => observe::error(words, e),
        };
        if let Ok(ToolOutput::Screenshot(s)) = &out {
            if self.config.vision {
                image = Some(deft_llm::Image::png(s.png.clone()));
            } else {
                r.full.push_str(
                    "this model is not set up to take images (vision = false): use read or ocr to see the screen\n",
                );
            }
        }
        if let Some(p) = pre {
            // After the status line, which stays first.
            r.full = match r.full.split_once('\n') {
                Some((status, rest)) => format!("{status}\n{p}\n{rest}"),
                None => format!("{}\n{p}", r.full),
            };
        }
        if tc.name().acts() {
            let (ok, known, place, observed) = match &out {
                Ok(ToolOutput::Action(a)) => {
                    let o = &a.outcome;
                    let received = o.attempts.last().is_some_and(|x| x.result == deft_types::AttemptResult::Received);
                    let known = match (o.ok, o.verified) {
                        (false, _) => Known::Failed,
                        (true, Some(true)) => Known::Verified,
                        (true, _) if received => Known::Received,
                        (true, _) => Known::Sent,
                    };
                    let place = o.target.as_ref().and_then(|t| t.app.clone().map(|a| (a, t.window.clone())));
                    (o.ok, known, place, o.observed.clone())
                }
                Ok(_) => (true, Known::Sent, None, String::new()),
                Err(e) => (false, Known::Failed, None, e.message.clone()),
            };
            let mut met = None;
            if let Some(exp) = &extras.expected_outcome {
                let vision = self.vision.filter(|_| self.config.vision);
                let tt = Instant::now();
                let cue =
                    cue::wait_for(self.desktop, vision, exp, Duration::from_millis(self.config.expected_outcome_ms), 1)
                        .await;
                clock.tool += tt.elapsed();
                state.vision_calls += cue.vision_calls;
                state.model_calls += cue.vision_calls;
                clock.model_calls += cue.vision_calls;
                let line = match (cue.met, &cue.condition) {
                    (true, _) => format!("expected_outcome: seen through {}", cue.channel.as_deref().unwrap_or("?")),
                    (false, Some(cond)) => format!(
                        "expected_outcome: NOT seen within {} ms (checked as {cond})",
                        self.config.expected_outcome_ms
                    ),
                    (false, None) if cue.vision_calls == 0 => {
                        "expected_outcome: not checked (quote the text you expect, or enable vision)".to_string()
                    }
                    (false, None) => "expected_outcome: NOT seen by the vision model".to_string(),
                };
                if cue.met || cue.condition.is_some() || cue.vision_calls > 0 {
                    met = Some(cue.met);
                }
                r.full.push_str(&format!("{line}\n"));
                if met == Some(false) {
                    r.is_error = true;
                }
            }
            if let Some(d) = state.belief.after_action(
                words.to_string(),
                place,
                known,
                &observed,
                extras.expected_outcome.clone(),
                met,
            ) {
                self.emit(AgentEvent::Divergence { step, believed: d.believed.clone(), observed: d.observed.clone() });
                clock.notes.push(format!(
                    "DIVERGENCE: you believed {}; {}",
                    d.believed,
                    observe::untrusted_inline(&d.observed)
                ));
            }
            let signature = format!(
                "{}:{}",
                c.name,
                serde_json::to_string(&rewritten_args(tc, &Value::Null, &Extras::default())).unwrap_or_default()
            );
            if !ok {
                state.failures += 1;
                *state.failing.entry(signature).or_insert(0) += 1;
            }
            if let Some(rec) = scored {
                state.records.push(Record { verdict: if ok { Verdict::Worked } else { Verdict::Failed }, ..rec });
            }
        }
        self.emit(AgentEvent::Observation {
            step,
            tool: c.name.clone(),
            ok: r.ok,
            summary: r.brief.clone(),
            elapsed_ms: took.as_millis() as u64,
        });
        Obs { call_id: c.id.clone(), name: c.name.clone(), full: r.full, brief: r.brief, is_error: r.is_error, image }
    }
}
