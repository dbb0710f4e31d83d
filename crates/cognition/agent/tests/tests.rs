//! deft-agent's loop without a display: a fake model (a closure over the request the agent
//! really built) and a fake desktop (a closure over the toolbelt call). One binary, topic
//! modules.

mod bad_input;
mod cue;
mod executive;
mod modes;
mod tool_list;

use std::sync::{Arc, Mutex};

use deft_agent::{Agent, AgentConfig, Asker, Desktop, FixedAnswer, RunReport};
use deft_llm::{
    AnyModel, Arguments, Call, Choice, LlmError, Model, ModelInfo, Part, Request, Response, Stop, StopReason,
    TokenLogprob, ToolCall as LlmCall, TopLogprob, Usage,
};
use deft_toolbelt::{ActionReport, FindMatch, FindReport, ReadReport, ToolCall, ToolError, ToolOutput};
use deft_types::{ActionKind, ElementId, Outcome, Role, State, TargetInfo};

/// A model answering with a closure over the request; records every request.
#[derive(Clone)]
pub struct FnModel {
    f: Arc<dyn Fn(&Request) -> Reply + Send + Sync>,
    /// Every request received.
    pub seen: Arc<Mutex<Vec<Request>>>,
    /// The estimated cost of each call (`None`: the price is unknown).
    cost_usd: Option<f64>,
}

/// What the fake model answers.
pub enum Reply {
    /// Text and tool calls `(name, arguments as text)`.
    Say(&'static str, Vec<(&'static str, &'static str)>),
    /// One letter with log-probabilities per letter.
    Letters(Vec<(&'static str, f64)>),
}

impl FnModel {
    /// A model answering with `f`.
    pub fn new(f: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> FnModel {
        FnModel { f: Arc::new(f), seen: Arc::new(Mutex::new(Vec::new())), cost_usd: Some(0.0) }
    }

    /// The same model, each call costing `cost_usd` (`None`: of unknown price).
    pub fn costing(self, cost_usd: Option<f64>) -> FnModel {
        FnModel { cost_usd, ..self }
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }
}

impl Model for FnModel {
    fn describe(&self) -> ModelInfo {
        ModelInfo { provider: "openai-compatible".into(), model: "fake".into() }
    }

    async fn complete(&self, request: &Request, _call: &Call<'_>) -> Result<Response, LlmError> {
        self.seen.lock().unwrap().push(request.clone());
        let n = self.seen.lock().unwrap().len();
        let choice = match (self.f)(request) {
            Reply::Say(text, calls) => {
                let mut parts = vec![Part::Text(text.into())];
                for (i, (name, args)) in calls.into_iter().enumerate() {
                    parts.push(Part::ToolCall(LlmCall {
                        id: format!("c{n}_{i}"),
                        name: name.into(),
                        arguments: Arguments::parse(args),
                        signature: None,
                    }));
                }
                Choice { parts, stop: Stop { reason: StopReason::ToolUse, raw: String::new() }, logprobs: None }
            }
            Reply::Letters(p) => Choice {
                parts: vec![Part::Text(p[0].0.into())],
                stop: Stop { reason: StopReason::EndTurn, raw: String::new() },
                logprobs: Some(vec![TokenLogprob {
                    token: p[0].0.into(),
                    logprob: p[0].1.ln(),
                    top: p.iter().map(|(t, q)| TopLogprob { token: (*t).into(), logprob: q.ln() }).collect(),
                }]),
            },
        };
        Ok(Response {
            model: "fake".into(),
            choice,
            samples: vec![],
            usage: Usage { input_tokens: 100, output_tokens: 10, ..Usage::default() },
            cost_usd: self.cost_usd,
            attempts: 1,
        })
    }
}

/// Whether a request is the executive function's check.
pub fn is_check(r: &Request) -> bool {
    r.system.starts_with(deft_agent::prompt::CHECK_HEADER)
}

/// An element for fake outputs.
pub fn element(id: &str, role: &str, name: &str) -> deft_types::Element {
    let mut e = deft_a11y_element(id, role, name);
    e.states.insert(State::Showing);
    e.states.insert(State::Enabled);
    e
}

fn deft_a11y_element(id: &str, role: &str, name: &str) -> deft_types::Element {
    deft_types::Element {
        id: ElementId(id.into()),
        role: Role::new(role),
        name: name.into(),
        description: String::new(),
        states: Default::default(),
        bounds: None,
        text: None,
        value: None,
        actions: vec![],
        child_count: 0,
    }
}

/// A `find` report of these (ref, role, name, window) matches.
pub fn found(matches: &[(&str, &str, &str, &str)]) -> ToolOutput {
    ToolOutput::Find(FindReport {
        query: String::new(),
        count: matches.len(),
        matches: matches
            .iter()
            .enumerate()
            .map(|(i, (r, role, name, window))| FindMatch {
                index: i,
                reference: (*r).into(),
                element: element(&format!("app|{r}"), role, name),
                app: "fixture".into(),
                window: Some((*window).into()),
                path: vec![0, i as u32],
                selector: String::new(),
            })
            .collect(),
        problems: vec![],
        ocr_matches: vec![],
    })
}

/// A `read` report with this outline.
pub fn outline(text: &str) -> ToolOutput {
    ToolOutput::Read(ReadReport { roots: vec![], count: text.lines().count(), problems: vec![], outline: text.into() })
}

/// An action's verified outcome.
pub fn acted(ok: bool, observed: &str, window: &str) -> ToolOutput {
    ToolOutput::Action(ActionReport {
        outcome: Outcome {
            ok,
            action: ActionKind::Click,
            verified: Some(ok),
            retried: false,
            retry_reason: None,
            target: Some(TargetInfo {
                id: None,
                role: None,
                name: "x".into(),
                bounds: None,
                app: Some("fixture".into()),
                window: Some(window.into()),
            }),
            expected: "any UI change".into(),
            observed: observed.into(),
            attempts: vec![],
            blocking: None,
            suggested_action: None,
            failure: None,
            evidence: vec![],
            elapsed_ms: 5,
            seen: deft_types::Seen::default(),
            seen_by: None,
        },
        changes: Some(format!("label {observed:?} [e99]\n")),
    })
}

/// A fake desktop with a fixture-like window: `read` shows `OUTLINE`, `find` resolves
/// refs e1..e4, actions succeed.
pub const OUTLINE: &str =
    "frame \"Fixture\" [e1]\n  text \"Name\" [e2]\n  push_button \"Hello\" [e3]\n  push_button \"Delete all\" [e4]\n";

/// The fake desktop.
pub fn desktop() -> deft_agent::FakeDesktop {
    deft_agent::FakeDesktop::new(|call: &ToolCall| -> Result<ToolOutput, ToolError> {
        match call {
            ToolCall::Read(_) => Ok(outline(OUTLINE)),
            ToolCall::Find(f) => {
                let t = f.target.target.as_deref().or(f.target.name.as_deref()).unwrap_or_default();
                Ok(match t {
                    "e2" | "Name" => found(&[("e2", "text", "Name", "Fixture")]),
                    "e3" | "Hello" => found(&[("e3", "push_button", "Hello", "Fixture")]),
                    "e4" | "Delete all" => found(&[("e4", "push_button", "Delete all", "Fixture")]),
                    "e7" => found(&[("e7", "push_button", "Admin", "Admin window")]),
                    _ => found(&[]),
                })
            }
            ToolCall::Click(_) | ToolCall::Type(_) => Ok(acted(true, "Clicked", "Fixture")),
            other => Err(ToolError::usage(format!("the fake desktop has no {:?}", other.name()))),
        }
    })
}

/// Run `goal` with `model` on `desktop`, asking `asker`, with `config`.
pub fn run_with(
    model: &FnModel,
    desktop: &dyn Desktop,
    asker: &dyn Asker,
    config: &AgentConfig,
    goal: &str,
) -> RunReport {
    let any = AnyModel::new(model.clone());
    let agent = Agent { model: &any, vision: None, desktop, asker, config, scope: None, sink: None, bus: None };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(agent.run(goal, "test-run")).expect("the run starts")
}

/// A never-asked asker.
pub fn no_asker() -> FixedAnswer {
    FixedAnswer(deft_agent::Answer::Unavailable("no one is there in this test".into()))
}

/// The tool result texts of the newest request.
pub fn last_results(model: &FnModel) -> Vec<String> {
    let reqs: Vec<Request> = model.requests().into_iter().filter(|r| !is_check(r)).collect();
    let last = reqs.last().unwrap();
    last.messages
        .last()
        .unwrap()
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolResult(r) => Some(
                r.parts
                    .iter()
                    .filter_map(|x| if let deft_llm::ResultPart::Text(t) = x { Some(t.clone()) } else { None })
                    .collect::<String>(),
            ),
            Part::Text(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}
